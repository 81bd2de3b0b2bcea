package statefile

import (
	"sort"
)

// Group is a set of NUMA nodes the memory manager treats as one (a group of
// one node when the node only takes single-node allocations), with its memory
// summed per resource.
type Group struct {
	// Nodes lists the NUMA node ids of the group in ascending order.
	Nodes []int `json:"nodes"`
	// Resources has one row per resource ("memory", "hugepages-2Mi", ...),
	// sorted by name.
	Resources []GroupResource `json:"resources"`
}

// GroupResource is one resource summed over a group, with the per-node rows.
type GroupResource struct {
	Name string `json:"name"`
	// Sum holds total, systemReserved, allocatable, reserved and free summed
	// over the group's nodes.
	Sum MemoryTable `json:"sum"`
	// PerNode holds each node's own row, in the order of Nodes.
	PerNode []NodeRow `json:"perNode"`
}

// NodeRow is one node's row of a resource.
type NodeRow struct {
	Node  int         `json:"node"`
	Table MemoryTable `json:"table"`
}

// Groups aggregates the machine state into NUMA groups, as the kubelet's
// troubleshooting guide describes: every node belongs to the group listed in
// its cells (or the "nodes" alias), and each resource's total,
// systemReserved, allocatable, reserved and free are summed over the group.
// Groups are ordered by their smallest node; a node whose group is
// inconsistent with its peers' still appears exactly once.
func (m *MemoryState) Groups() []Group {
	if m == nil {
		return nil
	}
	ids := sortedIntKeys(m.MachineState)
	seen := map[int]bool{}
	var groups []Group
	for _, id := range ids {
		if seen[id] {
			continue
		}
		n := m.MachineState[id]
		members := []int{id}
		if n != nil {
			for _, o := range n.group() {
				if o == id || seen[o] {
					continue
				}
				if _, ok := m.MachineState[o]; ok && !containsInt(members, o) {
					members = append(members, o)
				}
			}
		}
		sort.Ints(members)
		for _, o := range members {
			seen[o] = true
		}
		g := Group{Nodes: members}
		names := map[string]bool{}
		for _, o := range members {
			if on := m.MachineState[o]; on != nil {
				for r := range on.MemoryMap {
					names[r] = true
				}
			}
		}
		for _, r := range sortedKeys(names) {
			gr := GroupResource{Name: r, PerNode: []NodeRow{}}
			for _, o := range members {
				on := m.MachineState[o]
				if on == nil || on.MemoryMap[r] == nil {
					continue
				}
				t := *on.MemoryMap[r]
				gr.PerNode = append(gr.PerNode, NodeRow{Node: o, Table: t})
				gr.Sum.TotalMemSize += t.TotalMemSize
				gr.Sum.SystemReserved += t.SystemReserved
				gr.Sum.Allocatable += t.Allocatable
				gr.Sum.Reserved += t.Reserved
				gr.Sum.Free += t.Free
			}
			g.Resources = append(g.Resources, gr)
		}
		groups = append(groups, g)
	}
	return groups
}
