package topomgr

import (
	"strings"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseHintsFileErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`[]`, `/: not a JSON object`},
		{`null`, `/: the document is null`},
		{`{"numaNodes":[0],"policy":"restricted","providers":[],"extra":1}`, `/extra: unknown field`},
		{`{"policy":"restricted","providers":[]}`, `/numaNodes: missing`},
		{`{"numaNodes":[],"policy":"restricted","providers":[]}`, `/numaNodes: empty`},
		{`{"numaNodes":[0,64],"policy":"restricted","providers":[]}`, `/numaNodes/1: NUMA node 64 is outside 0-63`},
		{`{"numaNodes":[0,0],"policy":"restricted","providers":[]}`, `/numaNodes/1: NUMA node 0 is listed twice`},
		{`{"numaNodes":[0],"policy":"strict","providers":[]}`, `/policy: unknown policy "strict"`},
		{`{"numaNodes":[0],"policy":"restricted","options":{"max-allowable-numa-nodes":"4"},"providers":[]}`, `/options: the kubelet would refuse these options: the minimum value of "max-allowable-numa-nodes" should not be less than 8`},
		{`{"numaNodes":[0],"policy":"restricted","options":{"prefer-closest-numa-nodes":true},"providers":[]}`, `/options/prefer-closest-numa-nodes: option values are strings`},
		{`{"numaNodes":[0,1],"policy":"restricted","options":{"prefer-closest-numa-nodes":"true"},"providers":[]}`, `/distances: the kubelet cannot use these distances: error getting NUMA distances from cadvisor`},
		{`{"numaNodes":[0],"distances":{"1":[10]},"policy":"restricted","providers":[]}`, `/distances/1: "1" is not one of numaNodes`},
		{`{"numaNodes":[0,1,2,3,4,5,6,7,8],"policy":"restricted","providers":[]}`, `/numaNodes: 9 NUMA nodes: the kubelet refuses to start with more than 8`},
		{`{"numaNodes":[0],"policy":"restricted","providers":{}}`, `/providers: must be an array`},
		{`{"numaNodes":[0],"policy":"restricted","providers":[5]}`, `/providers/0: a provider is an object`},
		{`{"numaNodes":[0],"policy":"restricted","providers":[{"cpu":{}}]}`, `/providers/0/cpu: a hint list is an array`},
		{`{"numaNodes":[0],"policy":"restricted","providers":[{"cpu":[{"numaAffinity":[70]}]}]}`, `/providers/0/cpu/0/numaAffinity: NUMA node IDs are 0-63`},
		{`{"numaNodes":[0],"policy":"restricted","providers":[{"cpu":[{"preferred":"yes"}]}]}`, `/providers/0/cpu/0/preferred: must be true or false`},
		{`{"numaNodes":[0],"policy":"restricted","providers":[{"a/b":[{"numa":[0]}]}]}`, `/providers/0/a~1b/0/numa: unknown field`},
		{`{"numaNodes":[0],"policy":"restricted","providers":[]} x`, `/: not a JSON object`},
	} {
		_, err := ParseHintsFile([]byte(c.in))
		if assert.Error(t, err, "%s", c.in) {
			assert.True(t, strings.HasPrefix(err.Error(), c.want), "%s:\n got %v\nwant %s...", c.in, err, c.want)
		}
	}
}

func TestParseHintsFileSemantics(t *testing.T) {
	f, err := ParseHintsFile([]byte(`{"numaNodes":[0,1],"policy":"best-effort","providers":[null,{},{"cpu":null,"memory":[],"gpu":[{"numaAffinity":null,"preferred":true},{"numaAffinity":[],"preferred":false},{"numaAffinity":[1]}]}]}`))
	require.NoError(t, err)
	require.Len(t, f.Providers, 3, "providers")
	assert.Nil(t, f.Providers[0], "provider 0 (null)")
	if assert.NotNil(t, f.Providers[1], "provider 1 ({})") {
		assert.Empty(t, f.Providers[1], "provider 1 ({})")
	}
	p := f.Providers[2]
	assert.Nil(t, p["cpu"], "cpu: null")
	if assert.NotNil(t, p["memory"], "memory: []") {
		assert.Empty(t, p["memory"], "memory: []")
	}
	g := p["gpu"]
	require.Len(t, g, 3, "gpu hints")
	assert.False(t, g[0].HasAffinity, "gpu hint 0 (numaAffinity null): has affinity")
	assert.True(t, g[0].Preferred, "gpu hint 0: preferred")
	assert.True(t, g[1].HasAffinity, "gpu hint 1 (numaAffinity []): has affinity")
	assert.Equal(t, BitMask(0), g[1].NUMANodeAffinity, "gpu hint 1: affinity")
	assert.Equal(t, mask(1), g[2].NUMANodeAffinity, "gpu hint 2: affinity")
	assert.False(t, g[2].Preferred, "gpu hint 2 (preferred missing): preferred")
}

// TestParseHintsFileNoProviders: an absent, null or empty providers list is
// "no providers"; the kubelet merges zero providers into one preferred hint
// over every NUMA node (single-numa-node: without affinity; none: the zero
// hint) and admits, under every policy.
func TestParseHintsFileNoProviders(t *testing.T) {
	for _, policy := range []string{PolicyNone, PolicyBestEffort, PolicyRestricted, PolicySingleNumaNode} {
		for _, providers := range []string{``, `,"providers":null`, `,"providers":[]`, `,"providers": null `} {
			in := `{"numaNodes":[0,1],"policy":"` + policy + `"` + providers + `}`
			f, err := ParseHintsFile([]byte(in))
			require.NoError(t, err, "%s", in)
			assert.Empty(t, f.Providers, "%s: providers", in)
			p, err := f.PolicyFor()
			require.NoError(t, err, "%s", in)
			best, admit := p.Merge(f.Providers)
			// best-effort and restricted keep the default affinity (every
			// NUMA node); none and single-numa-node answer without affinity.
			// The none policy answers the zero hint whatever it is given.
			want := NewHint(mask(0, 1), true)
			switch policy {
			case PolicySingleNumaNode:
				want = AnyNUMAHint(true)
			case PolicyNone:
				want = AnyNUMAHint(false)
			}
			assert.True(t, best.IsEqual(want), "%s: best hint %v, want %v", in, best, want)
			assert.True(t, admit, "%s: admit", in)
		}
	}
}

// TestParseHintsFileNonePolicyIgnoresOptions: the kubelet's NewManager
// returns the none policy before it reads the options or the NUMA layout, so
// options the other policies refuse are no error under none.
func TestParseHintsFileNonePolicyIgnoresOptions(t *testing.T) {
	in := `{"numaNodes":[0,1],"policy":"none","options":{"max-allowable-numa-nodes":"4","prefer-closest-numa-nodes":"true","unknown":"x"},"providers":[{"cpu":[]}]}`
	f, err := ParseHintsFile([]byte(in))
	require.NoError(t, err, "%s", in)
	p, err := f.PolicyFor()
	require.NoError(t, err, "%s", in)
	best, admit := p.Merge(f.Providers)
	assert.True(t, best.IsEqual(AnyNUMAHint(false)), "best hint %v", best)
	assert.True(t, admit, "admit")
	_, err = ParseHintsFile([]byte(strings.Replace(in, `"none"`, `"restricted"`, 1)))
	assert.Error(t, err, "the same options under restricted")
}

// FuzzParseHintsFile: the parser never panics; whatever it accepts merges
// exactly as the enumerating reference does.
func FuzzParseHintsFile(f *testing.F) {
	f.Add([]byte(`{"numaNodes":[0,1],"distances":{"0":[10,20],"1":[20,10]},"policy":"restricted","options":{"prefer-closest-numa-nodes":"true"},"providers":[{"cpu":[{"numaAffinity":[0],"preferred":true}],"memory":null},null]}`))
	f.Add([]byte(`{"numaNodes":[0,1,2,3],"policy":"single-numa-node","providers":[{"gpu":[{"numaAffinity":[1],"preferred":true},{"numaAffinity":[0,1]}]},{"cpu":[]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Run(t, func() {
			hf, err := ParseHintsFile(data)
			if err != nil {
				return
			}
			p, err := hf.PolicyFor()
			require.NoError(t, err, "accepted file has no policy")
			combos := 1
			for _, l := range filterProvidersHints(hf.Providers) {
				combos *= len(l.Hints)
				if combos > 20000 {
					return
				}
			}
			got, gotAdmit := p.Merge(hf.Providers)
			want, wantAdmit := referencePolicyMerge(p.NUMAInfo(), hf.Policy, p.Options(), hf.Providers)
			require.True(t, got.IsEqual(want), "best hint: merge %v, reference %v", got, want)
			require.Equal(t, wantAdmit, gotAdmit, "admit: merge, reference")
		})
	})
}
