package podresources_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/numascope/numascope/podresources"
)

// Load a snapshot saved from a node, map its CPUs to NUMA nodes, and print
// what each NUMA node has allocatable, taken and free.
func Example() {
	snap, err := podresources.LoadDir(filepath.Join("testdata", "offline", "numascope"))
	if err != nil {
		fmt.Println(err)
		return
	}
	cpus, err := podresources.ParseCPULists(map[int]string{0: "0-7", 1: "8-15"})
	if err != nil {
		fmt.Println(err)
		return
	}
	view := snap.PerNUMA(cpus)
	view.WriteText(os.Stdout)
	// Output:
	// NUMA node 0
	//   cpus             allocatable 1-7 (7)   taken 2-3 (2)                          free 1,4-7 (5)
	//   hugepages-1Gi    allocatable 4Gi       taken 2Gi                              free 2Gi
	//   memory           allocatable 30Gi      taken 1Gi (+4Gi in multi-node blocks)  free 25Gi to 29Gi
	//   example.com/gpu  allocatable gpu0 (1)  taken gpu0 (1)                         free - (0)
	//   example.com/nic  allocatable nic0 (1)  taken - (0)                            free nic0 (1)
	//   held by
	//     default/web app   cpus 2-3; memory 1Gi; hugepages-1Gi 2Gi; example.com/gpu gpu0
	//     shop/db postgres  memory 4Gi on nodes 0,1
	// NUMA node 1
	//   cpus             allocatable 8-15 (8)  taken 8-11 (4)                       free 12-15 (4)
	//   hugepages-1Gi    allocatable 4Gi       taken 0                              free 4Gi
	//   memory           allocatable 31Gi      taken 0 (+4Gi in multi-node blocks)  free 27Gi to 31Gi
	//   example.com/gpu  allocatable gpu1 (1)  taken - (0)                          free gpu1 (1)
	//   example.com/nic  allocatable nic1 (1)  taken nic1 (1)                       free - (0)
	//   held by
	//     shop/db postgres  cpus 8-11; memory 4Gi on nodes 0,1; example.com/nic nic1
	// no NUMA node (CPUs not in the NUMA map, resources without topology, DRA claims)
	//   example.com/fpga  allocatable fpga0 (1)  taken - (0)  free fpga0 (1)
	//   held by
	//     shop/db postgres  claim shop/fast-disk disk.example.com/node-a/nvme1
	// shared CPU pool: 2 containers without exclusive CPUs (1 none exclusive, 1 not reported for this QoS class)
	//   default/web proxy (Guaranteed): cpus none exclusive, memory none exclusive
	//   kube-system/coredns-7d8f coredns (BestEffort): cpus not reported for this QoS class, memory not reported for this QoS class
}

// Decode reads what other tools saved. Here encoding/json of the kubelet's Go
// types dropped NUMA id 0 and left {}; the node is still read as 0, and the
// empty CPU list of a pod whose QoS class is unknown reads as "unknown".
func ExampleDecode() {
	saved := []byte(`{"pod_resources":[{"name":"web","namespace":"default","containers":[
	  {"name":"app","cpu_ids":[2,3],"devices":[{"resource_name":"example.com/gpu","device_ids":["gpu0"],"topology":{"nodes":[{}]}}]}]},
	  {"name":"batch","namespace":"default","containers":[{"name":"worker"}]}]}`)
	snap, err := podresources.Decode(saved)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range snap.Pods {
		q, inferred := p.EffectiveQOSClass()
		for _, c := range p.Containers {
			fmt.Printf("%s/%s: qos %q (inferred %t), cpus %v %s, devices %v\n",
				p.Ref(), c.Name, q, inferred, c.CPUIDs, p.CPUStatus(&c), c.Devices)
		}
	}
	// Output:
	// default/web/app: qos "Guaranteed" (inferred true), cpus [2 3] assigned, devices [{example.com/gpu [gpu0] [0]}]
	// default/batch/worker: qos "" (inferred false), cpus [] unknown, devices []
}

// The JSON form writes every list, NUMA node 0, and what an empty list means.
func ExampleSnapshot_MarshalJSON() {
	snap := podresources.Snapshot{Pods: []podresources.PodResources{{
		Name: "batch", Namespace: "default", QOSClass: podresources.Burstable,
		Containers: []podresources.ContainerResources{{
			Name:    "worker",
			Devices: []podresources.ContainerDevices{{ResourceName: "example.com/nic", DeviceIDs: []string{"vf3"}, NUMANodes: []int{0}}},
		}},
	}}}
	out, err := json.Marshal(snap)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// {"pods":[{"name":"batch","namespace":"default","qosClass":"Burstable","containers":[{"name":"worker","cpuIds":[],"cpuIdsStatus":"notReportedForQOSClass","memory":[],"memoryStatus":"notReportedForQOSClass","devices":[{"resourceName":"example.com/nic","deviceIds":["vf3"],"numaNodes":[0]}],"dynamicResources":[]}]}],"allocatable":null}
}
