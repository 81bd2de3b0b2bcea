package topomgr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/topotext"
	"github.com/numascope/numascope/internal/yamljson"
)

// nrtQuantity is a resource.Quantity as a string or a bare number.
type nrtQuantity string

func (q *nrtQuantity) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*q = nrtQuantity(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("not a quantity: %s", b)
	}
	*q = nrtQuantity(n.String())
	return nil
}

// nrtObject is a NodeResourceTopology (noderesourcetopology-api
// v1alpha1/v1alpha2 types.go): the data is at the top level, not under spec.
type nrtObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	TopologyPolicies []string `json:"topologyPolicies"`
	Attributes       []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"attributes"`
	Zones []struct {
		Name  string `json:"name"`
		Type  string `json:"type"`
		Costs []struct {
			Name  string `json:"name"`
			Value int64  `json:"value"`
		} `json:"costs"`
		Resources []struct {
			Name        string      `json:"name"`
			Capacity    nrtQuantity `json:"capacity"`
			Allocatable nrtQuantity `json:"allocatable"`
			Available   nrtQuantity `json:"available"`
		} `json:"resources"`
	} `json:"zones"`
	Items []nrtObject `json:"items"`
}

func isNRT(t []byte) bool {
	return bytes.Contains(t, []byte("NodeResourceTopology")) ||
		(bytes.Contains(t, []byte("zones")) && (bytes.Contains(t, []byte("type: Node")) || bytes.Contains(t, []byte(`"type":"Node"`)) || bytes.Contains(t, []byte(`"type": "Node"`))))
}

// nrtNodeID reads a zone name "node-<id>".
func nrtNodeID(name string) (int, bool) {
	s, ok := strings.CutPrefix(name, "node-")
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(s)
	if err != nil || id < 0 || id > topotext.MaxNodeID || strconv.Itoa(id) != s {
		return 0, false
	}
	return id, true
}

// parseNRT reads a NodeResourceTopology object (or a list: the first is
// read): its zones of type Node give the NUMA nodes, their CPU counts,
// memory and huge pages (only under the Static memory manager) and costs
// (the sysfs distances). It names no CPU: CPUsUnknown is set.
func parseNRT(data []byte) (*Machine, error) {
	js, err := yamljson.ToJSON(data, "NodeResourceTopology")
	if err != nil {
		return nil, err
	}
	var obj nrtObject
	if err := json.Unmarshal(js, &obj); err != nil {
		return nil, fmt.Errorf("not a NodeResourceTopology: %w", err)
	}
	m := &Machine{Format: "NodeResourceTopology", CPUsUnknown: true, CoresUnknown: true, SocketsUnknown: true, CPUCounts: map[int]int{}}
	if len(obj.Items) > 0 {
		if len(obj.Items) > 1 {
			m.Warnings = append(m.Warnings, fmt.Sprintf("%d NodeResourceTopology objects: only the first (%s) is read; pass one node's", len(obj.Items), obj.Items[0].Metadata.Name))
		}
		obj = obj.Items[0]
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
		id, ok := nrtNodeID(z.Name)
		if !ok {
			return nil, fmt.Errorf("NodeResourceTopology /zones/%d/name: %q: want node-<id> with an id in 0-%d", i, cutText(z.Name), topotext.MaxNodeID)
		}
		if len(zones) == maxMachineNodes {
			return nil, fmt.Errorf("NodeResourceTopology /zones: more than %d zones", maxMachineNodes)
		}
		node := NUMANode{ID: id}
		zn := zone{id: id, costs: map[int]uint64{}}
		for _, c := range z.Costs {
			if cid, ok := nrtNodeID(c.Name); ok && c.Value >= 0 {
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
