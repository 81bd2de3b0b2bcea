package topomgr

import (
	"fmt"
	"github.com/numascope/numascope/podresources"
	"sort"

	"k8s.io/utils/cpuset"

	"github.com/numascope/numascope/statefile"
)

// CPUProvider is the CPU manager's static policy as a hint provider: hints
// from the shared pool of cpu_manager_state, "preferred" judged against
// the machine's CPU capacity. Allocate keeps the pool up to date between
// containers of one admission (see Allocate for its precision).
type CPUProvider struct {
	machine  *Machine
	reserved cpuset.CPUSet
	gates    FeatureGates
	def      cpuset.CPUSet
	assigned map[string]map[string]cpuset.CPUSet
	reuse    map[string]cpuset.CPUSet
	numaOf   map[int]int
}

// NewCPUProvider returns the static CPU policy's provider for the machine
// and the restored cpu_manager_state; reserved are the CPUs kept out of
// exclusive assignment (reservedSystemCPUs).
func NewCPUProvider(m *Machine, st *statefile.CPUState, reserved cpuset.CPUSet, gates FeatureGates) (*CPUProvider, error) {
	if st == nil {
		return nil, fmt.Errorf("no CPU manager state")
	}
	if st.PolicyName != "static" {
		return nil, fmt.Errorf("cpu_manager_state: policy %q: only the static policy gives topology hints", st.PolicyName)
	}
	if m.CPUsUnknown {
		return nil, fmt.Errorf("the topology (%s) counts CPUs per NUMA node but does not name them: CPU hints need the CPU ids (give numactl -H, lscpu or a sysfs copy)", m.Format)
	}
	p := &CPUProvider{machine: m, reserved: reserved, gates: gates, def: st.DefaultCPUSet, assigned: map[string]map[string]cpuset.CPUSet{}, reuse: map[string]cpuset.CPUSet{}, numaOf: m.numaOf()}
	for pod, cs := range st.Entries {
		p.assigned[pod] = map[string]cpuset.CPUSet{}
		for c, set := range cs {
			p.assigned[pod][c] = set
		}
	}
	for _, c := range st.DefaultCPUSet.List() {
		if _, ok := p.numaOf[c]; !ok {
			return nil, fmt.Errorf("cpu_manager_state: defaultCpuSet holds CPU %d, which the topology does not have: the state and the topology come from different machines", c)
		}
	}
	return p, nil
}

// Name returns "cpu".
func (p *CPUProvider) Name() string { return "cpu" }

func isIntegralCPU(q Quantity) bool { return q.Value()*1000 == q.MilliValue() }

// GuaranteedCPUs is the number of exclusive CPUs a container gets: its CPU
// request when the pod is Guaranteed and the request is whole, else 0.
func (p *CPUProvider) GuaranteedCPUs(pod *Pod, c *Container) int {
	if pod.QOS() != podresources.Guaranteed {
		return 0
	}
	q := c.Resources.Request("cpu")
	if p.gates.PodLevelResourceManagers && pod.HasPodLevelResources() && requirementsQOS(&c.Resources) != podresources.Guaranteed {
		return 0
	}
	if !isIntegralCPU(q) {
		return 0
	}
	return int(q.Value())
}

func (p *CPUProvider) podGuaranteedCPUs(pod *Pod) int {
	if p.gates.PodLevelResourceManagers && pod.HasPodLevelResources() {
		if pod.QOS() != podresources.Guaranteed {
			return 0
		}
		if _, ok := pod.Resources.Requests["cpu"]; ok {
			if q := pod.Resources.Request("cpu"); isIntegralCPU(q) {
				return int(q.Value())
			}
		}
		return 0
	}
	init, restartable := 0, 0
	for _, c := range pod.InitContainers {
		if _, ok := c.Resources.Requests["cpu"]; !ok {
			continue
		}
		n := p.GuaranteedCPUs(pod, &c)
		if c.IsRestartable() {
			restartable += n
		} else if restartable+n > init {
			init = restartable + n
		}
	}
	app := 0
	for _, c := range pod.Containers {
		if _, ok := c.Resources.Requests["cpu"]; !ok {
			continue
		}
		app += p.GuaranteedCPUs(pod, &c)
	}
	return max(init, app+restartable)
}

func (p *CPUProvider) available() cpuset.CPUSet { return p.def.Difference(p.reserved) }

// GetTopologyHints returns the container's CPU hints.
func (p *CPUProvider) GetTopologyHints(pod *Pod, c *Container) ProviderHints {
	n := p.GuaranteedCPUs(pod, c)
	if n == 0 {
		return nil
	}
	if pod.HasPodLevelResources() && !p.gates.PodLevelResourceManagers {
		return nil
	}
	if set, ok := p.assigned[pod.UID][c.Name]; ok {
		if set.Size() != n {
			return ProviderHints{"cpu": {}}
		}
		return ProviderHints{"cpu": p.generate(set, cpuset.New(), n)}
	}
	return ProviderHints{"cpu": p.generate(p.available(), p.reuse[pod.UID], n)}
}

// GetPodTopologyHints returns the pod's CPU hints (pod scope).
func (p *CPUProvider) GetPodTopologyHints(pod *Pod) ProviderHints {
	n := p.podGuaranteedCPUs(pod)
	if n == 0 {
		return nil
	}
	if pod.HasPodLevelResources() && !p.gates.PodLevelResourceManagers {
		return nil
	}
	assigned := cpuset.New()
	for _, c := range pod.AllContainers() {
		want := p.GuaranteedCPUs(pod, &c)
		if set, ok := p.assigned[pod.UID][c.Name]; ok {
			if set.Size() != want {
				return ProviderHints{"cpu": {}}
			}
			assigned = assigned.Union(set)
		}
	}
	if assigned.Size() == n {
		return ProviderHints{"cpu": p.generate(assigned, cpuset.New(), n)}
	}
	return ProviderHints{"cpu": p.generate(p.available(), p.reuse[pod.UID].Union(assigned), n)}
}

// generate lists every mask over the NUMA nodes that hold CPUs with
// enough available (plus reusable) CPUs; preferred are those as narrow as
// the narrowest mask whose total CPU capacity covers the request.
func (p *CPUProvider) generate(available, reusable cpuset.CPUSet, request int) []TopologyHint {
	nodes := p.machine.CPUNUMANodes()
	minAffinity := len(nodes)
	hints := []TopologyHint{}
	IterateBitMasks(nodes, func(m BitMask) {
		if p.machine.CPUsInNUMANodes(m).Size() >= request && m.Count() < minAffinity {
			minAffinity = m.Count()
		}
		matching := 0
		for _, c := range reusable.List() {
			if !m.IsSet(p.numaOf[c]) {
				return
			}
			matching++
		}
		for _, c := range available.List() {
			if m.IsSet(p.numaOf[c]) {
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

// Allocate takes the container's CPUs out of the shared pool: first from
// the chosen NUMA nodes, then from the rest. The NUMA nodes it takes from
// match the kubelet whenever the affinity is one node with enough free
// CPUs; within a wider affinity it fills lower-numbered nodes first, where
// the kubelet's takeByTopology may spread differently.
func (p *CPUProvider) Allocate(pod *Pod, c *Container, store Store) error {
	n := p.GuaranteedCPUs(pod, c)
	if n == 0 {
		return nil
	}
	if _, ok := p.assigned[pod.UID][c.Name]; ok {
		p.updateReuse(pod, c, p.assigned[pod.UID][c.Name])
		return nil
	}
	hint := store.GetAffinity(pod.UID, c.Name)
	allocatable := p.available().Union(p.reuse[pod.UID])
	if allocatable.Size() < n {
		return fmt.Errorf("not enough cpus available to satisfy request: requested=%d, available=%d", n, allocatable.Size())
	}
	order := allocatable.List()
	sort.SliceStable(order, func(a, b int) bool {
		ia := hint.HasAffinity && hint.NUMANodeAffinity.IsSet(p.numaOf[order[a]])
		ib := hint.HasAffinity && hint.NUMANodeAffinity.IsSet(p.numaOf[order[b]])
		if ia != ib {
			return ia
		}
		return p.numaOf[order[a]] < p.numaOf[order[b]]
	})
	result := cpuset.New(order[:n]...)
	p.def = p.def.Difference(result)
	if p.assigned[pod.UID] == nil {
		p.assigned[pod.UID] = map[string]cpuset.CPUSet{}
	}
	p.assigned[pod.UID][c.Name] = result
	p.updateReuse(pod, c, result)
	return nil
}

func (p *CPUProvider) updateReuse(pod *Pod, c *Container, set cpuset.CPUSet) {
	for uid := range p.reuse {
		if uid != pod.UID {
			delete(p.reuse, uid)
		}
	}
	isInit := false
	for _, ic := range pod.InitContainers {
		if ic.Name == c.Name && !ic.IsRestartable() {
			isInit = true
		}
	}
	if isInit {
		p.reuse[pod.UID] = p.reuse[pod.UID].Union(set)
	} else {
		p.reuse[pod.UID] = p.reuse[pod.UID].Difference(set)
	}
}

// Assigned returns the CPUs a container holds (from the state or this admission).
func (p *CPUProvider) Assigned(podUID, container string) (cpuset.CPUSet, bool) {
	s, ok := p.assigned[podUID][container]
	return s, ok
}
