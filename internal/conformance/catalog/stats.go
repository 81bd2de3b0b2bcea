package catalog

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/numascope/numascope/diagnose/evidence/catalog"
)

// WriteSummary prints a catalogue's figures: entries by manager and kind,
// entries per release, and the calls without constant text by manager.
func WriteSummary(w io.Writer, r *Result) {
	fmt.Fprintf(w, "%d entries from %d releases\n", len(r.Entries), len(r.Header.Releases))
	kinds := []catalog.Kind{catalog.KindLog, catalog.KindError, catalog.KindEvent, catalog.KindAdmit, catalog.KindFlag}
	byMgr := map[string]map[catalog.Kind]int{}
	for _, e := range r.Entries {
		for _, m := range e.Managers {
			if byMgr[m] == nil {
				byMgr[m] = map[catalog.Kind]int{}
			}
			byMgr[m][e.Kind]++
		}
	}
	unByMgr := map[string]int{}
	for _, u := range r.Unresolved {
		unByMgr[u.Manager]++
	}
	var mgrs []string
	for m := range byMgr {
		mgrs = append(mgrs, m)
	}
	for m := range unByMgr {
		if byMgr[m] == nil {
			mgrs = append(mgrs, m)
		}
	}
	sort.Strings(mgrs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "manager\t")
	for _, k := range kinds {
		fmt.Fprintf(tw, "%s\t", k)
	}
	fmt.Fprint(tw, "all\tno constant text\t\n")
	for _, m := range mgrs {
		fmt.Fprintf(tw, "%s\t", m)
		n := 0
		for _, k := range kinds {
			fmt.Fprintf(tw, "%d\t", byMgr[m][k])
			n += byMgr[m][k]
		}
		fmt.Fprintf(tw, "%d\t%d\t\n", n, unByMgr[m])
	}
	tw.Flush()
	perRelease := map[int]int{}
	for _, e := range r.Entries {
		for _, v := range e.Releases.Minors() {
			perRelease[v]++
		}
	}
	var parts []string
	for _, rel := range r.Header.Releases {
		var minor int
		fmt.Sscanf(rel.Release, "1.%d", &minor)
		parts = append(parts, fmt.Sprintf("%s:%d", rel.Release, perRelease[minor]))
	}
	fmt.Fprintf(w, "entries per release: %s\n", strings.Join(parts, " "))
	if len(r.ParseErrors) > 0 {
		fmt.Fprintf(w, "%d files did not parse:\n  %s\n", len(r.ParseErrors), strings.Join(r.ParseErrors, "\n  "))
	}
}

// WriteUnresolved lists the calls without constant text.
func WriteUnresolved(w io.Writer, r *Result) {
	for _, u := range r.Unresolved {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", u.Releases, u.File, u.Func, u.Call, u.Why)
	}
}
