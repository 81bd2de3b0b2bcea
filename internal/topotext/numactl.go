package topotext

import (
	"regexp"
	"strconv"
	"strings"

	"fmt"
)

var (
	numactlAvailRE = regexp.MustCompile(`^available:\s*(\d+)\s+nodes?\s*(\(([^)]*)\))?`)
	numactlNodeRE  = regexp.MustCompile(`^node\s+(\d+)\s+(cpus|size|free):\s*(.*)$`)
	numactlHeadRE  = regexp.MustCompile(`^node(\s+\d+)+$`)
	numactlRowRE   = regexp.MustCompile(`^(\d+):((\s+\d+)+)$`)
	numactlCountRE = regexp.MustCompile(`\s*\((\d+)\)$`)
	numactlWrapRE  = regexp.MustCompile(`^\d+([ ,-]+\d+)*$`)
)

// parseNumactl reads `numactl -H` (numactl.c hardware(), print_distances()).
func parseNumactl(ls []string) (*Topology, bool, error) {
	t := &Topology{Format: "numactl -H"}
	byID := map[int]int{}
	var avail string
	var header []int
	inDist, distances, cut, sizes := false, false, false, false
	rows := map[int][]uint64{}
	found := false
	cont := -1 // the node whose cpus line the next line may continue (a wrapped paste)
	for i, raw := range ls {
		l := strings.TrimSpace(raw)
		if elided(l) {
			cut = true
			continue
		}
		if cont >= 0 && numactlWrapRE.MatchString(l) {
			set, err := parseList(l)
			if err != nil {
				return nil, true, fmt.Errorf("numactl -H line %d: node %d cpus, continued: %w", i+1, t.Nodes[cont].ID, err)
			}
			t.Nodes[cont].CPUs = t.Nodes[cont].CPUs.Union(set)
			t.warn("numactl -H line %d: read as the continuation of node %d's CPU list (a wrapped line)", i+1, t.Nodes[cont].ID)
			continue
		}
		cont = -1
		if m := numactlAvailRE.FindStringSubmatch(l); m != nil {
			found = true
			avail = m[3]
			continue
		}
		if m := numactlNodeRE.FindStringSubmatch(l); m != nil {
			found = true
			id, ok := nodeID(m[1])
			if !ok {
				return nil, true, fmt.Errorf("numactl -H line %d: node %s: NUMA node ids are 0-%d", i+1, m[1], MaxNodeID)
			}
			k, ok := byID[id]
			if !ok {
				if len(t.Nodes) == maxNodes {
					return nil, true, fmt.Errorf("numactl -H line %d: more than %d nodes", i+1, maxNodes)
				}
				k = len(t.Nodes)
				byID[id] = k
				t.Nodes = append(t.Nodes, Node{ID: id})
			}
			switch m[2] {
			case "cpus":
				v := strings.TrimSpace(m[3])
				want := -1
				if c := numactlCountRE.FindStringSubmatch(v); c != nil { // --cpu-compress: "0-7,16-23 (16)"
					want, _ = strconv.Atoi(c[1])
					v = v[:len(v)-len(c[0])]
				}
				if strings.Contains(v, "...") || strings.Contains(v, "…") {
					return nil, true, fmt.Errorf("numactl -H line %d: node %d cpus: the list is cut (%q): pass the whole output", i+1, id, cut40(v))
				}
				set, err := parseList(v)
				if err != nil {
					return nil, true, fmt.Errorf("numactl -H line %d: node %d cpus: %w", i+1, id, err)
				}
				if want >= 0 && want != set.Size() {
					t.warn("numactl -H line %d: node %d cpus: %d CPUs listed, the count says %d", i+1, id, set.Size(), want)
				}
				t.Nodes[k].CPUs = set.Union(t.Nodes[k].CPUs)
				if set.Size() > 0 {
					cont = k
				}
			case "size":
				sizes = sizes || strings.HasSuffix(m[3], "MB")
			}
			continue
		}
		if l == "node distances:" {
			inDist = true
			continue
		}
		if strings.HasPrefix(l, "No distance information available") {
			found = true
			continue
		}
		if inDist {
			if numactlHeadRE.MatchString(l) {
				header = header[:0]
				for _, f := range strings.Fields(l)[1:] {
					id, ok := nodeID(f)
					if !ok {
						return nil, true, fmt.Errorf("numactl -H line %d: distance column %q is not a node id", i+1, f)
					}
					header = append(header, id)
				}
				continue
			}
			if m := numactlRowRE.FindStringSubmatch(l); m != nil {
				id, ok := nodeID(m[1])
				if !ok {
					return nil, true, fmt.Errorf("numactl -H line %d: distance row %q is not a node id", i+1, m[1])
				}
				f := strings.Fields(m[2])
				if len(f) != len(header) {
					return nil, true, fmt.Errorf("numactl -H line %d: node %d has %d distances for %d columns", i+1, id, len(f), len(header))
				}
				row := make([]uint64, len(f))
				for j, s := range f {
					v, err := strconv.ParseUint(s, 10, 16)
					if err != nil {
						return nil, true, fmt.Errorf("numactl -H line %d: distance %q is not a number", i+1, cut40(s))
					}
					row[j] = v
				}
				rows[id] = row
				distances = true
				continue
			}
			if l != "" {
				inDist = false
			}
		}
	}
	if !found {
		return nil, false, nil
	}
	if avail != "" {
		if set, err := parseList(avail); err == nil {
			for _, id := range set.List() {
				if _, ok := byID[id]; !ok {
					t.warn("numactl -H: node %d is available but has no lines: it is left out", id)
				}
			}
		}
	}
	for k := range t.Nodes {
		t.Nodes[k].Distances = rows[t.Nodes[k].ID]
		if distances && t.Nodes[k].Distances == nil {
			t.warn("numactl -H: node %d has no row in the distance table", t.Nodes[k].ID)
		}
	}
	if !distances {
		t.warn("no distance table: prefer-closest-numa-nodes cannot be evaluated")
	}
	t.warn("numactl -H does not say which CPUs share a core or a socket: the core layout is unknown (give lscpu -e or the sysfs topology files)")
	if sizes {
		t.warn("numactl -H gives node sizes in MiB, rounded down: memory per node is not taken as exact")
	}
	if cut {
		t.warn("the paste has elisions (...): nodes may be missing")
	}
	t.Online, t.OnlineKnown = onlineOf(t), true
	if err := t.finish(); err != nil {
		return nil, true, err
	}
	return t, true, nil
}

func onlineOf(t *Topology) (s cpusetT) {
	s = newSet()
	for _, n := range t.Nodes {
		s = s.Union(n.CPUs)
	}
	return s
}

func cut40(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
