package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/stretchr/testify/require"
)

// sampleArgs are arguments for an entry's verbs that print as the verb
// expects: numbers for %d, strings for %s and %q, errors for error
// operands. Strings carry the verb's index so captures can be told apart.
// Tricky ones hold what the formats are made of: separators, quotes, and
// an error's own "rpc error: ... desc = " text.
func sampleArgs(e *Entry, tricky bool) []any {
	errs := map[int]bool{}
	for _, i := range e.Errs {
		errs[i] = true
	}
	var args []any
	for i, v := range Verbs(e.Format) {
		c := v[len(v)-1]
		for range strings.Count(v, "*") {
			args = append(args, 3)
		}
		switch {
		case tricky && (c == 'w' || errs[i] && (c == 'v' || c == 's')):
			args = append(args, errors.New(`rpc error: code = Unknown desc = "x": y`+strconv.Itoa(i)))
		case tricky && (c == 'v' || c == 's' || c == 'q'):
			args = append(args, `a: "b", c`+strconv.Itoa(i))
		case c == 'w' || errs[i] && (c == 'v' || c == 's'):
			args = append(args, errors.New("inner cause "+strconv.Itoa(i)))
		case strings.IndexByte("dioxXbcU", c) >= 0:
			args = append(args, 40+i)
		case c == 't':
			args = append(args, true)
		case strings.IndexByte("feEgGF", c) >= 0:
			args = append(args, 1.5)
		case c == 'p':
			args = append(args, new(int))
		default:
			args = append(args, "val"+strconv.Itoa(i))
		}
	}
	return args
}

// render prints an entry's format with sample arguments, as the kubelet
// does (fmt.Errorf also handles %w).
func render(e *Entry) string { return renderWith(e, false) }

func renderWith(e *Entry, tricky bool) string {
	return fmt.Errorf(e.Format, sampleArgs(e, tricky)...).Error()
}

func severity(l Level) string {
	switch l {
	case LevelWarning:
		return "W"
	case LevelError:
		return "E"
	case LevelFatal:
		return "F"
	}
	return "I"
}

// keyValues is a structured call's key="value" pairs as klog writes them.
func keyValues(e *Entry) string {
	var b strings.Builder
	for i, k := range e.Keys {
		if k == "?" || k == "..." {
			continue
		}
		v := "sample value " + strconv.Itoa(i)
		if k == "err" {
			v = "the sample error"
		}
		fmt.Fprintf(&b, " %s=%s", k, strconv.Quote(v))
	}
	return b.String()
}

// forms are the ways an entry's text reaches people: each renders the
// entry's text (msg) into one piece of evidence.
var forms = []struct {
	name   string
	render func(e *Entry, msg string) string
}{
	{"klog", func(e *Entry, msg string) string {
		h := severity(e.Level) + "1202 03:15:00.123456    2741 manager.go:42] "
		if e.Form == FormStructured {
			return h + strconv.Quote(msg) + keyValues(e)
		}
		return h + msg
	}},
	{"structured", func(e *Entry, msg string) string { return strconv.Quote(msg) + keyValues(e) }},
	{"json", func(e *Entry, msg string) string {
		var b strings.Builder
		b.WriteString(`{"ts":1764645300123.4,"caller":"cpumanager/manager.go:42","msg":`)
		m, _ := json.Marshal(msg)
		b.Write(m)
		b.WriteString(`,"v":0`)
		for i, k := range e.Keys {
			if k == "?" || k == "..." {
				continue
			}
			fmt.Fprintf(&b, `,%q:%q`, k, "sample value "+strconv.Itoa(i))
		}
		b.WriteString("}")
		return b.String()
	}},
	{"journald", func(e *Entry, msg string) string {
		return "Dec 02 03:15:00 worker-1 kubelet[2741]: " + severity(e.Level) + "1202 03:15:00.123456    2741 manager.go:42] " + msg
	}},
	{"bare", func(e *Entry, msg string) string { return msg }},
	{"describe", func(e *Entry, msg string) string { return "  Message:          " + msg }},
	{"err-value", func(e *Entry, msg string) string {
		return `E1202 03:15:00.123456    2741 run.go:72] "command failed" err=` + strconv.Quote(msg)
	}},
	{"event-row", func(e *Entry, msg string) string {
		reason := e.Reason
		if reason == "" || strings.ContainsAny(reason, " %?") {
			reason = "SampleReason"
		}
		return "  Warning  " + reason + "  3m (x2 over 5m)  kubelet  " + msg
	}},
}

// find reports whether e is among the hits (at any depth), directly or
// as a recorded equivalent.
func find(hits []Hit, e *Entry) (direct, equivalent bool) {
	var walk func(hs []Hit)
	walk = func(hs []Hit) {
		for i := range hs {
			h := &hs[i]
			if h.Entry.ID == e.ID {
				direct = true
			}
			for _, a := range h.Also {
				if a.ID == e.ID {
					equivalent = true
				}
			}
			for _, c := range h.Captures {
				walk(c.Hits)
			}
			for _, f := range h.Fields {
				walk(f.Hits)
			}
		}
	}
	walk(hits)
	return direct, equivalent && !direct
}

// TestEveryEntryInEveryForm renders every catalogue entry with sample
// arguments (plain ones, then tricky ones) in each form people paste and
// checks that Match finds it, or an entry that prints the same text and
// records it as equivalent.
func TestEveryEntryInEveryForm(t *testing.T) {
	require.NoError(t, Err())
	m := Default()
	unmatchable := map[string]bool{}
	for _, e := range m.Unmatchable() {
		unmatchable[e.ID] = true
	}
	type tally struct{ entries, all, equivalent, unmatchable int }
	byManager := map[string]*tally{}
	byRelease := map[int]*tally{}
	var equivalents []string
	formMiss := map[string]int{}
	entries := Entries()
	for i := range entries {
		e := &entries[i]
		everyForm, viaEquivalent := true, false
		for _, tricky := range []bool{false, true} {
			if unmatchable[e.ID] {
				break
			}
			msg := renderWith(e, tricky)
			for _, f := range forms {
				text := f.render(e, msg)
				direct, equivalent := find(m.Match(text), e)
				if equivalent {
					viaEquivalent = true
				}
				if !direct && !equivalent {
					everyForm = false
					formMiss[f.name]++
					t.Errorf("%s form (tricky arguments: %v): entry %s (%s %q) not found in %q", f.name, tricky, e.ID, e.Kind, e.Format, text)
				}
			}
		}
		if viaEquivalent {
			equivalents = append(equivalents, fmt.Sprintf("%s %q", e.ID, e.Format))
		}
		count := func(x *tally) {
			x.entries++
			switch {
			case unmatchable[e.ID]:
				x.unmatchable++
			case everyForm:
				x.all++
			}
			if viaEquivalent {
				x.equivalent++
			}
		}
		for _, mg := range e.Managers {
			if byManager[mg] == nil {
				byManager[mg] = &tally{}
			}
			count(byManager[mg])
		}
		for _, r := range e.Releases.Minors() {
			if byRelease[r] == nil {
				byRelease[r] = &tally{}
			}
			count(byRelease[r])
		}
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "manager\tentries\tin all %d forms, both argument sets\tvia an equivalent\tunmatchable\t\n", len(forms))
	var mgrs []string
	for k := range byManager {
		mgrs = append(mgrs, k)
	}
	sort.Strings(mgrs)
	for _, k := range mgrs {
		x := byManager[k]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", k, x.entries, x.all, x.equivalent, x.unmatchable)
	}
	var rels []int
	for k := range byRelease {
		rels = append(rels, k)
	}
	sort.Ints(rels)
	for _, k := range rels {
		x := byRelease[k]
		fmt.Fprintf(tw, "1.%d\t%d\t%d\t%d\t%d\t\n", k, x.entries, x.all, x.equivalent, x.unmatchable)
	}
	tw.Flush()
	t.Logf("coverage of %d entries:\n%s", len(entries), b.String())
	t.Logf("%d entries are found through an equivalent (the same text from another entry) in some form:\n  %s",
		len(equivalents), strings.Join(equivalents, "\n  "))
	if len(formMiss) > 0 {
		t.Logf("misses per form: %v", formMiss)
	}
}
