package evidence

import (
	"fmt"

	"github.com/numascope/numascope/internal/words"
	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/statefile"
)

// stateFileNames are the checkpoint files looked up under a kubelet root directory.
var stateFileNames = func() []string {
	var out []string
	for _, k := range statefile.Kinds() {
		out = append(out, k.PathIn(""))
	}
	return out
}()

// AddStateFile decodes and verifies a kubelet checkpoint file. The policy
// the kubelet is configured with is taken from the kubelet configuration when
// it was set first and names a valid policy.
//
// The bytes may be a pasted copy rather than the file itself: a copy that
// does not decode as it is (a shell prompt, jq output, # notes, elisions,
// a cut end) is repaired and read as far as it goes; a re-formatted copy
// is read as it is. Either is reported as a copy, with what could be
// verified, and the findings drawn from an unverified copy say so.
func (e *Set) AddStateFile(name string, data []byte) error {
	return e.addState(name, data, false)
}

// DecodeState is statefile.Decode, or e.Decode when it is set; the File
// is a copy of the one e.Decode returned, which the evidence changes
// (verdicts given again, content of a copy filled in) without touching the
// caller's.
func (e *Set) DecodeState(data []byte, opts statefile.Options) (*statefile.File, error) {
	if e.Decode == nil {
		return statefile.Decode(data, opts)
	}
	f, err := e.Decode(data, opts)
	if f != nil {
		c := *f
		f = &c
	}
	return f, err
}

// addState adds a checkpoint; onNode is true for a file read from the
// node's kubelet directory, which is the file itself and never a paste.
func (e *Set) addState(name string, data []byte, onNode bool) error {
	opts := statefile.Options{Name: name}
	var prov *Provenance
	f, err := e.DecodeState(data, opts)
	if err != nil && !onNode {
		f, prov, err = decodePaste(name, data, opts, err)
	}
	if err != nil {
		return fmt.Errorf("state file %s: %w", name, err)
	}
	decoded := data
	if prov != nil {
		decoded = prov.Repair.JSON
		if prov.Repair.Cut != nil {
			prov.Missing = missingFields(f.Kind, decoded)
		}
	}
	policy := ""
	if c := e.Config; c != nil {
		switch f.Kind {
		case statefile.KindCPU:
			if p := c.EffectiveCPUManagerPolicy(); p == "none" || p == "static" {
				policy = p
			}
		case statefile.KindMemory:
			if p := c.EffectiveMemoryManagerPolicy(); p == "None" || p == "Static" {
				policy = p
			}
		}
	}
	if prov == nil && !onNode {
		prov = copyProvenance(f, data)
	}
	// For the node's file (or an intact copy of it) the verdict is the
	// kubelet's under the configured policy. A repaired or redacted copy
	// keeps the content decoded under its own policy, since the kubelet's
	// verdict does not apply to it.
	if policy != "" && (prov == nil || prov.Repair == nil && len(prov.Redactions) == 0) {
		opts.Policy = policy
		if g, err := e.DecodeState(decoded, opts); err == nil {
			f = g
		}
	}
	if prov != nil && (prov.Repair != nil || len(prov.Redactions) > 0) {
		// Not the node's file: the kubelet decides nothing about it. Only
		// what the values themselves show is kept (a policy mismatch).
		fillContent(f, decoded, statefile.Options{Name: name, Kind: f.Kind})
		f.KubeletAccepts, f.OnReject, f.Reason = false, "", policyMismatch(f, policy)
	}
	e.keepStateInput(f, decoded, opts, prov == nil || prov.Repair == nil && len(prov.Redactions) == 0)
	e.States = append(e.States, f)
	note := "kubelet accepts it"
	if !f.KubeletAccepts {
		note = "kubelet " + f.OnReject
	}
	if prov != nil {
		if e.pastes == nil {
			e.pastes = map[*statefile.File]*Provenance{}
		}
		e.pastes[f] = prov
		note = pasteNote(f, prov)
	}
	e.items = append(e.items, Item{File: name, Kind: "state-" + string(f.Kind), Format: string(f.Format), Note: note})
	return nil
}

// policyMismatch is the kubelet's own words for a checkpoint written under
// another policy than the configured one ("" when they agree or either is
// unknown). The kubelet checks the checksum first; for a copy the values
// are all there is, so the policy is compared directly.
func policyMismatch(f *statefile.File, configured string) string {
	written := ""
	switch {
	case f.CPU != nil:
		written = f.CPU.PolicyName
	case f.Memory != nil:
		written = f.Memory.PolicyName
	}
	if configured == "" || written == "" || written == configured {
		return ""
	}
	if f.Kind == statefile.KindMemory {
		return fmt.Sprintf("[memorymanager] configured policy %q differs from state checkpoint policy %q", configured, written)
	}
	return fmt.Sprintf("configured policy %q differs from state checkpoint policy %q", configured, written)
}

// SetPodResources sets a PodResources snapshot.
func (e *Set) SetPodResources(name string, s *podresources.Snapshot) {
	e.PodResources = s
	e.podResourcesName = name
	note := words.Count(len(s.Pods), "pod")
	if len(s.Pods) == 1 {
		note = "1 pod"
	}
	if s.Allocatable == nil {
		note += ", no allocatable answer"
	}
	e.items = append(e.items, Item{File: name, Kind: "podresources", Note: note})
}
