package evidence

import (
	"github.com/numascope/numascope/internal/nrt"
	"github.com/numascope/numascope/statefile"
)

// Items lists every input given, in the order given: what it was read
// as, or why it was not.
func (e *Set) Items() []Item { return append([]Item(nil), e.items...) }

// State returns the first checkpoint of a kind, or nil.
func (e *Set) State(kind statefile.Kind) *statefile.File {
	for _, f := range e.States {
		if f.Kind == kind {
			return f
		}
	}
	return nil
}

// Provenance returns where a checkpoint's bytes came from when they are
// a copy (repaired, re-formatted or redacted); nil for a file that may
// be the node's own.
func (e *Set) Provenance(f *statefile.File) *Provenance { return e.pastes[f] }

// PodResourcesName names the input the PodResources snapshot came from.
func (e *Set) PodResourcesName() string { return e.podResourcesName }

// NRT returns the NodeResourceTopology given as evidence and the input
// it came from (nil when none).
func (e *Set) NRT() (*nrt.Object, string) { return e.nrt, e.nrtName }

// KubeletVersion is the kubelet release given with SetKubeletVersion ("" when none).
func (e *Set) KubeletVersion() string { return e.kubeletVersion }

// StateInput is what a checkpoint was decoded from: the bytes and the
// options, to decode it again as another release would.
type StateInput struct {
	Data    []byte
	Options statefile.Options
}

// StateInput returns what f was decoded from, when its verdict may be
// given again for another release (not for a repaired or redacted copy).
func (e *Set) StateInput(f *statefile.File) (StateInput, bool) {
	in, ok := e.stateInputs[f]
	return in, ok
}
