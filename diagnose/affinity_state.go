package diagnose

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/internal/units"
	"github.com/numascope/numascope/internal/words"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
	"k8s.io/utils/cpuset"
)

// stateRows builds the requested-against-free table from the state files.
// It returns nil when the state says nothing about the requested resources.
func (d *diagnosis) stateRows(pod *topomgr.Pod, container string) ([]ResourceRow, []string) {
	if pod == nil {
		return nil, nil
	}
	var rows []ResourceRow
	var notes []string
	guaranteed := pod.QOSClass == "Guaranteed"
	reqs := map[string]topomgr.Quantity{}
	for _, r := range requestedResources(pod, container) {
		reqs[r] = effectiveRequest(pod, container, r)
	}
	// CPUs.
	if q, ok := reqs["cpu"]; ok && guaranteed && q.IsInteger() && !q.IsZero() {
		if f := d.ev.State(statefile.KindCPU); f != nil && f.CPU != nil && f.CPU.PolicyName == "static" && d.ev.Machine != nil {
			reserved := cpuset.New()
			if c := d.ev.Config; c != nil && c.ReservedSystemCPUs != "" {
				if r, err := cpulist.Parse(c.ReservedSystemCPUs); err == nil {
					reserved = r
				}
			}
			for _, n := range d.ev.Machine.Nodes {
				nodeCPUs := d.ev.Machine.NodeCPUs(n.ID)
				free := f.CPU.DefaultCPUSet.Intersection(nodeCPUs).Difference(reserved)
				rows = append(rows, ResourceRow{Resource: "cpu", NUMANodes: []int{n.ID}, Requested: q.String(), Free: fmt.Sprint(free.Size()),
					Fits: int64(free.Size()) >= q.Value(), Source: "state", free: int64(free.Size()), req: q.Value(), known: true})
			}
		}
	}
	// Memory and hugepages.
	if f := d.ev.State(statefile.KindMemory); f != nil && f.Memory != nil && f.Memory.PolicyName == "Static" && guaranteed {
		groups := f.Memory.Groups()
		for _, res := range slices.Sorted(maps.Keys(reqs)) {
			if res != "memory" && !strings.HasPrefix(res, "hugepages-") {
				continue
			}
			q := reqs[res]
			for _, g := range groups {
				for _, gr := range g.Resources {
					if gr.Name != res {
						continue
					}
					if len(g.Nodes) == 1 {
						rows = append(rows, ResourceRow{Resource: res, NUMANodes: g.Nodes, Requested: formatQuantity(res, q), Free: units.Quantity(int64(gr.Sum.Free)),
							Fits: int64(gr.Sum.Free) >= q.Value(), Source: "state", free: int64(gr.Sum.Free), req: q.Value(), known: true})
						continue
					}
					for _, nr := range gr.PerNode {
						rows = append(rows, ResourceRow{Resource: res, NUMANodes: []int{nr.Node}, Requested: formatQuantity(res, q), Free: units.Quantity(int64(nr.Table.Free)),
							Fits: false, Source: "state", Note: fmt.Sprintf("in group %s: usable only as the whole group", words.Ints(g.Nodes)),
							free: int64(nr.Table.Free), req: q.Value(), known: true})
					}
					rows = append(rows, ResourceRow{Resource: res, NUMANodes: g.Nodes, Requested: formatQuantity(res, q), Free: units.Quantity(int64(gr.Sum.Free)),
						Fits: int64(gr.Sum.Free) >= q.Value(), Source: "state", Note: "memory group"})
					notes = append(notes, fmt.Sprintf("NUMA nodes %s form a memory group: a container's %s already spans them, so the memory manager lets them be used only together, never one by one. "+
						"The group has %s of %s free (allocatable %s, system-reserved %s).",
						words.Ints(g.Nodes), res, units.Quantity(int64(gr.Sum.Free)), res, units.Quantity(int64(gr.Sum.Allocatable)), units.Quantity(int64(gr.Sum.SystemReserved))))
				}
			}
		}
	}
	// Devices.
	if f := d.ev.State(statefile.KindDevice); f != nil && f.Device != nil && d.ev.PodResources != nil && d.ev.PodResources.Allocatable != nil {
		used := map[string]bool{}
		for _, e := range f.Device.PodDeviceEntries {
			for _, ids := range e.DeviceIDs {
				for _, id := range ids {
					used[e.ResourceName+"\x00"+id] = true
				}
			}
		}
		for _, res := range slices.Sorted(maps.Keys(reqs)) {
			if !strings.Contains(res, "/") {
				continue
			}
			free := map[int]int{}
			var nodes []int
			for _, dev := range d.ev.PodResources.Allocatable.Devices {
				if dev.ResourceName != res {
					continue
				}
				for _, n := range dev.NUMANodes {
					if _, ok := free[n]; !ok {
						nodes = append(nodes, n)
						free[n] = 0
					}
					for _, id := range dev.DeviceIDs {
						if !used[res+"\x00"+id] {
							free[n]++
						}
					}
				}
			}
			sort.Ints(nodes)
			q := reqs[res]
			for _, n := range nodes {
				rows = append(rows, ResourceRow{Resource: res, NUMANodes: []int{n}, Requested: q.String(), Free: fmt.Sprint(free[n]), Fits: int64(free[n]) >= q.Value(), Source: "state",
					free: int64(free[n]), req: q.Value(), known: true})
			}
		}
	}
	return rows, notes
}

// requestedResources lists the resources the container (or the pod, in pod
// scope) requests, sorted.
func requestedResources(p *topomgr.Pod, container string) []string {
	set := map[string]bool{}
	for _, c := range append(append([]topomgr.Container{}, p.InitContainers...), p.Containers...) {
		if container != "" && c.Name != container {
			continue
		}
		for r := range c.Resources.Requests {
			set[r] = true
		}
		for r := range c.Resources.Limits {
			set[r] = true
		}
	}
	delete(set, "ephemeral-storage")
	return slices.Sorted(maps.Keys(set))
}

// classifyFromState decides the cause from the free table when no hint log
// is at hand: insufficient-resources when even all NUMA nodes together lack a
// resource, policy-constraint when every resource fits somewhere but not
// where the policy accepts.
func classifyFromState(policy string, rows []ResourceRow) (string, []string) {
	byRes := map[string][]ResourceRow{}
	for _, r := range rows {
		byRes[r.Resource] = append(byRes[r.Resource], r)
	}
	var short, wide []string
	for _, res := range slices.Sorted(maps.Keys(byRes)) {
		fits := false
		var total, req int64
		for _, r := range byRes[res] {
			fits = fits || r.Fits
			if len(r.NUMANodes) == 1 && r.known {
				total += r.free
				req = r.req
			}
		}
		switch {
		case fits:
		case total < req:
			short = append(short, fmt.Sprintf("%s (%d free on all NUMA nodes together, %d requested)", res, total, req))
		default:
			wide = append(wide, res)
		}
	}
	if len(short) > 0 {
		return CauseInsufficientResources, []string{"By the state files no NUMA node or set of NUMA nodes has enough free " + strings.Join(short, ", ") + "."}
	}
	if len(wide) > 0 {
		return CausePolicyConstraint, []string{fmt.Sprintf("By the state files %s is free only when several NUMA nodes are combined; %s accepts that placement only if it is the narrowest possible on an empty node, and single-numa-node never does.", strings.Join(wide, ", "), words.Or(policy, "the policy"))}
	}
	return CausePolicyConstraint, []string{"By the state files every resource fits on some NUMA node, but not all of them on the same one."}
}

// simulateFromState computes the hints from the state files and admits the
// pod on numascope's Topology Manager; it fills the analysis and returns the
// explanation when that worked.
func (d *diagnosis) simulateFromState(r *rejection, a *AffinityAnalysis) ([]string, bool) {
	adm, err := d.simulateAdmission(r.spec, a.Policy, words.Or(a.Scope, topomgr.DefaultTopologyManagerScope))
	if err != nil {
		return []string{fmt.Sprintf("numascope could not model the node's Topology Manager: %v.", err)}, false
	}
	if adm == nil || len(adm.Steps) == 0 {
		return nil, false
	}
	step := adm.Steps[len(adm.Steps)-1]
	for _, s := range adm.Steps {
		if s.Merge != nil && !s.Merge.Admit {
			step = s
			break
		}
	}
	c := fromTopomgr(step)
	a.SimulatedHints = c.Providers
	a.SimulatedBestHint = c.BestHint
	admit := adm.Admit
	a.SimulatedAdmit = &admit
	if step.Container != "" {
		a.Container = step.Container
	}
	var why []string
	if adm.Admit {
		why = append(why, "With the hints numascope computes from the state files the pod would be admitted now: resources were freed since the rejection, or the evidence is older or newer than the rejection.")
		return why, true
	}
	cause, onEmpty, w := classifyAffinity(a.Policy, c)
	a.Cause, a.AdmissibleOnEmptyNode = cause, onEmpty
	why = append(why, "No hint log covers this pod, so numascope computed the hints the device, CPU and memory managers would give from the state files and merged them as the kubelet does ("+hintText(c.BestHint)+", rejected).")
	why = append(why, w...)
	for _, n := range adm.Notes {
		why = append(why, "Simulation note: "+strings.TrimSuffix(n, ".")+".")
	}
	return why, true
}

// compareWithState recomputes the failing container's hints from the state
// files and says whether they match the logged ones.
func (d *diagnosis) compareWithState(r *rejection, a *AffinityAnalysis, failing *evidence.ContainerAdmission) []string {
	adm, err := d.simulateAdmission(r.spec, a.Policy, words.Or(a.Scope, topomgr.DefaultTopologyManagerScope))
	if err != nil || adm == nil {
		return nil
	}
	for _, step := range adm.Steps {
		if step.Container != failing.Container {
			continue
		}
		c := fromTopomgr(step)
		a.SimulatedHints = c.Providers
		var diffs []string
		for _, sp := range c.Providers {
			for _, lp := range failing.Providers {
				if lp.Provider != sp.Provider {
					continue
				}
				if got, logged := providerText(sp), providerText(lp); got != logged {
					diffs = append(diffs, fmt.Sprintf("%s: %s now, %s in the log", sp.Provider, got, logged))
				}
			}
		}
		if len(diffs) == 0 {
			return []string{"The hints numascope computes from the state files are the ones the kubelet logged: the state has not changed since the rejection."}
		}
		return []string{"The hints numascope computes from the state files differ from the logged ones (" + strings.Join(diffs, "; ") + "): the node's state changed since the rejection, so a new attempt may behave differently."}
	}
	return nil
}
