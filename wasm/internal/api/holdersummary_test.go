package api

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/internal/holdings"
	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// blocks are n memory blocks, block i on NUMA node i%nodes (every 10th on
// nodes 0 and 1), four containers per pod.
func blocks(n, nodes int) *holdings.Holdings {
	h := &holdings.Holdings{Kind: statefile.KindMemory}
	for i := 0; i < n; i++ {
		numa := []int{i % nodes}
		if i%10 == 9 {
			numa = []int{0, 1}
		}
		h.Memory = append(h.Memory, holdings.MemoryBlock{PodUID: fmt.Sprintf("%08x-0000-4000-8000-%012x", i/4, i/4),
			Container: fmt.Sprintf("c%d", i%4), Type: "memory", Size: 1 << 20, NUMA: numa})
	}
	return h
}

func TestSummariseHolders(t *testing.T) {
	for _, tc := range []struct {
		name    string
		h       *holdings.Holdings
		summary bool
	}{
		{"no holders", nil, false},
		{"a few blocks", blocks(10, 2), false},
		{"as many blocks as an answer carries whole", blocks(maxHolderBlocks, 8), false},
		{"one more", blocks(maxHolderBlocks+1, 8), true},
		{"10,000 blocks", blocks(10000, 8), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, om := summariseHolders(tc.h)
			if !tc.summary {
				assert.Nil(t, om, "nothing is left out")
				assert.Same(t, tc.h, got, "the holders are the model itself")
				return
			}
			require.NotNil(t, om, "a summary")
			n := len(tc.h.Memory)
			assert.Equal(t, n, om.Blocks, "blocks")
			assert.Equal(t, n-len(got.Memory), om.Omitted, "omitted")
			assert.Len(t, tc.h.Memory, n, "the model is not changed")
			// What is kept: the first keptFirst blocks and the first
			// keptPerNUMA of each set of nodes, in the model's order.
			var want []holdings.MemoryBlock
			seen := map[string]int{}
			count := map[string]int{}
			for i, b := range tc.h.Memory {
				k := fmt.Sprint(b.NUMA)
				seen[k]++
				count[k]++
				if i < keptFirst || seen[k] <= keptPerNUMA {
					want = append(want, b)
				}
			}
			if diff := cmp.Diff(want, got.Memory); diff != "" {
				t.Errorf("kept blocks (-want +got):\n%s", diff)
			}
			total := 0
			for _, c := range om.ByNUMA {
				assert.Equal(t, count[fmt.Sprint(c.NUMA)], c.Blocks, "blocks on %v", c.NUMA)
				total += c.Blocks
			}
			assert.Equal(t, n, total, "the sets of nodes count every block")
			assert.Len(t, om.ByNUMA, len(count), "one count per set of nodes")
			var pods []string
			for _, b := range tc.h.Memory {
				pods = append(pods, b.PodUID)
			}
			short := holdings.Shorten(pods)
			for _, b := range got.Memory {
				assert.Equal(t, short[b.PodUID], om.ShortPods[b.PodUID], "short form of %s", b.PodUID)
			}
			assert.Len(t, om.ShortPods, len(uniq(got.Memory)), "a short form for each kept pod only")
		})
	}
}

func uniq(bs []holdings.MemoryBlock) map[string]bool {
	out := map[string]bool{}
	for _, b := range bs {
		out[b.PodUID] = true
	}
	return out
}

// TestInspectSummarisesLargeHolders checks that inspect's answer for a
// 10,000-container memory_manager_state carries a summary of its holders,
// and the whole model for a normal one.
func TestInspectSummarisesLargeHolders(t *testing.T) {
	big := Inspect(&InspectRequest{Files: []InputFile{{Content: memoryState10000(t)}}})
	require.Len(t, big.Files, 1)
	f := big.Files[0]
	require.NotNil(t, f.Holders, "holders")
	require.NotNil(t, f.HoldersOmitted, "a summary")
	assert.Equal(t, 10000, f.HoldersOmitted.Blocks, "blocks")
	assert.Equal(t, 10000-len(f.Holders.Memory), f.HoldersOmitted.Omitted, "omitted")
	assert.Less(t, len(f.Holders.Memory), keptFirst+8*keptPerNUMA+1, "kept blocks")

	small := Inspect(&InspectRequest{Files: exampleFiles(t, "troubleshooting")})
	for _, f := range small.Files {
		assert.Nil(t, f.HoldersOmitted, "%s: the whole model", f.File)
	}
}
