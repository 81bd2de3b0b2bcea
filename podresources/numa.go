package podresources

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/internal/sysfs"
)

// CPUMap maps CPU ids to the NUMA node that holds them. The PodResources API
// reports CPU ids without NUMA nodes; the map comes from the machine's
// topology (sysfs, cAdvisor machine info, or numascope's topomgr).
type CPUMap map[int]int

// ParseCPULists builds a CPUMap from each NUMA node's CPU list in the kernel's
// cpulist format ("0-3,8-11"), as in /sys/devices/system/node/node<N>/cpulist.
func ParseCPULists(lists map[int]string) (CPUMap, error) {
	m := CPUMap{}
	nodes := make([]int, 0, len(lists))
	for n := range lists {
		nodes = append(nodes, n)
	}
	sort.Ints(nodes)
	for _, n := range nodes {
		if n < 0 {
			return nil, fmt.Errorf("NUMA node %d: node ids are non-negative", n)
		}
		set, err := cpulist.Parse(strings.TrimSpace(lists[n]))
		if err != nil {
			return nil, fmt.Errorf("NUMA node %d: CPU list %q: %w", n, lists[n], err)
		}
		for _, c := range set.List() {
			if prev, dup := m[c]; dup {
				return nil, fmt.Errorf("CPU %d is listed on NUMA nodes %d and %d: each CPU belongs to one node", c, prev, n)
			}
			m[c] = n
		}
	}
	return m, nil
}

// ReadSysfsCPUMap reads the CPU lists of every NUMA node under sysRoot
// (usually "/sys", or a copy such as "/host-sys" in a container). Each file
// is read through a small limit and FIFOs and devices are refused.
func ReadSysfsCPUMap(sysRoot string) (CPUMap, error) {
	t, err := sysfs.Read(os.DirFS(sysRoot), sysRoot, sysfs.Options{})
	if err != nil {
		if errors.Is(err, sysfs.ErrNoNodes) {
			return nil, fmt.Errorf("no NUMA information: pass the host's sysfs root (for example /host-sys in a container): %w", err)
		}
		return nil, fmt.Errorf("reading NUMA nodes: %w", err)
	}
	m := CPUMap{}
	for _, n := range t.Nodes {
		for _, c := range n.CPUs.List() {
			if prev, dup := m[c]; dup {
				return nil, fmt.Errorf("%s: CPU %d is listed on NUMA nodes %d and %d: each CPU belongs to one node", sysRoot, c, prev, n.ID)
			}
			m[c] = n.ID
		}
	}
	return m, nil
}

// NUMAView is a snapshot seen per NUMA node: what is allocatable, what is
// taken and who holds it.
type NUMAView struct {
	// Nodes are the NUMA nodes named by the CPU map, the allocatable answer
	// or any assignment, in ascending order.
	Nodes []NodeView `json:"nodes"`
	// Unplaced holds what has no NUMA node: CPUs missing from the CPU map (all
	// CPUs when there is none), memory and devices reported without topology,
	// and DRA claims (the API gives them no NUMA node).
	Unplaced NodeView `json:"unplaced"`
	// Shared lists containers with no exclusive CPUs: they run on the shared
	// pool, which the API does not report.
	Shared []SharedContainer `json:"shared"`
	// HasAllocatable is false when the snapshot had no allocatable answer, so
	// Allocatable and Free are unknown rather than empty.
	HasAllocatable bool `json:"hasAllocatable"`
}

// NodeView is one NUMA node's resources. ID is -1 for NUMAView.Unplaced.
type NodeView struct {
	ID      int         `json:"id"`
	CPUs    CPUUse      `json:"cpus"`
	Memory  []MemoryUse `json:"memory"`
	Devices []DeviceUse `json:"devices"`
	Holders []Holder    `json:"holders"`
}

// CPUUse is a node's exclusive CPUs.
type CPUUse struct {
	Allocatable []int `json:"allocatable"`
	Taken       []int `json:"taken"`
	// Free is Allocatable minus Taken.
	Free []int `json:"free"`
}

// MemoryUse is a node's memory of one type, in bytes.
type MemoryUse struct {
	Type        string `json:"type"`
	Allocatable uint64 `json:"allocatable"`
	// Taken counts blocks pinned to this node alone.
	Taken uint64 `json:"taken"`
	// Spanning counts, in full, blocks pinned to this node together with
	// others: the kubelet does not say how much of a multi-node block each
	// node holds.
	Spanning uint64 `json:"spanning"`
}

// FreeRange is allocatable minus taken: hi when no multi-node block uses
// this node, lo when every spanning block sits on it in full. lo == hi when
// nothing spans nodes.
func (m MemoryUse) FreeRange() (lo, hi uint64) {
	sub := func(a, b uint64) uint64 {
		if a > b {
			return a - b
		}
		return 0
	}
	hi = sub(m.Allocatable, m.Taken)
	return sub(hi, m.Spanning), hi
}

// DeviceUse is a node's devices of one resource.
type DeviceUse struct {
	ResourceName string   `json:"resourceName"`
	Allocatable  []string `json:"allocatable"`
	Taken        []string `json:"taken"`
	Free         []string `json:"free"`
}

// Holder is what one container (or, with Container empty, the pod itself)
// holds on one node.
type Holder struct {
	Pod              string             `json:"pod"`
	Container        string             `json:"container"`
	CPUIDs           []int              `json:"cpuIds"`
	Memory           []ContainerMemory  `json:"memory"`
	Devices          []ContainerDevices `json:"devices"`
	DynamicResources []DynamicResource  `json:"dynamicResources,omitempty"`
}

// SharedContainer is a container without exclusive CPUs.
type SharedContainer struct {
	Pod          string   `json:"pod"`
	Container    string   `json:"container"`
	QOSClass     QOSClass `json:"qosClass,omitempty"`
	CPUStatus    Status   `json:"cpuIdsStatus"`
	MemoryStatus Status   `json:"memoryStatus"`
}

type viewBuilder struct {
	cpus   CPUMap
	nodes  map[int]*nodeAcc
	unpl   *nodeAcc
	shared []SharedContainer
}

type nodeAcc struct {
	id      int
	alloc   map[int]bool
	taken   map[int]bool
	mem     map[string]*MemoryUse
	devA    map[string]map[string]bool
	devT    map[string]map[string]bool
	holders []Holder
	hidx    map[string]int
}

func newAcc(id int) *nodeAcc {
	return &nodeAcc{id: id, alloc: map[int]bool{}, taken: map[int]bool{}, mem: map[string]*MemoryUse{},
		devA: map[string]map[string]bool{}, devT: map[string]map[string]bool{}, hidx: map[string]int{}}
}

func (b *viewBuilder) node(id int) *nodeAcc {
	if id < 0 {
		return b.unpl
	}
	n, ok := b.nodes[id]
	if !ok {
		n = newAcc(id)
		b.nodes[id] = n
	}
	return n
}

func (b *viewBuilder) cpuNode(c int) *nodeAcc {
	if n, ok := b.cpus[c]; ok {
		return b.node(n)
	}
	return b.unpl
}

func (n *nodeAcc) holder(pod, container string) *Holder {
	k := pod + "\x00" + container
	if i, ok := n.hidx[k]; ok {
		return &n.holders[i]
	}
	n.hidx[k] = len(n.holders)
	n.holders = append(n.holders, Holder{Pod: pod, Container: container})
	return &n.holders[len(n.holders)-1]
}

func (n *nodeAcc) memUse(t string) *MemoryUse {
	u, ok := n.mem[t]
	if !ok {
		u = &MemoryUse{Type: t}
		n.mem[t] = u
	}
	return u
}

func addDev(m map[string]map[string]bool, res string, ids []string) {
	s, ok := m[res]
	if !ok {
		s = map[string]bool{}
		m[res] = s
	}
	for _, id := range ids {
		s[id] = true
	}
}

// PerNUMA returns the snapshot seen per NUMA node. cpus maps CPU ids to NUMA
// nodes; with a nil map every CPU is in NUMAView.Unplaced. The view counts
// what the kubelet reports: exclusive CPUs, pinned memory and device-plugin
// devices. Pod-level CPUs and memory (KEP-5526) overlap the containers' by
// design and are not counted twice.
func (s *Snapshot) PerNUMA(cpus CPUMap) NUMAView {
	b := &viewBuilder{cpus: cpus, nodes: map[int]*nodeAcc{}, unpl: newAcc(-1)}
	for _, n := range cpus {
		b.node(n)
	}
	v := NUMAView{HasAllocatable: s.Allocatable != nil}
	if a := s.Allocatable; a != nil {
		for _, c := range a.CPUIDs {
			b.cpuNode(c).alloc[c] = true
		}
		for _, m := range a.Memory {
			if len(m.NUMANodes) == 1 {
				b.node(m.NUMANodes[0]).memUse(m.Type).Allocatable += m.Size
			} else {
				b.unpl.memUse(m.Type).Allocatable += m.Size
			}
		}
		for _, d := range a.Devices {
			if len(d.NUMANodes) == 0 {
				addDev(b.unpl.devA, d.ResourceName, d.DeviceIDs)
			}
			for _, n := range d.NUMANodes {
				addDev(b.node(n).devA, d.ResourceName, d.DeviceIDs)
			}
		}
	}
	for i := range s.Pods {
		p := &s.Pods[i]
		ref := p.Ref()
		q, _ := p.EffectiveQOSClass()
		inContainers := map[int]bool{}
		podMemory := len(p.Memory) > 0
		for j := range p.Containers {
			c := &p.Containers[j]
			for _, id := range c.CPUIDs {
				inContainers[id] = true
				n := b.cpuNode(id)
				n.taken[id] = true
				h := n.holder(ref, c.Name)
				h.CPUIDs = append(h.CPUIDs, id)
			}
			b.addMemory(ref, c.Name, c.Memory, !podMemory)
			for _, d := range c.Devices {
				nodes := d.NUMANodes
				if len(nodes) == 0 {
					nodes = []int{-1}
				}
				for _, nid := range nodes {
					n := b.node(nid)
					addDev(n.devT, d.ResourceName, d.DeviceIDs)
					h := n.holder(ref, c.Name)
					h.Devices = append(h.Devices, d)
				}
			}
			if len(c.DynamicResources) > 0 {
				h := b.unpl.holder(ref, c.Name)
				h.DynamicResources = append(h.DynamicResources, c.DynamicResources...)
			}
			if len(c.CPUIDs) == 0 {
				b.shared = append(b.shared, SharedContainer{Pod: ref, Container: c.Name, QOSClass: q,
					CPUStatus: p.CPUStatus(c), MemoryStatus: p.MemoryStatus(c)})
			}
		}
		for _, id := range p.CPUIDs {
			n := b.cpuNode(id)
			n.taken[id] = true
			if !inContainers[id] {
				h := n.holder(ref, "")
				h.CPUIDs = append(h.CPUIDs, id)
			}
		}
		b.addMemory(ref, "", p.Memory, true)
	}

	ids := make([]int, 0, len(b.nodes))
	for id := range b.nodes {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		v.Nodes = append(v.Nodes, b.nodes[id].view(v.HasAllocatable))
	}
	if v.Nodes == nil {
		v.Nodes = []NodeView{}
	}
	v.Unplaced = b.unpl.view(v.HasAllocatable)
	v.Shared = nonNil(b.shared)
	return v
}

func (b *viewBuilder) addMemory(ref, container string, blocks []ContainerMemory, count bool) {
	for _, m := range blocks {
		nodes := m.NUMANodes
		if len(nodes) == 0 {
			nodes = []int{-1}
		}
		for _, nid := range nodes {
			n := b.node(nid)
			if count {
				u := n.memUse(m.Type)
				if len(nodes) == 1 {
					u.Taken += m.Size
				} else {
					u.Spanning += m.Size
				}
			}
			h := n.holder(ref, container)
			h.Memory = append(h.Memory, m)
		}
	}
}

func setList[K int | string](m map[K]bool) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (n *nodeAcc) view(hasAlloc bool) NodeView {
	v := NodeView{ID: n.id}
	v.CPUs.Allocatable = setList(n.alloc)
	v.CPUs.Taken = setList(n.taken)
	v.CPUs.Free = []int{}
	for _, c := range v.CPUs.Allocatable {
		if !n.taken[c] {
			v.CPUs.Free = append(v.CPUs.Free, c)
		}
	}
	types := make([]string, 0, len(n.mem))
	for t := range n.mem {
		types = append(types, t)
	}
	sort.Strings(types)
	v.Memory = []MemoryUse{}
	for _, t := range types {
		v.Memory = append(v.Memory, *n.mem[t])
	}
	res := map[string]bool{}
	for r := range n.devA {
		res[r] = true
	}
	for r := range n.devT {
		res[r] = true
	}
	v.Devices = []DeviceUse{}
	for _, r := range setList(res) {
		u := DeviceUse{ResourceName: r, Allocatable: setList(n.devA[r]), Taken: setList(n.devT[r]), Free: []string{}}
		for _, id := range u.Allocatable {
			if !n.devT[r][id] {
				u.Free = append(u.Free, id)
			}
		}
		v.Devices = append(v.Devices, u)
	}
	v.Holders = nonNil(n.holders)
	for i := range v.Holders {
		h := &v.Holders[i]
		slices.Sort(h.CPUIDs)
		h.CPUIDs = nonNil(h.CPUIDs)
		h.Memory = nonNil(h.Memory)
		h.Devices = nonNil(h.Devices)
	}
	return v
}
