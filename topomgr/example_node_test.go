package topomgr_test

import (
	"fmt"

	"k8s.io/utils/cpuset"

	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// Why a pod is rejected on a node: CPUs 0-3 on NUMA node 0 and 4-7 on
// node 1, the static CPU manager has handed out 0-2 and 4-6, and the pod
// asks for 2 exclusive CPUs under single-numa-node.
func ExampleSimulateAdmission() {
	machine := orPanic(topomgr.ParseMachine([]byte(`{"topology":[
	  {"node_id":0,"cores":[{"core_id":0,"thread_ids":[0]},{"core_id":1,"thread_ids":[1]},{"core_id":2,"thread_ids":[2]},{"core_id":3,"thread_ids":[3]}]},
	  {"node_id":1,"cores":[{"core_id":4,"thread_ids":[4]},{"core_id":5,"thread_ids":[5]},{"core_id":6,"thread_ids":[6]},{"core_id":7,"thread_ids":[7]}]}]}`)))
	pod := orPanic(topomgr.ParsePod([]byte(`
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  containers:
  - name: app
    resources:
      limits: {cpu: "2", memory: 1Gi}
`)))
	res := orPanic(topomgr.SimulateAdmission(pod, topomgr.NodeConfig{
		Machine: machine,
		CPU:     &statefile.CPUState{PolicyName: "static", DefaultCPUSet: cpuset.New(3, 7)},
		Policy:  topomgr.PolicySingleNumaNode,
		Scope:   topomgr.ScopeContainer,
	}))
	for _, line := range res.Account {
		fmt.Println(line)
	}
	// Output:
	// rejected: TopologyAffinityError: Resources cannot be allocated with Topology locality
	// container app: best hint any NUMA node, not preferred (no-candidate)
	// cpu/cpu: no preferred single-NUMA-node placement (single-numa-node keeps only those); it offered {0,1}
}
