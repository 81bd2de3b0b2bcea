// Package holdings answers the question a node engineer asks of a kubelet
// checkpoint: who holds what, on which NUMA node. It is built from a decoded
// statefile.File of any kind (cpu, memory, device, dra) and, optionally, a
// machine topology that places CPUs on NUMA nodes (a cpu_manager_state
// records CPU ids only).
//
// What a checkpoint records, and nothing more:
//   - memory_manager_state: every memory block of a container (or, with
//     pod-level resources, of a pod) with its type, size and the NUMA nodes
//     it is pinned to;
//   - cpu_manager_state: each container's exclusive CPUs and the shared
//     (default) set; NUMA nodes only with a topology;
//   - kubelet_internal_checkpoint: each container's devices per resource, and
//     the NUMA node each device was allocated from (-1: the device has no
//     topology), plus the devices registered when the file was written;
//   - dra_manager_state: each prepared claim, its pods and devices. DRA
//     records no NUMA node.
//
// Pods are named by UID: no checkpoint records a pod's namespace or name.
// Build is linear in the size of the decoded state (itself bounded by
// statefile), so a file with tens of thousands of containers builds in
// milliseconds; rendering may summarise, the model is always complete.
package holdings

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
	"k8s.io/utils/cpuset"
)

// NoNUMA is the NUMA node id the device checkpoint uses for a device
// without topology; holdings uses it as well for a CPU the given topology
// does not have.
const NoNUMA = -1

// The notes Build writes that a command may say in its own terms.
const (
	NoteCPUWithoutTopology = "cpu_manager_state records CPU ids, not NUMA nodes: give a topology to place them"
	NoteDRA                = "dra_manager_state records no NUMA node: where a DRA device sits is the driver's to say (its ResourceSlice attributes)"
)

// Holdings is who holds what in one checkpoint. Only the fields of the
// file's kind are set.
type Holdings struct {
	Kind statefile.Kind `json:"kind"`
	// Memory lists every memory block, sorted by pod UID, then container
	// (pod-level blocks first), in file order within a container.
	Memory []MemoryBlock `json:"memory,omitempty"`
	// CPU is the cpu_manager_state's assignment.
	CPU *CPUs `json:"cpu,omitempty"`
	// Devices lists the device allocations, sorted by pod UID, container
	// and resource.
	Devices []DeviceAllocation `json:"devices,omitempty"`
	// Registered lists the devices registered (healthy) when the file was
	// written, per resource, sorted by resource.
	Registered []RegisteredResource `json:"registeredDevices,omitempty"`
	// Claims lists the prepared DRA claims, sorted by namespace and name.
	Claims []Claim `json:"claims,omitempty"`
	// Notes say, once, what the file cannot tell (no NUMA in DRA, CPUs
	// without a topology) or where the topology and the file disagree.
	Notes []string `json:"notes,omitempty"`
}

// MemoryBlock is one memory assignment.
type MemoryBlock struct {
	PodUID string `json:"podUID"`
	// Container is "" for a pod-level block (PodLevel).
	Container string `json:"container,omitempty"`
	PodLevel  bool   `json:"podLevel,omitempty"`
	// Type is the resource: "memory", "hugepages-2Mi", "hugepages-1Gi", ...
	Type string `json:"type"`
	// Size is in bytes.
	Size uint64 `json:"size"`
	// NUMA lists the nodes the block is pinned to, ascending.
	NUMA []int `json:"numa"`
}

// CPUList is a set of CPUs in the kubelet's list form ("2-5,10") with its
// number of CPUs.
type CPUList struct {
	List  string `json:"cpus"`
	Count int    `json:"count"`
}

func listOf(s cpuset.CPUSet) CPUList { return CPUList{List: s.String(), Count: s.Size()} }

// CPUs is a cpu_manager_state's assignment.
type CPUs struct {
	Policy string `json:"policy"`
	// Shared is the default set: the CPUs every container without exclusive
	// CPUs runs on.
	Shared CPUList `json:"shared"`
	// Exclusive is the union of the holders' CPUs (pod-level sets included).
	Exclusive CPUList `json:"exclusive"`
	// Holders lists the containers (and pod-level sets) with exclusive
	// CPUs, sorted by pod UID, then container (the pod-level set first).
	Holders []CPUHolder `json:"holders"`
	// Topology names the machine the CPUs were placed with ("" without one).
	Topology string `json:"topology,omitempty"`
	// Nodes is the per-NUMA-node view, with a topology.
	Nodes []CPUNode `json:"nodes,omitempty"`
	// NotInTopology lists the CPUs of the file the topology does not have.
	NotInTopology *CPUList `json:"notInTopology,omitempty"`
}

// CPUHolder is a container's exclusive CPUs, or a pod's pod-level set.
type CPUHolder struct {
	PodUID    string `json:"podUID,omitempty"`
	Container string `json:"container,omitempty"`
	// ContainerID is set instead of PodUID and Container in a v1 file
	// (containerID → cpuset, kubelet ≤1.17).
	ContainerID string `json:"containerID,omitempty"`
	// PodLevel marks a pod-level set (podEntries); it holds the CPUs of the
	// pod's containers too.
	PodLevel bool `json:"podLevel,omitempty"`
	CPUList
	// Baseline is the set at admission, before any in-place resize (v4
	// baselines), when the file records one.
	Baseline *CPUList `json:"baseline,omitempty"`
	// NUMA splits the CPUs by NUMA node, with a topology; NoNUMA holds the
	// CPUs the topology does not have.
	NUMA []NodeCPUs `json:"numa,omitempty"`
}

// NodeCPUs is the part of a set on one NUMA node.
type NodeCPUs struct {
	Node int `json:"node"`
	CPUList
}

// CPUNode is one NUMA node of the topology and how its CPUs are used.
type CPUNode struct {
	Node      int     `json:"node"`
	CPUs      CPUList `json:"cpus"`
	Exclusive CPUList `json:"exclusive"`
	Shared    CPUList `json:"shared"`
}

// DeviceAllocation is the devices of one resource held by one container.
type DeviceAllocation struct {
	PodUID    string `json:"podUID"`
	Container string `json:"container"`
	Resource  string `json:"resource"`
	// Devices lists the device ids, sorted, each with the NUMA nodes the
	// checkpoint lists it under (a device with several nodes is listed
	// under each; NoNUMA: the device has no topology).
	Devices []Device `json:"devices"`
}

// Device is one device id and its NUMA nodes.
type Device struct {
	ID   string `json:"id"`
	NUMA []int  `json:"numa"`
}

// RegisteredResource is the devices of one resource registered when the
// file was written.
type RegisteredResource struct {
	Resource string   `json:"resource"`
	Devices  []string `json:"devices"`
	// Allocated counts the registered devices held by some container.
	Allocated int `json:"allocated"`
}

// Claim is one prepared DRA ResourceClaim.
type Claim struct {
	UID       string `json:"uid"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Class is the spew era's class name.
	Class   string        `json:"class,omitempty"`
	PodUIDs []string      `json:"podUIDs"`
	Drivers []ClaimDriver `json:"drivers"`
}

// ClaimDriver is what one driver prepared for a claim.
type ClaimDriver struct {
	Driver  string        `json:"driver"`
	Devices []ClaimDevice `json:"devices,omitempty"`
	// CDIDevices is the spew era's list of CDI device ids.
	CDIDevices []string `json:"cdiDevices,omitempty"`
}

// ClaimDevice is one prepared device.
type ClaimDevice struct {
	Pool       string   `json:"pool"`
	Device     string   `json:"device"`
	ShareID    string   `json:"shareID,omitempty"`
	Requests   []string `json:"requests,omitempty"`
	CDIDevices []string `json:"cdiDevices,omitempty"`
}

// Build returns who holds what in f. machine, when not nil, places the CPUs
// of a cpu_manager_state on NUMA nodes and is checked against the NUMA nodes
// the other kinds name. It returns nil for a nil f.
func Build(f *statefile.File, machine *topomgr.Machine) *Holdings {
	if f == nil {
		return nil
	}
	h := &Holdings{Kind: f.Kind}
	switch {
	case f.Memory != nil:
		h.buildMemory(f.Memory, machine)
	case f.CPU != nil:
		h.buildCPU(f.CPU, machine)
	case f.Device != nil:
		h.buildDevice(f.Device, f.Format, machine)
	case f.DRA != nil:
		h.buildDRA(f.DRA)
	}
	return h
}

func (h *Holdings) buildMemory(m *statefile.MemoryState, machine *topomgr.Machine) {
	// a file of 10,000 containers has 10,000 blocks or more: the rows and
	// their NUMA lists are cut from one allocation each
	n, ids := 0, 0
	for _, cs := range m.Entries {
		for _, bs := range cs {
			n += len(bs)
			for _, b := range bs {
				ids += len(b.NUMAAffinity)
			}
		}
	}
	for _, pe := range m.PodEntries {
		n += len(pe.MemoryBlocks)
		for _, b := range pe.MemoryBlocks {
			ids += len(b.NUMAAffinity)
		}
	}
	h.Memory = slices.Grow(h.Memory, n)
	arena := make([]int, 0, ids)
	seen := map[int]bool{}
	var low uint64 // nodes 0-63 seen, before the map has them
	add := func(pod, container string, podLevel bool, blocks []statefile.Block) {
		for _, b := range blocks {
			var numa []int // nil for none, as before
			if len(b.NUMAAffinity) > 0 {
				lo := len(arena)
				arena = append(arena, b.NUMAAffinity...)
				numa = arena[lo:len(arena):len(arena)]
			}
			if !slices.IsSorted(numa) {
				sort.Ints(numa)
			}
			for _, n := range numa {
				if n >= 0 && n < 64 {
					if low&(1<<n) != 0 {
						continue
					}
					low |= 1 << n
				}
				seen[n] = true
			}
			h.Memory = append(h.Memory, MemoryBlock{PodUID: pod, Container: container, PodLevel: podLevel, Type: b.Type, Size: b.Size, NUMA: numa})
		}
	}
	pods := make(map[string]bool, len(m.Entries)+len(m.PodEntries))
	for p := range m.Entries {
		pods[p] = true
	}
	for p := range m.PodEntries {
		pods[p] = true
	}
	var names []string
	for _, pod := range sortedKeys(pods) {
		if pe, ok := m.PodEntries[pod]; ok {
			add(pod, "", true, pe.MemoryBlocks)
		}
		cs := m.Entries[pod]
		names = names[:0]
		for c := range cs {
			names = append(names, c)
		}
		sort.Strings(names)
		for _, c := range names {
			add(pod, c, false, cs[c])
		}
	}
	for n := range m.MachineState {
		seen[n] = true
	}
	h.checkNodes(seen, machine)
}

func (h *Holdings) buildCPU(s *statefile.CPUState, machine *topomgr.Machine) {
	c := &CPUs{Policy: s.PolicyName, Shared: listOf(s.DefaultCPUSet), Holders: []CPUHolder{}}
	var sets []cpuset.CPUSet
	for _, pod := range sortedKeys(unionKeys(s.Entries, s.PodEntries)) {
		if ps, ok := s.PodEntries[pod]; ok {
			c.Holders = append(c.Holders, CPUHolder{PodUID: pod, PodLevel: true, CPUList: listOf(ps)})
			sets = append(sets, ps)
		}
		cs := s.Entries[pod]
		for _, name := range sortedKeys(cs) {
			hd := CPUHolder{PodUID: pod, Container: name, CPUList: listOf(cs[name])}
			if b, ok := s.Baselines[pod][name]; ok {
				l := listOf(b)
				hd.Baseline = &l
			}
			c.Holders = append(c.Holders, hd)
			sets = append(sets, cs[name])
		}
	}
	for _, id := range sortedKeys(s.ContainerEntries) {
		set := s.ContainerEntries[id]
		c.Holders = append(c.Holders, CPUHolder{ContainerID: id, CPUList: listOf(set)})
		sets = append(sets, set)
	}
	exclusive := cpuset.New().Union(sets...)
	c.Exclusive = listOf(exclusive)
	h.CPU = c
	if machine == nil {
		h.Notes = append(h.Notes, NoteCPUWithoutTopology)
		return
	}
	c.Topology = machineName(machine)
	if machine.CPUsUnknown || len(machine.CPUs) == 0 {
		h.Notes = append(h.Notes, fmt.Sprintf("the topology (%s) counts CPUs but does not name them: the CPUs cannot be placed on NUMA nodes", c.Topology))
		return
	}
	split := func(set cpuset.CPUSet) []NodeCPUs {
		by := map[int][]int{}
		for _, id := range set.UnsortedList() {
			n := machine.NUMANodeOfCPU(id)
			by[n] = append(by[n], id)
		}
		out := make([]NodeCPUs, 0, len(by))
		for _, n := range sortedKeys(by) {
			out = append(out, NodeCPUs{Node: n, CPUList: listOf(cpuset.New(by[n]...))})
		}
		// CPUs the topology lacks go last
		if len(out) > 0 && out[0].Node == NoNUMA {
			out = append(out[1:], out[0])
		}
		return out
	}
	for i := range c.Holders {
		c.Holders[i].NUMA = split(cpuSetOf(s, c.Holders[i]))
	}
	all := machine.AllCPUs()
	perNode := map[int][]int{}
	for _, cpu := range machine.CPUs {
		perNode[cpu.NUMA] = append(perNode[cpu.NUMA], cpu.ID)
	}
	for _, n := range machine.Nodes {
		cpus := cpuset.New(perNode[n.ID]...)
		c.Nodes = append(c.Nodes, CPUNode{Node: n.ID, CPUs: listOf(cpus), Exclusive: listOf(cpus.Intersection(exclusive)), Shared: listOf(cpus.Intersection(s.DefaultCPUSet))})
	}
	if missing := exclusive.Union(s.DefaultCPUSet).Difference(all); missing.Size() > 0 {
		l := listOf(missing)
		c.NotInTopology = &l
		h.Notes = append(h.Notes, fmt.Sprintf("%d CPU%s of the file (%s) %s not in the topology (%s): the topology is of another machine, or CPUs went offline since the file was written", l.Count, plural(l.Count), clip(l.List, 60), isAre(l.Count), c.Topology))
	}
}

// cpuSetOf returns the set a holder was built from.
func cpuSetOf(s *statefile.CPUState, hd CPUHolder) cpuset.CPUSet {
	switch {
	case hd.ContainerID != "":
		return s.ContainerEntries[hd.ContainerID]
	case hd.PodLevel:
		return s.PodEntries[hd.PodUID]
	}
	return s.Entries[hd.PodUID][hd.Container]
}

func (h *Holdings) buildDevice(d *statefile.DeviceState, format statefile.Format, machine *topomgr.Machine) {
	allocated := map[string]map[string]bool{}
	seen := map[int]bool{}
	for _, e := range d.PodDeviceEntries {
		nodes := map[string][]int{}
		for n, ids := range e.DeviceIDs {
			for _, id := range ids {
				nodes[id] = append(nodes[id], int(n))
			}
			if n != NoNUMA {
				seen[int(n)] = true
			}
		}
		a := DeviceAllocation{PodUID: e.PodUID, Container: e.ContainerName, Resource: e.ResourceName, Devices: make([]Device, 0, len(nodes))}
		for _, id := range sortedKeys(nodes) {
			ns := nodes[id]
			sort.Ints(ns)
			a.Devices = append(a.Devices, Device{ID: id, NUMA: dedup(ns)})
			if allocated[e.ResourceName] == nil {
				allocated[e.ResourceName] = map[string]bool{}
			}
			allocated[e.ResourceName][id] = true
		}
		h.Devices = append(h.Devices, a)
	}
	sort.SliceStable(h.Devices, func(i, j int) bool {
		a, b := h.Devices[i], h.Devices[j]
		if a.PodUID != b.PodUID {
			return a.PodUID < b.PodUID
		}
		if a.Container != b.Container {
			return a.Container < b.Container
		}
		return a.Resource < b.Resource
	})
	for _, r := range sortedKeys(d.RegisteredDevices) {
		ids := append([]string(nil), d.RegisteredDevices[r]...)
		sort.Strings(ids)
		n := 0
		for _, id := range ids {
			if allocated[r][id] {
				n++
			}
		}
		h.Registered = append(h.Registered, RegisteredResource{Resource: r, Devices: ids, Allocated: n})
	}
	if format == statefile.FormatV1 && len(d.PodDeviceEntries) > 0 {
		h.Notes = append(h.Notes, "a v1 device checkpoint records no NUMA node: the kubelet counts every device under NUMA node 0")
	}
	h.checkNodes(seen, machine)
}

func (h *Holdings) buildDRA(d *statefile.DRAState) {
	for _, c := range d.Claims {
		cl := Claim{UID: c.ClaimUID, Namespace: c.Namespace, Name: c.ClaimName, Class: c.ClassName, PodUIDs: sortedKeys(c.PodUIDs), Drivers: []ClaimDriver{}}
		drivers := map[string]bool{}
		for k := range c.DriverState {
			drivers[k] = true
		}
		for k := range c.CDIDevices {
			drivers[k] = true
		}
		if c.DriverName != "" {
			drivers[c.DriverName] = true
		}
		for _, name := range sortedKeys(drivers) {
			cd := ClaimDriver{Driver: name, CDIDevices: c.CDIDevices[name]}
			for _, dv := range c.DriverState[name].Devices {
				x := ClaimDevice{Pool: dv.PoolName, Device: dv.DeviceName, Requests: dv.RequestNames, CDIDevices: dv.CDIDeviceIDs}
				if dv.ShareID != nil {
					x.ShareID = *dv.ShareID
				}
				cd.Devices = append(cd.Devices, x)
			}
			cl.Drivers = append(cl.Drivers, cd)
		}
		h.Claims = append(h.Claims, cl)
	}
	sort.SliceStable(h.Claims, func(i, j int) bool {
		a, b := h.Claims[i], h.Claims[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.UID < b.UID
	})
	h.Notes = append(h.Notes, NoteDRA)
}

// checkNodes notes the NUMA nodes the file names that the topology lacks.
func (h *Holdings) checkNodes(seen map[int]bool, machine *topomgr.Machine) {
	if machine == nil || len(machine.Nodes) == 0 {
		return
	}
	have := map[int]bool{}
	for _, n := range machine.Nodes {
		have[n.ID] = true
	}
	var missing []string
	for _, n := range sortedKeys(seen) {
		if !have[n] {
			missing = append(missing, fmt.Sprint(n))
		}
	}
	if len(missing) > 0 {
		h.Notes = append(h.Notes, fmt.Sprintf("NUMA node%s %s of the file %s not in the topology (%s): the topology is of another machine", plural(len(missing)), clip(strings.Join(missing, ","), 60), isAre(len(missing)), machineName(machine)))
	}
}

// Shorten maps each id to the shortest prefix of at least 8 characters
// that no other id of ids starts with (the whole id when it is 12
// characters or fewer, or when no shorter prefix is unique), with "…"
// appended when shortened: the form for text, where full UUIDs crowd the
// columns.
func Shorten(ids []string) map[string]string {
	u := append([]string(nil), ids...)
	sort.Strings(u)
	u = dedupStrings(u)
	out := make(map[string]string, len(u))
	common := func(a, b string) int {
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		return n
	}
	for i, id := range u {
		need := 0 // length of the prefix shared with a neighbour
		if i > 0 {
			need = max(need, common(id, u[i-1]))
		}
		if i+1 < len(u) {
			need = max(need, common(id, u[i+1]))
		}
		n := max(8, need+1)
		if len(id) <= 12 || n >= len(id)-1 {
			out[id] = id
			continue
		}
		// do not cut inside a UTF-8 sequence
		for n < len(id) && id[n]&0xC0 == 0x80 {
			n++
		}
		out[id] = id[:n] + "…"
	}
	return out
}

// Nodes returns the NUMA nodes as text: "0", "0,1", "none" for NoNUMA.
func Nodes(numa []int) string {
	if len(numa) == 0 {
		return "-"
	}
	parts := make([]string, len(numa))
	for i, n := range numa {
		if n == NoNUMA {
			parts[i] = "none"
		} else {
			parts[i] = fmt.Sprint(n)
		}
	}
	return strings.Join(parts, ",")
}

func machineName(m *topomgr.Machine) string {
	switch {
	case m.Source != "" && m.Format != "":
		return m.Source + ", " + m.Format
	case m.Source != "":
		return m.Source
	case m.Format != "":
		return m.Format
	}
	return "the topology"
}

type ordered interface{ ~int | ~int64 | ~string }

func sortedKeys[K ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

func unionKeys[A, B any](a map[string]A, b map[string]B) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func dedup(s []int) []int {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func dedupStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
