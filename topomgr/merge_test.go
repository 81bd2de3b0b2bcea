package topomgr

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func mask(ids ...int) BitMask {
	m, err := NewBitMask(ids...)
	if err != nil {
		panic(err)
	}
	return m
}

// randomCase draws a machine, policy, options and provider answers.
func randomCase(r *rand.Rand, maxNodes int) (*NUMAInfo, string, PolicyOptions, []ProviderHints) {
	n := 1 + r.IntN(maxNodes)
	ids := r.Perm(n + r.IntN(3))[:n] // sometimes non-contiguous IDs
	maxID := 0
	for _, id := range ids {
		maxID = max(maxID, id)
	}
	opts := PolicyOptions{PreferClosestNUMA: r.IntN(2) == 0, MaxAllowableNUMANodes: 8}
	var nodes []NUMANode
	for _, id := range ids {
		row := make([]uint64, maxID+1)
		for j := range row {
			row[j] = uint64(10 + r.IntN(3)*10)
			if j == id {
				row[j] = 10
			}
		}
		nodes = append(nodes, NUMANode{ID: id, Distances: row})
	}
	numa, err := NewNUMAInfo(nodes, opts)
	if err != nil {
		panic(err)
	}
	policy := []string{PolicyNone, PolicyBestEffort, PolicyRestricted, PolicySingleNumaNode}[r.IntN(4)]
	var providers []ProviderHints
	for p := r.IntN(4); p > 0; p-- {
		switch r.IntN(6) {
		case 0:
			providers = append(providers, nil)
			continue
		case 1:
			providers = append(providers, ProviderHints{})
			continue
		}
		ph := ProviderHints{}
		for res := 1 + r.IntN(2); res > 0; res-- {
			name := fmt.Sprintf("r%d", r.IntN(4))
			switch r.IntN(8) {
			case 0:
				ph[name] = nil
				continue
			case 1:
				ph[name] = []TopologyHint{}
				continue
			}
			var hints []TopologyHint
			for h := 1 + r.IntN(6); h > 0; h-- {
				if r.IntN(8) == 0 {
					hints = append(hints, AnyNUMAHint(r.IntN(2) == 0))
					continue
				}
				var m BitMask
				for _, id := range ids {
					if r.IntN(3) == 0 {
						m |= 1 << uint(id)
					}
				}
				if r.IntN(10) == 0 {
					m |= 1 << uint(maxID+1) // a node the machine does not have
				}
				hints = append(hints, NewHint(m, r.IntN(2) == 0))
			}
			ph[name] = hints
		}
		providers = append(providers, ph)
	}
	return numa, policy, opts, providers
}

func TestMergeMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := 20000
	if testing.Short() {
		cases = 3000
	}
	for i := 0; i < cases; i++ {
		numa, policy, opts, providers := randomCase(r, 6)
		p, err := NewPolicy(policy, numa, opts)
		require.NoError(t, err)
		got, gotAdmit := p.Merge(providers)
		want, wantAdmit := referencePolicyMerge(numa, policy, opts, providers)
		require.True(t, got.IsEqual(want), "case %d: nodes %v policy %s opts %+v providers %v: best hint %v, reference %v", i, numa.Nodes, policy, opts, providers, got, want)
		require.Equal(t, wantAdmit, gotAdmit, "case %d: nodes %v policy %s opts %+v providers %v: admit", i, numa.Nodes, policy, opts, providers)
	}
}

// TestConvolutionMatchesPairs checks the convolution step against pairwise ANDs.
func TestConvolutionMatchesPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 300; i++ {
		n := 1 + r.IntN(12)
		size := 1 << uint(n)
		draw := func() []uint32 {
			seen := map[uint32]bool{}
			var out []uint32
			for j := r.IntN(60); j >= 0; j-- {
				x := uint32(r.IntN(size))
				if x != 0 && !seen[x] {
					seen[x] = true
					out = append(out, x)
				}
			}
			return out
		}
		as, bs := draw(), draw()
		want := map[uint32]bool{}
		for _, a := range as {
			for _, b := range bs {
				if a&b != 0 {
					want[a&b] = true
				}
			}
		}
		got := andConvolution(n, as, bs, make([]uint64, size), make([]uint64, size))
		require.Len(t, got, len(want), "n=%d: masks the convolution finds, against the pairs'", n)
		for _, x := range got {
			require.True(t, want[x], "n=%d: convolution invents %b", n, x)
		}
	}
}

// TestSparseAndDensePathsAgree forces the map-based frontier (used above 20
// NUMA nodes) on small machines and compares it with the dense one.
func TestSparseAndDensePathsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for i := 0; i < 3000; i++ {
		numa, policy, opts, providers := randomCase(r, 8)
		if policy == PolicyNone {
			continue
		}
		var lists [][]TopologyHint
		for _, l := range filterProvidersHints(providers) {
			lists = append(lists, l.Hints)
		}
		m := newMerger(numa, lists, opts.PreferClosestNUMA)
		dense := m.reachable()
		m.sparse = true
		sparse := m.reachable()
		a, b := map[BitMask]bool{}, map[BitMask]bool{}
		for _, x := range dense {
			a[x] = true
		}
		for _, x := range sparse {
			b[x] = true
		}
		require.Len(t, dense, len(a), "dense search repeats a mask: %v", dense)
		require.Len(t, sparse, len(b), "sparse search repeats a mask: %v", sparse)
		require.Empty(t, cmp.Diff(a, b), "dense search %v, sparse search %v", dense, sparse)
	}
}
