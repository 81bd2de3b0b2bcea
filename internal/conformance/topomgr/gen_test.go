package topomgr

import (
	"fmt"

	ns "github.com/numascope/numascope/topomgr"
)

// byteSource reads a case from fuzz bytes; past the end it reads zeros.
type byteSource struct {
	data []byte
	i    int
}

func (s *byteSource) next() int {
	if s.i >= len(s.data) {
		s.i++
		return 0
	}
	b := s.data[s.i]
	s.i++
	return int(b)
}

func (s *byteSource) intn(n int) int { return s.next() % n }

// decodeCase turns bytes into a NUMA layout (1-8 nodes, with or without
// distances, sometimes non-contiguous IDs), a policy, options and the
// providers' answers (nil providers, nil and empty maps, nil and empty hint
// lists, hints without affinity, masks naming nodes the machine lacks).
func decodeCase(data []byte) ([]ns.NUMANode, string, map[string]string, []ns.ProviderHints) {
	s := &byteSource{data: data}
	n := 1 + s.intn(8)
	gap := s.intn(4) == 0
	withDistances := s.intn(3) != 0
	var ids []int
	for i := 0; i < n; i++ {
		id := i
		if gap {
			id = 2*i + s.intn(2)
		}
		ids = append(ids, id)
	}
	maxID := ids[len(ids)-1]
	var nodes []ns.NUMANode
	for _, id := range ids {
		node := ns.NUMANode{ID: id}
		if withDistances {
			row := make([]uint64, maxID+1)
			for j := range row {
				row[j] = uint64(11 + s.intn(4)*5)
			}
			row[id] = 10
			node.Distances = row
		}
		nodes = append(nodes, node)
	}
	policy := []string{ns.PolicyNone, ns.PolicyBestEffort, ns.PolicyRestricted, ns.PolicySingleNumaNode}[s.intn(4)]
	options := map[string]string{}
	switch s.intn(8) {
	case 0, 1, 2:
		options[ns.PreferClosestNUMANodes] = "true"
	case 3:
		options[ns.PreferClosestNUMANodes] = []string{"false", "1", "yes", "T"}[s.intn(4)]
	case 4:
		options[ns.MaxAllowableNUMANodes] = []string{"8", "16", "7", "x", "-1", "64"}[s.intn(6)]
	case 5:
		options["unknown-option"] = "true"
	}
	var providers []ns.ProviderHints
	for p := s.intn(4); p > 0; p-- {
		switch s.intn(8) {
		case 0:
			providers = append(providers, nil)
			continue
		case 1:
			providers = append(providers, ns.ProviderHints{})
			continue
		}
		ph := ns.ProviderHints{}
		for r := 1 + s.intn(3); r > 0; r-- {
			name := fmt.Sprintf("resource%d", s.intn(5))
			switch s.intn(10) {
			case 0:
				ph[name] = nil
				continue
			case 1:
				ph[name] = []ns.TopologyHint{}
				continue
			}
			var hints []ns.TopologyHint
			for h := 1 + s.intn(6); h > 0; h-- {
				pref := s.intn(2) == 0
				if s.intn(10) == 0 {
					hints = append(hints, ns.AnyNUMAHint(pref))
					continue
				}
				var m ns.BitMask
				bitsByte := s.next()
				for i, id := range ids {
					if bitsByte&(1<<uint(i)) != 0 {
						m |= 1 << uint(id)
					}
				}
				if s.intn(16) == 0 {
					m |= 1 << uint(maxID+1+s.intn(3))
				}
				hints = append(hints, ns.NewHint(m, pref))
			}
			ph[name] = hints
		}
		providers = append(providers, ph)
	}
	return nodes, policy, options, providers
}
