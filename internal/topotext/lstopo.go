package topotext

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	lstopoLRE = regexp.MustCompile(`\bL#(\d+)`)
	lstopoPRE = regexp.MustCompile(`\bP#(\d+)`)
)

type lstopoFrame struct {
	indent int
	numa   int // -1: none attached
	numas  int // NUMA nodes attached as memory children (hwloc 2.x)
	socket int // -1: none
	core   int // a key of the Core object, -1: none
}

// parseLstopo reads hwloc's lstopo-no-graphics text. hwloc 2.x prints a
// NUMANode as a memory child of the Package or Group holding its cores
// (`NUMANode L#0 (P#0 63GB)` on its own line); hwloc 1.x nests the cores
// under it (`NUMANode L#0 (P#0 16GB) + Socket L#0 + L3 ...`). CPU and node
// ids are the P# (OS) numbers; without them (lstopo -l) the L# logical
// indices are used, with a warning. Sizes are rounded: memory is unknown.
func parseLstopo(ls []string) (*Topology, bool, error) {
	found := false
	for _, l := range ls {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "NUMANode ") || strings.Contains(t, "+ NUMANode ") {
			found = true
			break
		}
	}
	if !found {
		return nil, false, nil
	}
	t := &Topology{Format: "lstopo", CoresKnown: true, SocketsKnown: true}
	stack := []lstopoFrame{{indent: -1, numa: -1, socket: -1, core: -1}}
	byNode := map[int][]int{}
	var nodes []int
	logicalCPU, logicalNode, logicalSocket := false, false, false
	coreKeys, coreMin := 0, map[int]int{}
	type pu struct{ id, core, socket, numa int }
	var pus []pu
	for i, raw := range ls {
		if strings.TrimSpace(raw) == "" {
			continue
		}
		indent := len(raw) - len(strings.TrimLeft(raw, " \t"))
		for len(stack) > 1 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		parent := &stack[len(stack)-1]
		f := lstopoFrame{indent: indent, numa: -1, socket: -1, core: -1}
		objs := strings.Split(strings.TrimSpace(raw), " + ")
		for k, o := range objs {
			typ, _, _ := strings.Cut(o, " ")
			id := -1
			logical := false
			if m := lstopoPRE.FindStringSubmatch(o); m != nil {
				id, _ = strconv.Atoi(m[1])
			} else if m := lstopoLRE.FindStringSubmatch(o); m != nil {
				id, _ = strconv.Atoi(m[1])
				logical = true
			}
			switch typ {
			case "NUMANode":
				if id < 0 || id > MaxNodeID {
					return nil, true, fmt.Errorf("lstopo line %d: %q: no NUMA node id in 0-%d", i+1, cut40(o), MaxNodeID)
				}
				logicalNode = logicalNode || logical
				if _, ok := byNode[id]; !ok {
					if len(nodes) == maxNodes {
						return nil, true, fmt.Errorf("lstopo line %d: more than %d NUMA nodes", i+1, maxNodes)
					}
					nodes = append(nodes, id)
					byNode[id] = nil
				}
				if k == 0 && len(objs) == 1 { // hwloc 2.x: a memory child of the parent
					parent.numa = id
					parent.numas++
				} else {
					f.numa = id
				}
			case "Package", "Socket":
				if id >= 0 && id <= 1<<20 {
					f.socket = id
					logicalSocket = logicalSocket || logical
				}
			case "Core":
				f.core = coreKeys
				coreKeys++
			case "PU":
				if id < 0 || id > maxCPUID {
					return nil, true, fmt.Errorf("lstopo line %d: %q: no CPU id in 0-%d", i+1, cut40(o), maxCPUID)
				}
				if len(pus) == maxCPUs {
					return nil, true, fmt.Errorf("lstopo line %d: more than %d CPUs", i+1, maxCPUs)
				}
				logicalCPU = logicalCPU || logical
				p := pu{id: id, core: f.core, socket: f.socket, numa: f.numa}
				for j := len(stack) - 1; j >= 0; j-- {
					s := stack[j]
					if p.numa < 0 && s.numas > 1 {
						return nil, true, fmt.Errorf("lstopo line %d: PU %d sits under %d NUMA nodes at once: pass the full lstopo output, or numactl -H", i+1, id, s.numas)
					}
					if p.numa < 0 {
						p.numa = s.numa
					}
					if p.socket < 0 {
						p.socket = s.socket
					}
					if p.core < 0 {
						p.core = s.core
					}
				}
				if p.numa < 0 {
					return nil, true, fmt.Errorf("lstopo line %d: PU %d is under no NUMANode", i+1, id)
				}
				pus = append(pus, p)
			}
		}
		stack = append(stack, f)
	}
	for _, p := range pus {
		byNode[p.numa] = append(byNode[p.numa], p.id)
		if p.core >= 0 {
			if c, ok := coreMin[p.core]; !ok || p.id < c {
				coreMin[p.core] = p.id
			}
		}
	}
	for _, id := range nodes {
		t.Nodes = append(t.Nodes, Node{ID: id, CPUs: newSet(byNode[id]...)})
	}
	for _, p := range pus {
		c := CPU{ID: p.id, Core: -1, Socket: p.socket}
		if p.core >= 0 {
			c.Core = coreMin[p.core]
		}
		t.CPUs = append(t.CPUs, c)
	}
	if logicalCPU || logicalNode {
		t.warn("lstopo without P# (OS) numbers: CPU and NUMA node ids are hwloc's logical L# indices, which can differ from the kernel's (run lstopo-no-graphics without -l)")
	}
	if logicalSocket {
		t.warn("Package numbers are hwloc's logical L# indices: socket numbers may differ from sysfs physical_package_id")
	}
	t.warn("lstopo sizes are rounded: memory per node is not taken as exact")
	t.warn("no distance table: prefer-closest-numa-nodes cannot be evaluated")
	t.Online, t.OnlineKnown = onlineOf(t), true
	if err := t.finish(); err != nil {
		return nil, true, err
	}
	return t, true, nil
}
