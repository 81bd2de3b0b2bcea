package diagnose

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/numascope/numascope/internal/words"

	"github.com/numascope/numascope/internal/nrt"
	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// maxNRTLines bounds the disagreements one finding lists.
const maxNRTLines = 20

// nrtZones returns the object's NUMA zones by node id.
func nrtZones(o *nrt.Object) map[int]*nrt.Zone {
	out := map[int]*nrt.Zone{}
	for i := range o.Zones {
		z := &o.Zones[i]
		if z.Type != "Node" {
			continue
		}
		if id, ok := nrt.NodeID(z.Name); ok {
			out[id] = z
		}
	}
	return out
}

// nrtResource returns a zone's resource, or nil.
func nrtResource(z *nrt.Zone, name string) *nrt.Resource {
	for i := range z.Resources {
		if z.Resources[i].Name == name {
			return &z.Resources[i]
		}
	}
	return nil
}

// nrtValue reads a quantity in base units (CPUs, bytes, devices); ok is
// false when it is absent or not a quantity.
func nrtValue(q nrt.Quantity) (int64, bool) {
	if q == "" {
		return 0, false
	}
	v, err := topomgr.ParseQuantity(string(q))
	if err != nil {
		return 0, false
	}
	return v.Value(), true
}

// nrtCompare collects the disagreements of one NRT object with the node.
type nrtCompare struct {
	d     *diagnosis
	o     *nrt.Object
	file  string
	zones map[int]*nrt.Zone
	lines []string
	refs  []Ref
	// over is set when the NRT shows more free than the kubelet has (the
	// scheduler sends pods the kubelet rejects), under when less.
	over, under, policy bool
}

func (c *nrtCompare) add(path, quote, line string) {
	if len(c.lines) == maxNRTLines {
		c.lines = append(c.lines, "(more left out)")
	}
	if len(c.lines) > maxNRTLines {
		return
	}
	c.lines = append(c.lines, line)
	r := Ref{File: c.file, Path: path, Quote: quote}
	if n := len(c.refs); n == 0 || c.refs[n-1] != r {
		c.refs = append(c.refs, r)
	}
}

// zonePath is the JSON pointer of a zone's resource's available field.
func (c *nrtCompare) zonePath(node int, res string) string {
	for i := range c.o.Zones {
		if c.o.Zones[i].Name == fmt.Sprintf("node-%d", node) {
			for j := range c.o.Zones[i].Resources {
				if c.o.Zones[i].Resources[j].Name == res {
					return fmt.Sprintf("/zones/%d/resources/%d/available", i, j)
				}
			}
			return fmt.Sprintf("/zones/%d", i)
		}
	}
	return "/zones"
}

// amount compares the NRT's available figure for res on node with want.
func (c *nrtCompare) amount(node int, res string, want int64, source string, unit func(int64) string) {
	z := c.zones[node]
	if z == nil {
		return
	}
	r := nrtResource(z, res)
	if r == nil {
		return
	}
	got, ok := nrtValue(r.Available)
	if !ok || got == want {
		return
	}
	if got > want {
		c.over = true
	} else {
		c.under = true
	}
	c.add(c.zonePath(node, res), string(r.Available),
		fmt.Sprintf("NUMA node %d %s: NodeResourceTopology says %s available, %s leaves %s", node, res, unit(got), source, unit(want)))
}

func cpuUnit(n int64) string { return fmt.Sprintf("%d CPUs", n) }
func countUnit(n int64) string {
	return fmt.Sprintf("%d", n)
}
func byteUnit(n int64) string {
	switch {
	case n != 0 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGi", n>>30)
	case n != 0 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMi", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// nrtVsKubelet raises NRTDisagreesWithKubelet when the NodeResourceTopology
// given as evidence disagrees with the state files, PodResources or the
// kubelet configuration. Figures it cannot compute (a CPU whose NUMA node
// the machine topology does not give, a resource the NRT does not list)
// are left out, never guessed.
func (d *diagnosis) nrtVsKubelet() {
	o, oName := d.ev.NRT()
	if o == nil {
		return
	}
	c := &nrtCompare{d: d, o: o, file: oName, zones: nrtZones(o)}
	if len(c.zones) == 0 {
		return
	}
	c.comparePolicy()
	numa := d.cpuNUMA()
	c.compareCPUs(numa)
	c.compareMemory()
	c.compareDevices()
	c.comparePodResourcesCPUs(numa)
	if len(c.lines) == 0 {
		return
	}
	name := o.Metadata.Name
	if name == "" {
		name = c.file
	}
	var why []string
	if c.over {
		why = append(why, "where NodeResourceTopology shows more free than the kubelet has, a topology-aware scheduler places pods the kubelet then rejects with TopologyAffinityError")
	}
	if c.under {
		why = append(why, "where it shows less, the scheduler keeps pods away from NUMA nodes that would fit them")
	}
	if c.policy {
		why = append(why, "with the wrong policy attributes the scheduler's NUMA filter (NodeResourceTopologyMatch) simulates another policy or scope than the kubelet's")
	}
	remedy := "The kubelet's own files and PodResources are the node's truth; the NodeResourceTopology is the exporter's copy, and the stale side. " +
		"Check that the exporter (resource-topology-exporter or NFD's nfd-topology-updater) runs on this node and updates the object: " +
		"its --kubelet-state-dir must be the kubelet's root directory (usually /var/lib/kubelet) so it notices state changes, its --podresources-socket must be the kubelet's pod-resources socket, " +
		"and its refresh interval (--sleep-interval) bounds how stale the object can be. Restart the exporter to rewrite the object now. " +
		"If the evidence was gathered at different times, gather the NodeResourceTopology and the node's files together before concluding."
	if c.policy {
		remedy += " The exporter reads the kubelet configuration when it starts: after changing topologyManagerPolicy or topologyManagerScope, restart it (and check its --kubelet-config-file)."
	}
	d.add(Finding{
		Code:     CodeNRTDisagrees,
		Severity: statefile.SeverityWarning,
		Title:    fmt.Sprintf("NodeResourceTopology %s disagrees with the kubelet (%s)", words.Clip(name, 63), words.Count(min(len(c.lines), maxNRTLines), "difference")),
		Explanation: "What topology-aware schedulers see is not what the kubelet holds. " + strings.Join(c.lines, ". ") +
			". " + upperFirst(strings.Join(why, "; ")) + ".",
		Evidence: c.refs,
		Remedy:   remedy,
	})
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// comparePolicy compares the policy attributes (or the v1alpha1
// topologyPolicies) with the kubelet's topology manager policy and scope.
func (c *nrtCompare) comparePolicy() {
	policy, scope, ref := c.d.policy()
	if ref == nil || policy == "" {
		return
	}
	var nPol, nScope, polPath, scopePath string
	for i, a := range c.o.Attributes {
		switch a.Name {
		case "topologyManagerPolicy":
			nPol, polPath = a.Value, fmt.Sprintf("/attributes/%d/value", i)
		case "topologyManagerScope":
			nScope, scopePath = a.Value, fmt.Sprintf("/attributes/%d/value", i)
		}
	}
	if nPol == "" && nScope == "" && len(c.o.TopologyPolicies) > 0 {
		p, s, ok := nrt.LegacyPolicy(c.o.TopologyPolicies[0])
		if !ok {
			return
		}
		nPol, nScope, polPath, scopePath = p, s, "/topologyPolicies/0", "/topologyPolicies/0"
	}
	// from names where the kubelet's value comes from; a configuration
	// that does not set the field means the kubelet's default.
	from := func(field string) string {
		if cfg := c.d.ev.Config; cfg != nil && !slices.Contains(cfg.Set, field) {
			return ref.File + " does not set it: the default"
		}
		return ref.File
	}
	if nPol != "" && nPol != policy {
		c.policy = true
		c.add(polPath, nPol, fmt.Sprintf("NodeResourceTopology says topologyManagerPolicy %s, the kubelet's is %s (%s)", words.Clip(nPol, 63), policy, from("topologyManagerPolicy")))
	}
	if nScope != "" && scope != "" && nScope != scope {
		c.policy = true
		c.add(scopePath, nScope, fmt.Sprintf("NodeResourceTopology says topologyManagerScope %s, the kubelet's is %s (%s)", words.Clip(nScope, 63), scope, from("topologyManagerScope")))
	}
}

// cpuNUMA returns the NUMA node of a CPU id, or nil when the machine
// topology does not name CPUs.
func (d *diagnosis) cpuNUMA() func(int) int {
	m := d.ev.Machine
	if m == nil || m.CPUsUnknown || len(m.CPUs) == 0 {
		return nil
	}
	return m.NUMANodeOfCPU
}

// perNode counts ids by NUMA node; ok is false when one id's node is unknown.
func perNode(ids []int, numa func(int) int) (map[int]int64, bool) {
	out := map[int]int64{}
	for _, id := range ids {
		n := numa(id)
		if n < 0 {
			return nil, false
		}
		out[n]++
	}
	return out, true
}

// allocatableCPUs returns the allocatable CPUs per NUMA node: from
// PodResources' GetAllocatableResources when given, else the NRT's own
// allocatable figure (which the exporter reads from the same call, and
// which changes only when the kubelet restarts).
func (c *nrtCompare) allocatableCPUs(numa func(int) int) map[int]int64 {
	if pr := c.d.ev.PodResources; pr != nil && pr.Allocatable != nil && len(pr.Allocatable.CPUIDs) > 0 {
		if m, ok := perNode(pr.Allocatable.CPUIDs, numa); ok {
			return m
		}
		return nil
	}
	out := map[int]int64{}
	for id, z := range c.zones {
		if r := nrtResource(z, "cpu"); r != nil {
			if v, ok := nrtValue(r.Allocatable); ok {
				out[id] = v
			}
		}
	}
	return out
}

// compareCPUs compares each zone's available CPUs with the allocatable
// CPUs of that node minus the exclusive CPUs cpu_manager_state assigns there.
func (c *nrtCompare) compareCPUs(numa func(int) int) {
	if numa == nil {
		return
	}
	var st *statefile.CPUState
	for _, f := range c.d.ev.States {
		if f.Kind == statefile.KindCPU && f.CPU != nil {
			st = f.CPU
		}
	}
	if st == nil {
		return
	}
	seen := map[int]bool{}
	var ids []int
	addSet := func(s interface{ List() []int }) {
		for _, id := range s.List() {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	for _, cs := range st.Entries {
		for _, s := range cs {
			addSet(s)
		}
	}
	for _, s := range st.PodEntries {
		addSet(s)
	}
	excl, ok := perNode(ids, numa)
	if !ok {
		return
	}
	alloc := c.allocatableCPUs(numa)
	for _, node := range sortedNodes(c.zones) {
		a, ok := alloc[node]
		if !ok {
			continue
		}
		c.amount(node, "cpu", a-excl[node], fmt.Sprintf("the kubelet (%d allocatable, %d exclusive in cpu_manager_state)", a, excl[node]), cpuUnit)
	}
}

func sortedNodes(z map[int]*nrt.Zone) []int {
	out := make([]int, 0, len(z))
	for id := range z {
		out = append(out, id)
	}
	sort.Ints(out)
	return out
}

// compareMemory compares each zone's available memory and huge pages with
// memory_manager_state's free figures.
func (c *nrtCompare) compareMemory() {
	var st *statefile.MemoryState
	for _, f := range c.d.ev.States {
		if f.Kind == statefile.KindMemory && f.Memory != nil {
			st = f.Memory
		}
	}
	if st == nil || len(st.MachineState) == 0 {
		return
	}
	for _, node := range sortedNodes(c.zones) {
		ns := st.MachineState[node]
		if ns == nil {
			continue
		}
		types := make([]string, 0, len(ns.MemoryMap))
		for t := range ns.MemoryMap {
			types = append(types, t)
		}
		sort.Strings(types)
		for _, t := range types {
			if tb := ns.MemoryMap[t]; tb != nil && tb.Free <= 1<<62 {
				c.amount(node, t, int64(tb.Free), "memory_manager_state", byteUnit)
			}
		}
	}
}

// compareDevices compares each zone's available devices with PodResources:
// the allocatable devices of the node less those assigned to containers.
func (c *nrtCompare) compareDevices() {
	pr := c.d.ev.PodResources
	if pr == nil || pr.Allocatable == nil || len(pr.Allocatable.Devices) == 0 {
		return
	}
	type key struct {
		res  string
		node int
	}
	alloc := map[key]int64{}
	where := map[string]map[string]int{} // resource -> device -> node
	for _, d := range pr.Allocatable.Devices {
		if len(d.NUMANodes) != 1 {
			continue // no or several nodes: the exporter counts it elsewhere
		}
		for _, id := range d.DeviceIDs {
			alloc[key{d.ResourceName, d.NUMANodes[0]}]++
			if where[d.ResourceName] == nil {
				where[d.ResourceName] = map[string]int{}
			}
			where[d.ResourceName][id] = d.NUMANodes[0]
		}
	}
	used := map[key]int64{}
	for _, p := range pr.Pods {
		for _, ct := range p.Containers {
			for _, d := range ct.Devices {
				for _, id := range d.DeviceIDs {
					if n, ok := where[d.ResourceName][id]; ok {
						used[key{d.ResourceName, n}]++
					}
				}
			}
		}
	}
	keys := make([]key, 0, len(alloc))
	for k := range alloc {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].node != keys[j].node {
			return keys[i].node < keys[j].node
		}
		return keys[i].res < keys[j].res
	})
	for _, k := range keys {
		c.amount(k.node, k.res, alloc[k]-used[k], "PodResources", countUnit)
	}
}

// comparePodResourcesCPUs names the pods whose exclusive CPUs (as
// PodResources lists them) the NRT's accounting of a zone leaves out.
func (c *nrtCompare) comparePodResourcesCPUs(numa func(int) int) {
	pr := c.d.ev.PodResources
	if numa == nil || pr == nil {
		return
	}
	excl := map[int]int64{}
	pods := map[int][]string{}
	seen := map[int]bool{}
	for _, p := range pr.Pods {
		// The pod-level list overlaps the containers' by design: each CPU counts once.
		var ids []int
		for _, list := range append([][]int{p.CPUIDs}, containerCPUs(p.Containers)...) {
			for _, id := range list {
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
		n, ok := perNode(ids, numa)
		if !ok {
			return
		}
		for node, k := range n {
			excl[node] += k
			pods[node] = append(pods[node], fmt.Sprintf("%s/%s (%d)", p.Namespace, p.Name, k))
		}
	}
	for _, node := range sortedNodes(c.zones) {
		r := nrtResource(c.zones[node], "cpu")
		if r == nil || excl[node] == 0 {
			continue
		}
		a, ok1 := nrtValue(r.Allocatable)
		av, ok2 := nrtValue(r.Available)
		if !ok1 || !ok2 {
			continue
		}
		if counted := a - av; counted < excl[node] {
			c.over = true
			list := pods[node]
			if len(list) > 5 {
				list = append(list[:5:5], fmt.Sprintf("%d more", len(pods[node])-5))
			}
			c.add(c.zonePath(node, "cpu"), string(r.Available),
				fmt.Sprintf("NUMA node %d: PodResources shows %d exclusive CPUs in use (%s), NodeResourceTopology counts %d (allocatable %d, available %d)", node, excl[node], strings.Join(list, ", "), counted, a, av))
		}
	}
}

func containerCPUs(cs []podresources.ContainerResources) [][]int {
	out := make([][]int, 0, len(cs))
	for i := range cs {
		out = append(out, cs[i].CPUIDs)
	}
	return out
}
