package podresourcestest

import (
	"fmt"

	"github.com/numascope/numascope/podresources"
)

// SampleCPULists is the CPU layout of the node in Sample: two NUMA nodes of
// eight CPUs each.
var SampleCPULists = map[int]string{0: "0-7", 1: "8-15"}

const gib = 1 << 30

// Sample returns a small two-NUMA-node snapshot: a Guaranteed pod with CPUs,
// memory, hugepages and a GPU on node 0 and a sidecar on the shared pool; a
// Guaranteed pod with CPUs on node 1, memory spanning both nodes, a NIC and a
// DRA claim; and a BestEffort pod. CPU 0 is reserved for the system, and one
// FPGA is reported without topology.
func Sample() *podresources.Snapshot {
	return &podresources.Snapshot{
		Pods: []podresources.PodResources{
			{
				Name: "web", Namespace: "default", QOSClass: podresources.Guaranteed,
				Containers: []podresources.ContainerResources{
					{Name: "proxy"},
					{
						Name: "app", CPUIDs: []int{2, 3},
						Memory: []podresources.ContainerMemory{
							{Type: "memory", Size: 1 * gib, NUMANodes: []int{0}},
							{Type: "hugepages-1Gi", Size: 2 * gib, NUMANodes: []int{0}},
						},
						Devices: []podresources.ContainerDevices{{ResourceName: "example.com/gpu", DeviceIDs: []string{"gpu0"}, NUMANodes: []int{0}}},
					},
				},
			},
			{
				Name: "db", Namespace: "shop",
				Containers: []podresources.ContainerResources{{
					Name: "postgres", CPUIDs: []int{8, 9, 10, 11},
					Memory:  []podresources.ContainerMemory{{Type: "memory", Size: 4 * gib, NUMANodes: []int{0, 1}}},
					Devices: []podresources.ContainerDevices{{ResourceName: "example.com/nic", DeviceIDs: []string{"nic1"}, NUMANodes: []int{1}}},
					DynamicResources: []podresources.DynamicResource{{
						ClaimName: "fast-disk", ClaimNamespace: "shop",
						ClaimResources: []podresources.ClaimResource{{
							DriverName: "disk.example.com", PoolName: "node-a", DeviceName: "nvme1",
							CDIDevices: []string{"disk.example.com/nvme=nvme1"},
						}},
					}},
				}},
			},
			{
				Name: "coredns-7d8f", Namespace: "kube-system", QOSClass: podresources.BestEffort,
				Containers: []podresources.ContainerResources{{Name: "coredns"}},
			},
		},
		Allocatable: &podresources.Allocatable{
			CPUIDs: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
			Memory: []podresources.ContainerMemory{
				{Type: "memory", Size: 30 * gib, NUMANodes: []int{0}},
				{Type: "memory", Size: 31 * gib, NUMANodes: []int{1}},
				{Type: "hugepages-1Gi", Size: 4 * gib, NUMANodes: []int{0}},
				{Type: "hugepages-1Gi", Size: 4 * gib, NUMANodes: []int{1}},
			},
			Devices: []podresources.ContainerDevices{
				{ResourceName: "example.com/gpu", DeviceIDs: []string{"gpu0"}, NUMANodes: []int{0}},
				{ResourceName: "example.com/gpu", DeviceIDs: []string{"gpu1"}, NUMANodes: []int{1}},
				{ResourceName: "example.com/nic", DeviceIDs: []string{"nic0"}, NUMANodes: []int{0}},
				{ResourceName: "example.com/nic", DeviceIDs: []string{"nic1"}, NUMANodes: []int{1}},
				{ResourceName: "example.com/fpga", DeviceIDs: []string{"fpga0"}},
			},
		},
	}
}

// Generate returns a snapshot of n pods on a node with 2 NUMA nodes of 64
// CPUs each: every fourth pod is Guaranteed with two exclusive CPUs, pinned
// memory and a device; the others are Burstable with a sidecar. CPUs wrap
// around, so with large n the same CPU is listed for several pods, which the
// API never does but which costs the same to convert.
func Generate(n int) *podresources.Snapshot {
	s := &podresources.Snapshot{Pods: make([]podresources.PodResources, n)}
	for i := range n {
		p := &s.Pods[i]
		p.Name = fmt.Sprintf("pod-%05d", i)
		p.Namespace = fmt.Sprintf("ns-%03d", i%100)
		if i%4 == 0 {
			node := (i / 4) % 2
			cpu := node*64 + (i/8)%32*2
			p.Containers = []podresources.ContainerResources{{
				Name:   "main",
				CPUIDs: []int{cpu, cpu + 1},
				Memory: []podresources.ContainerMemory{{Type: "memory", Size: gib, NUMANodes: []int{node}}},
				Devices: []podresources.ContainerDevices{{
					ResourceName: "example.com/vf", DeviceIDs: []string{fmt.Sprintf("vf-%d", i)}, NUMANodes: []int{node},
				}},
			}}
			continue
		}
		p.Containers = []podresources.ContainerResources{{Name: "main"}, {Name: "sidecar"}}
	}
	s.Allocatable = &podresources.Allocatable{}
	for c := range 128 {
		s.Allocatable.CPUIDs = append(s.Allocatable.CPUIDs, c)
	}
	for node := range 2 {
		s.Allocatable.Memory = append(s.Allocatable.Memory, podresources.ContainerMemory{Type: "memory", Size: 256 * gib, NUMANodes: []int{node}})
	}
	return s
}
