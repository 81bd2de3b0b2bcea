package holdings_test

import (
	"fmt"

	"github.com/numascope/numascope/internal/holdings"
	"github.com/numascope/numascope/statefile"
)

// The upstream troubleshooting page's memory_manager_state: one container
// holds 150 GiB pinned to NUMA nodes 0 and 1.
func Example() {
	data := []byte(`{"policyName":"Static","machineState":{},"entries":{"fa9bdd38-6df9-4cf9-aa67-8c4814da37a8":{"guaranteed":[{"numaAffinity":[0,1],"type":"memory","size":161061273600}]}},"checksum":0}`)
	f, err := statefile.Decode(data, statefile.Options{Name: "memory_manager_state"})
	if err != nil {
		fmt.Println(err)
		return
	}
	h := holdings.Build(f, nil)
	short := holdings.Shorten([]string{h.Memory[0].PodUID})
	for _, b := range h.Memory {
		fmt.Printf("NUMA %s: pod %s container %s holds %d GiB of %s\n", holdings.Nodes(b.NUMA), short[b.PodUID], b.Container, b.Size>>30, b.Type)
	}
	// Output:
	// NUMA 0,1: pod fa9bdd38… container guaranteed holds 150 GiB of memory
}
