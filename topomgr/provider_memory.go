package topomgr

import (
	"fmt"
	"github.com/numascope/numascope/podresources"
	"maps"
	"slices"
	"sort"

	"github.com/numascope/numascope/statefile"
)

// MemoryProvider is the memory manager's Static policy as a hint provider:
// hints from the machine state of memory_manager_state (free and
// allocatable memory and hugepages per NUMA node, NUMA groups), "preferred"
// judged against allocatable memory. Allocate updates the machine state as
// the kubelet does.
type MemoryProvider struct {
	gates  FeatureGates
	nodes  map[int]*memNode
	blocks map[string]map[string][]statefile.Block
}

type memNode struct {
	assignments int
	tables      map[string]*statefile.MemoryTable
	cells       []int
}

// NewMemoryProvider returns the Static memory policy's provider for a
// restored memory_manager_state (its machine state is copied, not changed).
func NewMemoryProvider(st *statefile.MemoryState, gates FeatureGates) (*MemoryProvider, error) {
	if st == nil {
		return nil, fmt.Errorf("no memory manager state")
	}
	if st.PolicyName != "Static" {
		return nil, fmt.Errorf("memory_manager_state: policy %q: only the Static policy gives topology hints", st.PolicyName)
	}
	p := &MemoryProvider{gates: gates, nodes: map[int]*memNode{}, blocks: map[string]map[string][]statefile.Block{}}
	for id, n := range st.MachineState {
		if n == nil {
			return nil, fmt.Errorf("memory_manager_state: /machineState/%d is null", id)
		}
		mn := &memNode{assignments: n.NumberOfAssignments, tables: map[string]*statefile.MemoryTable{}, cells: slices.Clone(n.Cells)}
		if len(mn.cells) == 0 {
			mn.cells = slices.Clone(n.NodesAlias)
		}
		for r, t := range n.MemoryMap {
			if t != nil {
				c := *t
				mn.tables[r] = &c
			}
		}
		p.nodes[id] = mn
	}
	for pod, cs := range st.Entries {
		p.blocks[pod] = map[string][]statefile.Block{}
		for c, bs := range cs {
			p.blocks[pod][c] = bs
		}
	}
	return p, nil
}

// Name returns "memory".
func (p *MemoryProvider) Name() string { return "memory" }

// containerRequests returns the container's memory and hugepages requests
// in bytes; ok is false when a request is not a whole number of bytes.
func (p *MemoryProvider) containerRequests(pod *Pod, c *Container) (map[string]uint64, bool) {
	out := map[string]uint64{}
	if p.gates.PodLevelResourceManagers && pod.HasPodLevelResources() && requirementsQOS(&c.Resources) != podresources.Guaranteed {
		return out, true
	}
	for name := range c.Resources.Requests {
		if name != "memory" && !isHugePages(name) {
			continue
		}
		q := c.Resources.Request(name)
		if !q.IsInteger() || q.Sign() < 0 {
			return nil, false
		}
		out[name] = uint64(q.Value())
	}
	return out, true
}

func (p *MemoryProvider) podRequests(pod *Pod) (map[string]uint64, bool) {
	if p.gates.PodLevelResourceManagers && pod.HasPodLevelResources() {
		out := map[string]uint64{}
		for name := range pod.Resources.Requests {
			if name != "memory" && !isHugePages(name) {
				continue
			}
			q := pod.Resources.Request(name)
			if !q.IsInteger() {
				return nil, false
			}
			if q.Sign() > 0 {
				out[name] = uint64(q.Value())
			}
		}
		return out, true
	}
	init, restartable := map[string]uint64{}, map[string]uint64{}
	for _, c := range pod.InitContainers {
		req, ok := p.containerRequests(pod, &c)
		if !ok {
			return nil, false
		}
		for r, q := range req {
			if _, ok := init[r]; !ok {
				init[r] = 0
			}
			if c.IsRestartable() {
				restartable[r] += q
			} else if restartable[r]+q > init[r] {
				init[r] = restartable[r] + q
			}
		}
	}
	app := map[string]uint64{}
	for _, c := range pod.Containers {
		req, ok := p.containerRequests(pod, &c)
		if !ok {
			return nil, false
		}
		for r, q := range req {
			app[r] += q
		}
	}
	out := map[string]uint64{}
	for r := range app {
		out[r] = max(app[r]+restartable[r], init[r])
	}
	return out, true
}

// GetTopologyHints returns the container's memory and hugepages hints.
func (p *MemoryProvider) GetTopologyHints(pod *Pod, c *Container) ProviderHints {
	if pod.QOS() != podresources.Guaranteed {
		return nil
	}
	req, ok := p.containerRequests(pod, c)
	if !ok || len(req) == 0 {
		return nil
	}
	if pod.HasPodLevelResources() && !p.gates.PodLevelResourceManagers {
		return nil
	}
	if bs := p.blocks[pod.UID][c.Name]; bs != nil {
		return regenerateMemoryHints(bs, req)
	}
	return p.calculateHints(req)
}

// GetPodTopologyHints returns the pod's memory and hugepages hints.
func (p *MemoryProvider) GetPodTopologyHints(pod *Pod) ProviderHints {
	if pod.QOS() != podresources.Guaranteed {
		return nil
	}
	req, ok := p.podRequests(pod)
	if !ok {
		return nil
	}
	if pod.HasPodLevelResources() && !p.gates.PodLevelResourceManagers {
		return nil
	}
	if len(req) == 0 {
		return nil
	}
	for _, c := range pod.AllContainers() {
		if bs := p.blocks[pod.UID][c.Name]; bs != nil {
			return regenerateMemoryHints(bs, req)
		}
	}
	return p.calculateHints(req)
}

func regenerateMemoryHints(bs []statefile.Block, req map[string]uint64) ProviderHints {
	hints := ProviderHints{}
	for r := range req {
		hints[r] = []TopologyHint{}
	}
	if len(bs) != len(req) {
		return nil
	}
	for _, b := range bs {
		size, ok := req[b.Type]
		if !ok || b.Size != size {
			return nil
		}
		m, err := NewBitMask(b.NUMAAffinity...)
		if err != nil {
			return nil
		}
		hints[b.Type] = append(hints[b.Type], NewHint(m, true))
	}
	return hints
}

func (p *MemoryProvider) nodeIDs() []int {
	ids := make([]int, 0, len(p.nodes))
	for id := range p.nodes {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}

func (p *MemoryProvider) table(id int, r string) statefile.MemoryTable {
	if t := p.nodes[id].tables[r]; t != nil {
		return *t
	}
	return statefile.MemoryTable{}
}

func sameGroup(a, b []int) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	sort.Ints(a)
	sort.Ints(b)
	return slices.Equal(a, b)
}

// calculateHints is the Static policy's hint generation: masks whose
// allocatable memory covers every request set the preferred width; masks
// that break NUMA groups or lack free memory are left out. When no mask
// fits, the answer is an empty map: "no preference".
func (p *MemoryProvider) calculateHints(req map[string]uint64) ProviderHints {
	ids := p.nodeIDs()
	minAffinity := len(ids)
	hints := ProviderHints{}
	IterateBitMasks(ids, func(m BitMask) {
		bits := m.Bits()
		single := len(bits) == 1
		free, alloc := map[string]uint64{}, map[string]uint64{}
		for _, id := range bits {
			for r := range req {
				t := p.table(id, r)
				free[r] += t.Free
				alloc[r] += t.Allocatable
			}
		}
		for r, q := range req {
			if alloc[r] < q {
				return
			}
		}
		if m.Count() < minAffinity {
			minAffinity = m.Count()
		}
		if single && len(p.nodes[bits[0]].cells) > 1 {
			return
		}
		for _, id := range bits {
			n := p.nodes[id]
			if !single && n.assignments > 0 {
				if len(n.cells) == 1 || !sameGroup(n.cells, bits) {
					return
				}
			}
		}
		for r, q := range req {
			if free[r] < q {
				return
			}
		}
		for r := range req {
			hints[r] = append(hints[r], NewHint(m, false))
		}
	})
	for r := range req {
		for i := range hints[r] {
			hints[r][i].Preferred = hints[r][i].NUMANodeAffinity.Count() == minAffinity
		}
	}
	return hints
}

func findBestHint(hints []TopologyHint) (TopologyHint, bool) {
	if len(hints) == 0 {
		return TopologyHint{}, false
	}
	best := hints[0]
	for _, h := range hints[1:] {
		if h.Preferred && !best.Preferred || h.Preferred == best.Preferred && h.NUMANodeAffinity.IsNarrowerThan(best.NUMANodeAffinity) {
			best = h
		}
	}
	return best, true
}

// Allocate reserves the container's memory on the chosen NUMA nodes as the
// Static policy does (extending the affinity when its free memory falls
// short), node by node in ascending order. Memory freed by init containers
// for reuse is not modelled.
func (p *MemoryProvider) Allocate(pod *Pod, c *Container, store Store) error {
	if pod.QOS() != podresources.Guaranteed {
		return nil
	}
	if pod.HasPodLevelResources() && !p.gates.PodLevelResourceManagers {
		return nil
	}
	req, ok := p.containerRequests(pod, c)
	if !ok {
		return fmt.Errorf("[memorymanager] failed to represent quantity as int64")
	}
	if len(req) == 0 || p.blocks[pod.UID][c.Name] != nil {
		return nil
	}
	hint := store.GetAffinity(pod.UID, c.Name)
	best := hint
	if !hint.HasAffinity {
		d, ok := findBestHint(p.calculateHints(req)["memory"])
		if !ok {
			return fmt.Errorf("[memorymanager] failed to get the default NUMA affinity, no NUMA nodes with enough memory is available")
		}
		if !d.Preferred && best.Preferred {
			return fmt.Errorf("[memorymanager] failed to find the default preferred hint")
		}
		best = d
	}
	if !p.satisfies(best.NUMANodeAffinity, req) {
		var cands []TopologyHint
		for _, h := range p.calculateHints(req)["memory"] {
			if h.NUMANodeAffinity&best.NUMANodeAffinity == best.NUMANodeAffinity {
				cands = append(cands, h)
			}
		}
		e, ok := findBestHint(cands)
		if !ok {
			return fmt.Errorf("[memorymanager] failed to find NUMA nodes to extend the current topology hint")
		}
		if !e.Preferred && best.Preferred {
			return fmt.Errorf("[memorymanager] failed to find the extended preferred hint")
		}
		best = e
	}
	if p.violatesGroups(best.NUMANodeAffinity) {
		return fmt.Errorf("[memorymanager] preferred hint violates NUMA node allocation")
	}
	bits := best.NUMANodeAffinity.Bits()
	var blocks []statefile.Block
	for _, r := range slices.Sorted(maps.Keys(req)) {
		size := req[r]
		blocks = append(blocks, statefile.Block{NUMAAffinity: bits, Type: r, Size: size})
		for _, id := range bits {
			n := p.nodes[id]
			n.assignments++
			n.cells = bits
			t := n.tables[r]
			if size == 0 || t == nil || t.Free == 0 {
				continue
			}
			take := min(t.Free, size)
			t.Reserved += take
			t.Free -= take
			size -= take
		}
	}
	if p.blocks[pod.UID] == nil {
		p.blocks[pod.UID] = map[string][]statefile.Block{}
	}
	p.blocks[pod.UID][c.Name] = blocks
	return nil
}

func (p *MemoryProvider) satisfies(m BitMask, req map[string]uint64) bool {
	for r, q := range req {
		var free uint64
		for _, id := range m.Bits() {
			if _, ok := p.nodes[id]; ok {
				free += p.table(id, r).Free
			}
		}
		if free < q {
			return false
		}
	}
	return true
}

func (p *MemoryProvider) violatesGroups(m BitMask) bool {
	bits := m.Bits()
	for _, id := range bits {
		n, ok := p.nodes[id]
		if !ok {
			return true
		}
		if n.assignments == 0 || len(bits) == 1 {
			continue
		}
		if len(n.cells) == 1 || !sameGroup(n.cells, bits) {
			return true
		}
	}
	return false
}
