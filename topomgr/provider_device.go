package topomgr

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/statefile"
)

// Device is one device-plugin device: its ID, its NUMA nodes (none when
// the plugin reports no topology) and whether it is healthy.
type Device struct {
	ID        string `json:"id"`
	NUMANodes []int  `json:"numaNodes"`
	Healthy   bool   `json:"healthy"`
}

// DeviceProvider is the device manager as a hint provider: devices per
// resource with their NUMA nodes, what is allocated (from the device
// checkpoint), "preferred" judged against all devices of the resource.
type DeviceProvider struct {
	machineNodes []int
	devices      map[string]map[string]*Device
	allocated    map[string]map[string]map[string][]string // pod → container → resource → IDs
	reuse        map[string]map[string]map[string]bool     // pod → resource → reusable IDs
}

// NewDeviceProvider builds the device manager's view from the device
// checkpoint (allocations, with the NUMA nodes recorded for each, and the
// healthy devices registered when it was written) and the allocatable
// devices with their topology (a PodResources GetAllocatableResources
// answer; may be nil). machineNodes are the machine's NUMA node IDs.
func NewDeviceProvider(machineNodes []int, st *statefile.DeviceState, alloc *podresources.Allocatable) (*DeviceProvider, error) {
	p := &DeviceProvider{machineNodes: append([]int(nil), machineNodes...), devices: map[string]map[string]*Device{},
		allocated: map[string]map[string]map[string][]string{}, reuse: map[string]map[string]map[string]bool{}}
	sort.Ints(p.machineNodes)
	dev := func(res, id string) *Device {
		if p.devices[res] == nil {
			p.devices[res] = map[string]*Device{}
		}
		if p.devices[res][id] == nil {
			p.devices[res][id] = &Device{ID: id}
		}
		return p.devices[res][id]
	}
	addNode := func(d *Device, n int) {
		for _, x := range d.NUMANodes {
			if x == n {
				return
			}
		}
		d.NUMANodes = append(d.NUMANodes, n)
		sort.Ints(d.NUMANodes)
	}
	if alloc != nil {
		for _, d := range alloc.Devices {
			for _, id := range d.DeviceIDs {
				x := dev(d.ResourceName, id)
				x.Healthy = true
				for _, n := range d.NUMANodes {
					addNode(x, n)
				}
			}
		}
	}
	if st != nil {
		for res, ids := range st.RegisteredDevices {
			for _, id := range ids {
				dev(res, id).Healthy = true
			}
		}
		for _, e := range st.PodDeviceEntries {
			if p.allocated[e.PodUID] == nil {
				p.allocated[e.PodUID] = map[string]map[string][]string{}
			}
			if p.allocated[e.PodUID][e.ContainerName] == nil {
				p.allocated[e.PodUID][e.ContainerName] = map[string][]string{}
			}
			seen := map[string]bool{}
			for numa, ids := range e.DeviceIDs {
				for _, id := range ids {
					x := dev(e.ResourceName, id)
					if numa >= 0 {
						addNode(x, int(numa))
					}
					if !seen[id] {
						seen[id] = true
						p.allocated[e.PodUID][e.ContainerName][e.ResourceName] = append(p.allocated[e.PodUID][e.ContainerName][e.ResourceName], id)
					}
				}
			}
		}
	}
	return p, nil
}

// Name returns "device".
func (p *DeviceProvider) Name() string { return "device" }

// Devices returns the devices of a resource, sorted by ID.
func (p *DeviceProvider) Devices(resource string) []Device {
	var out []Device
	for _, d := range p.devices[resource] {
		out = append(out, *d)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}

func (p *DeviceProvider) isDeviceResource(r string) bool { return len(p.devices[r]) > 0 }

func (p *DeviceProvider) hasTopology(r string) bool {
	for _, d := range p.devices[r] {
		if len(d.NUMANodes) > 0 {
			return true
		}
	}
	return false
}

func (p *DeviceProvider) allocatedAll(r string) map[string]bool {
	out := map[string]bool{}
	for _, cs := range p.allocated {
		for _, rs := range cs {
			for _, id := range rs[r] {
				out[id] = true
			}
		}
	}
	return out
}

func (p *DeviceProvider) availableDevices(r string) map[string]bool {
	used := p.allocatedAll(r)
	out := map[string]bool{}
	for id, d := range p.devices[r] {
		if d.Healthy && !used[id] {
			out[id] = true
		}
	}
	return out
}

func (p *DeviceProvider) containerRequests(c *Container) map[string]int {
	out := map[string]int{}
	for r := range c.Resources.Limits {
		if p.isDeviceResource(r) {
			out[r] = int(c.Resources.Limit(r).Value())
		}
	}
	return out
}

// podRequests is resource.PodLimits for device resources: the larger of
// the long-running containers' sum and the peak of any init container
// (with the sidecars started before it).
func (p *DeviceProvider) podRequests(pod *Pod) map[string]int {
	out := map[string]int{}
	restartable := map[string]int{}
	initMax := map[string]int{}
	for _, c := range pod.InitContainers {
		for r, n := range p.containerRequests(&c) {
			if c.IsRestartable() {
				restartable[r] += n
			} else {
				initMax[r] = max(initMax[r], restartable[r]+n)
			}
		}
	}
	for _, c := range pod.Containers {
		for r, n := range p.containerRequests(&c) {
			out[r] += n
		}
	}
	for r, n := range restartable {
		out[r] += n
	}
	for r, n := range initMax {
		out[r] = max(out[r], n)
	}
	return out
}

// GetTopologyHints returns the container's device hints.
func (p *DeviceProvider) GetTopologyHints(pod *Pod, c *Container) ProviderHints {
	hints := ProviderHints{}
	for r, n := range p.containerRequests(c) {
		if !p.hasTopology(r) {
			hints[r] = nil
			continue
		}
		if got := p.allocated[pod.UID][c.Name][r]; len(got) > 0 {
			if len(got) != n {
				hints[r] = []TopologyHint{}
				continue
			}
			hints[r] = p.generate(r, toSet(got), nil, n)
			continue
		}
		avail := p.availableDevices(r)
		reuse := p.reuse[pod.UID][r]
		union := len(avail)
		for id := range reuse {
			if !avail[id] {
				union++
			}
		}
		if union < n {
			hints[r] = []TopologyHint{}
			continue
		}
		hints[r] = p.generate(r, avail, reuse, n)
	}
	return hints
}

// GetPodTopologyHints returns the pod's device hints (pod scope).
func (p *DeviceProvider) GetPodTopologyHints(pod *Pod) ProviderHints {
	hints := ProviderHints{}
	for r, n := range p.podRequests(pod) {
		if !p.hasTopology(r) {
			hints[r] = nil
			continue
		}
		var got []string
		for _, rs := range p.allocated[pod.UID] {
			got = append(got, rs[r]...)
		}
		if len(got) > 0 {
			if len(got) != n {
				hints[r] = []TopologyHint{}
				continue
			}
			hints[r] = p.generate(r, toSet(got), nil, n)
			continue
		}
		avail := p.availableDevices(r)
		if len(avail) < n {
			hints[r] = []TopologyHint{}
			continue
		}
		hints[r] = p.generate(r, avail, nil, n)
	}
	return hints
}

func toSet(ids []string) map[string]bool {
	out := map[string]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// generate iterates the masks over the NUMA nodes that hold devices of the
// resource (all machine nodes when none does) as kubelet 1.37 does.
func (p *DeviceProvider) generate(r string, available, reusable map[string]bool, request int) []TopologyHint {
	known := map[int]bool{}
	for _, n := range p.machineNodes {
		known[n] = true
	}
	withDev := map[int]bool{}
	for _, d := range p.devices[r] {
		for _, n := range d.NUMANodes {
			if known[n] {
				withDev[n] = true
			}
		}
	}
	var nodes []int
	for n := range withDev {
		nodes = append(nodes, n)
	}
	sort.Ints(nodes)
	if len(nodes) == 0 {
		nodes = p.machineNodes
	}
	minAffinity := len(nodes)
	hints := []TopologyHint{}
	IterateBitMasks(nodes, func(m BitMask) {
		inMask := 0
		for _, d := range p.devices[r] {
			if m.AnySet(d.NUMANodes) {
				inMask++
			}
		}
		if inMask >= request && m.Count() < minAffinity {
			minAffinity = m.Count()
		}
		matching := 0
		for id := range reusable {
			d := p.devices[r][id]
			if d == nil || len(d.NUMANodes) == 0 {
				continue
			}
			if !m.AnySet(d.NUMANodes) {
				return
			}
			matching++
		}
		for id := range available {
			if d := p.devices[r][id]; d != nil && m.AnySet(d.NUMANodes) {
				matching++
			}
		}
		if matching < request {
			return
		}
		hints = append(hints, NewHint(m, false))
	})
	for i := range hints {
		hints[i].Preferred = hints[i].NUMANodeAffinity.Count() == minAffinity
	}
	return hints
}

// Allocate picks the container's devices: reusable ones first, then those
// on the chosen NUMA nodes, then the rest, each group by device ID (the
// kubelet may ask the plugin's GetPreferredAllocation within a group).
func (p *DeviceProvider) Allocate(pod *Pod, c *Container, store Store) error {
	hint := store.GetAffinity(pod.UID, c.Name)
	for _, r := range slices.Sorted(maps.Keys(p.containerRequests(c))) {
		n := p.containerRequests(c)[r]
		if got := p.allocated[pod.UID][c.Name][r]; len(got) > 0 {
			if len(got) != n {
				return fmt.Errorf("pod %q container %q changed request for resource %q from %d to %d", pod.UID, c.Name, r, len(got), n)
			}
			p.updateReuse(pod, c, r, got)
			continue
		}
		avail := p.availableDevices(r)
		var picked []string
		for id := range p.reuse[pod.UID][r] {
			if len(picked) < n {
				picked = append(picked, id)
			}
		}
		sort.Strings(picked)
		var ids []string
		for id := range avail {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(a, b int) bool {
			da, db := p.devices[r][ids[a]], p.devices[r][ids[b]]
			ia := hint.HasAffinity && len(da.NUMANodes) > 0 && allIn(da.NUMANodes, hint.NUMANodeAffinity)
			ib := hint.HasAffinity && len(db.NUMANodes) > 0 && allIn(db.NUMANodes, hint.NUMANodeAffinity)
			if ia != ib {
				return ia
			}
			return ids[a] < ids[b]
		})
		for _, id := range ids {
			if len(picked) == n {
				break
			}
			if !contains(picked, id) {
				picked = append(picked, id)
			}
		}
		if len(picked) < n {
			return fmt.Errorf("requested number of devices unavailable for %s. Requested: %d, Available: %d", r, n, len(avail))
		}
		if p.allocated[pod.UID] == nil {
			p.allocated[pod.UID] = map[string]map[string][]string{}
		}
		if p.allocated[pod.UID][c.Name] == nil {
			p.allocated[pod.UID][c.Name] = map[string][]string{}
		}
		p.allocated[pod.UID][c.Name][r] = picked
		p.updateReuse(pod, c, r, picked)
	}
	return nil
}

func allIn(nodes []int, m BitMask) bool {
	for _, n := range nodes {
		if !m.IsSet(n) {
			return false
		}
	}
	return true
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func (p *DeviceProvider) updateReuse(pod *Pod, c *Container, r string, ids []string) {
	for uid := range p.reuse {
		if uid != pod.UID {
			delete(p.reuse, uid)
		}
	}
	if p.reuse[pod.UID] == nil {
		p.reuse[pod.UID] = map[string]map[string]bool{}
	}
	if p.reuse[pod.UID][r] == nil {
		p.reuse[pod.UID][r] = map[string]bool{}
	}
	isInit := false
	for _, ic := range pod.InitContainers {
		if ic.Name == c.Name && !ic.IsRestartable() {
			isInit = true
		}
	}
	for _, id := range ids {
		if isInit {
			p.reuse[pod.UID][r][id] = true
		} else {
			delete(p.reuse[pod.UID][r], id)
		}
	}
}
