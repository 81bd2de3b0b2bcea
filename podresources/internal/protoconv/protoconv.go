// Package protoconv converts between the k8s.io/kubelet PodResources v1 types
// and numascope's plain model. It is shared by the client and the test server
// and keeps the model package free of protobuf and gRPC.
package protoconv

import (
	"fmt"
	"math"

	v1 "k8s.io/kubelet/pkg/apis/podresources/v1"

	"github.com/numascope/numascope/podresources"
)

// converter carves every id list out of one backing array per answer, so a
// 10,000-pod List costs a handful of allocations per pod instead of one per
// list.
type converter struct {
	ints []int
}

func (c *converter) grow(n int) []int {
	if n == 0 {
		return nil
	}
	if len(c.ints) < n {
		size := 4096
		if n > size {
			size = n
		}
		c.ints = make([]int, size)
	}
	out := c.ints[:n:n]
	c.ints = c.ints[n:]
	return out
}

func (c *converter) ids(what string, in []int64) ([]int, error) {
	out := c.grow(len(in))
	for i, v := range in {
		if v < 0 || v > math.MaxInt32 {
			return nil, fmt.Errorf("%s %d is out of range", what, v)
		}
		out[i] = int(v)
	}
	return out, nil
}

func (c *converter) topology(t *v1.TopologyInfo) ([]int, error) {
	if t == nil || len(t.Nodes) == 0 {
		return nil, nil
	}
	out := c.grow(len(t.Nodes))
	for i, n := range t.Nodes {
		if n == nil {
			return nil, fmt.Errorf("NUMA node entry %d is empty", i)
		}
		if n.ID < 0 || n.ID > math.MaxInt32 {
			return nil, fmt.Errorf("NUMA node %d is out of range", n.ID)
		}
		out[i] = int(n.ID)
	}
	return out, nil
}

func (c *converter) memory(in []*v1.ContainerMemory) ([]podresources.ContainerMemory, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make([]podresources.ContainerMemory, len(in))
	for i, m := range in {
		if m == nil {
			return nil, fmt.Errorf("memory entry %d is empty", i)
		}
		nodes, err := c.topology(m.Topology)
		if err != nil {
			return nil, fmt.Errorf("memory %s: %w", m.MemoryType, err)
		}
		out[i] = podresources.ContainerMemory{Type: m.MemoryType, Size: m.Size, NUMANodes: nodes}
	}
	return out, nil
}

func (c *converter) devices(in []*v1.ContainerDevices) ([]podresources.ContainerDevices, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make([]podresources.ContainerDevices, len(in))
	for i, d := range in {
		if d == nil {
			return nil, fmt.Errorf("device entry %d is empty", i)
		}
		nodes, err := c.topology(d.Topology)
		if err != nil {
			return nil, fmt.Errorf("device %s: %w", d.ResourceName, err)
		}
		out[i] = podresources.ContainerDevices{ResourceName: d.ResourceName, DeviceIDs: d.DeviceIds, NUMANodes: nodes}
	}
	return out, nil
}

func dynamic(in []*v1.DynamicResource) []podresources.DynamicResource {
	if len(in) == 0 {
		return nil
	}
	out := make([]podresources.DynamicResource, 0, len(in))
	for _, r := range in {
		if r == nil {
			continue
		}
		dr := podresources.DynamicResource{ClaimName: r.ClaimName, ClaimNamespace: r.ClaimNamespace}
		for _, cr := range r.ClaimResources {
			if cr == nil {
				continue
			}
			c := podresources.ClaimResource{DriverName: cr.DriverName, PoolName: cr.PoolName, DeviceName: cr.DeviceName, ShareID: cr.GetShareId()}
			for _, cdi := range cr.CdiDevices {
				if cdi != nil {
					c.CDIDevices = append(c.CDIDevices, cdi.Name)
				}
			}
			dr.ClaimResources = append(dr.ClaimResources, c)
		}
		out = append(out, dr)
	}
	return out
}

func (c *converter) pod(p *v1.PodResources, out *podresources.PodResources) error {
	out.Name, out.Namespace = p.Name, p.Namespace
	var err error
	if out.CPUIDs, err = c.ids("pod-level CPU id", p.CpuIds); err != nil {
		return err
	}
	if out.Memory, err = c.memory(p.Memory); err != nil {
		return fmt.Errorf("pod-level %w", err)
	}
	out.Containers = make([]podresources.ContainerResources, len(p.Containers))
	for i, ct := range p.Containers {
		if ct == nil {
			return fmt.Errorf("container entry %d is empty", i)
		}
		o := &out.Containers[i]
		o.Name = ct.Name
		if o.CPUIDs, err = c.ids("CPU id", ct.CpuIds); err != nil {
			return fmt.Errorf("container %s: %w", ct.Name, err)
		}
		if o.Memory, err = c.memory(ct.Memory); err != nil {
			return fmt.Errorf("container %s: %w", ct.Name, err)
		}
		if o.Devices, err = c.devices(ct.Devices); err != nil {
			return fmt.Errorf("container %s: %w", ct.Name, err)
		}
		o.DynamicResources = dynamic(ct.DynamicResources)
	}
	return nil
}

// Pods converts a List answer. Device id lists share memory with in.
func Pods(in []*v1.PodResources) ([]podresources.PodResources, error) {
	c := &converter{}
	out := make([]podresources.PodResources, len(in))
	for i, p := range in {
		if p == nil {
			return nil, fmt.Errorf("pod entry %d is empty", i)
		}
		if err := c.pod(p, &out[i]); err != nil {
			return nil, fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	return out, nil
}

// Pod converts a Get answer.
func Pod(in *v1.PodResources) (*podresources.PodResources, error) {
	if in == nil {
		return nil, fmt.Errorf("the answer holds no pod")
	}
	out := &podresources.PodResources{}
	if err := (&converter{}).pod(in, out); err != nil {
		return nil, fmt.Errorf("pod %s/%s: %w", in.Namespace, in.Name, err)
	}
	return out, nil
}

// Allocatable converts a GetAllocatableResources answer.
func Allocatable(in *v1.AllocatableResourcesResponse) (*podresources.Allocatable, error) {
	c := &converter{}
	out := &podresources.Allocatable{}
	var err error
	if out.CPUIDs, err = c.ids("CPU id", in.GetCpuIds()); err != nil {
		return nil, err
	}
	if out.Memory, err = c.memory(in.GetMemory()); err != nil {
		return nil, err
	}
	if out.Devices, err = c.devices(in.GetDevices()); err != nil {
		return nil, err
	}
	return out, nil
}

func int64s(in []int) []int64 {
	if len(in) == 0 {
		return nil
	}
	out := make([]int64, len(in))
	for i, v := range in {
		out[i] = int64(v)
	}
	return out
}

func topologyOf(nodes []int) *v1.TopologyInfo {
	if nodes == nil {
		return nil
	}
	t := &v1.TopologyInfo{Nodes: make([]*v1.NUMANode, len(nodes))}
	for i, n := range nodes {
		t.Nodes[i] = &v1.NUMANode{ID: int64(n)}
	}
	return t
}

func toMemory(in []podresources.ContainerMemory) []*v1.ContainerMemory {
	if len(in) == 0 {
		return nil
	}
	out := make([]*v1.ContainerMemory, len(in))
	for i, m := range in {
		nodes := m.NUMANodes
		if nodes == nil {
			// The kubelet always sends a topology for memory blocks.
			nodes = []int{}
		}
		out[i] = &v1.ContainerMemory{MemoryType: m.Type, Size: m.Size, Topology: topologyOf(nodes)}
	}
	return out
}

func toDevices(in []podresources.ContainerDevices) []*v1.ContainerDevices {
	if len(in) == 0 {
		return nil
	}
	out := make([]*v1.ContainerDevices, len(in))
	for i, d := range in {
		out[i] = &v1.ContainerDevices{ResourceName: d.ResourceName, DeviceIds: append([]string(nil), d.DeviceIDs...), Topology: topologyOf(d.NUMANodes)}
	}
	return out
}

// ToPod converts a model pod into the API type.
func ToPod(p *podresources.PodResources) *v1.PodResources {
	out := &v1.PodResources{
		Name: p.Name, Namespace: p.Namespace,
		CpuIds: int64s(p.CPUIDs), Memory: toMemory(p.Memory),
		Containers: make([]*v1.ContainerResources, len(p.Containers)),
	}
	for i := range p.Containers {
		c := &p.Containers[i]
		cr := &v1.ContainerResources{Name: c.Name, CpuIds: int64s(c.CPUIDs), Memory: toMemory(c.Memory), Devices: toDevices(c.Devices)}
		for _, r := range c.DynamicResources {
			dr := &v1.DynamicResource{ClaimName: r.ClaimName, ClaimNamespace: r.ClaimNamespace}
			for _, x := range r.ClaimResources {
				res := &v1.ClaimResource{DriverName: x.DriverName, PoolName: x.PoolName, DeviceName: x.DeviceName}
				if x.ShareID != "" {
					id := x.ShareID
					res.ShareId = &id
				}
				for _, name := range x.CDIDevices {
					res.CdiDevices = append(res.CdiDevices, &v1.CDIDevice{Name: name})
				}
				dr.ClaimResources = append(dr.ClaimResources, res)
			}
			cr.DynamicResources = append(cr.DynamicResources, dr)
		}
		out.Containers[i] = cr
	}
	return out
}

// ToAllocatable converts a model allocatable answer into the API type.
func ToAllocatable(a *podresources.Allocatable) *v1.AllocatableResourcesResponse {
	if a == nil {
		return &v1.AllocatableResourcesResponse{}
	}
	return &v1.AllocatableResourcesResponse{CpuIds: int64s(a.CPUIDs), Memory: toMemory(a.Memory), Devices: toDevices(a.Devices)}
}
