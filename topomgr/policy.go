package topomgr

import (
	"fmt"
	"math"
	"strings"
)

// Topology Manager policy names.
const (
	PolicyNone           = "none"
	PolicyBestEffort     = "best-effort"
	PolicyRestricted     = "restricted"
	PolicySingleNumaNode = "single-numa-node"
)

// Policy is one of the kubelet's Topology Manager policies on a given
// machine with given options.
type Policy struct {
	name string
	numa *NUMAInfo
	opts PolicyOptions
}

// NewPolicy returns the named policy ("none", "best-effort", "restricted"
// or "single-numa-node") for the machine and options.
func NewPolicy(name string, numa *NUMAInfo, opts PolicyOptions) (*Policy, error) {
	switch name {
	case PolicyNone, PolicyBestEffort, PolicyRestricted, PolicySingleNumaNode:
	default:
		return nil, fmt.Errorf("unknown policy: %q: use none, best-effort, restricted or single-numa-node", name)
	}
	if numa == nil {
		numa = &NUMAInfo{}
	}
	return &Policy{name: name, numa: numa, opts: opts}, nil
}

// Name returns the policy's name.
func (p *Policy) Name() string { return p.name }

// NUMAInfo returns the machine layout the policy merges for.
func (p *Policy) NUMAInfo() *NUMAInfo { return p.numa }

// Options returns the policy options.
func (p *Policy) Options() PolicyOptions { return p.opts }

// IsAlignmentGuaranteed reports whether the policy guarantees NUMA-aligned
// resources or a rejection (single-numa-node only).
func (p *Policy) IsAlignmentGuaranteed() bool { return p.name == PolicySingleNumaNode }

// Merge merges the providers' hints (in provider order) into the best hint
// and decides admission, exactly as the kubelet's policy Merge does.
func (p *Policy) Merge(providers []ProviderHints) (TopologyHint, bool) {
	r := p.Explain(providers)
	return r.BestHint, r.Admit
}

// Rule names the step of the kubelet's comparison that picked the best hint.
type Rule string

// The rules that can pick the best hint.
const (
	// RuleNonePolicy: the none policy merges nothing and admits.
	RuleNonePolicy Rule = "none-policy"
	// RulePreferredNarrowest: some combination was preferred; among those,
	// the fewest NUMA nodes, then the lowest-numbered ones.
	RulePreferredNarrowest Rule = "preferred-narrowest"
	// RulePreferredClosest: as RulePreferredNarrowest, but equally wide masks
	// are ranked by average NUMA distance (prefer-closest-numa-nodes).
	RulePreferredClosest Rule = "preferred-closest"
	// RuleNonPreferredAtCount: no preferred combination; a merged mask with
	// exactly BestNonPreferredAffinityCount nodes won.
	RuleNonPreferredAtCount Rule = "non-preferred-at-best-count"
	// RuleNonPreferredBelowCount: no merged mask had that many nodes; the
	// widest mask below it won.
	RuleNonPreferredBelowCount Rule = "non-preferred-below-best-count"
	// RuleNonPreferredAboveCount: every merged mask was wider than that; the
	// narrowest won.
	RuleNonPreferredAboveCount Rule = "non-preferred-above-best-count"
	// RuleNoCandidate: every combination ANDed to no NUMA node (or a list
	// was empty); the result is all NUMA nodes, not preferred.
	RuleNoCandidate Rule = "no-candidate"
)

// MergeReport is the work behind a merge: the normalised hint lists, the
// numbers the kubelet's comparison used, the winner and the rule that
// picked it.
type MergeReport struct {
	Policy string `json:"policy"`
	// Lists are the hint lists after normalisation, in provider order.
	Lists []ResourceHints `json:"lists"`
	// SingleNUMALists are the lists after the single-numa-node filter
	// (single-numa-node only): preferred hints with one node or none.
	SingleNUMALists [][]TopologyHint `json:"singleNumaLists,omitempty"`
	// DefaultAffinity is the mask of all the machine's NUMA nodes.
	DefaultAffinity BitMask `json:"defaultAffinity"`
	// BestNonPreferredAffinityCount is the widest of the lists' narrowest
	// masks: the width the most demanding resource needs.
	BestNonPreferredAffinityCount int `json:"bestNonPreferredAffinityCount"`
	// Combinations is how many combinations the kubelet enumerates (any
	// number: it is written in JSON as a number of as many digits as needed).
	Combinations combinationCount `json:"combinations"`
	// PreferredCandidates counts the distinct non-empty merged masks of
	// preferred combinations.
	PreferredCandidates int `json:"preferredCandidates"`
	// NonPreferredCandidates counts the distinct non-empty merged masks of
	// all combinations; computed only when no combination is preferred.
	NonPreferredCandidates int `json:"nonPreferredCandidates"`
	// Merged is the hint the comparison picked, before single-numa-node
	// rewrites the all-nodes mask to "any NUMA".
	Merged TopologyHint `json:"merged"`
	// BestHint is the policy's answer.
	BestHint TopologyHint `json:"bestHint"`
	// Admit is whether the policy admits the pod with BestHint.
	Admit bool `json:"admit"`
	Rule  Rule `json:"rule"`
	// RewrittenToAnyNUMA is true when single-numa-node turned a result
	// covering every NUMA node into the any-NUMA hint.
	RewrittenToAnyNUMA bool `json:"rewrittenToAnyNuma,omitempty"`
}

// combinationCount is a number of combinations, exact at any size.
type combinationCount nat

// String is the count in decimal.
func (c combinationCount) String() string { return nat(c).String() }

// Int64 is the count, or math.MaxInt64 when it is larger.
func (c combinationCount) Int64() int64 {
	if v, ok := nat(c).uint64(); ok && v <= math.MaxInt64 {
		return int64(v)
	}
	return math.MaxInt64
}

// MarshalJSON writes the count as a JSON number.
func (c combinationCount) MarshalJSON() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalJSON reads a count written by MarshalJSON: a whole number of at
// most 10,000 digits.
func (c *combinationCount) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "" || len(s) > 10000 || strings.Trim(s, "0123456789") != "" {
		return fmt.Errorf("combinations: %.40q is not a whole number of at most 10000 digits", s)
	}
	*c = combinationCount(natFromDecimal(s))
	return nil
}

// Explain merges like Merge and returns the work behind the answer.
func (p *Policy) Explain(providers []ProviderHints) *MergeReport {
	r := &MergeReport{Policy: p.name, DefaultAffinity: p.numa.DefaultAffinityMask()}
	if p.name == PolicyNone {
		r.Admit, r.Rule = true, RuleNonePolicy
		return r
	}
	r.Lists = filterProvidersHints(providers)
	lists := make([][]TopologyHint, len(r.Lists))
	for i, l := range r.Lists {
		lists[i] = l.Hints
	}
	closest := p.opts.PreferClosestNUMA
	if p.name == PolicySingleNumaNode {
		lists = filterSingleNUMAHints(lists)
		r.SingleNUMALists = lists
		closest = false
	}
	count := nat{1}
	for _, l := range lists {
		count = count.mul(natFromUint64(uint64(len(l))))
	}
	r.Combinations = combinationCount(count)
	m := newMerger(p.numa, lists, closest)
	r.BestNonPreferredAffinityCount = m.b
	res := m.merge()
	r.Merged, r.Rule = res.hint, res.rule
	r.PreferredCandidates, r.NonPreferredCandidates = res.preferred, res.nonPreferred
	r.BestHint = r.Merged
	if p.name == PolicySingleNumaNode && r.BestHint.HasAffinity && r.BestHint.NUMANodeAffinity == r.DefaultAffinity {
		r.BestHint = AnyNUMAHint(r.BestHint.Preferred)
		r.RewrittenToAnyNUMA = true
	}
	switch p.name {
	case PolicyBestEffort:
		r.Admit = true
	default:
		r.Admit = r.BestHint.Preferred
	}
	return r
}

// Why explains in one sentence which rule picked the best hint and what the
// policy made of it.
func (r *MergeReport) Why() string {
	var s string
	b := r.BestNonPreferredAffinityCount
	switch r.Rule {
	case RuleNonePolicy:
		return "the none policy merges nothing and admits every pod"
	case RulePreferredNarrowest:
		s = fmt.Sprintf("%d distinct mask(s) come from combinations of preferred hints whose NUMA masks all agree; the narrowest (then lowest-numbered) wins", r.PreferredCandidates)
	case RulePreferredClosest:
		s = fmt.Sprintf("%d distinct mask(s) come from combinations of preferred hints whose NUMA masks all agree; the narrowest wins, equally wide ones by the smallest average NUMA distance (prefer-closest-numa-nodes)", r.PreferredCandidates)
	case RuleNonPreferredAtCount:
		s = fmt.Sprintf("no combination is preferred (all hints preferred and every NUMA mask equal); a merged mask with exactly %d node(s), the width the most demanding resource needs, wins", b)
	case RuleNonPreferredBelowCount:
		s = fmt.Sprintf("no combination is preferred and none merges to %d node(s); the widest merged mask below that wins", b)
	case RuleNonPreferredAboveCount:
		s = fmt.Sprintf("no combination is preferred and every merged mask is wider than %d node(s); the narrowest wins", b)
	case RuleNoCandidate:
		s = "no combination leaves any NUMA node (the masks do not intersect, or a list is empty), so the result is every NUMA node, not preferred"
	}
	if r.RewrittenToAnyNUMA {
		s += "; single-numa-node reports a result covering every NUMA node as \"any NUMA node\""
	}
	switch {
	case r.Policy == PolicyBestEffort:
		s += "; best-effort admits every pod"
	case r.Admit:
		s += "; " + r.Policy + " admits it because it is preferred"
	default:
		s += "; " + r.Policy + " rejects it (TopologyAffinityError) because it is not preferred"
	}
	return s
}
