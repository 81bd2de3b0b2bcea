package topomgr

import (
	"encoding/json"
	"fmt"
)

// TopologyHint is one placement a hint provider can offer: a set of NUMA
// nodes, or no NUMA constraint at all, and whether it is preferred.
//
// The zero value is the kubelet's zero TopologyHint {nil, false}: no NUMA
// affinity, not preferred.
type TopologyHint struct {
	// NUMANodeAffinity is the set of NUMA nodes. It counts only when
	// HasAffinity is true; a mask with no node set is still an affinity (one
	// that cannot be satisfied), as in the kubelet.
	NUMANodeAffinity BitMask
	// HasAffinity is false for the kubelet's nil affinity: "any NUMA node".
	HasAffinity bool
	// Preferred marks a placement that uses the fewest NUMA nodes possible.
	Preferred bool
}

// NewHint returns a hint with the given NUMA affinity.
func NewHint(mask BitMask, preferred bool) TopologyHint {
	return TopologyHint{NUMANodeAffinity: mask, HasAffinity: true, Preferred: preferred}
}

// AnyNUMAHint returns a hint without NUMA affinity (the kubelet's nil mask).
func AnyNUMAHint(preferred bool) TopologyHint {
	return TopologyHint{Preferred: preferred}
}

// IsEqual reports whether both hints have the same preference and the same
// affinity; a hint without affinity equals only another such hint.
func (h TopologyHint) IsEqual(o TopologyHint) bool {
	if h.Preferred != o.Preferred || h.HasAffinity != o.HasAffinity {
		return false
	}
	return !h.HasAffinity || h.NUMANodeAffinity == o.NUMANodeAffinity
}

// LessThan reports whether h sorts before o: preferred first, then narrower.
// As in the kubelet, hints without affinity compare as the empty mask.
func (h TopologyHint) LessThan(o TopologyHint) bool {
	if h.Preferred != o.Preferred {
		return h.Preferred
	}
	return h.mask().IsNarrowerThan(o.mask())
}

func (h TopologyHint) mask() BitMask {
	if !h.HasAffinity {
		return 0
	}
	return h.NUMANodeAffinity
}

// String renders the hint as the kubelet's logs do, with the mask as an
// integer: {"NUMANodeAffinity":2,"Preferred":true}.
func (h TopologyHint) String() string {
	if !h.HasAffinity {
		return fmt.Sprintf(`{"NUMANodeAffinity":null,"Preferred":%t}`, h.Preferred)
	}
	return fmt.Sprintf(`{"NUMANodeAffinity":%d,"Preferred":%t}`, uint64(h.NUMANodeAffinity), h.Preferred)
}

type hintJSON struct {
	NUMAAffinity *[]int `json:"numaAffinity"`
	Preferred    bool   `json:"preferred"`
}

// MarshalJSON writes {"numaAffinity":[0,1]|null,"preferred":bool}.
func (h TopologyHint) MarshalJSON() ([]byte, error) {
	var j hintJSON
	if h.HasAffinity {
		b := h.NUMANodeAffinity.Bits()
		if b == nil {
			b = []int{}
		}
		j.NUMAAffinity = &b
	}
	j.Preferred = h.Preferred
	return json.Marshal(j)
}

// UnmarshalJSON reads {"numaAffinity":[0,1]|null,"preferred":bool}; a missing
// or null numaAffinity is the any-NUMA hint, [] an affinity with no node.
func (h *TopologyHint) UnmarshalJSON(data []byte) error {
	var j hintJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*h = TopologyHint{Preferred: j.Preferred}
	if j.NUMAAffinity != nil {
		m, err := NewBitMask(*j.NUMAAffinity...)
		if err != nil {
			return fmt.Errorf("numaAffinity: %w", err)
		}
		h.NUMANodeAffinity, h.HasAffinity = m, true
	}
	return nil
}

// Describe renders the hint for people: "NUMA node 1, preferred",
// "NUMA nodes {0,1}, not preferred" or "any NUMA node, preferred".
func (h TopologyHint) Describe() string {
	s := "any NUMA node"
	if h.HasAffinity {
		s = "NUMA nodes {" + h.NUMANodeAffinity.List() + "}"
		if h.NUMANodeAffinity.Count() == 1 {
			s = "NUMA node " + h.NUMANodeAffinity.List()
		}
	}
	if h.Preferred {
		return s + ", preferred"
	}
	return s + ", not preferred"
}
