package api

import (
	"fmt"

	"github.com/numascope/numascope/internal/holdings"
)

// A memory_manager_state of a large node holds a block per container:
// 10,000 of them make a megabyte of answer that the page parses and sorts
// three times over, to draw 30 rows per set of NUMA nodes and 500 in the
// pods table. Above maxHolderBlocks blocks, the answer keeps only the
// blocks the page draws and counts the rest (HoldersOmitted); below it,
// the answer is the whole model, as inspect --json prints it.
const (
	maxHolderBlocks = 2000
	// keptFirst is the page's MAX_POD_ROWS: the pods table draws the first
	// rows of each file in order.
	keptFirst = 500
	// keptPerNUMA is the page's MAX_HOLDER_ROWS: a holders table draws the
	// first rows of each set of NUMA nodes.
	keptPerNUMA = 30
)

// OmittedHolders says what a summarised Holders left out.
type OmittedHolders struct {
	// Blocks is the number of memory blocks in the file; Holders.Memory
	// keeps Blocks − Omitted of them, in their order.
	Blocks  int `json:"blocks"`
	Omitted int `json:"omitted"`
	// ByNUMA counts the blocks on each set of NUMA nodes (as the blocks
	// list them), kept ones included, in the order the sets first occur.
	ByNUMA []NUMACount `json:"byNUMA"`
	// ShortPods is the short form of each kept block's pod UID, unique
	// among every pod of the file (holdings.Shorten over all of them): the
	// page cannot tell from the kept blocks alone how short a UID can be.
	ShortPods map[string]string `json:"shortPods"`
}

// NUMACount is the number of memory blocks on one set of NUMA nodes.
type NUMACount struct {
	NUMA   []int `json:"numa"`
	Blocks int   `json:"blocks"`
}

// summariseHolders keeps, of a checkpoint with more than maxHolderBlocks
// memory blocks, the first keptFirst blocks and the first keptPerNUMA of
// each set of NUMA nodes, and says what it left out; h is returned as it
// is (and nil) otherwise. h itself is not changed.
func summariseHolders(h *holdings.Holdings) (*holdings.Holdings, *OmittedHolders) {
	if h == nil || len(h.Memory) <= maxHolderBlocks {
		return h, nil
	}
	om := &OmittedHolders{Blocks: len(h.Memory), ShortPods: map[string]string{}}
	at := map[string]int{} // key → index in ByNUMA
	kept := make([]holdings.MemoryBlock, 0, keptFirst+keptPerNUMA*8)
	pods := make([]string, 0, len(h.Memory))
	for i, b := range h.Memory {
		k := fmt.Sprint(b.NUMA)
		j, ok := at[k]
		if !ok {
			j = len(om.ByNUMA)
			at[k] = j
			om.ByNUMA = append(om.ByNUMA, NUMACount{NUMA: b.NUMA})
		}
		om.ByNUMA[j].Blocks++
		pods = append(pods, b.PodUID)
		if i < keptFirst || om.ByNUMA[j].Blocks <= keptPerNUMA {
			kept = append(kept, b)
		}
	}
	om.Omitted = len(h.Memory) - len(kept)
	short := holdings.Shorten(pods)
	for _, b := range kept {
		om.ShortPods[b.PodUID] = short[b.PodUID]
	}
	s := *h
	s.Memory = kept
	return &s, om
}
