package topomgr_test

import (
	"fmt"

	"github.com/numascope/numascope/topomgr"
)

// orPanic returns v, and panics with a message naming the error if err is
// not nil: an example's inputs are fixed, so an error is a bug in it.
func orPanic[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("example input refused: %v", err))
	}
	return v
}

// The common case: merge the hints of the device, CPU and memory managers
// for one container on a two-node machine under the restricted policy.
func Example() {
	numa := orPanic(topomgr.NewNUMAInfo([]topomgr.NUMANode{{ID: 0}, {ID: 1}}, topomgr.PolicyOptions{}))
	policy := orPanic(topomgr.NewPolicy(topomgr.PolicyRestricted, numa, topomgr.PolicyOptions{}))
	node0 := orPanic(topomgr.NewBitMask(0))
	node1 := orPanic(topomgr.NewBitMask(1))
	both := orPanic(topomgr.NewBitMask(0, 1))
	best, admit := policy.Merge([]topomgr.ProviderHints{
		{"nvidia.com/gpu": {topomgr.NewHint(node1, true), topomgr.NewHint(both, false)}},
		{"cpu": {topomgr.NewHint(node0, true), topomgr.NewHint(node1, true), topomgr.NewHint(both, false)}},
		nil, // the memory manager has no preference (a Burstable pod)
	})
	fmt.Println(best.NUMANodeAffinity.List(), best.Preferred, admit)
	// Output: 1 true true
}

// Explain shows which rule picked the answer when no placement is aligned.
func ExamplePolicy_Explain() {
	numa := orPanic(topomgr.NewNUMAInfo([]topomgr.NUMANode{{ID: 0}, {ID: 1}}, topomgr.PolicyOptions{}))
	policy := orPanic(topomgr.NewPolicy(topomgr.PolicyRestricted, numa, topomgr.PolicyOptions{}))
	node0 := orPanic(topomgr.NewBitMask(0))
	node1 := orPanic(topomgr.NewBitMask(1))
	r := policy.Explain([]topomgr.ProviderHints{
		{"cpu": {topomgr.NewHint(node1, true)}},
		{"memory": {topomgr.NewHint(node0, true)}},
	})
	fmt.Println(r.BestHint.NUMANodeAffinity.List(), r.BestHint.Preferred, r.Admit, r.Rule)
	// Output: 0,1 false false no-candidate
}

// String renders masks as the kubelet's logs do.
func ExampleBitMask_String() {
	m := orPanic(topomgr.NewBitMask(0, 2))
	fmt.Println(m.String(), uint64(m), m.List())
	// Output: 0101 5 0,2
}

// A 34-node machine needs max-allowable-numa-nodes.
func ExampleNewManager() {
	var nodes []topomgr.NUMANode
	for i := 0; i < 34; i++ {
		nodes = append(nodes, topomgr.NUMANode{ID: i})
	}
	_, err := topomgr.NewManager(nodes, "restricted", "container", nil)
	fmt.Println(err)
	m, err := topomgr.NewManager(nodes, "restricted", "container", map[string]string{"max-allowable-numa-nodes": "34"})
	fmt.Println(m.Policy().Name(), m.Scope(), err)
	// Output:
	// unsupported on machines with more than 8 NUMA Nodes: set max-allowable-numa-nodes to at least 34
	// restricted container <nil>
}
