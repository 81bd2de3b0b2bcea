package topomgr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/sysfs"
	"github.com/numascope/numascope/internal/topotext"
	"k8s.io/utils/cpuset"
)

// ParseMachine reads a machine's NUMA topology from any form people have
// it in, detected by content: cAdvisor machine-info JSON (with or without
// distances; machineinfo.json of a ghw snapshot), `numactl -H`, `lscpu`
// (flat or tree), `lscpu -e`, `lscpu -p`, sysfs listings printed by grep as
// path:value, hwloc lstopo text, the kubelet's start-up `Machine: {...}`
// line and the CPU manager's "Detected CPU topology" line, and
// NodeResourceTopology objects (YAML or JSON, v1alpha1 or v1alpha2).
//
// What the format does not say is marked on the Machine (CoresUnknown,
// SocketsUnknown, MemoryUnknown, CPUsUnknown), never guessed; Format names
// the format and Warnings what was inferred or skipped. Text it cannot
// read gets an error saying what it looked like and what to pass instead.
func ParseMachine(data []byte) (*Machine, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return nil, fmt.Errorf("%w: the input is empty", topotext.ErrNoTopology)
	}
	if !json.Valid(t) {
		// A paste in fences or with prompts: the same text, cleaned.
		if c := bytes.TrimSpace([]byte(strings.Join(topotext.Lines(data), "\n"))); len(c) > 0 && (c[0] == '{' || c[0] == '[') && json.Valid(c) {
			t = c
		}
	}
	if isNRT(t) {
		return parseNRT(t)
	}
	if t[0] == '{' || t[0] == '[' {
		if json.Valid(t) {
			if bytes.Contains(t, []byte("Detected CPU topology")) { // a --logging-format=json line
				return fromText(data)
			}
			return parseMachineInfo(t)
		}
		m, err := fromText(data)
		if errors.Is(err, topotext.ErrNoTopology) {
			// Not a text format either: say why the JSON is not read (a cut paste).
			_, err = parseMachineInfo(t)
		}
		return m, err
	}
	return fromText(data)
}

func fromText(data []byte) (*Machine, error) {
	tt, err := topotext.Parse(data)
	if err != nil {
		return nil, err
	}
	if tt.FS != nil {
		m, err := machineFromSysfs(tt.FS, tt.Format)
		if err != nil {
			return nil, err
		}
		m.Format = tt.Format
		m.Warnings = append(tt.Warnings, m.Warnings...)
		return m, nil
	}
	m := &Machine{Format: tt.Format, Warnings: tt.Warnings, CoresUnknown: !tt.CoresKnown, SocketsUnknown: !tt.SocketsKnown, MemoryUnknown: !tt.MemoryKnown}
	if len(tt.Nodes) > maxMachineNodes {
		return nil, fmt.Errorf("%s: %d NUMA nodes, more than %d", tt.Format, len(tt.Nodes), maxMachineNodes)
	}
	for _, n := range tt.Nodes {
		node := NUMANode{ID: n.ID, Distances: n.Distances}
		if tt.MemoryKnown {
			node.Memory = n.Memory
			for kib, cnt := range n.HugePages {
				if node.HugePages == nil {
					node.HugePages = map[string]uint64{}
				}
				node.HugePages[hugePagesResource(kib)] = kib * 1024 * cnt
			}
		}
		m.Nodes = append(m.Nodes, node)
	}
	for _, c := range tt.CPUs {
		cpu := CPU{ID: c.ID, Core: c.Core, Socket: c.Socket, NUMA: c.NUMA}
		if m.CoresUnknown {
			cpu.Core = -1
		}
		if m.SocketsUnknown {
			cpu.Socket = -1
		}
		m.CPUs = append(m.CPUs, cpu)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", tt.Format, err)
	}
	m.OnlineCPUs = m.AllCPUs()
	if tt.OnlineKnown {
		m.OnlineCPUs = tt.Online
	}
	return m, nil
}

// ReadMachine reads a machine from a sysfs tree in fsys: a copy of /sys or
// of /sys/devices/system, or an extracted ghw snapshot (sysinfo.tgz). name
// names the tree in errors. Each file is read through a small limit, FIFOs
// and devices are refused, and CPU lists are bounded.
//
// A tree without devices/system/node is read from the topology file at its
// root, if there is one: machineinfo.json (a ghw snapshot), lscpu (lscpu -e
// in a must-gather node folder), numactl or topology.txt.
//
// With fsys nil, name is a path: a directory is read as above, a file (at
// most 16 MiB, never a FIFO or a device) by ParseMachine.
func ReadMachine(fsys fs.FS, name string) (*Machine, error) {
	if fsys == nil {
		st, err := os.Stat(name)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return readMachineFile(name)
		}
		fsys = os.DirFS(name)
	}
	m, err := machineFromSysfs(fsys, name)
	if errors.Is(err, sysfs.ErrNoNodes) {
		// A must-gather node folder (nodes/<node>/lscpu is lscpu -e) or an
		// extracted ghw snapshot without its sys/ tree.
		for _, f := range []string{"machineinfo.json", "lscpu", "numactl", "topology.txt"} {
			data, ferr := input.ReadFS(fsys, f, name+": "+f, input.MaxDocument)
			if errors.Is(ferr, fs.ErrNotExist) {
				continue
			}
			if ferr != nil {
				return nil, ferr
			}
			m, ferr := ParseMachine(data)
			if ferr != nil {
				return nil, fmt.Errorf("%s: %s: %w", name, f, ferr)
			}
			return m, nil
		}
	}
	return m, err
}

func readMachineFile(name string) (*Machine, error) {
	data, err := input.ReadFile(name, "topology", input.MaxDocument)
	if err != nil {
		return nil, err
	}
	m, err := ParseMachine(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// machineFromSysfs reads a sysfs tree. A CPU's core is the lowest id of
// its thread_siblings_list (a CPU missing from a partial copy is placed by
// a sibling's list); without a list anywhere, the core is unknown, never
// guessed. A missing or -1 physical_package_id leaves the socket unknown.
func machineFromSysfs(fsys fs.FS, name string) (*Machine, error) {
	t, err := sysfs.Read(fsys, name, sysfs.Options{Memory: true, CPUs: true})
	if err != nil {
		return nil, err
	}
	m := &Machine{Format: "sysfs"}
	cpus := map[int]sysfs.CPU{}
	for _, c := range t.CPUs {
		cpus[c.ID] = c
	}
	for _, c := range t.CPUs {
		for _, s := range c.Siblings.List() {
			if o, ok := cpus[s]; ok && o.Siblings.Size() == 0 {
				o.Siblings = c.Siblings
				cpus[s] = o
			}
		}
	}
	var noCore, noSocket, noMem []int
	noDist := false
	for _, n := range t.Nodes {
		node := NUMANode{ID: n.ID, Distances: n.Distances, Memory: n.MemTotal}
		noDist = noDist || n.Distances == nil
		if n.MemTotal == 0 {
			noMem = append(noMem, n.ID)
		}
		for kib, cnt := range n.HugePages {
			if node.HugePages == nil {
				node.HugePages = map[string]uint64{}
			}
			node.HugePages[hugePagesResource(kib)] = kib * 1024 * cnt
		}
		m.Nodes = append(m.Nodes, node)
		for _, id := range n.CPUs.List() {
			c := CPU{ID: id, Core: -1, Socket: -1, NUMA: n.ID}
			info := cpus[id]
			if info.SocketKnown {
				c.Socket = info.Socket
			} else {
				noSocket = append(noSocket, id)
			}
			if info.Siblings.Size() > 0 {
				c.Core = info.Siblings.List()[0]
			} else {
				noCore = append(noCore, id)
			}
			m.CPUs = append(m.CPUs, c)
		}
	}
	sort.Slice(m.CPUs, func(a, b int) bool { return m.CPUs[a].ID < m.CPUs[b].ID })
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: %s/node: %w", name, t.Base, err)
	}
	if len(noCore) > 0 {
		m.CoresUnknown = true
		for i := range m.CPUs {
			m.CPUs[i].Core = -1
		}
		m.Warnings = append(m.Warnings, fmt.Sprintf("no thread_siblings_list for CPUs %s: the core layout is unknown", cpuset.New(noCore...)))
	}
	if len(noSocket) > 0 {
		m.SocketsUnknown = true
		for i := range m.CPUs {
			m.CPUs[i].Socket = -1
		}
		m.Warnings = append(m.Warnings, fmt.Sprintf("no physical_package_id for CPUs %s: sockets are unknown", cpuset.New(noSocket...)))
	}
	if len(noMem) > 0 {
		m.MemoryUnknown = true
		m.Warnings = append(m.Warnings, fmt.Sprintf("no meminfo MemTotal for NUMA node(s) %s: their memory is unknown", cpuset.New(noMem...)))
	}
	if noDist {
		m.Warnings = append(m.Warnings, "a node has no distance file: prefer-closest-numa-nodes cannot be evaluated")
	}
	m.OnlineCPUs = m.AllCPUs()
	if t.OnlineKnown {
		m.OnlineCPUs = t.Online
	}
	return m, nil
}

// Summary says what the machine is and what its source did not give, as
// "numactl -H: 2 NUMA nodes, 32 CPUs, no core layout".
func (m *Machine) Summary() string {
	var b strings.Builder
	if m.Format != "" {
		b.WriteString(m.Format + ": ")
	}
	fmt.Fprintf(&b, "%d NUMA node%s", len(m.Nodes), plural(len(m.Nodes)))
	if m.CPUsUnknown {
		n := 0
		for _, c := range m.CPUCounts {
			n += c
		}
		fmt.Fprintf(&b, ", %d CPUs counted, no CPU ids", n)
	} else {
		fmt.Fprintf(&b, ", %d CPUs", len(m.CPUs))
		withCPU := map[int]bool{}
		for _, c := range m.CPUs {
			withCPU[c.NUMA] = true
		}
		if k := len(m.Nodes) - len(withCPU); k > 0 {
			fmt.Fprintf(&b, " (%d node%s without CPUs)", k, plural(k))
		}
	}
	switch {
	case m.CPUsUnknown:
	case m.CoresUnknown:
		b.WriteString(", no core layout")
	case m.SocketsUnknown:
		b.WriteString(", no sockets")
	}
	if m.MemoryUnknown {
		b.WriteString(", no exact memory")
	}
	for _, n := range m.Nodes {
		if n.Distances == nil {
			b.WriteString(", no distances")
			break
		}
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
