package topomgr

import (
	"fmt"
	"sort"
	"strings"

	"github.com/numascope/numascope/internal/nrt"
	"github.com/numascope/numascope/internal/topotext"
)

func isNRT(t []byte) bool { return nrt.Looks(t) }

// parseNRT reads a NodeResourceTopology object (or a list: the first is
// read): its zones of type Node give the NUMA nodes, their CPU counts,
// memory and huge pages (only under the Static memory manager) and costs
// (the sysfs distances). It names no CPU: CPUsUnknown is set.
func parseNRT(data []byte) (*Machine, error) {
	obj, count, err := nrt.Parse(data)
	if err != nil {
		return nil, err
	}
	m := &Machine{Format: "NodeResourceTopology", CPUsUnknown: true, CoresUnknown: true, SocketsUnknown: true, CPUCounts: map[int]int{}}
	if count > 1 {
		m.Warnings = append(m.Warnings, fmt.Sprintf("%d NodeResourceTopology objects: only the first (%s) is read; pass one node's", count, obj.Metadata.Name))
	}
	type zone struct {
		id    int
		costs map[int]uint64
	}
	var zones []zone
	memNodes, hugeNodes := 0, 0
	for i, z := range obj.Zones {
		if z.Type != "Node" {
			continue
		}
		id, ok := nrt.NodeID(z.Name)
		if !ok {
			return nil, fmt.Errorf("NodeResourceTopology /zones/%d/name: %q: want node-<id> with an id in 0-%d", i, cutText(z.Name), topotext.MaxNodeID)
		}
		if len(zones) == maxMachineNodes {
			return nil, fmt.Errorf("NodeResourceTopology /zones: more than %d zones", maxMachineNodes)
		}
		node := NUMANode{ID: id}
		zn := zone{id: id, costs: map[int]uint64{}}
		for _, c := range z.Costs {
			if cid, ok := nrt.NodeID(c.Name); ok && c.Value >= 0 {
				zn.costs[cid] = uint64(c.Value)
			}
		}
		hasMem := false
		for j, r := range z.Resources {
			q, err := ParseQuantity(string(r.Capacity))
			if err != nil {
				return nil, fmt.Errorf("NodeResourceTopology /zones/%d/resources/%d/capacity: %w", i, j, err)
			}
			switch {
			case r.Name == "cpu":
				n := q.Value()
				if n < 0 || n > maxMachineCPUs {
					return nil, fmt.Errorf("NodeResourceTopology /zones/%d/resources/%d/capacity: %s CPUs is not in 0-%d", i, j, r.Capacity, maxMachineCPUs)
				}
				m.CPUCounts[id] = int(n)
			case r.Name == "memory":
				if v := q.Value(); v > 0 {
					node.Memory, hasMem = uint64(v), true
				}
			case strings.HasPrefix(r.Name, "hugepages-"):
				if v := q.Value(); v >= 0 {
					if node.HugePages == nil {
						node.HugePages = map[string]uint64{}
					}
					node.HugePages[r.Name] = uint64(v)
					hugeNodes++
				}
			}
		}
		if hasMem {
			memNodes++
		}
		m.Nodes = append(m.Nodes, node)
		zones = append(zones, zn)
	}
	if len(m.Nodes) == 0 {
		return nil, fmt.Errorf("%w: not a NodeResourceTopology: no zones[] of type Node", topotext.ErrNoTopology)
	}
	sort.Slice(zones, func(a, b int) bool { return zones[a].id < zones[b].id })
	sort.Slice(m.Nodes, func(a, b int) bool { return m.Nodes[a].ID < m.Nodes[b].ID })
	for i, z := range zones {
		if len(z.costs) != len(zones) {
			if len(z.costs) > 0 {
				m.Warnings = append(m.Warnings, fmt.Sprintf("zone node-%d has costs for %d of %d nodes: distances are left out", z.id, len(z.costs), len(zones)))
			}
			continue
		}
		row := make([]uint64, 0, len(zones))
		for _, o := range zones {
			row = append(row, z.costs[o.id])
		}
		m.Nodes[i].Distances = row
	}
	if memNodes < len(m.Nodes) {
		m.MemoryUnknown = true
		for i := range m.Nodes {
			m.Nodes[i].Memory, m.Nodes[i].HugePages = 0, nil
		}
		m.Warnings = append(m.Warnings, "memory zones are missing: memory manager not Static; memory NUMA not reported")
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("NodeResourceTopology: %w", err)
	}
	m.Warnings = append(m.Warnings, "NodeResourceTopology counts CPUs per NUMA node but names none: CPU ids, cores and sockets are unknown (give numactl -H or lscpu -e for the CPU manager's hints)",
		"available counts only exclusive CPUs and devices, and lags the kubelet by the exporter's update period")
	for _, a := range obj.Attributes {
		if a.Name == "topologyManagerPolicy" || a.Name == "topologyManagerScope" {
			m.Warnings = append(m.Warnings, fmt.Sprintf("%s %s is the exporter's reading of the kubelet configuration, not the kubelet's own", a.Name, cutText(a.Value)))
		}
	}
	return m, nil
}

func cutText(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
