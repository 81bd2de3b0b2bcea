package main

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/holdings"
	"github.com/numascope/numascope/internal/units"
	"github.com/numascope/numascope/internal/words"
	"github.com/numascope/numascope/statefile"
)

const (
	// maxRows is how many holders text and markdown list per NUMA node (or
	// per table, for what has no NUMA node); the rest is summed in one row.
	// -o wide and -o json list every holder.
	maxRows = 30
	// maxProblems is how many problems text and markdown list.
	maxProblems = 30
	// maxCell is the longest CPU or device list text and markdown print in
	// one cell; -o wide prints it whole.
	maxCell = 72
)

// human writes the text, wide or markdown report of one file.
func (r fileReport) human(p *printer, o *options) {
	defer p.end()
	if r.err != nil {
		msg := strings.TrimPrefix(r.err.Error(), r.display+": ")
		p.title("✗", r.display, "", "cannot be inspected — "+clip(msg, 2000))
		p.line("what to do: " + r.remedy)
		return
	}
	f := r.file
	meta := fmt.Sprintf("%s, %s", f.Kind, f.Format)
	if pol := policyOf(f); pol != "" {
		meta += ", policy " + pol
	}
	mark := "✓"
	switch {
	case !f.KubeletAccepts:
		mark = "✗"
	case errorCount(f) > 0:
		mark = "⚠" // the checkpoint is restored, but something in it is wrong (such as a machine state the memory manager refuses)
	}
	p.title(mark, r.display, meta, r.line.Verdict)
	if !f.KubeletAccepts && f.Reason != "" {
		p.line("kubelet: " + clip(f.Reason, 1000))
	}
	if r.isSample {
		p.line(`the embedded sample: the memory_manager_state shown on the upstream "Topology Management troubleshooting" page; give FILE... to inspect your own`)
	}
	c := f.Checksum
	showLayouts := o.verbose || (!c.Valid && !c.ZeroSkipped) || (c.Matched == "" && !c.ZeroSkipped)
	switch {
	case c.ZeroSkipped && strings.HasPrefix(c.Era, "checksum 0"):
		p.line(c.Era)
	case c.ZeroSkipped:
		p.line(fmt.Sprintf("checksum 0: not checked (%s)", c.Era))
	case c.Valid && c.Matched != "":
		p.line(fmt.Sprintf("checksum ok (layout %s)", c.Matched))
	}
	r.problems(p)
	if showLayouts {
		r.layouts(p)
	}
	if r.isSample && c.Matched == "" {
		sampleExplanation(p, c.Stored)
	}
	h := r.line.Holders
	if h == nil {
		return
	}
	if !f.KubeletAccepts && f.CPU != nil && f.CPU.PolicyName == "" && f.CPU.DefaultCPUSet.IsEmpty() && len(h.CPU.Holders) == 0 {
		// nothing of the file could be read as CPU state
		p.section("CPUs: none — the kubelet loads nothing from this file, and no CPU set in it could be read")
		return
	}
	if !f.KubeletAccepts {
		what := "the kubelet refuses to start with it"
		if f.OnReject == statefile.DiscardsData {
			what = "the kubelet discards it"
		}
		if p.md {
			p.line("_The content below is what inspect could read from the file; " + what + "._")
		} else {
			p.section("the content below is what inspect could read from the file; " + what + ".")
		}
	}
	switch {
	case f.Memory != nil:
		memoryHeld(p, h)
		memoryNodes(p, f.Memory.PolicyName, r.line.Groups)
	case h.CPU != nil:
		cpusHeld(p, h, o.machine != nil)
	case f.Device != nil:
		devicesHeld(p, h)
	case f.DRA != nil:
		claimsHeld(p, h)
	}
	for _, n := range h.Notes {
		if n == holdings.NoteCPUWithoutTopology && len(h.CPU.Holders) == 0 {
			continue // nothing exclusive to place
		}
		if n == holdings.NoteCPUWithoutTopology {
			n = "NUMA nodes: cpu_manager_state records CPU ids only; give --topology FILE|DIR (cAdvisor machine-info JSON or a copy of /sys) to place them"
		} else if n == holdings.NoteDRA {
			continue // said in the section's title
		}
		p.line("note: " + n)
	}
}

func (r fileReport) problems(p *printer) {
	ps := r.file.Problems
	if len(ps) == 0 {
		return
	}
	counts := map[statefile.Severity]int{}
	for _, pr := range ps {
		counts[pr.Severity]++
	}
	var parts []string
	for _, s := range []struct {
		sev       statefile.Severity
		one, many string
	}{{statefile.SeverityError, "error", "errors"}, {statefile.SeverityWarning, "warning", "warnings"}, {statefile.SeverityInfo, "info", "info"}} {
		if counts[s.sev] > 0 {
			parts = append(parts, words.Count(counts[s.sev], s.one, s.many))
		}
	}
	p.section("problems (" + strings.Join(parts, ", ") + "):")
	for i, pr := range ps {
		if i == maxProblems && !p.wide {
			p.sub(fmt.Sprintf("… %d more problems: -o wide or -o json lists them all", len(ps)-maxProblems))
			break
		}
		msg := strings.TrimPrefix(pr.Message, r.file.Name+": ")
		if pr.Path != "" {
			if p.md {
				msg += " (`" + pr.Path + "`)"
			} else {
				msg += " [" + pr.Path + "]"
			}
		}
		if !p.wide {
			msg = clip(msg, 2000)
		}
		p.item(string(pr.Severity), msg, pr.Remedy)
	}
	p.endList()
}

func (r fileReport) layouts(p *printer) {
	c := r.file.Checksum
	switch {
	case c.Matched != "":
		p.section(fmt.Sprintf("checksum %d matches layout %s (%s); layouts tried:", c.Stored, c.Matched, c.Era))
	case c.ZeroSkipped:
		p.section("checksum 0; layouts tried:")
	default:
		p.section(fmt.Sprintf("checksum %d matches no layout any kubelet computes; layouts tried:", c.Stored))
	}
	header := []string{"LAYOUT", "STORED", "COMPUTED", "MATCH"}
	if p.wide {
		header = append(header, "WRITTEN BY")
	}
	var rows [][]string
	for _, l := range c.Layouts {
		m := "no"
		if l.Matched {
			m = "yes"
		}
		row := []string{l.Name, fmt.Sprint(l.Stored), fmt.Sprint(l.Computed), m}
		if p.wide {
			row = append(row, l.Era)
		}
		rows = append(rows, row)
	}
	p.table(header, rows)
}

func sampleExplanation(p *printer, stored uint64) {
	renamed := "?"
	if g, err := statefile.Decode(bytes.ReplaceAll(sample, []byte(`"nodes"`), []byte(`"cells"`)), statefile.Options{Name: "renamed"}); err == nil {
		for _, l := range g.Checksum.Layouts {
			if l.Name == "v1" {
				renamed = fmt.Sprint(l.Computed)
			}
		}
	}
	p.section("Why the sample's checksum matches nothing:")
	text := fmt.Sprintf("the upstream page shows a file edited for the documentation. Its NUMA group key is \"nodes\", "+
		"but every kubelet writes and hashes \"cells\" and ignores \"nodes\", so the struct a kubelet hashes has no groups at all. "+
		"Even with \"nodes\" renamed back to \"cells\" the v1 layout computes %s, not %d, so the values on the page were changed "+
		"after a kubelet hashed them. A kubelet given this file refuses to start; files written by a kubelet match one of the layouts above.", renamed, stored)
	if p.md {
		p.line(text)
		return
	}
	for _, l := range wrap(text, 92) {
		p.sub(l)
	}
}

// wrap breaks s into lines of at most n bytes at spaces.
func wrap(s string, n int) []string {
	var lines []string
	var cur strings.Builder
	for _, w := range strings.Fields(s) {
		if cur.Len() > 0 && cur.Len()+1+len(w) > n {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(w)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// bytesText is a size in binary units, with the exact bytes in wide.
func (p *printer) bytesText(n uint64) string {
	if n > math.MaxInt64 {
		return fmt.Sprintf("%d bytes", n)
	}
	h := units.Bytes(int64(n))
	if p.wide && n >= 1024 {
		return fmt.Sprintf("%s (%d)", h, n)
	}
	return h
}

// cell clips a long list in text and markdown.
func (p *printer) cell(s string) string {
	if p.wide {
		return s
	}
	return clip(s, maxCell)
}

// cpus is a CPU list with its count: "2-5,10 (5)".
func (p *printer) cpus(l holdings.CPUList) string {
	if l.Count == 0 {
		return "none"
	}
	return fmt.Sprintf("%s (%d)", p.cell(l.List), l.Count)
}

// pod names a pod UID: shortened in text and markdown, whole in wide.
func (p *printer) pod(short map[string]string, uid string) string {
	if p.wide {
		return uid
	}
	if s, ok := short[uid]; ok {
		return s
	}
	return uid
}

// numaGroup is the rows of one NUMA key.
type numaGroup struct {
	key  []int
	rows []int // indices into the items
}

// byNUMA groups item indices by NUMA key (ascending; no NUMA node last),
// keeping the items' order within a group.
func byNUMA(n int, key func(i int) []int) []numaGroup {
	index := map[string]int{}
	var groups []numaGroup
	var buf []byte
	last, lastG := []int(nil), -1 // neighbours mostly share a key
	for i := range n {
		k := key(i)
		g := lastG
		if g < 0 || !slices.Equal(k, last) {
			buf = buf[:0]
			for j, v := range k {
				if j > 0 {
					buf = append(buf, ' ')
				}
				buf = strconv.AppendInt(buf, int64(v), 10)
			}
			var ok bool
			if g, ok = index[string(buf)]; !ok {
				g = len(groups)
				index[string(buf)] = g
				groups = append(groups, numaGroup{key: k})
			}
			last, lastG = k, g
		}
		groups[g].rows = append(groups[g].rows, i)
	}
	rank := func(v int) int {
		if v < 0 {
			return math.MaxInt
		}
		return v
	}
	sort.SliceStable(groups, func(a, b int) bool {
		x, y := groups[a].key, groups[b].key
		if len(x) == 0 || len(y) == 0 {
			return len(x) > len(y)
		}
		for i := 0; i < len(x) && i < len(y); i++ {
			if x[i] != y[i] {
				return rank(x[i]) < rank(y[i])
			}
		}
		return len(x) < len(y)
	})
	return groups
}

// capped returns the rows of a group to print and how many are left out.
func (p *printer) capped(rows []int) (shown, omitted []int) {
	if p.wide || len(rows) <= maxRows {
		return rows, nil
	}
	return rows[:maxRows], rows[maxRows:]
}

func memoryHeld(p *printer, h *holdings.Holdings) {
	if len(h.Memory) == 0 {
		p.section("memory held: none (no container has memory assigned by the memory manager)")
		return
	}
	pods, containers, podLevel := map[string]bool{}, map[[2]string]bool{}, map[string]bool{}
	var uids []string
	for _, b := range h.Memory {
		if !pods[b.PodUID] {
			uids = append(uids, b.PodUID)
			pods[b.PodUID] = true
		}
		if b.PodLevel {
			podLevel[b.PodUID] = true
		} else {
			containers[[2]string{b.PodUID, b.Container}] = true
		}
	}
	// a pod with pod-level blocks holds them, its containers' blocks are
	// carved from them: the kubelet accounts the pod's blocks only
	byType := map[string]uint64{}
	for _, b := range h.Memory {
		if b.PodLevel == podLevel[b.PodUID] {
			byType[b.Type] = satAdd(byType[b.Type], b.Size)
		}
	}
	var totals []string
	for _, t := range sortedKeys(byType) {
		totals = append(totals, p.bytesText(byType[t])+" "+t)
	}
	p.section(fmt.Sprintf("memory held (%s in %s: %s):", words.Count(len(containers), "container", "containers"), words.Count(len(pods), "pod", "pods"), strings.Join(totals, ", ")))
	short := holdings.Shorten(uids)
	header := []string{"NUMA", "POD", "CONTAINER", "TYPE", "SIZE"}
	if p.wide {
		header[1] = "POD UID"
	}
	var rows [][]string
	for _, g := range byNUMA(len(h.Memory), func(i int) []int { return h.Memory[i].NUMA }) {
		shown, omitted := p.capped(g.rows)
		for _, i := range shown {
			b := h.Memory[i]
			c := b.Container
			if b.PodLevel {
				c = "(pod-level)"
			}
			rows = append(rows, []string{holdings.Nodes(b.NUMA), p.pod(short, b.PodUID), c, b.Type, p.bytesText(b.Size)})
		}
		if len(omitted) > 0 {
			var sum uint64
			for _, i := range omitted {
				sum = satAdd(sum, h.Memory[i].Size)
			}
			rows = append(rows, []string{holdings.Nodes(g.key), fmt.Sprintf("… %d more blocks", len(omitted)), "(-o wide lists them)", "", p.bytesText(sum)})
		}
	}
	p.table(header, rows)
}

func memoryNodes(p *printer, policy string, groups []statefile.Group) {
	if len(groups) == 0 {
		return
	}
	// a resource whose every field is zero on every node is not a row
	zero := map[string]bool{}
	for _, g := range groups {
		for _, r := range g.Resources {
			if _, seen := zero[r.Name]; !seen {
				zero[r.Name] = true
			}
			for _, n := range r.PerNode {
				if n.Table != (statefile.MemoryTable{}) {
					zero[r.Name] = false
				}
			}
		}
	}
	p.section(fmt.Sprintf("memory per NUMA node (the memory manager's accounting, policy %s):", policy))
	header := []string{"GROUP", "NODE", "RESOURCE", "TOTAL", "SYSTEM RESERVED", "ALLOCATABLE", "RESERVED", "FREE"}
	var rows [][]string
	row := func(group, node, res string, t statefile.MemoryTable) []string {
		return []string{group, node, res, p.bytesText(t.TotalMemSize), p.bytesText(t.SystemReserved), p.bytesText(t.Allocatable), p.bytesText(t.Reserved), p.bytesText(t.Free)}
	}
	for _, g := range groups {
		label := holdings.Nodes(g.Nodes)
		for _, r := range g.Resources {
			if zero[r.Name] {
				continue
			}
			for _, n := range r.PerNode {
				rows = append(rows, row(label, fmt.Sprint(n.Node), r.Name, n.Table))
			}
			if len(r.PerNode) > 1 {
				rows = append(rows, row(label, "sum", r.Name, r.Sum))
			}
		}
	}
	if len(rows) > 0 {
		p.table(header, rows)
	}
	var empty []string
	for _, name := range sortedKeys(zero) {
		if zero[name] {
			empty = append(empty, name)
		}
	}
	if len(empty) > 0 {
		p.sub(fmt.Sprintf("%s: 0 on every node (omitted: the machine has no huge pages of %s)", strings.Join(empty, ", "), thisThese(len(empty))))
	}
}

func cpusHeld(p *printer, h *holdings.Holdings, placed bool) {
	c := h.CPU
	pods := map[string]bool{}
	containers := 0
	var ids []string
	for _, hd := range c.Holders {
		if hd.ContainerID != "" {
			ids = append(ids, hd.ContainerID)
			containers++
			continue
		}
		if !pods[hd.PodUID] {
			ids = append(ids, hd.PodUID)
		}
		pods[hd.PodUID] = true
		if !hd.PodLevel {
			containers++
		}
	}
	p.section(fmt.Sprintf("CPUs (policy %s):", c.Policy))
	p.sub("shared     " + p.cpus(c.Shared))
	if len(c.Holders) == 0 {
		p.sub("exclusive  none (no container holds exclusive CPUs)")
		return
	}
	held := words.Count(containers, "container", "containers")
	if len(pods) > 0 {
		held += " in " + words.Count(len(pods), "pod", "pods")
	}
	p.sub("exclusive  " + p.cpus(c.Exclusive) + " held by " + held)
	short := holdings.Shorten(ids)
	hasBaseline := false
	for _, hd := range c.Holders {
		hasBaseline = hasBaseline || hd.Baseline != nil
	}
	who := func(hd holdings.CPUHolder) (string, string) {
		switch {
		case hd.ContainerID != "":
			return "-", p.pod(short, hd.ContainerID)
		case hd.PodLevel:
			return p.pod(short, hd.PodUID), "(pod-level)"
		}
		return p.pod(short, hd.PodUID), hd.Container
	}
	header := []string{"POD", "CONTAINER", "CPUS"}
	if p.wide {
		header[0] = "POD UID"
		if hasBaseline {
			header = append(header, "BASELINE (at admission)")
		}
	}
	var rows [][]string
	baseline := func(hd holdings.CPUHolder) []string {
		if !p.wide || !hasBaseline {
			return nil
		}
		if hd.Baseline == nil {
			return []string{"-"}
		}
		return []string{p.cpus(*hd.Baseline)}
	}
	if !placed || c.Nodes == nil {
		shown, omitted := p.capped(seq(len(c.Holders)))
		for _, i := range shown {
			hd := c.Holders[i]
			pod, ctr := who(hd)
			rows = append(rows, append([]string{pod, ctr, p.cpus(hd.CPUList)}, baseline(hd)...))
		}
		if len(omitted) > 0 {
			rows = append(rows, []string{fmt.Sprintf("… %d more", len(omitted)), "(-o wide lists them)", ""})
		}
		p.table(header, rows)
		return
	}
	// with a topology: one row per holder and NUMA node
	type part struct {
		holder int
		numa   holdings.NodeCPUs
	}
	var parts []part
	for i, hd := range c.Holders {
		for _, n := range hd.NUMA {
			parts = append(parts, part{i, n})
		}
	}
	header = append([]string{"NUMA"}, header...)
	for _, g := range byNUMA(len(parts), func(i int) []int { return []int{parts[i].numa.Node} }) {
		shown, omitted := p.capped(g.rows)
		for _, i := range shown {
			hd := c.Holders[parts[i].holder]
			pod, ctr := who(hd)
			rows = append(rows, append([]string{holdings.Nodes(g.key), pod, ctr, p.cpus(parts[i].numa.CPUList)}, baseline(hd)...))
		}
		if len(omitted) > 0 {
			n := 0
			for _, i := range omitted {
				n += parts[i].numa.Count
			}
			rows = append(rows, []string{holdings.Nodes(g.key), fmt.Sprintf("… %d more", len(omitted)), "(-o wide lists them)", words.Count(n, "CPU", "CPUs")})
		}
	}
	p.table(header, rows)
	p.section(fmt.Sprintf("CPUs per NUMA node (topology %s):", c.Topology))
	var nrows [][]string
	for _, n := range c.Nodes {
		nrows = append(nrows, []string{fmt.Sprint(n.Node), p.cpus(n.CPUs), p.cpus(n.Exclusive), p.cpus(n.Shared)})
	}
	if c.NotInTopology != nil {
		nrows = append(nrows, []string{"none", p.cpus(*c.NotInTopology) + " not in the topology", "", ""})
	}
	p.table([]string{"NUMA", "CPUS", "EXCLUSIVE", "SHARED"}, nrows)
}

func devicesHeld(p *printer, h *holdings.Holdings) {
	if len(h.Devices) == 0 {
		p.section("devices held: none (no container holds a device plugin's devices)")
	} else {
		pods, containers, resources := map[string]bool{}, map[string]bool{}, map[string]bool{}
		var uids []string
		devices := 0
		for _, a := range h.Devices {
			if !pods[a.PodUID] {
				uids = append(uids, a.PodUID)
			}
			pods[a.PodUID] = true
			containers[a.PodUID+"/"+a.Container] = true
			resources[a.Resource] = true
			devices += len(a.Devices)
		}
		p.section(fmt.Sprintf("devices held (%s of %s, by %s in %s):", words.Count(devices, "device", "devices"), words.Count(len(resources), "resource", "resources"),
			words.Count(len(containers), "container", "containers"), words.Count(len(pods), "pod", "pods")))
		short := holdings.Shorten(uids)
		// one row per allocation and NUMA key: a device listed under several
		// nodes is one row of that set of nodes
		type part struct {
			alloc int
			numa  []int
			ids   []string
		}
		var parts []part
		noTopology := false
		for i, a := range h.Devices {
			if len(a.Devices) == 0 {
				parts = append(parts, part{alloc: i})
				continue
			}
			index := map[string]int{}
			for _, d := range a.Devices {
				k := fmt.Sprint(d.NUMA)
				j, ok := index[k]
				if !ok {
					j = len(parts)
					index[k] = j
					parts = append(parts, part{alloc: i, numa: d.NUMA})
				}
				parts[j].ids = append(parts[j].ids, d.ID)
				noTopology = noTopology || (len(d.NUMA) == 1 && d.NUMA[0] == holdings.NoNUMA)
			}
		}
		header := []string{"NUMA", "POD", "CONTAINER", "RESOURCE", "DEVICES"}
		if p.wide {
			header[1] = "POD UID"
		}
		var rows [][]string
		for _, g := range byNUMA(len(parts), func(i int) []int { return parts[i].numa }) {
			shown, omitted := p.capped(g.rows)
			for _, i := range shown {
				a := h.Devices[parts[i].alloc]
				ids := "(no device ids)"
				if len(parts[i].ids) > 0 {
					ids = fmt.Sprintf("%s (%d)", p.cell(strings.Join(parts[i].ids, ",")), len(parts[i].ids))
				}
				rows = append(rows, []string{holdings.Nodes(g.key), p.pod(short, a.PodUID), a.Container, a.Resource, ids})
			}
			if len(omitted) > 0 {
				n := 0
				for _, i := range omitted {
					n += len(parts[i].ids)
				}
				rows = append(rows, []string{holdings.Nodes(g.key), fmt.Sprintf("… %d more", len(omitted)), "(-o wide lists them)", "", words.Count(n, "device", "devices")})
			}
		}
		p.table(header, rows)
		if noTopology {
			p.sub("NUMA none: the device plugin reported no NUMA node for the device (the checkpoint's -1)")
		}
	}
	if len(h.Registered) == 0 {
		return
	}
	p.section("devices registered when the file was written (healthy):")
	var rows [][]string
	for i, r := range h.Registered {
		if i == maxRows && !p.wide {
			rows = append(rows, []string{fmt.Sprintf("… %d more resources", len(h.Registered)-maxRows), "", "", "(-o wide lists them)"})
			break
		}
		rows = append(rows, []string{r.Resource, fmt.Sprint(len(r.Devices)), fmt.Sprint(r.Allocated), p.cell(strings.Join(r.Devices, ","))})
	}
	p.table([]string{"RESOURCE", "REGISTERED", "ALLOCATED", "DEVICES"}, rows)
}

func claimsHeld(p *printer, h *holdings.Holdings) {
	if len(h.Claims) == 0 {
		p.section("DRA claims: none prepared")
		return
	}
	pods := map[string]bool{}
	var uids []string
	for _, c := range h.Claims {
		for _, u := range c.PodUIDs {
			if !pods[u] {
				uids = append(uids, u)
			}
			pods[u] = true
		}
	}
	p.section(fmt.Sprintf("DRA claims (%s for %s; dra_manager_state records no NUMA node: where a device sits is its driver's to say):",
		words.Count(len(h.Claims), "claim", "claims"), words.Count(len(pods), "pod", "pods")))
	short := holdings.Shorten(uids)
	header := []string{"CLAIM", "PODS", "DRIVER", "DEVICES"}
	if p.wide {
		header = []string{"CLAIM", "CLAIM UID", "POD UIDS", "DRIVER", "DEVICES"}
	}
	var rows [][]string
	n := 0
	for ci, c := range h.Claims {
		podList := make([]string, len(c.PodUIDs))
		for i, u := range c.PodUIDs {
			podList[i] = p.pod(short, u)
		}
		name := c.Namespace + "/" + c.Name
		drivers := c.Drivers
		if len(drivers) == 0 {
			drivers = []holdings.ClaimDriver{{Driver: "-"}}
		}
		for _, d := range drivers {
			if n == maxRows && !p.wide {
				rows = append(rows, []string{fmt.Sprintf("… %d more claims", len(h.Claims)-ci), "(-o wide lists them)", "", ""})
				p.table(header, rows)
				return
			}
			n++
			var devs []string
			for _, dv := range d.Devices {
				s := dv.Pool + "/" + dv.Device
				if p.wide && dv.ShareID != "" {
					s += " (share " + dv.ShareID + ")"
				}
				devs = append(devs, s)
			}
			devs = append(devs, d.CDIDevices...)
			dl := "-"
			if len(devs) > 0 {
				dl = p.cell(strings.Join(devs, ","))
			}
			row := []string{name, p.cell(strings.Join(podList, ",")), d.Driver, dl}
			if p.wide {
				row = []string{name, c.UID, strings.Join(podList, ","), d.Driver, dl}
			}
			rows = append(rows, row)
		}
	}
	p.table(header, rows)
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func satAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

func thisThese(n int) string {
	if n == 1 {
		return "this size"
	}
	return "these sizes"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
