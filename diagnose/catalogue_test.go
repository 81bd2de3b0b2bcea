package diagnose

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/diagnose/evidence/catalog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sample prints an entry's format with arguments of the verbs' types, as
// the kubelet does (fmt.Errorf also handles %w).
func sample(e *catalog.Entry) string {
	errs := map[int]bool{}
	for _, i := range e.Errs {
		errs[i] = true
	}
	var args []any
	for i, v := range catalog.Verbs(e.Format) {
		c := v[len(v)-1]
		for range strings.Count(v, "*") {
			args = append(args, 3)
		}
		switch {
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
	return fmt.Errorf(e.Format, args...).Error()
}

func klogSeverity(l catalog.Level) string {
	switch l {
	case catalog.LevelWarning:
		return "W"
	case catalog.LevelError:
		return "E"
	case catalog.LevelFatal:
		return "F"
	}
	return "I"
}

// catalogueForms are the evidence a catalogue entry reaches diagnose in:
// each returns the kind of evidence (a log or events) and its text.
var catalogueForms = []struct {
	name  string
	kinds []catalog.Kind
	build func(e *catalog.Entry, msg string) (kind, text string)
}{
	{"klog", []catalog.Kind{catalog.KindLog}, func(e *catalog.Entry, msg string) (string, string) {
		h := klogSeverity(e.Level) + "1202 03:15:00.123456    2741 manager.go:42] "
		if e.Form == catalog.FormStructured {
			var kv strings.Builder
			for i, k := range e.Keys {
				if k != "?" && k != "..." {
					fmt.Fprintf(&kv, " %s=%q", k, "sample value "+strconv.Itoa(i))
				}
			}
			return evidence.KindLog, h + strconv.Quote(msg) + kv.String()
		}
		return evidence.KindLog, h + msg
	}},
	{"journald", []catalog.Kind{catalog.KindLog}, func(e *catalog.Entry, msg string) (string, string) {
		if e.Form == catalog.FormStructured {
			msg = strconv.Quote(msg)
		}
		return evidence.KindLog, "Dec 02 03:15:00 worker-1 kubelet[2741]: " + klogSeverity(e.Level) + "1202 03:15:00.123456    2741 manager.go:42] " + msg
	}},
	{"err-value", []catalog.Kind{catalog.KindError, catalog.KindFlag}, func(e *catalog.Entry, msg string) (string, string) {
		return evidence.KindLog, `E1202 03:15:00.123456    2741 run.go:72] "command failed" err=` + strconv.Quote(msg)
	}},
	{"before-logging", []catalog.Kind{catalog.KindFlag}, func(e *catalog.Entry, msg string) (string, string) {
		return evidence.KindLog, "Dec 02 03:15:00 worker-1 kubelet[2741]: Error: " + msg
	}},
	{"event-row", []catalog.Kind{catalog.KindEvent, catalog.KindAdmit, catalog.KindError}, func(e *catalog.Entry, msg string) (string, string) {
		if strings.Contains(msg, "\n") {
			return "", "" // a table row holds one line
		}
		reason := e.Reason
		if reason == "" || strings.ContainsAny(reason, " %?") {
			reason = "Failed"
		}
		return evidence.KindEvents, "LAST SEEN   TYPE      REASON   OBJECT       MESSAGE\n3m          Warning   " + reason + "   pod/app-0   " + msg + "\n"
	}},
}

// TestEveryFindingOfTheCatalogue renders every catalogue entry the
// classification calls a finding in each form it reaches people in (a
// klog record, a journal line, an error value inside another record, the
// text printed before logging starts, an event row) and diagnoses it
// alone: the report must hold a finding (never "no findings"), and the
// entry's own code unless a rule's more specific finding explains it.
func TestEveryFindingOfTheCatalogue(t *testing.T) {
	type tally struct{ tried, own, other int }
	perCode := map[string]*tally{}
	var missing []string
	for _, e := range catalog.Entries() {
		c, ok := catalog.Classify(e.ID)
		require.True(t, ok, "entry %s is classified", e.ID)
		if c.Kind != catalog.ClassFinding {
			continue
		}
		msg := sample(&e)
		for _, form := range catalogueForms {
			if !containsKind(form.kinds, e.Kind) {
				continue
			}
			kind, text := form.build(&e, msg)
			if kind == "" {
				continue
			}
			var ev evidence.Set
			ev.Add("evidence.txt", kind, []byte(text+"\n"))
			rep, err := Run(context.Background(), &ev)
			require.NoError(t, err)
			checkCodes(t, rep)
			tl := perCode[c.Code]
			if tl == nil {
				tl = &tally{}
				perCode[c.Code] = tl
			}
			tl.tried++
			switch {
			case len(rep.Findings) == 0:
				missing = append(missing, fmt.Sprintf("%s %s (%s, %s): %q", form.name, e.ID, c.Code, e.Releases, text))
			case hasCode(rep, c.Code):
				tl.own++
			default:
				tl.other++
			}
		}
	}
	codes := make([]string, 0, len(perCode))
	for c := range perCode {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for _, c := range codes {
		tl := perCode[c]
		t.Logf("%-30s %4d renderings: %4d with its code, %4d explained by another finding", c, tl.tried, tl.own, tl.other)
	}
	assert.Empty(t, missing, "renderings of a finding entry that diagnose reports no finding for")
}

// TestNoFindingsIsNeverSaidOverAnError: a refused input, a Go panic, a
// fatal line and every catalogue entry of level error or fatal (but the
// ones the classification says no node engineer need see) each make a
// report that is not "✓ no findings".
func TestNoFindingsIsNeverSaidOverAnError(t *testing.T) {
	headline := func(kind, text string) string {
		var ev evidence.Set
		ev.Add("evidence.txt", kind, []byte(text))
		rep, err := Run(context.Background(), &ev)
		require.NoError(t, err)
		return rep.Headline()
	}
	for name, text := range map[string]string{
		"a refused pod":  "kind: Pod\nspec:\n  containers:\n  - name: a\n    resources: {limits: {cpu: x}}\n",
		"a Go panic":     "panic: runtime error: invalid memory address or nil pointer dereference\n\ngoroutine 1 [running]:\nmain.main()\n",
		"a fatal record": "F1202 03:15:00.123456    2741 server.go:269] something nobody catalogued\n",
	} {
		kind := evidence.KindLog
		if strings.HasPrefix(text, "kind:") {
			kind = evidence.KindPod
		}
		assert.NotContains(t, headline(kind, text), "no findings", name)
	}
	var said []string
	for _, e := range catalog.Entries() {
		if e.Level != catalog.LevelError && e.Level != catalog.LevelFatal {
			continue
		}
		if c, ok := catalog.Classify(e.ID); ok && c.Kind != catalog.ClassFinding {
			continue // facts and what the table says is not diagnostic, each with its reason
		}
		for _, form := range catalogueForms {
			if containsKind(form.kinds, e.Kind) {
				kind, text := form.build(&e, sample(&e))
				if kind == "" {
					continue
				}
				if h := headline(kind, text+"\n"); strings.Contains(h, "no findings") {
					said = append(said, fmt.Sprintf("%s %s: %q", form.name, e.ID, text))
				}
			}
		}
	}
	assert.Empty(t, said)
}

func containsKind(ks []catalog.Kind, k catalog.Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

func hasCode(r Report, code string) bool {
	for _, f := range r.Findings {
		if f.Code == code {
			return true
		}
	}
	return false
}
