package topomgr

import (
	"fmt"
	"math/rand/v2"
	"testing"
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
		if err != nil {
			t.Fatal(err)
		}
		got, gotAdmit := p.Merge(providers)
		want, wantAdmit := referencePolicyMerge(numa, policy, opts, providers)
		if !got.IsEqual(want) || gotAdmit != wantAdmit {
			t.Fatalf("case %d: nodes %v policy %s opts %+v providers %v:\n got %v admit %v\nwant %v admit %v", i, numa.Nodes, policy, opts, providers, got, gotAdmit, want, wantAdmit)
		}
	}
}

// TestConvolutionMatchesPairs checks the two frontier steps against each other.
func TestConvolutionMatchesPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200; i++ {
		n := 1 + r.IntN(10)
		var def BitMask
		for _, id := range r.Perm(16)[:n] {
			def |= 1 << uint(id)
		}
		draw := func() []BitMask {
			seen := map[BitMask]bool{}
			var out []BitMask
			for j := r.IntN(40); j >= 0; j-- {
				x := BitMask(r.Uint64()) & def
				if x != 0 && !seen[x] {
					seen[x] = true
					out = append(out, x)
				}
			}
			return out
		}
		as, bs := draw(), draw()
		a := andPairs(n, as, bs)
		b := andConvolution(def, n, as, bs)
		sa, sb := map[BitMask]bool{}, map[BitMask]bool{}
		for _, x := range a {
			sa[x] = true
		}
		for _, x := range b {
			sb[x] = true
		}
		if len(sa) != len(sb) || len(a) != len(b) {
			t.Fatalf("pairs %d, convolution %d", len(a), len(b))
		}
		for x := range sa {
			if !sb[x] {
				t.Fatalf("convolution misses %v", x)
			}
		}
	}
}
