package diagnose

import (
	"fmt"
	"sort"
	"strings"

	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
	"k8s.io/utils/cpuset"
)

// The hint providers below recompute, from the state files, the hints the
// kubelet's device, CPU and memory managers would give a new pod, following
// their static policies (cpumanager/policy_static.go, memorymanager/
// policy_static.go, devicemanager/topology_hints.go of kubelet v1.37.2).
// They cover a pod that holds nothing yet: containers already present in the
// state, CPUs reusable from init containers and pod-level resources are not
// modelled. Allocate keeps the free amounts up to date between containers.

type cpuHints struct {
	guaranteed bool
	nodes      []int
	capacity   map[int]int // all CPUs per NUMA node
	free       map[int]int // CPUs available for exclusive use per NUMA node
}

func (p *cpuHints) Name() string { return "cpu" }

func (p *cpuHints) request(c *topomgr.Container) int {
	if !p.guaranteed {
		return 0
	}
	q, err := ParseQuantity(orDefault(c.Resources.Requests["cpu"], c.Resources.Limits["cpu"]))
	if err != nil || !q.IsInteger() {
		return 0
	}
	return int(q.Int64())
}

func (p *cpuHints) hints(n int) topomgr.ProviderHints {
	if n == 0 {
		return nil
	}
	minAff := len(p.nodes)
	var out []topomgr.TopologyHint
	topomgr.IterateBitMasks(p.nodes, func(m topomgr.BitMask) {
		capacity, free := 0, 0
		for _, id := range m.Bits() {
			capacity += p.capacity[id]
			free += p.free[id]
		}
		if capacity >= n && m.Count() < minAff {
			minAff = m.Count()
		}
		if free >= n {
			out = append(out, topomgr.NewHint(m, false))
		}
	})
	list := []topomgr.TopologyHint{}
	for _, h := range out {
		list = append(list, topomgr.NewHint(h.NUMANodeAffinity, h.NUMANodeAffinity.Count() == minAff))
	}
	return topomgr.ProviderHints{"cpu": list}
}

func (p *cpuHints) GetTopologyHints(_ *topomgr.Pod, c *topomgr.Container) topomgr.ProviderHints {
	return p.hints(p.request(c))
}

func (p *cpuHints) GetPodTopologyHints(pod *topomgr.Pod) topomgr.ProviderHints {
	return p.hints(int(podSum(pod, func(c *topomgr.Container) int64 { return int64(p.request(c)) })))
}

func (p *cpuHints) Allocate(pod *topomgr.Pod, c *topomgr.Container, store topomgr.Store) error {
	n := p.request(c)
	h := store.GetAffinity(pod.UID, c.Name)
	nodes := p.nodes
	if h.HasAffinity {
		nodes = h.NUMANodeAffinity.Bits()
	}
	take := func(ids []int) {
		for _, id := range ids {
			k := min(n, p.free[id])
			p.free[id] -= k
			n -= k
		}
	}
	take(nodes)
	take(p.nodes)
	if n > 0 {
		return fmt.Errorf("not enough cpus available to satisfy request")
	}
	return nil
}

// podSum is the kubelet's effective pod request: the larger of the biggest
// init-container peak and the sum of app containers plus sidecars.
func podSum(pod *topomgr.Pod, req func(*topomgr.Container) int64) int64 {
	var sidecars, peak, sum int64
	for i := range pod.InitContainers {
		c := &pod.InitContainers[i]
		if c.IsRestartable() {
			sidecars += req(c)
			continue
		}
		peak = max(peak, sidecars+req(c))
	}
	for i := range pod.Containers {
		sum += req(&pod.Containers[i])
	}
	return max(peak, sum+sidecars)
}

type memoryHints struct {
	guaranteed bool
	state      *statefile.MemoryState
}

func (p *memoryHints) Name() string { return "memory" }

func (p *memoryHints) requests(c *topomgr.Container) map[string]uint64 {
	out := map[string]uint64{}
	if !p.guaranteed {
		return out
	}
	for r, v := range c.Resources.Limits {
		if r != "memory" && !strings.HasPrefix(r, "hugepages-") {
			continue
		}
		q, err := ParseQuantity(v)
		if err == nil && q.Int64() > 0 {
			out[r] = uint64(q.Int64())
		}
	}
	return out
}

func (p *memoryHints) hints(req map[string]uint64) topomgr.ProviderHints {
	if len(req) == 0 {
		return nil
	}
	ms := p.state.MachineState
	var nodes []int
	for id := range ms {
		nodes = append(nodes, id)
	}
	sort.Ints(nodes)
	minAff := len(nodes)
	out := topomgr.ProviderHints{}
	var masks []topomgr.BitMask
	topomgr.IterateBitMasks(nodes, func(m topomgr.BitMask) {
		bits := m.Bits()
		single := len(bits) == 1
		for r, want := range req {
			var alloc uint64
			for _, id := range bits {
				if t := ms[id].MemoryMap[r]; t != nil {
					alloc += t.Allocatable
				}
			}
			if alloc < want {
				return
			}
		}
		if m.Count() < minAff {
			minAff = m.Count()
		}
		if single && len(ms[bits[0]].Cells) > 1 {
			return
		}
		if !single {
			for _, id := range bits {
				st := ms[id]
				if st.NumberOfAssignments == 0 {
					continue
				}
				if len(st.Cells) == 1 || !sameInts(st.Cells, bits) {
					return
				}
			}
		}
		for r, want := range req {
			var free uint64
			for _, id := range bits {
				if t := ms[id].MemoryMap[r]; t != nil {
					free += t.Free
				}
			}
			if free < want {
				return
			}
		}
		masks = append(masks, m)
	})
	for r := range req {
		list := []topomgr.TopologyHint{}
		for _, m := range masks {
			list = append(list, topomgr.NewHint(m, m.Count() == minAff))
		}
		if len(masks) > 0 {
			out[r] = list
		}
	}
	return out
}

func (p *memoryHints) GetTopologyHints(_ *topomgr.Pod, c *topomgr.Container) topomgr.ProviderHints {
	return p.hints(p.requests(c))
}

func (p *memoryHints) GetPodTopologyHints(pod *topomgr.Pod) topomgr.ProviderHints {
	req := map[string]uint64{}
	for _, c := range pod.AllContainers() {
		for r := range p.requests(&c) {
			r := r
			req[r] = uint64(podSum(pod, func(c *topomgr.Container) int64 { return int64(p.requests(c)[r]) }))
		}
	}
	return p.hints(req)
}

func (p *memoryHints) Allocate(*topomgr.Pod, *topomgr.Container, topomgr.Store) error { return nil }

type deviceHints struct {
	nodes []int
	// devices maps a resource to its healthy device IDs and their NUMA nodes.
	devices map[string]map[string][]int
	used    map[string]bool // resource + "\x00" + device ID
}

func (p *deviceHints) Name() string { return "device" }

func (p *deviceHints) hints(reqs map[string]int) topomgr.ProviderHints {
	out := topomgr.ProviderHints{}
	for _, res := range sortedKeys(reqs) {
		n := reqs[res]
		devs, ok := p.devices[res]
		if !ok || n == 0 {
			continue
		}
		topo := false
		for _, ns := range devs {
			topo = topo || len(ns) > 0
		}
		if !topo {
			out[res] = nil
			continue
		}
		var available []string
		for id := range devs {
			if !p.used[res+"\x00"+id] {
				available = append(available, id)
			}
		}
		if len(available) < n {
			out[res] = []topomgr.TopologyHint{}
			continue
		}
		minAff := len(p.nodes)
		var masks []topomgr.BitMask
		topomgr.IterateBitMasks(p.nodes, func(m topomgr.BitMask) {
			all, match := 0, 0
			for id, ns := range devs {
				if m.AnySet(ns) {
					all++
					if !p.used[res+"\x00"+id] {
						match++
					}
				}
			}
			if all >= n && m.Count() < minAff {
				minAff = m.Count()
			}
			if match >= n {
				masks = append(masks, m)
			}
		})
		list := []topomgr.TopologyHint{}
		for _, m := range masks {
			list = append(list, topomgr.NewHint(m, m.Count() == minAff))
		}
		out[res] = list
	}
	return out
}

func deviceRequests(c *topomgr.Container) map[string]int {
	out := map[string]int{}
	for r, v := range c.Resources.Limits {
		if !strings.Contains(r, "/") {
			continue
		}
		if q, err := ParseQuantity(v); err == nil {
			out[r] = int(q.Int64())
		}
	}
	return out
}

func (p *deviceHints) GetTopologyHints(_ *topomgr.Pod, c *topomgr.Container) topomgr.ProviderHints {
	return p.hints(deviceRequests(c))
}

func (p *deviceHints) GetPodTopologyHints(pod *topomgr.Pod) topomgr.ProviderHints {
	req := map[string]int{}
	for _, c := range pod.AllContainers() {
		for r, v := range deviceRequests(&c) {
			req[r] += v
		}
	}
	return p.hints(req)
}

func (p *deviceHints) Allocate(*topomgr.Pod, *topomgr.Container, topomgr.Store) error { return nil }

// toTopomgrPod converts a pod of the evidence.
func toTopomgrPod(p *Pod) *topomgr.Pod {
	conv := func(cs []Container) []topomgr.Container {
		var out []topomgr.Container
		for _, c := range cs {
			tc := topomgr.Container{Name: c.Name, Resources: topomgr.Resources{Requests: map[string]string{}, Limits: map[string]string{}}}
			if c.Restartable {
				tc.RestartPolicy = "Always"
			}
			for r, q := range c.Requests {
				tc.Resources.Requests[r] = q.String()
			}
			for r, q := range c.Limits {
				tc.Resources.Limits[r] = q.String()
			}
			out = append(out, tc)
		}
		return out
	}
	return &topomgr.Pod{Name: p.Name, Namespace: p.Namespace, UID: p.UID, InitContainers: conv(p.InitContainers), Containers: conv(p.Containers)}
}

// simulateAdmission admits the pod on a model of the node built from the
// state files, the machine and the configuration. It returns nil when the
// evidence is not enough to build the model.
func (d *diagnosis) simulateAdmission(p *Pod, policy, scope string) (*topomgr.Admission, error) {
	m := d.ev.Machine
	if p == nil || m == nil || policy == "" {
		return nil, nil
	}
	var nodes []topomgr.NUMANode
	var ids []int
	for _, n := range m.Nodes {
		nodes = append(nodes, topomgr.NUMANode{ID: n.ID, Distances: n.Distances})
		ids = append(ids, n.ID)
	}
	mgr, err := topomgr.NewManager(nodes, policy, scope, d.policyOptions())
	if err != nil {
		return nil, err
	}
	guaranteed := p.QOSClass == "Guaranteed"
	providers := 0
	if f := d.ev.state(statefile.KindDevice); f != nil && f.Device != nil && d.ev.PodResources != nil && d.ev.PodResources.Allocatable != nil {
		dh := &deviceHints{nodes: ids, devices: map[string]map[string][]int{}, used: map[string]bool{}}
		for _, dev := range d.ev.PodResources.Allocatable.Devices {
			if dh.devices[dev.ResourceName] == nil {
				dh.devices[dev.ResourceName] = map[string][]int{}
			}
			for _, id := range dev.DeviceIDs {
				dh.devices[dev.ResourceName][id] = append(dh.devices[dev.ResourceName][id], dev.NUMANodes...)
			}
		}
		for _, e := range f.Device.PodDeviceEntries {
			for _, list := range e.DeviceIDs {
				for _, id := range list {
					dh.used[e.ResourceName+"\x00"+id] = true
				}
			}
		}
		mgr.AddHintProvider(dh)
		providers++
	} else {
		mgr.AddHintProvider(&deviceHints{nodes: ids})
	}
	if f := d.ev.state(statefile.KindCPU); f != nil && f.CPU != nil && f.CPU.PolicyName == "static" {
		reserved := cpuset.New()
		if c := d.ev.Config; c != nil && c.ReservedSystemCPUs != "" {
			reserved, _ = cpuset.Parse(c.ReservedSystemCPUs)
		}
		ch := &cpuHints{guaranteed: guaranteed, nodes: ids, capacity: map[int]int{}, free: map[int]int{}}
		for _, n := range m.Nodes {
			set, _ := cpuset.Parse(n.CPUs)
			ch.capacity[n.ID] = set.Size()
			ch.free[n.ID] = f.CPU.DefaultCPUSet.Intersection(set).Difference(reserved).Size()
		}
		mgr.AddHintProvider(ch)
		providers++
	}
	if f := d.ev.state(statefile.KindMemory); f != nil && f.Memory != nil && f.Memory.PolicyName == "Static" {
		mgr.AddHintProvider(&memoryHints{guaranteed: guaranteed, state: f.Memory})
		providers++
	}
	if providers == 0 {
		return nil, nil
	}
	return mgr.Admit(toTopomgrPod(p)), nil
}

// fromTopomgr converts a simulated admission step into the logged-hints form.
func fromTopomgr(step topomgr.AdmissionStep) *ContainerAdmission {
	c := &ContainerAdmission{Container: step.Container}
	for _, a := range step.Answers {
		ph := ProviderHints{Provider: a.Provider}
		if len(a.Hints) == 0 {
			ph.NoPreference = true
			ph.EmptyMap = a.Hints != nil
		}
		for _, res := range sortedKeys(a.Hints) {
			list := a.Hints[res]
			rh := ResourceHints{Resource: res, NoPreference: list == nil, Impossible: list != nil && len(list) == 0}
			for _, h := range list {
				hh := Hint{Preferred: h.Preferred}
				if h.HasAffinity {
					hh.NUMANodes = h.NUMANodeAffinity.Bits()
				}
				rh.Hints = append(rh.Hints, hh)
			}
			ph.Resources = append(ph.Resources, rh)
		}
		c.Providers = append(c.Providers, ph)
	}
	if step.Merge != nil {
		b := Hint{Preferred: step.Merge.BestHint.Preferred}
		if step.Merge.BestHint.HasAffinity {
			b.NUMANodes = step.Merge.BestHint.NUMANodeAffinity.Bits()
		}
		c.BestHint = &b
	}
	return c
}
