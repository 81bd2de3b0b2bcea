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
	// EmptyTopology is set when the plugin sends a topology that lists no
	// NUMA node. The kubelet treats such a device as one without topology,
	// except that a reusable one (held by an init container) rules out
	// every NUMA mask. Neither the device checkpoint nor
	// GetAllocatableResources shows it (the latter omits the device).
	EmptyTopology bool `json:"emptyTopology,omitempty"`
}

// DeviceProvider is the device manager (kubelet v1.37.2,
// pkg/kubelet/cm/devicemanager) as a hint provider: the devices of each
// resource with their NUMA nodes and health, what is allocated to which
// container (from the device checkpoint), and the devices of init
// containers that later containers of the same pod may reuse.
//
// Built from the evidence a node gives (the device checkpoint and a
// PodResources GetAllocatableResources answer), it knows the healthy
// devices and the allocated ones. What that evidence cannot show, and
// SetDevices can give: the kubelet also counts unhealthy devices (for the
// preferred hints and the NUMA nodes it tries); a device that only an
// allocation names may be unhealthy (the kubelet counts it) or gone (it
// does not); and a checkpoint written before a kubelet restart names
// devices the kubelet holds again only once their plugin registers.
type DeviceProvider struct {
	machineNodes []int
	devices      map[string]map[string]*Device
	// registered and inAllocated together are the device-plugin resources
	// (the kubelet's isDevicePluginResource): registered by a plugin or in
	// the checkpoint, or named by an allocation.
	registered  map[string]bool
	inAllocated map[string]bool
	allocated   map[string]map[string]map[string][]string // pod → container → resource → IDs
	reuse       map[string]map[string]map[string]bool     // pod → resource → reusable IDs
}

// NewDeviceProvider builds the device manager's view from the device
// checkpoint (allocations, with the NUMA nodes recorded for each, and the
// healthy devices registered when it was written) and the allocatable
// devices with their topology (a PodResources GetAllocatableResources
// answer; may be nil). machineNodes are the machine's NUMA node IDs.
func NewDeviceProvider(machineNodes []int, st *statefile.DeviceState, alloc *podresources.Allocatable) (*DeviceProvider, error) {
	p := &DeviceProvider{machineNodes: append([]int(nil), machineNodes...), devices: map[string]map[string]*Device{},
		registered: map[string]bool{}, inAllocated: map[string]bool{},
		allocated: map[string]map[string]map[string][]string{}, reuse: map[string]map[string]map[string]bool{}}
	sort.Ints(p.machineNodes)
	if alloc != nil {
		for _, d := range alloc.Devices {
			p.registered[d.ResourceName] = true
			for _, id := range d.DeviceIDs {
				x := p.dev(d.ResourceName, id)
				x.Healthy = true
				for _, n := range d.NUMANodes {
					x.addNode(n)
				}
			}
		}
	}
	if st != nil {
		for res, ids := range st.RegisteredDevices {
			p.registered[res] = true
			for _, id := range ids {
				p.dev(res, id).Healthy = true
			}
		}
		for _, e := range st.PodDeviceEntries {
			p.inAllocated[e.ResourceName] = true
			var ids []string
			for _, numa := range slices.Sorted(maps.Keys(e.DeviceIDs)) {
				for _, id := range e.DeviceIDs[numa] {
					x := p.dev(e.ResourceName, id)
					if numa >= 0 {
						x.addNode(int(numa))
					}
					if !slices.Contains(ids, id) {
						ids = append(ids, id)
					}
				}
			}
			// As the kubelet's podDevices.insert: a later entry for the same
			// container and resource replaces an earlier one.
			p.setAllocated(e.PodUID, e.ContainerName, e.ResourceName, ids)
		}
	}
	return p, nil
}

// SetDevices replaces what is known of a resource's devices with the
// kubelet's own list: the devices its plugin listed last, healthy or not,
// with their topology (an empty list when no plugin has listed any since
// the kubelet started). A plugin that lists devices has registered the
// resource.
func (p *DeviceProvider) SetDevices(resource string, devices []Device) {
	if len(devices) > 0 {
		p.registered[resource] = true
	}
	p.devices[resource] = map[string]*Device{}
	for _, d := range devices {
		d.NUMANodes = slices.Clone(d.NUMANodes)
		p.devices[resource][d.ID] = &d
	}
}

func (p *DeviceProvider) dev(res, id string) *Device {
	if p.devices[res] == nil {
		p.devices[res] = map[string]*Device{}
	}
	if p.devices[res][id] == nil {
		p.devices[res][id] = &Device{ID: id}
	}
	return p.devices[res][id]
}

func (d *Device) addNode(n int) {
	if !slices.Contains(d.NUMANodes, n) {
		d.NUMANodes = append(d.NUMANodes, n)
		sort.Ints(d.NUMANodes)
	}
}

func (p *DeviceProvider) setAllocated(pod, container, res string, ids []string) {
	if p.allocated[pod] == nil {
		p.allocated[pod] = map[string]map[string][]string{}
	}
	if p.allocated[pod][container] == nil {
		p.allocated[pod][container] = map[string][]string{}
	}
	p.allocated[pod][container][res] = ids
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

func (p *DeviceProvider) isDeviceResource(r string) bool { return p.registered[r] || p.inAllocated[r] }

// hasTopology is deviceHasTopologyAlignment: some device of the resource
// names a NUMA node.
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

func (p *DeviceProvider) healthy(r string) map[string]bool {
	out := map[string]bool{}
	if !p.registered[r] {
		return out
	}
	for id, d := range p.devices[r] {
		if d.Healthy {
			out[id] = true
		}
	}
	return out
}

// availableDevices is getAvailableDevices: healthy and not allocated.
func (p *DeviceProvider) availableDevices(r string) map[string]bool {
	used := p.allocatedAll(r)
	out := p.healthy(r)
	for id := range out {
		if used[id] {
			delete(out, id)
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
		// The devices of all the pod's containers, each once (an init
		// container's devices are often reused by an app container).
		got := map[string]bool{}
		for _, rs := range p.allocated[pod.UID] {
			for _, id := range rs[r] {
				got[id] = true
			}
		}
		if len(got) > 0 {
			if len(got) != n {
				hints[r] = []TopologyHint{}
				continue
			}
			hints[r] = p.generate(r, got, nil, n)
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

// generate is generateDeviceTopologyHints: it iterates the masks over the
// NUMA nodes that hold devices of the resource (all machine nodes when
// none does) as kubelet 1.37 does.
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
	nodes := slices.Sorted(maps.Keys(withDev))
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
			if d == nil || (len(d.NUMANodes) == 0 && !d.EmptyTopology) {
				continue // the kubelet skips a device without topology
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

// Allocate picks the container's devices as the kubelet's Allocate and
// devicesToAllocate do, with the same checks and error texts: reusable
// devices first, then those on the chosen NUMA nodes, then the rest. Where
// the kubelet takes any device of a group (it iterates a set), numascope
// takes them by device ID; the kubelet may also ask the plugin's
// GetPreferredAllocation within a group. Resources are taken in name
// order (the kubelet's order is a map's).
func (p *DeviceProvider) Allocate(pod *Pod, c *Container, store Store) error {
	hint := store.GetAffinity(pod.UID, c.Name)
	reqs := p.containerRequests(c)
	for _, r := range slices.Sorted(maps.Keys(reqs)) {
		if err := p.allocateResource(pod, c, r, reqs[r], hint); err != nil {
			return err
		}
	}
	// The pod's reusable devices: a regular init container's join them, and
	// an app container or a sidecar keeps its own.
	if p.reuse[pod.UID] == nil {
		p.reuse[pod.UID] = map[string]map[string]bool{}
	}
	for uid := range p.reuse {
		if uid != pod.UID {
			delete(p.reuse, uid)
		}
	}
	isInit := false
	for _, ic := range pod.InitContainers {
		if ic.Name == c.Name {
			isInit = !ic.IsRestartable()
			break
		}
	}
	for r, ids := range p.allocated[pod.UID][c.Name] {
		if p.reuse[pod.UID][r] == nil {
			p.reuse[pod.UID][r] = map[string]bool{}
		}
		for _, id := range ids {
			if isInit {
				p.reuse[pod.UID][r][id] = true
			} else {
				delete(p.reuse[pod.UID][r], id)
			}
		}
	}
	return nil
}

func (p *DeviceProvider) allocateResource(pod *Pod, c *Container, r string, required int, hint TopologyHint) error {
	needed := required
	got, had := p.allocated[pod.UID][c.Name][r]
	if had {
		needed -= len(got)
		if needed != 0 {
			return fmt.Errorf("pod %q container %q changed request for resource %q from %d to %d", pod.UID, c.Name, r, len(got), required)
		}
	}
	if !p.registered[r] {
		return fmt.Errorf("cannot allocate unregistered device %s", r)
	}
	healthy := p.healthy(r)
	if len(healthy) == 0 {
		return fmt.Errorf("no healthy devices present; cannot allocate unhealthy devices %s", r)
	}
	for _, id := range got {
		if !healthy[id] {
			return fmt.Errorf("previously allocated devices are no longer healthy; cannot allocate unhealthy devices %s", r)
		}
	}
	if needed == 0 {
		return nil
	}
	var picked []string
	take := func(ids []string) bool {
		for _, id := range ids {
			if needed == 0 {
				break
			}
			if !slices.Contains(picked, id) {
				picked = append(picked, id)
				needed--
			}
		}
		return needed == 0
	}
	if !take(slices.Sorted(maps.Keys(p.reuse[pod.UID][r]))) {
		avail := p.availableDevices(r)
		if len(avail) < needed {
			return fmt.Errorf("requested number of devices unavailable for %s. Requested: %d, Available: %d", r, needed, len(avail))
		}
		aligned, unaligned, noAffinity := p.filterByAffinity(r, avail, hint)
		if !take(aligned) && !take(unaligned) && !take(noAffinity) {
			return fmt.Errorf("unexpectedly allocated less resources than required. Requested: %d, Got: %d", required, required-needed)
		}
	}
	p.setAllocated(pod.UID, c.Name, r, picked)
	p.inAllocated[r] = true
	return nil
}

// filterByAffinity splits the available devices as the kubelet does: on
// the hint's NUMA nodes, on other nodes, and without topology (all of them
// when the hint has no affinity or the resource no topology). Each group
// is sorted by ID.
func (p *DeviceProvider) filterByAffinity(r string, avail map[string]bool, hint TopologyHint) (aligned, unaligned, noAffinity []string) {
	ids := slices.Sorted(maps.Keys(avail))
	if !p.hasTopology(r) || !hint.HasAffinity {
		return nil, nil, ids
	}
	for _, id := range ids {
		d := p.devices[r][id]
		switch {
		case len(d.NUMANodes) == 0:
			noAffinity = append(noAffinity, id)
		case hint.NUMANodeAffinity.AnySet(d.NUMANodes):
			aligned = append(aligned, id)
		default:
			unaligned = append(unaligned, id)
		}
	}
	return aligned, unaligned, noAffinity
}
