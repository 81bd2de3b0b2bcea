package topomgr_test

import (
	"fmt"

	"github.com/numascope/numascope/topomgr"
)

// A pasted `numactl -H`: NUMA nodes, their CPUs and distances. numactl does
// not say which CPUs are sibling threads, so the core layout is unknown
// rather than guessed.
func ExampleParseMachine() {
	m, err := topomgr.ParseMachine([]byte(`$ numactl -H
available: 2 nodes (0-1)
node 0 cpus: 0 2 4 6
node 0 size: 64121 MB
node 0 free: 3020 MB
node 1 cpus: 1 3 5 7
node 1 size: 64507 MB
node 1 free: 51877 MB
node distances:
node   0   1
  0:  10  21
  1:  21  10
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Summary())
	fmt.Println("node 1:", m.NodeCPUs(1), "distances", m.Nodes[1].Distances)
	fmt.Println("threads per core:", m.CPUsPerCore(), "(unknown)")
	// Output:
	// numactl -H: 2 NUMA nodes, 8 CPUs, no core layout, no exact memory
	// node 1: 1,3,5,7 distances [21 10]
	// threads per core: 0 (unknown)
}
