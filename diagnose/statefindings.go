package diagnose

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/jsonptr"
	"github.com/numascope/numascope/internal/words"
	"github.com/numascope/numascope/statefile"
)

// Bounds of the findings drawn from one file's problems: statefile lists
// every problem of a file (a hand-made file can hold thousands); past these
// the findings say how many more there are and point at inspect.
const (
	maxStateFindingsPerFile = 8
	maxStateRefsPerFinding  = 12
)

// stateProblemFindings turns every error and warning problem of each state
// file into a finding, unless a finding already cites it (same file and JSON
// pointer, or the same message), or it is the reason of the file's verdict,
// which its own finding explains. Problems with the same severity and remedy
// form one finding.
func (d *diagnosis) stateProblemFindings() {
	for _, f := range d.ev.States {
		prov := d.ev.Provenance(f)
		if d.ev.Partial(f) {
			// A cut or elided paste: what is missing would pass for a
			// disagreement (memory that no entry accounts for); the paste's
			// own finding says what was left out.
			continue
		}
		copyOnly := prov != nil && (prov.Repair != nil || len(prov.Redactions) > 0)
		type group struct {
			sev    statefile.Severity
			remedy string
			probs  []statefile.Problem
		}
		var groups []*group
		extra := 0
		cited := d.citedIn(f)
		for _, p := range f.Problems {
			if p.Severity != statefile.SeverityError && p.Severity != statefile.SeverityWarning {
				continue
			}
			if cited.covers(f, p) || copyOnly && verdictProblem(p) {
				continue
			}
			var g *group
			for _, h := range groups {
				if h.sev == p.Severity && h.remedy == p.Remedy {
					g = h
					break
				}
			}
			if g == nil {
				if len(groups) == maxStateFindingsPerFile {
					extra++
					continue
				}
				g = &group{sev: p.Severity, remedy: p.Remedy}
				groups = append(groups, g)
			}
			g.probs = append(g.probs, p)
		}
		for i, g := range groups {
			more := 0
			if i == len(groups)-1 {
				more = extra
			}
			d.add(stateProblemFinding(f, g.sev, g.remedy, g.probs, more, copyOnly, prov.Unverified(f)))
		}
	}
}

// stateProblemFinding is the finding for problems of f that share a
// severity and a remedy; more counts the problems left out of every finding
// of the file; copyOnly says f is a repaired or redacted copy, on which the
// kubelet decides nothing, and unverified marks a finding drawn from an
// unverified copy.
func stateProblemFinding(f *statefile.File, sev statefile.Severity, remedy string, probs []statefile.Problem, more int, copyOnly, unverified bool) Finding {
	var refs []Ref
	var msgs []string
	shown := 0
	for _, p := range probs {
		if shown == maxStateRefsPerFinding {
			break
		}
		shown++
		msgs = append(msgs, strings.TrimPrefix(p.Message, f.Name+": "))
		refs = append(refs, problemEvidence(f, p)...)
	}
	more += len(probs) - shown
	title := probs[0].Message
	if !strings.HasPrefix(title, f.Name) {
		title = f.Name + ": " + title
	}
	title = words.Clip(title, 400)
	if n := len(probs) - 1; n > 0 {
		title += fmt.Sprintf(" (and %d more)", n)
	}
	var b strings.Builder
	manager := map[statefile.Kind]string{statefile.KindCPU: "CPU", statefile.KindMemory: "memory", statefile.KindDevice: "device", statefile.KindDRA: "DRA"}[f.Kind]
	switch {
	case copyOnly:
		fmt.Fprintf(&b, "%s is a copy of the checkpoint, not the node's file, so no kubelet verdict applies to it; but the values it shows break a rule the kubelet's %s manager keeps when it writes the file.", f.Name, manager)
	case f.KubeletAccepts:
		fmt.Fprintf(&b, "The kubelet's restore check passes for %s (its format and checksum are what a kubelet wrote), but its values break a rule the kubelet's %s manager keeps when it writes the file: the kubelet recorded a wrong state, or the file was edited and checksummed again.", f.Name, manager)
	case f.Reason != "":
		fmt.Fprintf(&b, "The kubelet %s (%s), which another finding explains; the values of %s also break rules the kubelet's %s manager keeps when it writes the file.", rejectWords(f), words.Clip(f.Reason, 300), f.Name, manager)
	default:
		fmt.Fprintf(&b, "The values of %s break a rule the kubelet's %s manager keeps when it writes the file.", f.Name, manager)
	}
	if len(msgs) > 1 {
		fmt.Fprintf(&b, " The problems: %s.", strings.TrimSuffix(strings.Join(msgs, "; "), "."))
	}
	switch {
	case more == 1:
		fmt.Fprintf(&b, " 1 more problem of this file is not listed here: `inspect %s` lists every one.", f.Name)
	case more > 1:
		fmt.Fprintf(&b, " %d more problems of this file are not listed here: `inspect %s` lists every one.", more, f.Name)
	}
	if remedy = sentence(remedy); remedy == "" {
		remedy = "Check the file with `inspect " + f.Name + "` (numascope's inspect command), which lists every problem and what to do."
	}
	if unverified {
		// as markUnverified says it of the findings drawn before
		title += " (from an unverified copy of " + f.Name + ")"
		b.WriteString(" Note: this rests on " + f.Name + ", an unverified copy of the checkpoint (a repaired, redacted or mismatching paste): check the node's own file before acting on it.")
	}
	return Finding{Code: CodeStateFileProblem, Severity: sev, Title: title, Evidence: refs,
		Explanation: b.String(), Remedy: remedy}
}

// problemEvidence is where a problem points: the file and the problem's JSON
// pointer; for a CPU held by two containers, both containers' entries.
func problemEvidence(f *statefile.File, p statefile.Problem) []Ref {
	refs := []Ref{{File: f.Name, Path: p.Path, Quote: p.Message}}
	for _, at := range p.Also {
		refs = append(refs, Ref{File: f.Name, Path: at, Quote: alsoQuote(at)})
	}
	return refs
}

// alsoQuote names the place a pointer of Problem.Also shows: the container
// of an entry (/entries/POD/CONTAINER, under /data in a v4 file).
func alsoQuote(at string) string {
	toks, ok := jsonptr.Split(strings.TrimPrefix(at, "/data"))
	if ok && len(toks) == 3 && toks[0] == "entries" {
		return fmt.Sprintf("container %q of pod %q", toks[2], toks[1])
	}
	return at
}

// citations is what the findings drawn so far cite of one file.
type citations struct {
	paths, quotes map[string]bool
	refs          []Ref // those with a path and a quote, for the same field of another node
}

// citedIn collects the findings' references to f, once per file, so that
// checking each of its problems (a hand-made file can hold a million) is
// a few map lookups.
func (d *diagnosis) citedIn(f *statefile.File) citations {
	c := citations{paths: map[string]bool{}, quotes: map[string]bool{}}
	for _, g := range d.report.Findings {
		for _, r := range g.Evidence {
			if r.File != f.Name {
				continue
			}
			if r.Path != "" {
				c.paths[r.Path] = true
			}
			if r.Quote != "" {
				c.quotes[r.Quote] = true
			}
			if r.Path != "" && r.Quote != "" && len(c.refs) < 64 {
				c.refs = append(c.refs, r)
			}
		}
	}
	return c
}

// covers reports whether a finding already reports p: it cites p's place
// in the file (the same JSON pointer) or p's message, or p is the reason of
// the file's verdict and a finding cites that reason, or it cites the same
// field of another NUMA node with a value p's message names.
func (c citations) covers(f *statefile.File, p statefile.Problem) bool {
	switch {
	case p.Path != "" && c.paths[p.Path] && len(p.Also) == 0:
		// a problem about several places (a CPU two containers hold) is
		// not told by a finding about one of them (a stale entry)
		return true
	case c.quotes[p.Message]:
		return true
	case f.Reason != "" && c.quotes[f.Reason] && strings.Contains(p.Message, f.Reason):
		return true
	}
	for _, r := range c.refs {
		// a group cited at one of its nodes
		if samePlaceOnAnotherNode(r.Path, p.Path) && strings.Contains(p.Message, r.Quote) {
			return true
		}
	}
	return false
}

// samePlaceOnAnotherNode reports whether two JSON pointers name the same
// field of different entries of a collection keyed by number
// (/machineState/0/cells and /machineState/1/cells).
func samePlaceOnAnotherNode(a, b string) bool {
	if a == "" || b == "" || a == b {
		return false
	}
	at, bt := strings.Split(a, "/"), strings.Split(b, "/")
	if len(at) != len(bt) {
		return false
	}
	for i := range at {
		if at[i] == bt[i] {
			continue
		}
		if _, err := strconv.Atoi(at[i]); err != nil {
			return false
		}
		if _, err := strconv.Atoi(bt[i]); err != nil {
			return false
		}
	}
	return true
}

// verdictProblem reports whether p is about the checksum or the kubelet's
// reading of the file, which says nothing about a repaired or redacted copy
// (its own finding says what could be verified).
func verdictProblem(p statefile.Problem) bool {
	last := p.Path[strings.LastIndexByte(p.Path, '/')+1:]
	if strings.EqualFold(last, "checksum") || strings.EqualFold(last, "dataChecksum") {
		return true
	}
	return strings.Contains(p.Message, "cannot load the file") || strings.Contains(p.Message, "cannot read the file")
}

// sentence capitalises s and ends it with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
