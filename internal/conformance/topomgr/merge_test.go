package topomgr

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRandomMergesAgree runs a few thousand random cases through the
// kubelet's policies and numascope's; any difference fails.
func TestRandomMergesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 11))
	cases := 5000
	if testing.Short() {
		cases = 2000
	}
	buf := make([]byte, 256)
	kinds := map[string]int{}
	for i := 0; i < cases; i++ {
		for j := range buf {
			buf[j] = byte(r.Uint32())
		}
		nodes, policy, options, providers := decodeCase(buf)
		require.Empty(t, diffMerge(nodes, policy, options, providers), "case %d differs", i)
		np, err := numascopePolicy(nodes, policy, options)
		if err != nil {
			kinds["configuration error"]++
			continue
		}
		rep := np.Explain(providers)
		kinds[string(rep.Rule)]++
		if rep.Admit {
			kinds["admitted"]++
		}
	}
	// Every branch of the comparison must have been exercised.
	for _, k := range []string{"configuration error", "none-policy", "preferred-narrowest", "preferred-closest",
		"non-preferred-at-best-count", "non-preferred-below-best-count", "non-preferred-above-best-count", "no-candidate", "admitted"} {
		assert.NotZero(t, kinds[k], "no random case reached %q: %v", k, kinds)
	}
	t.Logf("%d cases, no difference: %v", cases, kinds)
}

// FuzzMergeVsKubelet is the differential fuzz test: numascope's merge,
// options and NUMA checks against the kubelet's on any decoded case.
func FuzzMergeVsKubelet(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 0, 1, 2, 0, 2, 6, 0, 3, 1, 1, 0, 1, 2, 1, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		require.Empty(t, diffMerge(decodeCase(data)), "numascope's merge against the kubelet's")
	})
}
