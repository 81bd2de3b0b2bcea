package topomgr

import (
	"errors"
	"fmt"
)

// NUMANode is one NUMA node of a machine: its ID and, when known, its row of
// the distance table (sysfs nodeN/distance), indexed by NUMA node ID.
type NUMANode struct {
	ID        int      `json:"id"`
	Distances []uint64 `json:"distances,omitempty"`
	// Memory is the node's memory in bytes (0 when unknown).
	Memory uint64 `json:"memory,omitempty"`
	// HugePages maps a huge page resource (hugepages-2Mi) to the node's total bytes of it.
	HugePages map[string]uint64 `json:"hugePages,omitempty"`
}

// NUMADistances maps a NUMA node ID to its distance row, indexed by node ID.
type NUMADistances map[int][]uint64

// NUMAInfo is the machine's NUMA layout as the Topology Manager sees it.
type NUMAInfo struct {
	// Nodes lists the NUMA node IDs in the order the machine reports them.
	Nodes []int
	// Distances is filled only when prefer-closest-numa-nodes is on.
	Distances NUMADistances
}

// errNoDistances is returned when prefer-closest-numa-nodes is on and a NUMA
// node has no distance row.
var errNoDistances = errors.New("error getting NUMA distances from cadvisor")

// NewNUMAInfo builds the NUMA layout as the kubelet's NewNUMAInfo does:
// distances are kept only with prefer-closest-numa-nodes, and then every
// node needs a row. numascope also requires each row to cover every node ID
// (where the kubelet would crash at merge time) and rejects IDs outside 0-63.
func NewNUMAInfo(nodes []NUMANode, opts PolicyOptions) (*NUMAInfo, error) {
	info := &NUMAInfo{Distances: NUMADistances{}}
	maxID := -1
	for _, n := range nodes {
		if n.ID < 0 || n.ID > maxNUMANodeID {
			return nil, fmt.Errorf("NUMA node %d: bit number must be in range 0-63", n.ID)
		}
		maxID = max(maxID, n.ID)
	}
	for _, n := range nodes {
		info.Nodes = append(info.Nodes, n.ID)
		var row []uint64
		if opts.PreferClosestNUMA {
			if n.Distances == nil {
				return nil, fmt.Errorf("%w: NUMA node %d has no distance row: give every node its row (sysfs node%d/distance) or turn %s off", errNoDistances, n.ID, n.ID, PreferClosestNUMANodes)
			}
			if len(n.Distances) <= maxID {
				return nil, fmt.Errorf("NUMA node %d: the distance row has %d entries, but NUMA node IDs go up to %d: give one distance per node ID", n.ID, len(n.Distances), maxID)
			}
			row = n.Distances
		}
		info.Distances[n.ID] = row
	}
	return info, nil
}

// DefaultAffinityMask returns the mask of every NUMA node of the machine.
func (n *NUMAInfo) DefaultAffinityMask() BitMask {
	var m BitMask
	for _, id := range n.Nodes {
		if id >= 0 && id <= maxNUMANodeID {
			m |= 1 << uint(id)
		}
	}
	return m
}

// Narrowest returns m1 if it is narrower than m2, else m2.
func (n *NUMAInfo) Narrowest(m1, m2 BitMask) BitMask {
	if m1.IsNarrowerThan(m2) {
		return m1
	}
	return m2
}

// Closest returns the narrower mask or, with as many nodes, the one with the
// smaller average distance between its nodes, then the smaller integer.
func (n *NUMAInfo) Closest(m1, m2 BitMask) BitMask {
	if m1.Count() != m2.Count() {
		return n.Narrowest(m1, m2)
	}
	d1 := n.Distances.AverageFor(m1)
	d2 := n.Distances.AverageFor(m2)
	if d1 == d2 {
		if m1.IsLessThan(m2) {
			return m1
		}
		return m2
	}
	if d1 < d2 {
		return m1
	}
	return m2
}

// AverageFor returns the mean distance over all ordered pairs of nodes in m,
// each node's distance to itself included; 0 for the empty mask. A missing
// entry counts as 0.
func (d NUMADistances) AverageFor(m BitMask) float64 {
	if m.Count() == 0 {
		return 0
	}
	var count, sum float64
	b := m.Bits()
	for _, i := range b {
		row := d[i]
		for _, j := range b {
			if j < len(row) {
				sum += float64(row[j])
			}
			count++
		}
	}
	return sum / count
}
