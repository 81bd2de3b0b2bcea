package diagnose

import (
	"fmt"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/jsonptr"
	"github.com/numascope/numascope/internal/jsonrepair"
	"github.com/numascope/numascope/statefile"
)

// pasteVerdict is the state verdict for a checkpoint that arrived as a
// repaired paste: it says the input is not the node's file, what was
// repaired where, what could be verified, and what the paste is missing.
// It never advises deleting a file or draining the node.
func (d *diagnosis) pasteVerdict(f *statefile.File, p *evidence.Provenance) {
	res := p.Repair
	if res == nil {
		// a copy that is still JSON, with redacted tokens
		res = &jsonrepair.Result{Repairs: p.Redactions, Lossy: true}
	}
	sev := statefile.SeverityInfo
	if p.Unverified(f) {
		sev = statefile.SeverityWarning
	}
	var refs []Ref
	var lines []string
	for _, c := range res.Repairs {
		if len(lines) < 12 {
			lines = append(lines, c.String())
		}
		if len(refs) < 8 {
			refs = append(refs, Ref{File: f.Name, Line: c.Line, Quote: string(c.Kind) + ": " + c.Text})
		}
	}
	if extra := len(res.Repairs) - len(lines) + res.Omitted; extra > 0 {
		lines = append(lines, fmt.Sprintf("%d more", extra))
	}
	var b strings.Builder
	if p.Repair != nil {
		fmt.Fprintf(&b, "%s is not a file the kubelet could read: it is a pasted copy of %s that numascope repaired before decoding it (%s). ", f.Name, f.Kind.FileName(), strings.Join(lines, "; "))
	} else {
		fmt.Fprintf(&b, "%s is a copy of %s with redacted values (%s). ", f.Name, f.Kind.FileName(), strings.Join(lines, "; "))
	}
	b.WriteString("The kubelet's checksum covers the decoded values (a Go rendering of them), not the bytes, so re-indentation, jq, key order and CRLF do not matter to it, but any changed or missing value does. ")
	switch {
	case p.Unverified(f) && res.Lossy:
		b.WriteString("Values were left out or may have changed in this paste, so verification was skipped: nothing here says whether the file on the node is intact or corrupt. ")
	case p.Unverified(f) && (len(p.RedactedKeys) > 0 || len(p.Redactions) > 0):
		b.WriteString("Redacted values are not what the kubelet wrote, so verification was skipped. ")
	case !f.Checksum.Valid:
		fmt.Fprintf(&b, "The repairs removed only text around the values, yet the stored checksum (%d) does not match the values read: an edited or truncated paste, or a corrupt file; the paste cannot tell which. ", f.Checksum.Stored)
	case f.Checksum.ZeroSkipped:
		b.WriteString("The stored checksum is 0, which the kubelet does not check, so nothing could be verified. ")
	default:
		b.WriteString("The repairs removed only text around the values, and the stored checksum matches the values read: these values are what a kubelet wrote (this does not show that the file on disk is intact now). ")
	}
	if len(p.RedactedKeys) > 0 {
		fmt.Fprintf(&b, "Keys such as %q look redacted: entries under them cannot be matched to pods, and several entries redacted to the same key collapse into one. ", p.RedactedKeys[0])
	}
	if cut := res.Cut; cut != nil {
		fmt.Fprintf(&b, "The paste ends at line %d inside %s", cut.Line, jsonptr.Describe(cut.Path))
		if cut.Dropped != "" {
			fmt.Fprintf(&b, "; the partial %s was left out", cut.Dropped)
		}
		b.WriteString(". What was read before it is used")
		if missing := p.Missing; len(missing) > 0 {
			fmt.Fprintf(&b, "; missing from the paste: %s and whatever followed in the file", strings.Join(missing, ", "))
		} else {
			b.WriteString("; whatever followed in the file is missing")
		}
		b.WriteString(". ")
	}
	if d.ev.Partial(f) {
		b.WriteString("Since entries may be missing, the checks that need every entry were not run (the CPUs in the file against the online CPUs, the memory manager's replay of its entries, memory groups no entry explains). ")
	}
	b.WriteString("The findings drawn from its content are marked as coming from an unverified copy.")
	title := fmt.Sprintf("%s is a pasted copy of %s, repaired before it could be read: not the node's file", f.Name, f.Kind.FileName())
	if p.Repair == nil {
		title = fmt.Sprintf("%s is a copy of %s with redacted values: not the node's file", f.Name, f.Kind.FileName())
	}
	switch {
	case res.Lossy || len(p.RedactedKeys) > 0:
		title += "; verification skipped"
	case !f.Checksum.Valid:
		title += "; its checksum does not match the values"
	case f.Checksum.ZeroSkipped:
		title += "; checksum 0, not verified"
	default:
		title += "; checksum matches the values"
	}
	if res.Cut != nil {
		title += fmt.Sprintf("; cut at line %d", res.Cut.Line)
	}
	d.add(Finding{Code: CodePastedCheckpoint, Severity: sev, Title: title, Evidence: refs, Explanation: b.String(),
		Remedy: "Nothing needs to change on the node because of the paste. To check the node's own file, run numascope's `inspect " + f.Kind.Path() +
			"` on the node, or send `sha256sum " + f.Kind.Path() + "` together with an unedited copy (plain `cat`, no jq, no notes, not cut)."})
}

// copyMismatch is the state verdict for a re-formatted copy whose checksum
// does not match: the paste cannot tell an edit from a corrupt file.
func (d *diagnosis) copyMismatch(f *statefile.File) {
	d.merge(Finding{Code: CodeCorruptCheckpoint, Severity: statefile.SeverityWarning,
		Title:    fmt.Sprintf("%s (a re-formatted copy) does not match its checksum: an edited or truncated paste, or a corrupt file; the paste cannot tell which", f.Name),
		Evidence: append([]Ref{{File: f.Name, Path: "/checksum", Quote: fmt.Sprint(f.Checksum.Stored)}}, problemRefs(f, 3)...),
		Explanation: fmt.Sprintf("%s is not laid out the way the kubelet writes %s (compact JSON), so it is a copy that passed through jq, an editor or a chat. "+
			"Re-formatting alone keeps the checksum valid, because the kubelet's checksum covers the decoded values and not the bytes; a mismatch (stored %d) means a value differs from what the kubelet wrote: "+
			"the copy was edited or cut, or the file itself is corrupt. The content is still analysed, marked as coming from an unverified copy.", f.Name, f.Kind.FileName(), f.Checksum.Stored),
		Remedy: "Run the check on the node (numascope's `inspect " + f.Kind.Path() + "`), or send `sha256sum " + f.Kind.Path() +
			"` and an unedited copy (plain `cat`). Do not delete the node's file or drain the node on the strength of a copy.",
	})
}

// markUnverified marks every finding that rests on a checkpoint read from
// an unverified copy, so no conclusion drawn from it passes for one drawn
// from the node's file.
func (d *diagnosis) markUnverified() {
	names := map[string]bool{}
	for _, f := range d.ev.States {
		if d.ev.Provenance(f).Unverified(f) {
			names[f.Name] = true
		}
	}
	if len(names) == 0 {
		return
	}
	for i := range d.report.Findings {
		g := &d.report.Findings[i]
		if g.Code == CodePastedCheckpoint || g.Code == CodeCorruptCheckpoint && strings.Contains(g.Title, "re-formatted copy") {
			continue
		}
		for _, r := range g.Evidence {
			if names[r.File] {
				g.Title += " (from an unverified copy of " + r.File + ")"
				g.Explanation += " Note: this rests on " + r.File + ", an unverified copy of the checkpoint (a repaired, redacted or mismatching paste): check the node's own file before acting on it."
				break
			}
		}
	}
}
