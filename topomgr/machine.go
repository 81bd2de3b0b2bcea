package topomgr

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"k8s.io/utils/cpuset"
)

// CPU is one logical CPU and where it sits.
type CPU struct {
	ID     int `json:"id"`
	Core   int `json:"core"`
	Socket int `json:"socket"`
	NUMA   int `json:"numa"`
}

// Machine is a node's NUMA layout and CPU topology, as the kubelet learns
// it from cAdvisor.
type Machine struct {
	Nodes []NUMANode `json:"nodes"`
	CPUs  []CPU      `json:"cpus"`
}

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
		if n.ID < 0 || n.ID > MaxNUMANodeID {
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
	Topology *[]struct {
		NodeID    *int     `json:"node_id"`
		Memory    uint64   `json:"memory"`
		Distances []uint64 `json:"distances"`
		Cores     []struct {
			CoreID   int   `json:"core_id"`
			Threads  []int `json:"thread_ids"`
			SocketID int   `json:"socket_id"`
		} `json:"cores"`
	} `json:"topology"`
}

// ParseMachineInfo reads a cAdvisor machine-info JSON document (the
// kubelet's /spec or cadvisor's /api/v1.3/machine): its topology's NUMA
// nodes, distances, cores, threads and sockets. A core's ID is its lowest
// thread ID, as in the kubelet's CPU topology.
func ParseMachineInfo(data []byte) (*Machine, error) {
	var doc cadvisorMachine
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not a cAdvisor machine-info JSON document: %w", err)
	}
	if doc.Topology == nil {
		return nil, fmt.Errorf("/topology: missing: the machine info has no NUMA topology")
	}
	m := &Machine{}
	for i, n := range *doc.Topology {
		if n.NodeID == nil {
			return nil, fmt.Errorf("/topology/%d/node_id: missing", i)
		}
		m.Nodes = append(m.Nodes, NUMANode{ID: *n.NodeID, Distances: n.Distances})
		for j, c := range n.Cores {
			if len(c.Threads) == 0 {
				return nil, fmt.Errorf("/topology/%d/cores/%d/thread_ids: empty", i, j)
			}
			core := c.Threads[0]
			for _, t := range c.Threads {
				core = min(core, t)
			}
			for _, t := range c.Threads {
				m.CPUs = append(m.CPUs, CPU{ID: t, Core: core, Socket: c.SocketID, NUMA: *n.NodeID})
			}
		}
	}
	sort.Slice(m.CPUs, func(a, b int) bool { return m.CPUs[a].ID < m.CPUs[b].ID })
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("/topology: %w", err)
	}
	return m, nil
}

// ReadSysfs reads a NUMA and CPU topology from a sysfs tree: root is "/sys"
// on a node, or a snapshot directory holding devices/system/node and
// devices/system/cpu (a copied /sys, with or without the leading "sys").
func ReadSysfs(root string) (*Machine, error) {
	if _, err := os.Stat(filepath.Join(root, "devices", "system", "node")); err != nil {
		if _, err2 := os.Stat(filepath.Join(root, "sys", "devices", "system", "node")); err2 == nil {
			root = filepath.Join(root, "sys")
		} else {
			return nil, fmt.Errorf("%s: no devices/system/node directory: give /sys or a copy of it", root)
		}
	}
	nodeDir := filepath.Join(root, "devices", "system", "node")
	entries, err := os.ReadDir(nodeDir)
	if err != nil {
		return nil, err
	}
	m := &Machine{}
	for _, e := range entries {
		id, err := strconv.Atoi(strings.TrimPrefix(e.Name(), "node"))
		if !strings.HasPrefix(e.Name(), "node") || err != nil {
			continue
		}
		dir := filepath.Join(nodeDir, e.Name())
		node := NUMANode{ID: id}
		if b, err := os.ReadFile(filepath.Join(dir, "distance")); err == nil {
			for _, f := range strings.Fields(string(b)) {
				v, err := strconv.ParseUint(f, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("%s: %q is not a distance", filepath.Join(dir, "distance"), f)
				}
				node.Distances = append(node.Distances, v)
			}
		}
		b, err := os.ReadFile(filepath.Join(dir, "cpulist"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "cpulist"), err)
		}
		set, err := cpuset.Parse(strings.TrimSpace(string(b)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "cpulist"), err)
		}
		for _, c := range set.List() {
			cpu := CPU{ID: c, Core: c, NUMA: id}
			topo := filepath.Join(root, "devices", "system", "cpu", fmt.Sprintf("cpu%d", c), "topology")
			if v, err := readInt(filepath.Join(topo, "physical_package_id")); err == nil {
				cpu.Socket = v
			}
			if b, err := os.ReadFile(filepath.Join(topo, "thread_siblings_list")); err == nil {
				if sib, err := cpuset.Parse(strings.TrimSpace(string(b))); err == nil && sib.Size() > 0 {
					cpu.Core = sib.List()[0]
				}
			}
			m.CPUs = append(m.CPUs, cpu)
		}
		m.Nodes = append(m.Nodes, node)
	}
	sort.Slice(m.Nodes, func(a, b int) bool { return m.Nodes[a].ID < m.Nodes[b].ID })
	sort.Slice(m.CPUs, func(a, b int) bool { return m.CPUs[a].ID < m.CPUs[b].ID })
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", nodeDir, err)
	}
	return m, nil
}

func readInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// ReadMachine reads a topology from a sysfs directory or a cAdvisor
// machine-info JSON file.
func ReadMachine(path string) (*Machine, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return ReadSysfs(path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := ParseMachineInfo(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}
