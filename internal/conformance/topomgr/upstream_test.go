package topomgr

import (
	"testing"

	ns "github.com/numascope/numascope/topomgr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Inputs read from the kubelet's policy_test.go (v1.37.2): the NUMA
// layouts commonNUMAInfoFourNodes/EightNodes and a selection of the merge
// cases, with the expected hints upstream asserts. Both the kubelet and
// numascope must return the expected hint.

func fourNodes() []ns.NUMANode {
	return []ns.NUMANode{
		{ID: 0, Distances: []uint64{10, 11, 12, 12}},
		{ID: 1, Distances: []uint64{11, 10, 12, 12}},
		{ID: 2, Distances: []uint64{12, 12, 10, 11}},
		{ID: 3, Distances: []uint64{12, 12, 11, 10}},
	}
}

func eightNodes() []ns.NUMANode {
	return []ns.NUMANode{
		{ID: 0, Distances: []uint64{10, 11, 12, 12, 30, 30, 30, 30}},
		{ID: 1, Distances: []uint64{11, 10, 12, 12, 30, 30, 30, 30}},
		{ID: 2, Distances: []uint64{12, 12, 10, 11, 30, 30, 30, 30}},
		{ID: 3, Distances: []uint64{12, 12, 11, 10, 30, 30, 30, 30}},
		{ID: 4, Distances: []uint64{30, 30, 30, 30, 10, 11, 12, 12}},
		{ID: 5, Distances: []uint64{30, 30, 30, 30, 11, 10, 12, 12}},
		{ID: 6, Distances: []uint64{30, 30, 30, 30, 12, 12, 10, 11}},
		{ID: 7, Distances: []uint64{30, 30, 30, 30, 12, 12, 13, 10}},
	}
}

func h(pref bool, ids ...int) ns.TopologyHint {
	m, err := ns.NewBitMask(ids...)
	if err != nil {
		panic(err)
	}
	return ns.NewHint(m, pref)
}

func one(res string, hints ...ns.TopologyHint) ns.ProviderHints {
	return ns.ProviderHints{res: hints}
}

const T, F = true, false

type upstreamCase struct {
	name      string
	providers []ns.ProviderHints
	want      ns.TopologyHint
}

func upstreamCommon() []upstreamCase {
	return []upstreamCase{
		{"same mask, both preferred 1/2", []ns.ProviderHints{one("resource1", h(T, 0)), one("resource2", h(T, 0))}, h(T, 0)},
		{"same mask, both preferred 2/2", []ns.ProviderHints{one("resource1", h(T, 1)), one("resource2", h(T, 1))}, h(T, 1)},
		{"1 no hints, 1 single hint preferred 1/2", []ns.ProviderHints{{}, one("resource", h(T, 0))}, h(T, 0)},
		{"1 with 2 hints, 1 with single hint matching 1/2", []ns.ProviderHints{one("resource1", h(T, 0), h(T, 1)), one("resource2", h(T, 0))}, h(T, 0)},
		{"both with 2 hints, matching narrower preferred", []ns.ProviderHints{one("resource1", h(T, 0), h(F, 0, 1)), one("resource2", h(T, 0), h(F, 0, 1))}, h(T, 0)},
		{"less narrow preferred over narrower non-preferred", []ns.ProviderHints{one("resource1", h(T, 1), h(F, 0, 1)), one("resource2", h(T, 0), h(T, 1), h(F, 0, 1))}, h(T, 1)},
		{"multiple resources, same provider", []ns.ProviderHints{{"resource1": {h(T, 1), h(F, 0, 1)}, "resource2": {h(T, 0), h(T, 1), h(F, 0, 1)}}}, h(T, 1)},
	}
}

func upstreamBestEffort() []upstreamCase {
	return []upstreamCase{
		{"two providers, 2 hints each, same mask (some with different bits)", []ns.ProviderHints{one("resource1", h(T, 0, 1), h(T, 0, 2)), one("resource2", h(T, 0, 1), h(T, 0, 2))}, h(T, 0, 1)},
		{"TopologyHint not set", nil, h(T, 0, 1, 2, 3)},
		{"empty non-nil map", []ns.ProviderHints{{}}, h(T, 0, 1, 2, 3)},
		{"nil list from provider", []ns.ProviderHints{{"resource": nil}}, h(T, 0, 1, 2, 3)},
		{"empty list from provider", []ns.ProviderHints{{"resource": {}}}, h(F, 0, 1, 2, 3)},
		{"single hint nil affinity preferred", []ns.ProviderHints{one("resource", ns.AnyNUMAHint(T))}, h(T, 0, 1, 2, 3)},
		{"single hint nil affinity not preferred", []ns.ProviderHints{one("resource", ns.AnyNUMAHint(F))}, h(F, 0, 1, 2, 3)},
		{"1 hint each, no common mask", []ns.ProviderHints{one("resource1", h(T, 0)), one("resource2", h(T, 1))}, h(F, 0, 1, 2, 3)},
		{"same mask, 1 preferred, 1 not", []ns.ProviderHints{one("resource1", h(T, 0)), one("resource2", h(F, 0))}, h(F, 0)},
		{"1 wider mask, both preferred", []ns.ProviderHints{one("resource1", h(T, 0)), one("resource2", h(T, 0, 1))}, h(F, 0)},
		{"bestNonPreferredAffinityCount (1)", []ns.ProviderHints{one("resource1", h(F, 0, 1, 2, 3), h(F, 0, 1)), one("resource2", h(F, 0, 1))}, h(F, 0, 1)},
		{"bestNonPreferredAffinityCount (2)", []ns.ProviderHints{one("resource1", h(F, 0, 1, 2, 3), h(F, 0, 1)), one("resource2", h(F, 0, 3))}, h(F, 0, 3)},
		{"bestNonPreferredAffinityCount (3)", []ns.ProviderHints{one("resource1", h(F, 0, 1, 2, 3), h(F, 0, 1)), one("resource2", h(F, 1, 2))}, h(F, 1, 2)},
		{"bestNonPreferredAffinityCount (4)", []ns.ProviderHints{one("resource1", h(F, 0, 1, 2, 3), h(F, 0, 1)), one("resource2", h(F, 2, 3))}, h(F, 2, 3)},
	}
}

func upstreamNoPolicies() []upstreamCase {
	return []upstreamCase{
		{"bestNonPreferredAffinityCount (5)", []ns.ProviderHints{one("resource1", h(F, 0, 1, 2, 3), h(F, 0, 1)), one("resource2", h(F, 1, 2), h(F, 2, 3))}, h(F, 1, 2)},
		{"bestNonPreferredAffinityCount (6)", []ns.ProviderHints{one("resource1", h(F, 0, 1, 2, 3), h(F, 0, 1)), one("resource2", h(F, 1, 2, 3), h(F, 1, 2), h(F, 1, 3), h(F, 2, 3))}, h(F, 1, 2)},
	}
}

func upstreamClosest() []upstreamCase {
	return []upstreamCase{
		{"closest: same masks (some different bits)", []ns.ProviderHints{one("resource1", h(T, 0, 4), h(T, 0, 2)), one("resource2", h(T, 0, 4), h(T, 0, 2))}, h(T, 0, 2)},
		{"closest: different masks", []ns.ProviderHints{one("resource1", h(T, 4), h(T, 0, 2)), one("resource2", h(T, 4), h(T, 0, 2))}, h(T, 4)},
		{"closest: bestNonPreferredAffinityCount (5)", []ns.ProviderHints{one("resource1", h(F, 0, 1, 2, 3), h(F, 0, 1)), one("resource2", h(F, 1, 2), h(F, 2, 3))}, h(F, 2, 3)},
		{"closest: bestNonPreferredAffinityCount (6)", []ns.ProviderHints{one("resource1", h(F, 0, 1, 2, 3), h(F, 0, 1)), one("resource2", h(F, 1, 2, 3), h(F, 1, 2), h(F, 1, 3), h(F, 2, 3))}, h(F, 2, 3)},
	}
}

func upstreamSingleNUMA() []upstreamCase {
	return []upstreamCase{
		{"TopologyHint not set", nil, ns.AnyNUMAHint(T)},
		{"empty list from provider", []ns.ProviderHints{{"resource": {}}}, ns.AnyNUMAHint(F)},
		{"single hint nil affinity not preferred", []ns.ProviderHints{one("resource", ns.AnyNUMAHint(F))}, ns.AnyNUMAHint(F)},
		{"1 hint each, no common mask", []ns.ProviderHints{one("resource1", h(T, 0)), one("resource2", h(T, 1))}, ns.AnyNUMAHint(F)},
		{"same mask, 1 preferred, 1 not", []ns.ProviderHints{one("resource1", h(T, 0)), one("resource2", h(F, 0))}, ns.AnyNUMAHint(F)},
		{"single NUMA hint generation", []ns.ProviderHints{{"resource1": {h(T, 0, 1)}, "resource2": {h(T, 0), h(T, 1), h(F, 0, 1)}}}, ns.AnyNUMAHint(F)},
		{"one no-preference provider", []ns.ProviderHints{one("resource1", h(T, 0), h(T, 1), h(F, 0, 1)), nil}, h(T, 0)},
	}
}

func TestUpstreamPolicyTables(t *testing.T) {
	type suite struct {
		policy  string
		nodes   []ns.NUMANode
		options map[string]string
		cases   []upstreamCase
	}
	closest := map[string]string{ns.PreferClosestNUMANodes: "true"}
	var suites []suite
	for _, p := range []string{ns.PolicyBestEffort, ns.PolicyRestricted} {
		suites = append(suites,
			suite{p, fourNodes(), nil, append(append(upstreamCommon(), upstreamBestEffort()...), upstreamNoPolicies()...)},
			suite{p, eightNodes(), closest, append(upstreamCommon(), upstreamClosest()...)},
		)
	}
	suites = append(suites, suite{ns.PolicySingleNumaNode, fourNodes(), nil, append(upstreamCommon(), upstreamSingleNUMA()...)})
	n := 0
	for _, s := range suites {
		kp, err := kubeletPolicy(s.nodes, s.policy, s.options)
		require.NoError(t, err)
		np, err := numascopePolicy(s.nodes, s.policy, s.options)
		require.NoError(t, err)
		for _, c := range s.cases {
			if s.policy == ns.PolicySingleNumaNode && c.want.HasAffinity && c.want.NUMANodeAffinity.Count() > 1 {
				continue // the common cases with wide answers do not apply to single-numa-node
			}
			kh, kadmit := kp.Merge(discard, kProviders(c.providers))
			nh, nadmit := np.Merge(c.providers)
			assert.True(t, nsHint(kh).IsEqual(c.want), "%s/%s: the kubelet answers %v, upstream expects %v", s.policy, c.name, nsHint(kh), c.want)
			assert.True(t, nh.IsEqual(c.want), "%s/%s: numascope answers %v, upstream expects %v", s.policy, c.name, nh, c.want)
			assert.Equal(t, kadmit, nadmit, "%s/%s: admit, kubelet and numascope", s.policy, c.name)
			n++
		}
	}
	t.Logf("%d upstream cases agree", n)
}
