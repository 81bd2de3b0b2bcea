package topotext

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	digitsRE    = regexp.MustCompile(`\d+`)
	lscpuWrapRE = regexp.MustCompile(`^\d+(-\d+)?(,\d+(-\d+)?)*,?$`)
)

// parseLscpu reads plain lscpu output, flat or tree layout: "NUMA node0
// CPU(s):" lines (and their translations: any key naming NUMA with one
// number, whose value is a CPU list), the online list and the counts.
func parseLscpu(ls []string) (*Topology, bool, error) {
	t := &Topology{Format: "lscpu"}
	threads, arch := "", ""
	found, stated := false, 0
	for i, raw := range ls {
		key, val, ok := strings.Cut(raw, ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		lk := strings.ToLower(key)
		if val == "" && !strings.Contains(lk, "numa") {
			continue // a tree section header ("CPU(s):" in some locales)
		}
		switch {
		case strings.Contains(lk, "numa"):
			ids := digitsRE.FindAllString(key, -1)
			if len(ids) != 1 {
				if n, err := strconv.Atoi(val); err == nil && n > 0 { // "NUMA node(s): 2"
					stated = n
				}
				continue
			}
			id, ok := nodeID(ids[0])
			if !ok {
				return nil, true, fmt.Errorf("lscpu line %d: %q: NUMA node ids are 0-%d", i+1, cut40(key), MaxNodeID)
			}
			for strings.HasSuffix(val, ",") && i+1 < len(ls) && lscpuWrapRE.MatchString(strings.TrimSpace(ls[i+1])) {
				// A list wrapped by mail or chat: "0-23,48-71," then "96-119".
				val += strings.TrimSpace(ls[i+1])
				ls[i+1] = ""
				t.warn("lscpu line %d: %s continues on the next line (a wrapped paste)", i+1, key)
			}
			if strings.Contains(val, "...") || strings.Contains(val, "…") {
				return nil, true, fmt.Errorf("lscpu line %d: %s: the list is cut (%q): pass the whole output", i+1, key, cut40(val))
			}
			set, err := parseList(val)
			if err != nil {
				return nil, true, fmt.Errorf("lscpu line %d: %s: %w", i+1, key, err)
			}
			if len(t.Nodes) == maxNodes {
				return nil, true, fmt.Errorf("lscpu line %d: more than %d nodes", i+1, maxNodes)
			}
			found = true
			t.Nodes = append(t.Nodes, Node{ID: id, CPUs: set})
		case (strings.Contains(lk, "on-line") || strings.Contains(lk, "online") || strings.Contains(lk, "en ligne")) && !strings.Contains(lk, "off"):
			if set, err := parseList(val); err == nil {
				t.Online, t.OnlineKnown = set, true
			}
		case lk == "cpu(s)":
			if n, err := strconv.Atoi(val); err == nil && n > 0 {
				t.NumCPUs = n
			}
		case strings.HasPrefix(lk, "thread(s)"):
			threads = val
		case lk == "architecture" || lk == "architektur":
			arch = val
		}
	}
	if !found {
		return nil, false, nil
	}
	if stated > 0 && stated != len(t.Nodes) {
		t.warn("lscpu says %d NUMA node(s) but lists the CPUs of %d: the others are missing from the paste", stated, len(t.Nodes))
	}
	if threads != "" {
		t.warn("lscpu says %s thread(s) per core but not which CPUs share a core: the core and socket layout is unknown (give lscpu -e or the sysfs topology files)", threads)
	} else {
		t.warn("lscpu does not say which CPUs share a core: the core and socket layout is unknown (give lscpu -e or the sysfs topology files)")
	}
	if arch == "aarch64" || arch == "arm64" {
		t.warn("arm64: lscpu's clusters are not sockets; the kubelet reads sockets from physical_package_id")
	}
	t.warn("no distance table: prefer-closest-numa-nodes cannot be evaluated")
	if !t.OnlineKnown {
		t.Online, t.OnlineKnown = onlineOf(t), true
	}
	if err := t.finish(); err != nil {
		return nil, true, err
	}
	return t, true, nil
}

// yes reads an ONLINE cell in the locales lscpu is translated to.
func yes(s string) (online, known bool) {
	switch strings.ToLower(s) {
	case "yes", "oui", "ja", "sí", "si", "sì", "sim", "tak", "да", "是", "はい", "evet", "igen", "ano":
		return true, true
	case "no", "non", "nein", "nee", "não", "nie", "нет", "否", "いいえ", "hayır", "nem", "ne":
		return false, true
	}
	return false, false
}

// parseLscpuTable reads `lscpu -e` (columns aligned left or right, MHZ
// columns, localised yes) and `lscpu -p` (CSV after "#" comments). Both
// give lscpu's logical core and socket indices: CPUs with the same socket
// and core index are siblings, and the socket numbers may differ from
// sysfs physical_package_id.
func parseLscpuTable(ls []string) (*Topology, bool, error) {
	var cols []string
	format, start := "", 0
	for i, l := range ls {
		t := strings.TrimSpace(l)
		if h, ok := strings.CutPrefix(t, "#"); ok && strings.Contains(h, ",") {
			f := strings.Split(strings.TrimSpace(h), ",")
			if strings.EqualFold(strings.TrimSpace(f[0]), "CPU") {
				cols, format, start = f, "lscpu -p", i+1
				break
			}
		}
		f := strings.Fields(t)
		if len(f) >= 2 && f[0] == "CPU" && (contains(f, "NODE") || contains(f, "CORE") || contains(f, "SOCKET")) {
			cols, format, start = f, "lscpu -e", i+1
			break
		}
	}
	if cols == nil {
		return nil, false, nil
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[strings.ToUpper(strings.TrimSpace(c))] = i
	}
	t := &Topology{Format: format, CoresKnown: true, SocketsKnown: true}
	nodeCol, hasNode := idx["NODE"]
	coreCol, hasCore := idx["CORE"]
	sockCol, hasSock := idx["SOCKET"]
	onCol, hasOn := idx["ONLINE"]
	if !hasNode {
		t.warn("%s has no NODE column: every CPU is read as on NUMA node 0", format)
	}
	type key struct{ socket, core string }
	core := map[key]int{}
	type row struct {
		cpu, node int
		k         key
		socket    int
	}
	var rows []row
	byNode := map[int][]int{}
	var online []int
	skipped := 0
	for i := start; i < len(ls); i++ {
		l := strings.TrimSpace(ls[i])
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if elided(l) {
			t.warn("the paste has elisions (...) at line %d: CPUs may be missing", i+1)
			continue
		}
		var f []string
		if format == "lscpu -p" {
			f = strings.Split(l, ",")
		} else {
			f = strings.Fields(l)
		}
		cell := func(c int) string {
			if c < len(f) {
				return strings.TrimSpace(f[c])
			}
			return "-"
		}
		cpu, err := strconv.Atoi(cell(0))
		if err != nil {
			if len(rows) > 0 {
				break // the table has ended
			}
			skipped++
			continue
		}
		if cpu < 0 || cpu > maxCPUID {
			return nil, true, fmt.Errorf("%s line %d: CPU %d: ids are 0-%d", format, i+1, cpu, maxCPUID)
		}
		if len(rows) >= maxCPUs {
			return nil, true, fmt.Errorf("%s line %d: more than %d CPUs", format, i+1, maxCPUs)
		}
		if hasOn {
			if on, known := yes(cell(onCol)); known && !on {
				continue // offline CPUs are not in the kubelet's topology
			} else if !known {
				t.warn("%s line %d: ONLINE %q not understood: the CPU is read as online", format, i+1, cut40(cell(onCol)))
			}
		}
		node := 0
		if hasNode {
			n, ok := nodeID(cell(nodeCol))
			if !ok {
				if cell(nodeCol) == "" && format == "lscpu -p" {
					n = 0 // no NUMA: an empty Node column
				} else {
					t.warn("%s line %d: CPU %d has no NUMA node (%q): left out", format, i+1, cpu, cut40(cell(nodeCol)))
					continue
				}
			}
			node = n
		}
		r := row{cpu: cpu, node: node, socket: -1}
		if hasSock {
			r.k.socket = cell(sockCol)
			if s, err := strconv.Atoi(r.k.socket); err == nil && s >= 0 && s <= 1<<20 {
				r.socket = s
			}
		}
		if r.socket < 0 {
			t.SocketsKnown = false
		}
		if hasCore {
			r.k.core = cell(coreCol)
			if _, err := strconv.Atoi(r.k.core); err != nil {
				t.CoresKnown = false
			} else if c, ok := core[r.k]; !ok || cpu < c {
				core[r.k] = cpu
			}
		} else {
			t.CoresKnown = false
		}
		rows = append(rows, r)
		byNode[node] = append(byNode[node], cpu)
		online = append(online, cpu)
	}
	if len(rows) == 0 {
		return nil, true, fmt.Errorf("%w: %s header without CPU rows", ErrNoTopology, format)
	}
	if skipped > 0 {
		t.warn("%s: %d lines before the first CPU row were skipped", format, skipped)
	}
	for id, cpus := range byNode {
		if len(t.Nodes) == maxNodes {
			return nil, true, fmt.Errorf("%s: more than %d nodes", format, maxNodes)
		}
		t.Nodes = append(t.Nodes, Node{ID: id, CPUs: newSet(cpus...)})
	}
	for _, r := range rows {
		c := CPU{ID: r.cpu, Core: -1, Socket: r.socket, NUMA: r.node}
		if t.CoresKnown {
			c.Core = core[r.k]
		}
		t.CPUs = append(t.CPUs, c)
	}
	if t.CoresKnown {
		t.warn("%s's CORE and SOCKET are lscpu's logical indices: sibling threads are taken from them, socket numbers may differ from sysfs physical_package_id", format)
	} else {
		t.warn("%s does not give every CPU's core: the core layout is unknown", format)
	}
	t.warn("no distance table: prefer-closest-numa-nodes cannot be evaluated")
	t.Online, t.OnlineKnown = newSet(online...), true
	if err := t.finish(); err != nil {
		return nil, true, err
	}
	return t, true, nil
}

func contains(f []string, s string) bool {
	for _, x := range f {
		if x == s {
			return true
		}
	}
	return false
}
