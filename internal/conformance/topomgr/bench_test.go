package topomgr

import (
	"testing"

	ns "github.com/numascope/numascope/topomgr"
	"github.com/stretchr/testify/require"
)

// fullProviders returns k providers that each offer every mask of an
// n-node machine. aligned marks single-node masks preferred (the kubelet's
// answer for a request that fits one node); otherwise only masks of exactly
// width w are preferred, each provider with a different w, so no
// combination is preferred and the whole non-preferred ranking is needed.
func fullProviders(n, k int, aligned bool) ([]ns.NUMANode, []ns.ProviderHints) {
	var nodes []ns.NUMANode
	var ids []int
	for i := 0; i < n; i++ {
		nodes = append(nodes, ns.NUMANode{ID: i})
		ids = append(ids, i)
	}
	var providers []ns.ProviderHints
	for p := 0; p < k; p++ {
		var hints []ns.TopologyHint
		ns.IterateBitMasks(ids, func(m ns.BitMask) {
			pref := m.Count() == 1
			if !aligned {
				pref = m.Count() == p+1
			}
			hints = append(hints, ns.NewHint(m, pref))
		})
		providers = append(providers, ns.ProviderHints{[]string{"nvidia.com/gpu", "cpu", "memory", "hugepages-1Gi"}[p%4]: hints})
	}
	return nodes, providers
}

func benchBoth(b *testing.B, nodes []ns.NUMANode, providers []ns.ProviderHints, withKubelet bool) {
	np, err := numascopePolicy(nodes, ns.PolicyRestricted, nil)
	if err != nil {
		b.Fatal(err)
	}
	want, _ := np.Merge(providers)
	b.Run("numascope", func(b *testing.B) {
		for b.Loop() {
			np.Merge(providers)
		}
	})
	if !withKubelet {
		return
	}
	kp, err := kubeletPolicy(nodes, ns.PolicyRestricted, nil)
	if err != nil {
		b.Fatal(err)
	}
	kproviders := kProviders(providers)
	b.Run("kubelet", func(b *testing.B) {
		for b.Loop() {
			got, _ := kp.Merge(discard, kproviders)
			if !nsHint(got).IsEqual(want) {
				b.Fatalf("kubelet %v, numascope %v", nsHint(got), want)
			}
		}
	})
}

// BenchmarkMerge8Nodes3Full: 8 NUMA nodes, 3 providers offering all 255
// masks: the kubelet enumerates 255^3 = 16.6 million combinations.
func BenchmarkMerge8Nodes3Full(b *testing.B) {
	for _, aligned := range []bool{true, false} {
		name := "unaligned"
		if aligned {
			name = "aligned"
		}
		b.Run(name, func(b *testing.B) {
			nodes, providers := fullProviders(8, 3, aligned)
			benchBoth(b, nodes, providers, true)
		})
	}
}

// BenchmarkMerge16Nodes3Full: 16 NUMA nodes, 3 providers offering all
// 65,535 masks (2.8e14 combinations for the kubelet): numascope only.
func BenchmarkMerge16Nodes3Full(b *testing.B) {
	for _, aligned := range []bool{true, false} {
		name := "unaligned"
		if aligned {
			name = "aligned"
		}
		b.Run(name, func(b *testing.B) {
			nodes, providers := fullProviders(16, 3, aligned)
			benchBoth(b, nodes, providers, false)
		})
	}
}

// realistic34 builds hint lists a 34-NUMA-node machine (GB200-class) would
// produce for one container, if providers listed the masks up to one node
// wider than the request needs (the kubelet's generators would list all
// 2^34-1 masks and never finish). Nodes 0 and 1 hold the Grace CPUs' cores
// and memory; GPU memory nodes 2-33 hold no CPUs. The request: CPUs worth 2
// nodes, memory worth 1 node, 2 GPUs (one per GPU node, on nodes 2-9):
//   - cpu: masks of 2-3 nodes that contain a CPU node, preferred at width 2;
//   - memory: masks of 1-2 nodes, preferred at width 1;
//   - nvidia.com/gpu: masks of 2-3 nodes with at least 2 GPU nodes,
//     preferred at width 2.
//
// Every list's preferred masks differ, so no combination is preferred and
// the merge has to rank every reachable non-preferred mask. wide widens every
// list by one more node (widths up to 4).
func realistic34(wide bool) ([]ns.NUMANode, []ns.ProviderHints) {
	var nodes []ns.NUMANode
	var ids []int
	for i := 0; i < 34; i++ {
		nodes = append(nodes, ns.NUMANode{ID: i})
		ids = append(ids, i)
	}
	extra := 0
	if wide {
		extra = 1
	}
	gpus, err := ns.NewBitMask(2, 3, 4, 5, 6, 7, 8, 9)
	if err != nil {
		panic(err)
	}
	cpuNodes, err := ns.NewBitMask(0, 1)
	if err != nil {
		panic(err)
	}
	var cpu, mem, gpu []ns.TopologyHint
	var walk func(start int, m ns.BitMask, size int)
	walk = func(start int, m ns.BitMask, size int) {
		c := m.Count()
		if c > 0 {
			if c >= 2 && c <= 3+extra && m&cpuNodes != 0 {
				cpu = append(cpu, ns.NewHint(m, c == 2))
			}
			if c <= 2+extra {
				mem = append(mem, ns.NewHint(m, c == 1))
			}
			if c <= 3+extra && (m&gpus).Count() >= 2 {
				gpu = append(gpu, ns.NewHint(m, c == 2))
			}
		}
		if c == size {
			return
		}
		for i := start; i < 34; i++ {
			walk(i+1, m|1<<uint(i), size)
		}
	}
	walk(0, 0, 3+extra)
	return nodes, []ns.ProviderHints{{"nvidia.com/gpu": gpu}, {"cpu": cpu}, {"memory": mem}}
}

// BenchmarkMerge34NodesRealistic: see realistic34.
func BenchmarkMerge34NodesRealistic(b *testing.B) {
	for _, wide := range []bool{false, true} {
		name := "widths1-3"
		if wide {
			name = "widths1-4"
		}
		b.Run(name, func(b *testing.B) {
			nodes, providers := realistic34(wide)
			opts := ns.PolicyOptions{MaxAllowableNUMANodes: 34}
			info, err := ns.NewNUMAInfo(nodes, opts)
			if err != nil {
				b.Fatal(err)
			}
			p, err := ns.NewPolicy(ns.PolicyRestricted, info, opts)
			require.NoError(b, err)
			r := p.Explain(providers)
			b.ReportMetric(float64(r.Combinations.Int64()), "kubelet-combinations")
			for b.Loop() {
				p.Merge(providers)
			}
		})
	}
}
