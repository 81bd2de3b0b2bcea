package topomgr

import "slices"

// ProviderHints is one hint provider's answer: hint lists per resource name
// ("cpu", "memory", "hugepages-1Gi", "nvidia.com/gpu", ...). A nil or empty
// map means "no preference for any resource", a nil list "no preference for
// this resource", and an empty, non-nil list "no possible placement".
type ProviderHints map[string][]TopologyHint

// ListOrigin says how a resource's hint list entered the merge.
type ListOrigin string

// The ways a hint list enters the merge (the kubelet's filterProvidersHints).
const (
	// FromProvider: the provider's own hints, used as given.
	FromProvider ListOrigin = "hints"
	// NoPreferenceProvider: the provider returned a nil or empty map; the
	// list is [{any NUMA, preferred}].
	NoPreferenceProvider ListOrigin = "provider-no-preference"
	// NoPreferenceResource: the provider returned a nil list for the
	// resource; the list is [{any NUMA, preferred}].
	NoPreferenceResource ListOrigin = "resource-no-preference"
	// NoPossiblePlacement: the provider returned an empty list for the
	// resource; the list is [{any NUMA, not preferred}].
	NoPossiblePlacement ListOrigin = "no-possible-placement"
)

// ResourceHints is one hint list of the merge: which provider and resource
// it comes from, how it was normalised, and its hints.
type ResourceHints struct {
	// Provider is the provider's index in the providers list.
	Provider int `json:"provider"`
	// Resource is the resource name; empty for NoPreferenceProvider.
	Resource string         `json:"resource,omitempty"`
	Origin   ListOrigin     `json:"origin"`
	Hints    []TopologyHint `json:"hints"`
}

// filterProvidersHints normalises the providers' answers into one hint list
// per resource, as the kubelet's filterProvidersHints does. The kubelet
// walks each provider's map in Go's random map order; the merge's outcome
// does not depend on that order, and numascope sorts by resource name.
func filterProvidersHints(providers []ProviderHints) []ResourceHints {
	var out []ResourceHints
	for i, p := range providers {
		if len(p) == 0 {
			out = append(out, ResourceHints{Provider: i, Origin: NoPreferenceProvider, Hints: []TopologyHint{AnyNUMAHint(true)}})
			continue
		}
		names := make([]string, 0, len(p))
		for r := range p {
			names = append(names, r)
		}
		slices.Sort(names)
		for _, r := range names {
			hints := p[r]
			switch {
			case hints == nil:
				out = append(out, ResourceHints{Provider: i, Resource: r, Origin: NoPreferenceResource, Hints: []TopologyHint{AnyNUMAHint(true)}})
			case len(hints) == 0:
				out = append(out, ResourceHints{Provider: i, Resource: r, Origin: NoPossiblePlacement, Hints: []TopologyHint{AnyNUMAHint(false)}})
			default:
				out = append(out, ResourceHints{Provider: i, Resource: r, Origin: FromProvider, Hints: slices.Clone(hints)})
			}
		}
	}
	return out
}

// filterSingleNUMAHints keeps, per list, only preferred hints that have no
// affinity or exactly one NUMA node (the single-numa-node policy's filter).
func filterSingleNUMAHints(lists [][]TopologyHint) [][]TopologyHint {
	out := make([][]TopologyHint, len(lists))
	for i, l := range lists {
		var kept []TopologyHint
		for _, h := range l {
			if h.Preferred && (!h.HasAffinity || h.NUMANodeAffinity.Count() == 1) {
				kept = append(kept, h)
			}
		}
		out[i] = kept
	}
	return out
}

// bestNonPreferredAffinityCount is the largest, over all lists, of the
// node count of the list's narrowest hint with affinity (0 if none).
func bestNonPreferredAffinityCount(lists [][]TopologyHint) int {
	b := 0
	for _, l := range lists {
		found := false
		var narrowest BitMask
		for _, h := range l {
			if !h.HasAffinity {
				continue
			}
			if !found || h.NUMANodeAffinity.IsNarrowerThan(narrowest) {
				narrowest, found = h.NUMANodeAffinity, true
			}
		}
		if found && narrowest.Count() > b {
			b = narrowest.Count()
		}
	}
	return b
}
