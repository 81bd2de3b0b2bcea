package diagnose

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/numascope/numascope/internal/jsonrepair"
	"github.com/numascope/numascope/internal/kubeletfiles"
	"github.com/numascope/numascope/statefile"
)

// codePastedCheckpoint is the finding about a checkpoint that arrived as a
// pasted copy which had to be repaired before it could be read. It is a
// stable code like the exported ones; it stays unexported until the
// package has room for another exported name (issue 11).
const codePastedCheckpoint = "PastedCheckpointCopy"

// provenance is where the bytes of a checkpoint came from, as far as they
// show it.
type provenance struct {
	// repair is set when the bytes were not JSON and were repaired.
	repair *jsonrepair.Result
	// reformatted: the bytes decode as they are but are not laid out the
	// way the kubelet writes its files (compact JSON): a copy that went
	// through jq, an editor or a chat.
	reformatted bool
	// redactions are the redacted tokens a copy that is still JSON holds.
	redactions []jsonrepair.Change
	// redactedKeys are map keys (pod UIDs, container names) that look redacted.
	redactedKeys []string
}

// copyProvenance tells whether bytes that decode as they are come from a
// copy: laid out otherwise than the kubelet writes, or holding redacted
// tokens. It returns nil for bytes that may be the node's file itself.
func copyProvenance(f *statefile.File, data []byte) *provenance {
	p := &provenance{reformatted: !compactLayout(data), redactedKeys: redactedKeys(f)}
	// A checksum that matches proves the values are the ones the kubelet
	// hashed: no token in them was put there by a redaction, so the repair
	// scan (a third of diagnosing a large state file) is not needed.
	intact := f.Checksum.Valid && !f.Checksum.ZeroSkipped
	if !intact {
		if res, err := jsonrepair.Repair(data, jsonrepair.Options{MaxSize: int(statefile.DefaultMaxSize), MaxDepth: statefile.MaxDepth}); err == nil {
			for _, c := range res.Repairs {
				if c.Kind == jsonrepair.KindRedaction {
					p.redactions = append(p.redactions, c)
				}
			}
		}
	}
	if !p.reformatted && len(p.redactions) == 0 && len(p.redactedKeys) == 0 {
		return nil
	}
	return p
}

// unverified reports whether the values read cannot be tied to what a
// kubelet wrote: a repaired paste whose repairs may have changed values,
// or a copy whose checksum does not match or is not checked.
func (p *provenance) unverified(f *statefile.File) bool {
	if p == nil {
		return false
	}
	if p.repair != nil && p.repair.Lossy || len(p.redactedKeys) > 0 || len(p.redactions) > 0 {
		return true
	}
	return !f.Checksum.Valid || f.Checksum.ZeroSkipped
}

// partial reports whether a checkpoint's entries may be incomplete: it is
// a paste that was cut, elided, had members dropped, or whose keys are
// redacted (entries redacted to one key collapse). Checks that need every
// entry are not run on it: what is missing would pass for what is free.
func (e *Evidence) partial(f *statefile.File) bool {
	p := e.pastes[f]
	if p == nil {
		return false
	}
	if len(p.redactedKeys) > 0 {
		return true
	}
	r := p.repair
	return r != nil && (r.Cut != nil || r.Omitted > 0 || r.Count(jsonrepair.KindElision)+r.Count(jsonrepair.KindDropped)+r.Count(jsonrepair.KindSkipped) > 0)
}

// pasteRecords are the collections of every checkpoint kind whose members
// are whole records: one cut short by a truncated paste is left out whole.
var pasteRecords = []string{"/entries", "/podEntries", "/Data/PodDeviceEntries", "/Data/RegisteredDevices"}

// requiredFields are the members without which a checkpoint of a kind
// cannot be read (matched case-insensitively, as encoding/json does).
var requiredFields = map[statefile.Kind][]string{
	statefile.KindCPU:    {"policyName", "defaultCpuSet"},
	statefile.KindMemory: {"policyName", "machineState"},
	statefile.KindDevice: {"Data"},
	statefile.KindDRA:    {},
}

// expectedFields are the members the kubelet writes for each kind, to say
// what a truncated paste is missing.
var expectedFields = map[statefile.Kind][]string{
	statefile.KindCPU:    {"policyName", "defaultCpuSet", "entries", "checksum"},
	statefile.KindMemory: {"policyName", "machineState", "entries", "checksum"},
	statefile.KindDevice: {"Data", "Checksum"},
	statefile.KindDRA:    {"Checksum"},
}

// decodePaste reads bytes that do not decode as a checkpoint as a pasted
// copy: it repairs them and decodes the repair. It returns the decoding
// error of the original bytes (orig) when they are not a paste of a
// checkpoint at all, and a "cannot decode checkpoint: truncated inside
// <field> at line N" error when the paste is cut inside a member the
// checkpoint cannot be read without.
func decodePaste(name string, data []byte, opts statefile.Options, orig error) (*statefile.File, *provenance, error) {
	if errors.Is(orig, statefile.ErrTooLarge) || errors.Is(orig, statefile.ErrTooDeep) {
		return nil, nil, orig
	}
	res, err := jsonrepair.Repair(data, jsonrepair.Options{MaxSize: int(statefile.DefaultMaxSize), MaxDepth: statefile.MaxDepth, Records: pasteRecords})
	if errors.Is(err, jsonrepair.ErrNoObject) && len(bytes.TrimSpace(data)) > 0 {
		// Not even the start of a checkpoint: say so without the advice
		// meant for the node's own file.
		return nil, nil, fmt.Errorf("%w: no JSON object in it, so it is not a kubelet checkpoint or a paste of one (a paste cut before its first line?); "+
			"paste the whole file, or check the node's own file there with `numascope inspect`", statefile.ErrNotJSON)
	}
	if err != nil || !res.Changed() {
		return nil, nil, orig
	}
	f, err := statefile.Decode(res.JSON, opts)
	if err != nil {
		if res.Cut != nil {
			return nil, nil, fmt.Errorf("cannot decode checkpoint: truncated inside %s at line %d, before any member that names the checkpoint kind (paste the whole file)", orTop(res.Cut.Path), res.Cut.Line)
		}
		return nil, nil, fmt.Errorf("%w (after repairing it as a paste: %v)", orig, err)
	}
	if cut := res.Cut; cut != nil {
		var top map[string]json.RawMessage
		if err := json.Unmarshal(res.JSON, &top); err != nil {
			return nil, nil, fmt.Errorf("cannot decode checkpoint: %v", err)
		}
		for _, req := range requiredFields[f.Kind] {
			if strings.EqualFold(cut.Field, req) && !inRecord(cut.Dropped) {
				return nil, nil, fmt.Errorf("cannot decode checkpoint: truncated inside %s at line %d (the paste ends there; %s is required: paste the whole file, or run numascope on the node)", req, cut.Line, req)
			}
			if !hasField(top, req) {
				return nil, nil, fmt.Errorf("cannot decode checkpoint: truncated inside %s at line %d, before %s (the paste ends there; %s is required: paste the whole file, or run numascope on the node)", orTop(cut.Path), cut.Line, req, req)
			}
		}
	}
	// The kubelet's verdict is about the file on the node; this is a
	// reconstruction of a paste of it, for which the kubelet decides
	// nothing (addState drops the verdict): the checksum report stays as
	// computed over the values read.
	return f, &provenance{repair: res, redactedKeys: redactedKeys(f)}, nil
}

func inRecord(dropped string) bool {
	for _, r := range pasteRecords {
		if len(dropped) > len(r) && strings.EqualFold(dropped[:len(r)+1], r+"/") {
			return true
		}
	}
	return false
}

func hasField(top map[string]json.RawMessage, name string) bool {
	for k := range top {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

func orTop(p string) string {
	if p == "" {
		return "the top-level object"
	}
	return p
}

// fillContent gives a copy whose checksum does not verify the content
// the copy holds. The kubelet keeps nothing of a CPU or DRA checkpoint
// whose checksum fails, and statefile shows what the kubelet keeps; for a
// copy, whose checksum says nothing about the node's file, the values are
// what is analysed. The copy is decoded again with a checksum member set
// to the value statefile computed for one of the layouts, so
// the content is exactly what that layout reads from the copy. The
// checksum report of f is left as it was.
func fillContent(f *statefile.File, data []byte, opts statefile.Options) {
	if f.Checksum.Valid || !contentLost(f) {
		return
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return
	}
	var best *statefile.File
	defer func() {
		if best != nil {
			f.CPU, f.Memory, f.Device, f.DRA = best.CPU, best.Memory, best.Device, best.DRA
		}
	}()
	for _, l := range f.Checksum.Layouts {
		for k, v := range top {
			if !strings.EqualFold(k, "checksum") && !strings.EqualFold(k, "dataChecksum") {
				continue
			}
			top[k] = json.RawMessage(fmt.Sprint(l.Computed))
			b, err := json.Marshal(top)
			top[k] = v
			if err != nil {
				continue
			}
			if g, err := statefile.Decode(b, opts); err == nil && g.Checksum.Valid && !contentLost(g) {
				if best == nil || g.Format == f.Format && best.Format != f.Format {
					best = g
				}
			}
		}
	}
}

// contentLost reports whether statefile kept no content for f.
func contentLost(f *statefile.File) bool {
	switch f.Kind {
	case statefile.KindCPU:
		return f.CPU == nil || f.CPU.PolicyName == "" && f.CPU.DefaultCPUSet.IsEmpty()
	case statefile.KindMemory:
		return f.Memory == nil
	case statefile.KindDevice:
		return f.Device == nil
	case statefile.KindDRA:
		return f.DRA == nil || len(f.DRA.Claims) == 0
	}
	return false
}

// isCheckpointCopyName reports whether a file name is a checkpoint's name
// with an extension: a copy saved from a paste (cpu_manager_state.txt).
func isCheckpointCopyName(n string) bool {
	base, _, ok := strings.Cut(n, ".")
	return ok && kubeletfiles.IsCheckpointName(base)
}

// compactLayout reports whether data is laid out as the kubelet writes a
// checkpoint: compact JSON (surrounding white space aside).
func compactLayout(data []byte) bool {
	t := bytes.TrimSpace(data)
	var b bytes.Buffer
	if json.Compact(&b, t) != nil {
		return false
	}
	return bytes.Equal(b.Bytes(), t)
}

// redactedKeys lists pod UIDs and container names that look redacted.
func redactedKeys(f *statefile.File) []string {
	var out []string
	add := func(k string) {
		if jsonrepair.Redacted(k) && len(out) < 10 {
			out = append(out, k)
		}
	}
	switch {
	case f.CPU != nil:
		for uid, cs := range f.CPU.Entries {
			add(uid)
			for c := range cs {
				add(c)
			}
		}
	case f.Memory != nil:
		for uid, cs := range f.Memory.Entries {
			add(uid)
			for c := range cs {
				add(c)
			}
		}
	}
	return out
}

// pasteNote is the evidence note of a checkpoint read from a copy.
func pasteNote(f *statefile.File, p *provenance) string {
	switch {
	case p.repair == nil && len(p.redactions) > 0:
		return fmt.Sprintf("copy with %d redacted values: verification skipped, content read from an unverified copy", len(p.redactions))
	case p.repair != nil:
		n := len(p.repair.Repairs) + p.repair.Omitted
		s := fmt.Sprintf("pasted copy, repaired (%d repairs: %s): ", n, repairSummary(p.repair))
		switch {
		case p.repair.Lossy || len(p.redactedKeys) > 0:
			return s + "verification skipped, content read from an unverified copy"
		case !f.Checksum.Valid:
			return s + "no value changed, but the checksum does not match the values (an edited or truncated paste, or a corrupt file): content read from an unverified copy"
		case f.Checksum.ZeroSkipped:
			return s + "checksum 0, not verified: content read from an unverified copy"
		}
		return s + "no value changed and the checksum matches: these values are what a kubelet wrote"
	case !f.Checksum.Valid:
		return "re-formatted copy: checksum does not match (an edited or truncated paste, or a corrupt file)"
	case f.Checksum.ZeroSkipped:
		return "re-formatted copy: checksum 0, not verified"
	case len(p.redactedKeys) > 0:
		return "re-formatted copy with redacted keys: content read from an unverified copy"
	}
	return "re-formatted copy: checksum matches: these values are what a kubelet wrote (not proof that the file on disk is intact)"
}

func repairSummary(r *jsonrepair.Result) string {
	var parts []string
	seen := map[jsonrepair.Kind]int{}
	var order []jsonrepair.Kind
	for _, c := range r.Repairs {
		if seen[c.Kind] == 0 {
			order = append(order, c.Kind)
		}
		seen[c.Kind]++
	}
	for _, k := range order {
		if seen[k] == 1 {
			parts = append(parts, string(k))
		} else {
			parts = append(parts, fmt.Sprintf("%d× %s", seen[k], k))
		}
	}
	return strings.Join(parts, ", ")
}

// pasteVerdict is the state verdict for a checkpoint that arrived as a
// repaired paste: it says the input is not the node's file, what was
// repaired where, what could be verified, and what the paste is missing.
// It never advises deleting a file or draining the node.
func (d *diagnosis) pasteVerdict(f *statefile.File, p *provenance) {
	res := p.repair
	if res == nil {
		// a copy that is still JSON, with redacted tokens
		res = &jsonrepair.Result{Repairs: p.redactions, Lossy: true}
	}
	sev := statefile.SeverityInfo
	if p.unverified(f) {
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
	if p.repair != nil {
		fmt.Fprintf(&b, "%s is not a file the kubelet could read: it is a pasted copy of %s that numascope repaired before decoding it (%s). ", f.Name, nodeFileName(f.Kind), strings.Join(lines, "; "))
	} else {
		fmt.Fprintf(&b, "%s is a copy of %s with redacted values (%s). ", f.Name, nodeFileName(f.Kind), strings.Join(lines, "; "))
	}
	b.WriteString("The kubelet's checksum covers the decoded values (a Go rendering of them), not the bytes, so re-indentation, jq, key order and CRLF do not matter to it, but any changed or missing value does. ")
	switch {
	case p.unverified(f) && res.Lossy:
		b.WriteString("Values were left out or may have changed in this paste, so verification was skipped: nothing here says whether the file on the node is intact or corrupt. ")
	case p.unverified(f) && (len(p.redactedKeys) > 0 || len(p.redactions) > 0):
		b.WriteString("Redacted values are not what the kubelet wrote, so verification was skipped. ")
	case !f.Checksum.Valid:
		fmt.Fprintf(&b, "The repairs removed only text around the values, yet the stored checksum (%d) does not match the values read: an edited or truncated paste, or a corrupt file; the paste cannot tell which. ", f.Checksum.Stored)
	case f.Checksum.ZeroSkipped:
		b.WriteString("The stored checksum is 0, which the kubelet does not check, so nothing could be verified. ")
	default:
		b.WriteString("The repairs removed only text around the values, and the stored checksum matches the values read: these values are what a kubelet wrote (this does not show that the file on disk is intact now). ")
	}
	if len(p.redactedKeys) > 0 {
		fmt.Fprintf(&b, "Keys such as %q look redacted: entries under them cannot be matched to pods, and several entries redacted to the same key collapse into one. ", p.redactedKeys[0])
	}
	if cut := res.Cut; cut != nil {
		fmt.Fprintf(&b, "The paste ends at line %d inside %s", cut.Line, orTop(cut.Path))
		if cut.Dropped != "" {
			fmt.Fprintf(&b, "; the partial %s was left out", cut.Dropped)
		}
		b.WriteString(". What was read before it is used")
		if missing := missingFields(f.Kind, res.JSON); len(missing) > 0 {
			fmt.Fprintf(&b, "; missing from the paste: %s and whatever followed in the file", strings.Join(missing, ", "))
		} else {
			b.WriteString("; whatever followed in the file is missing")
		}
		b.WriteString(". ")
	}
	if d.ev.partial(f) {
		b.WriteString("Since entries may be missing, the checks that need every entry were not run (the CPUs in the file against the online CPUs, the memory manager's replay of its entries, memory groups no entry explains). ")
	}
	b.WriteString("The findings drawn from its content are marked as coming from an unverified copy.")
	title := fmt.Sprintf("%s is a pasted copy of %s, repaired before it could be read: not the node's file", f.Name, nodeFileName(f.Kind))
	if p.repair == nil {
		title = fmt.Sprintf("%s is a copy of %s with redacted values: not the node's file", f.Name, nodeFileName(f.Kind))
	}
	switch {
	case res.Lossy || len(p.redactedKeys) > 0:
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
	d.add(Finding{Code: codePastedCheckpoint, Severity: sev, Title: title, Evidence: refs, Explanation: b.String(),
		Remedy: "Nothing needs to change on the node because of the paste. To check the node's own file, run `numascope inspect " + kubeletPath(f.Kind) +
			"` on the node, or send `sha256sum " + kubeletPath(f.Kind) + "` together with an unedited copy (plain `cat`, no jq, no notes, not cut)."})
}

// copyMismatch is the state verdict for a re-formatted copy whose checksum
// does not match: the paste cannot tell an edit from a corrupt file.
func (d *diagnosis) copyMismatch(f *statefile.File) {
	d.merge(Finding{Code: CodeCorruptCheckpoint, Severity: statefile.SeverityWarning,
		Title:    fmt.Sprintf("%s (a re-formatted copy) does not match its checksum: an edited or truncated paste, or a corrupt file; the paste cannot tell which", f.Name),
		Evidence: append([]Ref{{File: f.Name, Path: "/checksum", Quote: fmt.Sprint(f.Checksum.Stored)}}, problemRefs(f, 3)...),
		Explanation: fmt.Sprintf("%s is not laid out the way the kubelet writes %s (compact JSON), so it is a copy that passed through jq, an editor or a chat. "+
			"Re-formatting alone keeps the checksum valid, because the kubelet's checksum covers the decoded values and not the bytes; a mismatch (stored %d) means a value differs from what the kubelet wrote: "+
			"the copy was edited or cut, or the file itself is corrupt. The content is still analysed, marked as coming from an unverified copy.", f.Name, nodeFileName(f.Kind), f.Checksum.Stored),
		Remedy: "Run the check on the node (`numascope inspect " + kubeletPath(f.Kind) + "`), or send `sha256sum " + kubeletPath(f.Kind) +
			"` and an unedited copy (plain `cat`). Do not delete the node's file or drain the node on the strength of a copy.",
	})
}

func missingFields(kind statefile.Kind, data []byte) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return nil
	}
	var out []string
	for _, name := range expectedFields[kind] {
		if !hasField(top, name) {
			out = append(out, name)
		}
	}
	return out
}

func nodeFileName(k statefile.Kind) string { return kubeletfiles.NameOf(k) }

func kubeletPath(k statefile.Kind) string { return "/var/lib/kubelet/" + kubeletfiles.PathOf(k) }

// markUnverified marks every finding that rests on a checkpoint read from
// an unverified copy, so no conclusion drawn from it passes for one drawn
// from the node's file.
func (d *diagnosis) markUnverified() {
	names := map[string]bool{}
	for _, f := range d.ev.States {
		if d.ev.pastes[f].unverified(f) {
			names[f.Name] = true
		}
	}
	if len(names) == 0 {
		return
	}
	for i := range d.report.Findings {
		g := &d.report.Findings[i]
		if g.Code == codePastedCheckpoint || g.Code == CodeCorruptCheckpoint && strings.Contains(g.Title, "re-formatted copy") {
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
