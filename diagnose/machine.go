package diagnose

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"k8s.io/utils/cpuset"
)

// Machine is the NUMA layout of the node: what the kubelet learns from
// cAdvisor at start-up.
type Machine struct {
	Source string        `json:"source"`
	Format string        `json:"format"`
	Nodes  []MachineNode `json:"nodes"`
	// OnlineCPUs is the online CPU list ("" when unknown).
	OnlineCPUs string `json:"onlineCPUs,omitempty"`
	// CPUsPerCore is the number of hardware threads per core (0 when unknown).
	CPUsPerCore int `json:"cpusPerCore,omitempty"`
}

// MachineNode is one NUMA node.
type MachineNode struct {
	ID     int    `json:"id"`
	CPUs   string `json:"cpus"`
	Memory uint64 `json:"memory"`
	// HugePages maps a resource name (hugepages-2Mi) to its total bytes.
	HugePages map[string]uint64 `json:"hugePages,omitempty"`
	Distances []uint64          `json:"distances,omitempty"`
}

// AllCPUs returns the union of the nodes' CPUs.
func (m *Machine) AllCPUs() cpuset.CPUSet {
	all := cpuset.New()
	for _, n := range m.Nodes {
		if s, err := cpuset.Parse(n.CPUs); err == nil {
			all = all.Union(s)
		}
	}
	return all
}

// NodeOfCPU returns the NUMA node of a CPU, or -1.
func (m *Machine) NodeOfCPU(cpu int) int {
	for _, n := range m.Nodes {
		if s, err := cpuset.Parse(n.CPUs); err == nil && s.Contains(cpu) {
			return n.ID
		}
	}
	return -1
}

type machineInfoJSON struct {
	Topology *[]struct {
		NodeID    *int   `json:"node_id"`
		Memory    uint64 `json:"memory"`
		HugePages []struct {
			PageSize uint64 `json:"page_size"`
			NumPages uint64 `json:"num_pages"`
		} `json:"hugepages"`
		Cores []struct {
			CoreID    int   `json:"core_id"`
			ThreadIDs []int `json:"thread_ids"`
		} `json:"cores"`
		Distances []uint64 `json:"distances"`
	} `json:"topology"`
}

// hugePageName renders a page size in KiB as the kubelet's resource name.
func hugePageName(kib uint64) string {
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

// ParseMachineInfo reads cAdvisor machine-info JSON (`/api/v2.0/machine` or
// the kubelet's `/spec` answer).
func ParseMachineInfo(name string, data []byte) (*Machine, error) {
	var mi machineInfoJSON
	if err := json.Unmarshal(data, &mi); err != nil {
		return nil, fmt.Errorf("%s: not cAdvisor machine-info JSON: %w (pass the output of `kubectl get --raw /api/v1/nodes/NODE/proxy/spec` or a sysfs snapshot directory)", name, err)
	}
	if mi.Topology == nil {
		return nil, fmt.Errorf("%s: /topology: missing; the file has no NUMA topology (pass cAdvisor machine-info JSON or a sysfs snapshot directory)", name)
	}
	m := &Machine{Source: name, Format: "machine-info"}
	threads := 0
	var online []int
	for i, t := range *mi.Topology {
		if t.NodeID == nil {
			return nil, fmt.Errorf("%s: /topology/%d/node_id: missing", name, i)
		}
		n := MachineNode{ID: *t.NodeID, Memory: t.Memory, Distances: t.Distances}
		var cpus []int
		for _, c := range t.Cores {
			cpus = append(cpus, c.ThreadIDs...)
			if len(c.ThreadIDs) > threads {
				threads = len(c.ThreadIDs)
			}
		}
		n.CPUs = cpuset.New(cpus...).String()
		online = append(online, cpus...)
		for _, h := range t.HugePages {
			if n.HugePages == nil {
				n.HugePages = map[string]uint64{}
			}
			n.HugePages[hugePageName(h.PageSize)] = h.PageSize * 1024 * h.NumPages
		}
		m.Nodes = append(m.Nodes, n)
	}
	sort.Slice(m.Nodes, func(i, j int) bool { return m.Nodes[i].ID < m.Nodes[j].ID })
	m.CPUsPerCore = threads
	m.OnlineCPUs = cpuset.New(online...).String()
	return m, nil
}

var (
	reNodeDir  = regexp.MustCompile(`^node(\d+)$`)
	reMemTotal = regexp.MustCompile(`MemTotal:\s+(\d+) kB`)
	reHugeDir  = regexp.MustCompile(`^hugepages-(\d+)kB$`)
)

// ParseSysfs reads a snapshot of /sys (a copy of the directory tree, or a
// subset holding devices/system/node and devices/system/cpu). fsys is rooted
// at the snapshot; the node directory is looked up at sys/devices/system/node,
// devices/system/node or node.
func ParseSysfs(name string, fsys fs.FS) (*Machine, error) {
	var base string
	for _, b := range []string{"sys/devices/system", "devices/system", "."} {
		if _, err := fs.Stat(fsys, path.Join(b, "node")); err == nil {
			base = b
			break
		}
	}
	if base == "" {
		return nil, fmt.Errorf("%s: no devices/system/node directory in the sysfs snapshot (copy /sys/devices/system/node and /sys/devices/system/cpu)", name)
	}
	entries, err := fs.ReadDir(fsys, path.Join(base, "node"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m := &Machine{Source: name, Format: "sysfs"}
	read := func(p string) (string, error) {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return "", fmt.Errorf("%s: %s: %w", name, p, err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	for _, e := range entries {
		mm := reNodeDir.FindStringSubmatch(e.Name())
		if mm == nil || !e.IsDir() {
			continue
		}
		id, _ := strconv.Atoi(mm[1])
		dir := path.Join(base, "node", e.Name())
		n := MachineNode{ID: id}
		cl, err := read(path.Join(dir, "cpulist"))
		if err != nil {
			return nil, err
		}
		set, err := cpuset.Parse(cl)
		if err != nil {
			return nil, fmt.Errorf("%s: %s/cpulist: %w", name, dir, err)
		}
		n.CPUs = set.String()
		if mi, err := read(path.Join(dir, "meminfo")); err == nil {
			if t := reMemTotal.FindStringSubmatch(mi); t != nil {
				kb, _ := strconv.ParseUint(t[1], 10, 64)
				n.Memory = kb * 1024
			}
		}
		if d, err := read(path.Join(dir, "distance")); err == nil {
			for _, f := range strings.Fields(d) {
				v, err := strconv.ParseUint(f, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("%s: %s/distance: %q is not a number", name, dir, f)
				}
				n.Distances = append(n.Distances, v)
			}
		}
		if hp, err := fs.ReadDir(fsys, path.Join(dir, "hugepages")); err == nil {
			for _, h := range hp {
				hm := reHugeDir.FindStringSubmatch(h.Name())
				if hm == nil {
					continue
				}
				kib, _ := strconv.ParseUint(hm[1], 10, 64)
				s, err := read(path.Join(dir, "hugepages", h.Name(), "nr_hugepages"))
				if err != nil {
					continue
				}
				cnt, err := strconv.ParseUint(s, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("%s: %s/hugepages/%s/nr_hugepages: %q is not a number", name, dir, h.Name(), s)
				}
				if n.HugePages == nil {
					n.HugePages = map[string]uint64{}
				}
				n.HugePages[hugePageName(kib)] = kib * 1024 * cnt
			}
		}
		m.Nodes = append(m.Nodes, n)
	}
	if len(m.Nodes) == 0 {
		return nil, fmt.Errorf("%s: %s/node holds no nodeN directory", name, base)
	}
	sort.Slice(m.Nodes, func(i, j int) bool { return m.Nodes[i].ID < m.Nodes[j].ID })
	if on, err := read(path.Join(base, "cpu", "online")); err == nil {
		if s, err := cpuset.Parse(on); err == nil {
			m.OnlineCPUs = s.String()
		}
	}
	if m.OnlineCPUs == "" {
		m.OnlineCPUs = m.AllCPUs().String()
	}
	if sib, err := read(path.Join(base, "cpu", "cpu0", "topology", "thread_siblings_list")); err == nil {
		if s, err := cpuset.Parse(sib); err == nil {
			m.CPUsPerCore = s.Size()
		}
	}
	return m, nil
}
