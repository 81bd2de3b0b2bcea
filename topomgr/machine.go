package topomgr

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/internal/input"
	"k8s.io/utils/cpuset"
)

// CPU is one logical CPU and where it sits. Core is the lowest id of the
// CPU's sibling threads (the kubelet's core numbering); Core and Socket
// are -1 when the source did not give them (see Machine.CoresUnknown).
type CPU struct {
	ID     int `json:"id"`
	Core   int `json:"core"`
	Socket int `json:"socket"`
	NUMA   int `json:"numa"`
}

// Machine is a node's NUMA layout, CPU topology and memory, as the kubelet
// learns it from cAdvisor.
type Machine struct {
	Nodes []NUMANode `json:"nodes"`
	CPUs  []CPU      `json:"cpus"`
	// OnlineCPUs are the CPUs the kernel reports online; for machine-info,
	// the CPUs of the topology.
	OnlineCPUs cpuset.CPUSet `json:"-"`

	// Evidence: where the machine was read and how.

	// Source is the file or directory it was read from (set by the caller).
	Source string `json:"source,omitempty"`
	// Format is what it was read from: "machine-info" (cAdvisor JSON),
	// "sysfs", "sysfs listing", "numactl -H", "lscpu", "lscpu -e",
	// "lscpu -p", "lstopo", "kubelet Machine: line", "kubelet Detected CPU
	// topology line" or "NodeResourceTopology"; "numactl -H + lscpu -e"
	// when one paste holds both.
	Format string `json:"format,omitempty"`
	// Warnings are what the reader could not take at face value or inferred.
	Warnings []string `json:"warnings,omitempty"`

	// What the source did not say. The fields it leaves are placeholders
	// (-1, 0, empty) that no consumer may read as fact.

	// CoresUnknown: which CPUs are sibling threads of one core is not
	// known (numactl -H, plain lscpu): CPU.Core is -1.
	CoresUnknown bool `json:"coresUnknown,omitempty"`
	// SocketsUnknown: CPU.Socket is -1.
	SocketsUnknown bool `json:"socketsUnknown,omitempty"`
	// MemoryUnknown: the memory of some or all nodes is not known exactly
	// (numactl's MiB, lscpu, a node without meminfo): their NUMANode.Memory
	// is 0.
	MemoryUnknown bool `json:"memoryUnknown,omitempty"`
	// CPUsUnknown: the source counts CPUs per node but does not name them
	// (NodeResourceTopology): CPUs is empty and CPUCounts holds the counts.
	CPUsUnknown bool `json:"cpusUnknown,omitempty"`
	// CPUCounts maps a NUMA node ID to its number of CPUs, when CPUsUnknown.
	CPUCounts map[int]int `json:"cpuCounts,omitempty"`
}

// Bounds on a machine description.
const (
	// maxMachineCPUs caps the CPUs of one machine.
	maxMachineCPUs = cpulist.MaxCPUs
	// maxMachineNodes caps the NUMA nodes of one machine-info document.
	maxMachineNodes = 1024
)

// CPUsInNUMANodes returns the CPUs on the given NUMA nodes.
func (m *Machine) CPUsInNUMANodes(mask BitMask) cpuset.CPUSet {
	var ids []int
	for _, c := range m.CPUs {
		if mask.IsSet(c.NUMA) {
			ids = append(ids, c.ID)
		}
	}
	return cpuset.New(ids...)
}

// CPUNUMANodes returns the NUMA nodes that hold CPUs, ascending.
func (m *Machine) CPUNUMANodes() []int {
	seen := map[int]bool{}
	var out []int
	for _, c := range m.CPUs {
		if !seen[c.NUMA] {
			seen[c.NUMA] = true
			out = append(out, c.NUMA)
		}
	}
	sort.Ints(out)
	return out
}

// NodeCPUs returns the CPUs of one NUMA node.
func (m *Machine) NodeCPUs(node int) cpuset.CPUSet {
	var ids []int
	for _, c := range m.CPUs {
		if c.NUMA == node {
			ids = append(ids, c.ID)
		}
	}
	return cpuset.New(ids...)
}

// AllCPUs returns every CPU of the machine.
func (m *Machine) AllCPUs() cpuset.CPUSet {
	ids := make([]int, len(m.CPUs))
	for i, c := range m.CPUs {
		ids[i] = c.ID
	}
	return cpuset.New(ids...)
}

// NUMANodeOfCPU returns the NUMA node of a CPU, or -1 when the machine has no such CPU.
func (m *Machine) NUMANodeOfCPU(cpu int) int {
	i := sort.Search(len(m.CPUs), func(i int) bool { return m.CPUs[i].ID >= cpu })
	if i < len(m.CPUs) && m.CPUs[i].ID == cpu {
		return m.CPUs[i].NUMA
	}
	return -1
}

// CPUsPerCore returns the number of hardware threads of the machine's
// largest core, as cAdvisor's NumCores divided into NumThreads is read by
// the kubelet; 0 for a machine without CPUs or whose core layout is
// unknown.
func (m *Machine) CPUsPerCore() int {
	if m.CoresUnknown || m.CPUsUnknown {
		return 0
	}
	per := map[[2]int]int{}
	most := 0
	for _, c := range m.CPUs {
		k := [2]int{c.Socket, c.Core}
		per[k]++
		most = max(most, per[k])
	}
	return most
}

func (m *Machine) numaOf() map[int]int {
	out := make(map[int]int, len(m.CPUs))
	for _, c := range m.CPUs {
		out[c.ID] = c.NUMA
	}
	return out
}

func (m *Machine) check() error {
	seen := map[int]bool{}
	for _, n := range m.Nodes {
		if n.ID < 0 || n.ID > maxNUMANodeID {
			return fmt.Errorf("NUMA node %d: IDs are 0-63", n.ID)
		}
		if seen[n.ID] {
			return fmt.Errorf("NUMA node %d is listed twice", n.ID)
		}
		seen[n.ID] = true
	}
	cpus := map[int]bool{}
	for _, c := range m.CPUs {
		if !seen[c.NUMA] {
			return fmt.Errorf("CPU %d is on NUMA node %d, which the machine does not list", c.ID, c.NUMA)
		}
		if cpus[c.ID] {
			return fmt.Errorf("CPU %d is listed twice", c.ID)
		}
		cpus[c.ID] = true
	}
	if len(m.Nodes) == 0 {
		return fmt.Errorf("no NUMA node found")
	}
	return nil
}

type cadvisorMachine struct {
	NumCores *int `json:"num_cores"`
	Topology *[]struct {
		NodeID    *int     `json:"node_id"`
		Memory    uint64   `json:"memory"`
		Distances []uint64 `json:"distances"`
		HugePages []struct {
			PageSize uint64 `json:"page_size"`
			NumPages uint64 `json:"num_pages"`
		} `json:"hugepages"`
		Cores []struct {
			CoreID   int   `json:"core_id"`
			Threads  []int `json:"thread_ids"`
			SocketID int   `json:"socket_id"`
		} `json:"cores"`
	} `json:"topology"`
}

// hugePagesResource renders a huge page size in KiB as the kubelet's
// resource name (hugepages-2Mi, hugepages-1Gi).
func hugePagesResource(kib uint64) string {
	b := kib * 1024
	for _, u := range []struct {
		s string
		v uint64
	}{{"Ei", 1 << 60}, {"Pi", 1 << 50}, {"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
		if b >= u.v && b%u.v == 0 {
			return fmt.Sprintf("hugepages-%d%s", b/u.v, u.s)
		}
	}
	return fmt.Sprintf("hugepages-%d", b)
}

// parseMachineInfo reads a cAdvisor machine-info JSON document (the
// kubelet's /spec, cadvisor's /api/v1.3/machine, machineinfo.json of a ghw
// snapshot): its topology's NUMA nodes, memory, huge pages, distances,
// cores, threads and sockets. A core's ID is its lowest thread ID, as in
// the kubelet's CPU topology. CPU ids above 65535, more than 65536 CPUs or
// 1024 nodes are refused.
func parseMachineInfo(data []byte) (*Machine, error) {
	if err := input.CheckValues(data, "machine-info", input.ValueBudget{}); err != nil {
		return nil, err
	}
	var doc cadvisorMachine
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not a cAdvisor machine-info JSON document: %w", err)
	}
	return doc.machine()
}

func (doc *cadvisorMachine) machine() (*Machine, error) {
	if doc.Topology == nil {
		return nil, fmt.Errorf("/topology: missing: the machine info has no NUMA topology")
	}
	// The CPU manager's topology.Discover refuses a machine with no CPUs
	// counted, and the kubelet does not start. A document without the field
	// (a paste cut down to its topology) is read from the topology alone.
	if doc.NumCores != nil && *doc.NumCores == 0 {
		return nil, fmt.Errorf("/num_cores: %d: the kubelet's CPU manager refuses this machine (\"could not detect number of cpus\") and the kubelet does not start", *doc.NumCores)
	}
	if len(*doc.Topology) > maxMachineNodes {
		return nil, fmt.Errorf("/topology: %d NUMA nodes, more than %d", len(*doc.Topology), maxMachineNodes)
	}
	m := &Machine{Format: "machine-info"}
	for i, n := range *doc.Topology {
		if n.NodeID == nil {
			return nil, fmt.Errorf("/topology/%d/node_id: missing", i)
		}
		node := NUMANode{ID: *n.NodeID, Distances: n.Distances, Memory: n.Memory}
		for j, h := range n.HugePages {
			if h.PageSize == 0 || h.PageSize > 1<<40 || h.NumPages > (1<<63)/(h.PageSize*1024) {
				return nil, fmt.Errorf("/topology/%d/hugepages/%d: %d pages of %d KiB is not a size", i, j, h.NumPages, h.PageSize)
			}
			if node.HugePages == nil {
				node.HugePages = map[string]uint64{}
			}
			node.HugePages[hugePagesResource(h.PageSize)] = h.PageSize * 1024 * h.NumPages
		}
		m.Nodes = append(m.Nodes, node)
		for j, c := range n.Cores {
			if len(c.Threads) == 0 {
				return nil, fmt.Errorf("/topology/%d/cores/%d/thread_ids: empty", i, j)
			}
			core := c.Threads[0]
			for k, t := range c.Threads {
				if t < 0 || t > cpulist.MaxCPUID {
					return nil, fmt.Errorf("/topology/%d/cores/%d/thread_ids/%d: CPU id %d is not in 0-%d", i, j, k, t, cpulist.MaxCPUID)
				}
				core = min(core, t)
			}
			if len(m.CPUs)+len(c.Threads) > maxMachineCPUs {
				return nil, fmt.Errorf("/topology/%d/cores/%d: more than %d CPUs in all", i, j, maxMachineCPUs)
			}
			for _, t := range c.Threads {
				m.CPUs = append(m.CPUs, CPU{ID: t, Core: core, Socket: c.SocketID, NUMA: *n.NodeID})
			}
		}
	}
	sort.Slice(m.Nodes, func(a, b int) bool { return m.Nodes[a].ID < m.Nodes[b].ID })
	sort.Slice(m.CPUs, func(a, b int) bool { return m.CPUs[a].ID < m.CPUs[b].ID })
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("/topology: %w", err)
	}
	m.OnlineCPUs = m.AllCPUs()
	return m, nil
}
