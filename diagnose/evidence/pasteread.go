package evidence

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/numascope/numascope/internal/jsonptr"
	"github.com/numascope/numascope/internal/jsonrepair"
	"github.com/numascope/numascope/statefile"
)

// Provenance is where the bytes of a checkpoint came from, as far as they
// show it.
type Provenance struct {
	// Repair is set when the bytes were not JSON and were repaired.
	Repair *jsonrepair.Result
	// Reformatted: the bytes decode as they are but are not laid out the
	// way the kubelet writes its files (compact JSON): a copy that went
	// through jq, an editor or a chat.
	Reformatted bool
	// Redactions are the redacted tokens a copy that is still JSON holds.
	Redactions []jsonrepair.Change
	// RedactedKeys are map keys (pod UIDs, container names) that look redacted.
	RedactedKeys []string
	// Missing are the members the kubelet writes that a cut paste lacks.
	Missing []string
}

// copyProvenance tells whether bytes that decode as they are come from a
// copy: laid out otherwise than the kubelet writes, or holding redacted
// tokens. It returns nil for bytes that may be the node's file itself.
func copyProvenance(f *statefile.File, data []byte) *Provenance {
	p := &Provenance{Reformatted: !compactLayout(data), RedactedKeys: redactedKeys(f)}
	// A checksum that matches proves the values are the ones the kubelet
	// hashed: no token in them was put there by a redaction, so the repair
	// scan (a third of diagnosing a large state file) is not needed.
	intact := f.Checksum.Valid && !f.Checksum.ZeroSkipped
	if !intact {
		if res, err := jsonrepair.Repair(data, jsonrepair.Options{MaxSize: int(statefile.DefaultMaxSize), MaxDepth: statefile.MaxDepth}); err == nil {
			for _, c := range res.Repairs {
				if c.Kind == jsonrepair.KindRedaction {
					p.Redactions = append(p.Redactions, c)
				}
			}
		}
	}
	if !p.Reformatted && len(p.Redactions) == 0 && len(p.RedactedKeys) == 0 {
		return nil
	}
	return p
}

// unverified reports whether the values read cannot be tied to what a
// kubelet wrote: a repaired paste whose repairs may have changed values,
// or a copy whose checksum does not match or is not checked.
func (p *Provenance) Unverified(f *statefile.File) bool {
	if p == nil {
		return false
	}
	if p.Repair != nil && p.Repair.Lossy || len(p.RedactedKeys) > 0 || len(p.Redactions) > 0 {
		return true
	}
	return !f.Checksum.Valid || f.Checksum.ZeroSkipped
}

// Partial reports whether a checkpoint's entries may be incomplete: it is
// a paste that was cut, elided, had members dropped, or whose keys are
// redacted (entries redacted to one key collapse). Checks that need every
// entry are not run on it: what is missing would pass for what is free.
func (e *Set) Partial(f *statefile.File) bool {
	p := e.pastes[f]
	if p == nil {
		return false
	}
	if len(p.RedactedKeys) > 0 {
		return true
	}
	r := p.Repair
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
func decodePaste(name string, data []byte, opts statefile.Options, orig error) (*statefile.File, *Provenance, error) {
	if errors.Is(orig, statefile.ErrTooLarge) || errors.Is(orig, statefile.ErrTooDeep) {
		return nil, nil, orig
	}
	res, err := jsonrepair.Repair(data, jsonrepair.Options{MaxSize: int(statefile.DefaultMaxSize), MaxDepth: statefile.MaxDepth, Records: pasteRecords})
	if errors.Is(err, jsonrepair.ErrNoObject) && len(bytes.TrimSpace(data)) > 0 {
		// Not even the start of a checkpoint: say so without the advice
		// meant for the node's own file.
		return nil, nil, fmt.Errorf("%w: no JSON object in it, so it is not a kubelet checkpoint or a paste of one (a paste cut before its first line?); "+
			"paste the whole file, or check the node's own file there with numascope's `inspect FILE`", statefile.ErrNotJSON)
	}
	if err != nil || !res.Changed() {
		return nil, nil, orig
	}
	f, err := statefile.Decode(res.JSON, opts)
	if err != nil {
		if res.Cut != nil {
			return nil, nil, fmt.Errorf("cannot decode checkpoint: truncated inside %s at line %d, before any member that names the checkpoint kind (paste the whole file)", jsonptr.Describe(res.Cut.Path), res.Cut.Line)
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
				return nil, nil, fmt.Errorf("cannot decode checkpoint: truncated inside %s at line %d, before %s (the paste ends there; %s is required: paste the whole file, or run numascope on the node)", jsonptr.Describe(cut.Path), cut.Line, req, req)
			}
		}
	}
	// The kubelet's verdict is about the file on the node; this is a
	// reconstruction of a paste of it, for which the kubelet decides
	// nothing (addState drops the verdict): the checksum report stays as
	// computed over the values read.
	return f, &Provenance{Repair: res, RedactedKeys: redactedKeys(f)}, nil
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
	return ok && isCheckpointName(base)
}

// isCheckpointName reports whether a file name is one of a checkpoint's.
func isCheckpointName(n string) bool {
	_, ok := statefile.KindOfFileName(n)
	return ok
}

// namesCheckpoint reports whether s holds a checkpoint's file name.
func namesCheckpoint(s string) bool {
	for _, k := range statefile.Kinds() {
		if strings.Contains(s, k.FileName()) {
			return true
		}
	}
	return false
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
func pasteNote(f *statefile.File, p *Provenance) string {
	switch {
	case p.Repair == nil && len(p.Redactions) > 0:
		return fmt.Sprintf("copy with %d redacted values: verification skipped, content read from an unverified copy", len(p.Redactions))
	case p.Repair != nil:
		n := len(p.Repair.Repairs) + p.Repair.Omitted
		s := fmt.Sprintf("pasted copy, repaired (%d repairs: %s): ", n, repairSummary(p.Repair))
		switch {
		case p.Repair.Lossy || len(p.RedactedKeys) > 0:
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
	case len(p.RedactedKeys) > 0:
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
