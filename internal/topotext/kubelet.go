package topotext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/input"
)

// parseKubeletLines reads the kubelet's start-up lines: cAdvisor's
// `Machine: {...}` (manager.go, klog.Infof("Machine: %+v")) and the CPU
// manager's "Detected CPU topology" (InfoS: %+v in 1.21-1.27 text logs,
// JSON from klog v2.100 and with --logging-format=json).
func parseKubeletLines(ls []string) (*Topology, bool, error) {
	for i, l := range ls {
		if j := strings.Index(l, "Machine: {"); j >= 0 {
			t, err := fromMachineLine(l[j+len("Machine: "):], i+1)
			return t, true, err
		}
	}
	for i, l := range ls {
		if !strings.Contains(l, "Detected CPU topology") && !strings.Contains(l, "detected CPU topology") {
			continue
		}
		t, err := fromDetected(l, i+1)
		return t, true, err
	}
	return nil, false, nil
}

func atoi(v *gv) (int, bool) {
	if v == nil || v.kind != 'v' {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(v.scalar))
	return n, err == nil
}

func atou(v *gv) (uint64, bool) {
	if v == nil || v.kind != 'v' {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(v.scalar), 10, 64)
	return n, err == nil
}

// fromMachineLine maps cAdvisor's MachineInfo (info/v1/machine.go) as %+v
// text: Topology[]{Id Memory HugePages[]{PageSize NumPages} Cores[]{Id
// Threads SocketID} Distances}.
func fromMachineLine(s string, line int) (*Topology, error) {
	root, p, err := parseGo(s)
	if err != nil {
		return nil, fmt.Errorf("kubelet Machine: line %d: %w", line, err)
	}
	t := &Topology{Format: "kubelet Machine: line", CoresKnown: true, SocketsKnown: true, MemoryKnown: true}
	if n, ok := atoi(root.field("NumCores")); ok {
		t.NumCPUs = n
	}
	topo := root.field("Topology")
	if topo == nil || topo.kind != 'l' {
		if p.cut {
			return nil, fmt.Errorf("%w: kubelet Machine: line %d is cut before Topology: pass the whole line (journalctl --no-pager, not a terminal-wide cut)", ErrNoTopology, line)
		}
		return nil, fmt.Errorf("%w: kubelet Machine: line %d has no Topology", ErrNoTopology, line)
	}
	if p.cut {
		t.warn("the Machine: line is cut: only the NUMA nodes before the cut are read")
	}
	noSocket := false
	for k, nv := range topo.items {
		if nv.kind != 's' {
			continue
		}
		id, ok := atoi(nv.field("Id"))
		if !ok || id < 0 || id > MaxNodeID {
			return nil, fmt.Errorf("kubelet Machine: line %d: Topology[%d].Id %q is not a NUMA node id", line, k, cut40(nv.field("Id").String()))
		}
		if len(t.Nodes) == maxNodes {
			return nil, fmt.Errorf("kubelet Machine: line %d: more than %d nodes", line, maxNodes)
		}
		n := Node{ID: id}
		if m, ok := atou(nv.field("Memory")); ok {
			n.Memory = m
		} else {
			t.MemoryKnown = false
		}
		if d := nv.field("Distances"); d != nil && d.kind == 'l' {
			for _, x := range d.items {
				if v, ok := atou(x); ok && len(n.Distances) < maxNodes {
					n.Distances = append(n.Distances, v)
				}
			}
		}
		if hp := nv.field("HugePages"); hp != nil {
			for _, h := range hp.items {
				size, ok1 := atou(h.field("PageSize"))
				num, ok2 := atou(h.field("NumPages"))
				if ok1 && ok2 && size > 0 && size <= 1<<40 && num <= (1<<63)/(size*1024) {
					if n.HugePages == nil {
						n.HugePages = map[uint64]uint64{}
					}
					n.HugePages[size] = num
				}
			}
		}
		var ids []int
		if cores := nv.field("Cores"); cores != nil {
			for j, c := range cores.items {
				th := c.field("Threads")
				if th == nil || th.kind != 'l' || len(th.items) == 0 {
					if p.cut {
						break
					}
					return nil, fmt.Errorf("kubelet Machine: line %d: Topology[%d].Cores[%d].Threads is empty", line, k, j)
				}
				socket := -1
				if s, ok := atoi(c.field("SocketID")); ok && s >= 0 && s <= 1<<20 {
					socket = s
				} else if c.field("SocketID") == nil {
					// Older cAdvisor has no Core.SocketID: it grouped Topology by
					// physical package, and the kubelet took the entry's Id as the socket.
					socket, noSocket = id, true
				} else {
					socket = -1
				}
				var threads []int
				for _, x := range th.items {
					v, ok := atoi(x)
					if !ok || v < 0 || v > maxCPUID {
						return nil, fmt.Errorf("kubelet Machine: line %d: Topology[%d].Cores[%d].Threads: %q is not a CPU id in 0-%d", line, k, j, cut40(x.String()), maxCPUID)
					}
					threads = append(threads, v)
				}
				if len(t.CPUs)+len(threads) > maxCPUs {
					return nil, fmt.Errorf("kubelet Machine: line %d: more than %d CPUs", line, maxCPUs)
				}
				core := threads[0]
				for _, v := range threads {
					core = min(core, v)
				}
				for _, v := range threads {
					t.CPUs = append(t.CPUs, CPU{ID: v, Core: core, Socket: socket, NUMA: id})
					ids = append(ids, v)
				}
			}
		}
		n.CPUs = newSet(ids...)
		if n.CPUs.Size() != len(ids) {
			return nil, fmt.Errorf("kubelet Machine: line %d: Topology[%d] lists a CPU twice", line, k)
		}
		t.Nodes = append(t.Nodes, n)
	}
	if noSocket {
		t.warn("the Machine: line has cores without SocketID, as older cAdvisor prints it: its Topology entries are sockets, read here as NUMA nodes too, which holds only where each socket is one NUMA node (no sub-NUMA clustering); check with numactl -H")
	}
	if !t.MemoryKnown {
		t.warn("the Machine: line has nodes without Memory: memory per node is unknown")
	}
	t.Online, t.OnlineKnown = onlineOf(t), true
	if err := t.finish(); err != nil {
		return nil, err
	}
	return t, nil
}

// cpuInfo is the CPU manager's topology.CPUInfo.
type cpuInfo struct {
	NUMANodeID, SocketID, CoreID *int
}

type detected struct {
	NumCPUs    int
	CPUDetails map[string]cpuInfo
}

// fromDetected reads the "Detected CPU topology" line: topology=&{NumCPUs:..
// CPUDetails:map[0:{NUMANodeID:0 SocketID:0 CoreID:0} ...]} or, from klog
// v2.100 and in JSON logs, topology={"NumCPUs":..,"CPUDetails":{"0":{...}}}.
func fromDetected(l string, line int) (*Topology, error) {
	t := &Topology{Format: "kubelet Detected CPU topology line", CoresKnown: true, SocketsKnown: true}
	var d detected
	cut := false
	if j := strings.Index(l, "topology="); j >= 0 || strings.HasPrefix(strings.TrimSpace(l), "{") {
		rest := ""
		if j >= 0 {
			rest = l[j+len("topology="):]
		}
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "{") && j < 0: // --logging-format=json
			var doc struct {
				Topology *json.RawMessage `json:"topology"`
			}
			b := []byte(strings.TrimSpace(l))
			if err := input.CheckValues(b, "kubelet log line", input.ValueBudget{}); err != nil {
				return nil, err
			}
			if err := json.Unmarshal(b, &doc); err != nil || doc.Topology == nil {
				return nil, fmt.Errorf("%w: line %d: the JSON log line has no topology (or is cut): pass the whole line", ErrNoTopology, line)
			}
			if err := json.Unmarshal(*doc.Topology, &d); err != nil {
				return nil, fmt.Errorf("line %d: topology: %w", line, err)
			}
		case strings.HasPrefix(rest, "{"): // klog v2.100+: JSON
			dec := json.NewDecoder(bytes.NewReader([]byte(rest))) // typed: no generic tree is built
			if err := dec.Decode(&d); err != nil {
				return nil, fmt.Errorf("%w: line %d: topology={...} is not whole JSON (%v): pass the whole line", ErrNoTopology, line, err)
			}
		default: // %+v, 1.21-1.27; `[cpumanager] detected CPU topology: &{...}` before
			root, p, err := parseGo(strings.TrimLeft(rest, "&"))
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			cut = p.cut
			d.NumCPUs, _ = atoi(root.field("NumCPUs"))
			det := root.field("CPUDetails")
			positional := false
			if det == nil && len(root.fields) == 0 && len(root.items) > 0 {
				// 1.16-1.20 print %v: &{96 48 2 map[0:{0 0 0} ...]}, CPUInfo
				// being {NUMANodeID SocketID CoreID}.
				d.NumCPUs, _ = atoi(root.items[0])
				for _, it := range root.items {
					if it.kind == 'l' {
						det, positional = it, true
					}
				}
			}
			if det == nil {
				return nil, fmt.Errorf("%w: line %d: the topology has no CPUDetails: pass `numactl -H` or lscpu -e output", ErrNoTopology, line)
			}
			d.CPUDetails = map[string]cpuInfo{}
			for _, e := range det.items {
				if len(e.fields) != 1 {
					continue
				}
				v := e.fields[0].val
				ci := cpuInfo{}
				if positional {
					if len(v.items) != 3 {
						return nil, fmt.Errorf("%w: line %d: CPU %s: %d positional fields, not NUMANodeID SocketID CoreID (a kubelet before 1.16 has no NUMA in its CPU topology)", ErrNoTopology, line, cut40(e.fields[0].key), len(v.items))
					}
					for k, dst := range []**int{&ci.NUMANodeID, &ci.SocketID, &ci.CoreID} {
						if n, ok := atoi(v.items[k]); ok {
							*dst = &n
						}
					}
					if len(d.CPUDetails) < maxCPUs {
						d.CPUDetails[e.fields[0].key] = ci
					}
					continue
				}
				for _, k := range []struct {
					name string
					dst  **int
				}{{"NUMANodeID", &ci.NUMANodeID}, {"SocketID", &ci.SocketID}, {"CoreID", &ci.CoreID}} {
					if n, ok := atoi(v.field(k.name)); ok {
						*k.dst = &n
					}
				}
				if len(d.CPUDetails) < maxCPUs {
					d.CPUDetails[e.fields[0].key] = ci
				}
			}
		}
	} else {
		// 1.16-1.20: "[cpumanager] detected CPU topology: &{...}"
		j := strings.Index(l, "topology: ")
		if j < 0 {
			return nil, fmt.Errorf("%w: line %d: the Detected CPU topology line has no topology value", ErrNoTopology, line)
		}
		return fromDetected(l[:j]+"topology="+l[j+len("topology: "):], line)
	}
	if len(d.CPUDetails) == 0 {
		return nil, fmt.Errorf("%w: line %d: the CPU topology lists no CPU", ErrNoTopology, line)
	}
	if len(d.CPUDetails) > maxCPUs {
		return nil, fmt.Errorf("line %d: more than %d CPUs", line, maxCPUs)
	}
	t.NumCPUs = d.NumCPUs
	byNode := map[int][]int{}
	keys := make([]string, 0, len(d.CPUDetails))
	for k := range d.CPUDetails {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ci := d.CPUDetails[k]
		id, err := strconv.Atoi(k)
		if err != nil || id < 0 || id > maxCPUID {
			return nil, fmt.Errorf("line %d: CPUDetails key %q is not a CPU id in 0-%d", line, cut40(k), maxCPUID)
		}
		if ci.NUMANodeID == nil || *ci.NUMANodeID < 0 || *ci.NUMANodeID > MaxNodeID {
			return nil, fmt.Errorf("line %d: CPU %d has no NUMA node id in 0-%d", line, id, MaxNodeID)
		}
		c := CPU{ID: id, Core: -1, Socket: -1, NUMA: *ci.NUMANodeID}
		if ci.CoreID != nil && *ci.CoreID >= 0 && *ci.CoreID <= maxCPUID {
			c.Core = *ci.CoreID
		}
		if ci.SocketID != nil && *ci.SocketID >= 0 && *ci.SocketID <= 1<<20 {
			c.Socket = *ci.SocketID
		}
		t.CPUs = append(t.CPUs, c)
		byNode[c.NUMA] = append(byNode[c.NUMA], id)
	}
	for id, cpus := range byNode {
		t.Nodes = append(t.Nodes, Node{ID: id, CPUs: newSet(cpus...)})
	}
	if cut {
		t.warn("the Detected CPU topology line is cut: CPUs after the cut are missing")
	}
	t.warn("the CPU manager's topology has no memory, distances or CPU-less NUMA nodes: those are unknown")
	t.Online, t.OnlineKnown = onlineOf(t), true
	if err := t.finish(); err != nil {
		return nil, err
	}
	return t, nil
}
