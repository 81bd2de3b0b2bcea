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
// the machine's CPU capacity, with the static policy options that change
// hints and admission (see cpuPolicyOptions). Allocate keeps the pool up to
// date between containers of one admission (see Allocate for its
// precision).
type CPUProvider struct {
	machine  *Machine
	reserved cpuset.CPUSet
	gates    FeatureGates
	def      cpuset.CPUSet
	assigned map[string]map[string]cpuset.CPUSet
	reuse    map[string]cpuset.CPUSet
	numaOf   map[int]int
	opts     cpuPolicyOptions
	// reservedPhysical are the reserved CPUs and their core siblings.
	reservedPhysical cpuset.CPUSet
	// cpuGroupSize is the kubelet's CPUsPerCore: CPUs divided by cores.
	cpuGroupSize int
	// socketOf maps a CPU to its socket; numSockets and numNUMA count the
	// machine's sockets and the NUMA nodes that hold CPUs.
	socketOf            map[int]int
	numSockets, numNUMA int
}

// NewCPUProvider returns the static CPU policy's provider for the machine
// and the restored cpu_manager_state; reserved are the CPUs kept out of
// exclusive assignment (reservedSystemCPUs). It has no policy options; a
// NodeConfig's CPUPolicyOptions give them to SimulateAdmission.
func NewCPUProvider(m *Machine, st *statefile.CPUState, reserved cpuset.CPUSet, gates FeatureGates) (*CPUProvider, error) {
	return newStaticCPUProvider(m, st, reserved, gates, nil, "")
}

// newStaticCPUProvider is NewCPUProvider with the static policy options
// (cpuManagerPolicyOptions) and the Topology Manager policy they are
// checked against. Its errors for options the kubelet refuses, and for a
// state the static policy's Start refuses, carry the kubelet's text.
func newStaticCPUProvider(m *Machine, st *statefile.CPUState, reserved cpuset.CPUSet, gates FeatureGates, options map[string]string, tmPolicy string) (*CPUProvider, error) {
	if st == nil {
		return nil, fmt.Errorf("no CPU manager state")
	}
	if st.PolicyName != "static" {
		return nil, fmt.Errorf("cpu_manager_state: policy %q: only the static policy gives topology hints", st.PolicyName)
	}
	if m.CPUsUnknown {
		return nil, fmt.Errorf("the topology (%s) counts CPUs per NUMA node but does not name them: CPU hints need the CPU ids (give numactl -H, lscpu or a sysfs copy)", m.Format)
	}
	p := &CPUProvider{machine: m, reserved: reserved, gates: gates, def: st.DefaultCPUSet, assigned: map[string]map[string]cpuset.CPUSet{}, reuse: map[string]cpuset.CPUSet{}, numaOf: m.numaOf(), socketOf: map[int]int{}}
	opts, err := newCPUPolicyOptions(options, gates)
	if err != nil {
		return nil, fmt.Errorf("the kubelet does not start: new static policy error: %w", err)
	}
	p.opts = opts
	if err := p.readTopology(tmPolicy); err != nil {
		return nil, err
	}
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
	if err := p.checkReservation(len(st.Entries) > 0); err != nil {
		return nil, fmt.Errorf("the kubelet does not start: the static policy refuses the state (invalid state, please drain node and remove policy state file): %w", err)
	}
	return p, nil
}

// readTopology derives what the kubelet's CPUTopology gives the static
// policy (CPUs per core, sockets, reserved cores) and checks the options
// against the machine as ValidateStaticPolicyOptions does.
func (p *CPUProvider) readTopology(tmPolicy string) error {
	m := p.machine
	cores := map[int]cpuset.CPUSet{}
	sockets := map[int]bool{}
	numas := map[int]bool{}
	for _, c := range m.CPUs {
		cores[c.Core] = cores[c.Core].Union(cpuset.New(c.ID))
		sockets[c.Socket] = true
		numas[c.NUMA] = true
		p.socketOf[c.ID] = c.Socket
	}
	p.numSockets, p.numNUMA = len(sockets), len(numas)
	if len(cores) > 0 {
		p.cpuGroupSize = len(m.CPUs) / len(cores)
	}
	if p.opts.FullPhysicalCPUsOnly && m.CoresUnknown {
		return fmt.Errorf("%s needs the CPUs' cores, and the topology (%s) does not say which CPUs are sibling threads: give a sysfs copy, lscpu -e or cAdvisor machine-info", cpuFullPCPUsOnly, m.Format)
	}
	if p.opts.AlignBySocket {
		if m.SocketsUnknown {
			return fmt.Errorf("%s needs the CPUs' sockets, and the topology (%s) does not give them: give a sysfs copy, lscpu -e or cAdvisor machine-info", cpuAlignBySocket, m.Format)
		}
		if tmPolicy == PolicySingleNumaNode {
			return fmt.Errorf("the kubelet does not start: new static policy error: Topolgy manager %s policy is incompatible with CPUManager %s policy option", PolicySingleNumaNode, cpuAlignBySocket)
		}
		if p.numSockets > p.numNUMA {
			return fmt.Errorf("the kubelet does not start: new static policy error: Align by socket is not compatible with hardware where number of sockets are more than number of NUMA")
		}
	}
	for _, c := range p.reserved.List() {
		if core, ok := p.coreOf(c); ok && !m.CoresUnknown {
			p.reservedPhysical = p.reservedPhysical.Union(cores[core])
		}
	}
	return nil
}

func (p *CPUProvider) coreOf(cpu int) (int, bool) {
	for _, c := range p.machine.CPUs {
		if c.ID == cpu {
			return c.Core, true
		}
	}
	return 0, false
}

// checkReservation is the static policy's Start check of the restored
// state (validateState): the reserved CPUs against the defaultCpuSet and
// no assignment overlapping it. (Its last check, that the state's CPUs add
// up to the machine's, is left out: numascope also simulates on a state
// excerpt.) An empty defaultCpuSet without assignments is a fresh state,
// which Start fills.
func (p *CPUProvider) checkReservation(hasEntries bool) error {
	if p.def.IsEmpty() {
		if hasEntries {
			return fmt.Errorf("default cpuset cannot be empty")
		}
		p.def = p.machine.AllCPUs()
		if p.opts.StrictCPUReservation {
			p.def = p.def.Difference(p.reserved)
		}
		return nil
	}
	if p.opts.StrictCPUReservation {
		if in := p.reserved.Intersection(p.def); !in.IsEmpty() {
			return fmt.Errorf("some of strictly reserved cpus: %q are present in defaultCpuSet: %q", in.String(), p.def.String())
		}
	}
	if !p.opts.StrictCPUReservation && !p.reserved.IsSubsetOf(p.def) {
		return fmt.Errorf("not all reserved cpus: %q are present in defaultCpuSet: %q", p.reserved.String(), p.def.String())
	}
	pods := make([]string, 0, len(p.assigned))
	for uid := range p.assigned {
		pods = append(pods, uid)
	}
	sort.Strings(pods)
	for _, uid := range pods {
		names := make([]string, 0, len(p.assigned[uid]))
		for name := range p.assigned[uid] {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			set := p.assigned[uid][name]
			if !p.def.Intersection(set).IsEmpty() {
				return fmt.Errorf("pod: %s, container: %s cpuset: %q overlaps with default cpuset %q", uid, name, set.String(), p.def.String())
			}
		}
	}
	return nil
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
		if p.opts.AlignBySocket && p.socketAligned(hints[i].NUMANodeAffinity, minAffinity) {
			hints[i].Preferred = true
			continue
		}
		hints[i].Preferred = hints[i].NUMANodeAffinity.Count() == minAffinity
	}
	return hints
}

// socketAligned is the kubelet's isHintSocketAligned: the mask's NUMA
// nodes span as few sockets as the narrowest mask needs.
func (p *CPUProvider) socketAligned(m BitMask, minAffinity int) bool {
	if p.numSockets == 0 {
		return false
	}
	perSocket := p.numNUMA / p.numSockets
	if perSocket == 0 {
		return false
	}
	minSockets := (minAffinity + perSocket - 1) / perSocket
	sockets := map[int]bool{}
	for _, c := range p.machine.CPUs {
		if m.IsSet(c.NUMA) {
			sockets[c.Socket] = true
		}
	}
	return len(sockets) == minSockets
}

// enforceSMTAlignment is the kubelet's check under full-pcpus-only, made
// before any CPU is taken.
func (p *CPUProvider) enforceSMTAlignment(n int) error {
	if !p.opts.FullPhysicalCPUsOnly {
		return nil
	}
	if p.cpuGroupSize == 0 || n%p.cpuGroupSize != 0 {
		return smtAlignmentError{RequestedCPUs: n, CpusPerCore: p.cpuGroupSize}
	}
	if free := p.def.Difference(p.reservedPhysical).Size(); n > free {
		return smtAlignmentError{RequestedCPUs: n, CpusPerCore: p.cpuGroupSize, AvailablePhysicalCPUs: free, CausedByPhysicalCPUs: true}
	}
	return nil
}

// alignedCPUs are the allocatable CPUs on the affinity's NUMA nodes, or
// under align-by-socket on those nodes' whole sockets.
func (p *CPUProvider) alignedCPUs(m BitMask, allocatable cpuset.CPUSet) cpuset.CPUSet {
	var ids []int
	sockets := map[int]bool{}
	if p.opts.AlignBySocket {
		for _, c := range p.machine.CPUs {
			if m.IsSet(c.NUMA) {
				sockets[c.Socket] = true
			}
		}
	}
	for _, c := range allocatable.List() {
		if p.opts.AlignBySocket {
			if sockets[p.socketOf[c]] {
				ids = append(ids, c)
			}
		} else if m.IsSet(p.numaOf[c]) {
			ids = append(ids, c)
		}
	}
	return cpuset.New(ids...)
}

// Allocate takes the container's CPUs out of the shared pool, failing as
// the kubelet's static policy does: SMTAlignmentError under
// full-pcpus-only, and "not enough cpus available" with the kubelet's
// numbers (what is left to take after the aligned CPUs). The CPUs it takes
// are the affinity's (under align-by-socket its sockets') first, then the
// rest, lower-numbered nodes and whole cores first, keeping clear of the
// reserved CPUs' cores; this matches the kubelet whenever the affinity is
// one node with enough free CPUs, while the kubelet's takeByTopology may
// pick other CPUs within a wider affinity (and spreads them under the
// distribute-* options).
func (p *CPUProvider) Allocate(pod *Pod, c *Container, store Store) error {
	n := p.GuaranteedCPUs(pod, c)
	if n == 0 {
		return nil
	}
	if pod.HasPodLevelResources() && !p.gates.PodLevelResourceManagers {
		return nil
	}
	if _, ok := p.assigned[pod.UID][c.Name]; ok {
		p.updateReuse(pod, c, p.assigned[pod.UID][c.Name])
		return nil
	}
	if err := p.enforceSMTAlignment(n); err != nil {
		return err
	}
	hint := store.GetAffinity(pod.UID, c.Name)
	allocatable := p.available().Union(p.reuse[pod.UID])
	aligned := cpuset.New()
	if hint.HasAffinity {
		aligned = p.alignedCPUs(hint.NUMANodeAffinity, allocatable)
	}
	if allocatable.Size() < n {
		a := min(n, aligned.Size())
		return fmt.Errorf("not enough cpus available to satisfy request: requested=%d, available=%d", n-a, allocatable.Size()-a)
	}
	order := allocatable.List()
	core := map[int]int{}
	for _, cpu := range p.machine.CPUs {
		core[cpu.ID] = cpu.Core
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := order[a], order[b]
		if ia, ib := aligned.Contains(x), aligned.Contains(y); ia != ib {
			return ia
		}
		if ra, rb := p.reservedPhysical.Contains(x), p.reservedPhysical.Contains(y); ra != rb {
			return rb
		}
		if p.numaOf[x] != p.numaOf[y] {
			return p.numaOf[x] < p.numaOf[y]
		}
		return core[x] < core[y]
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
