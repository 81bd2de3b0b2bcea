package diagnose

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/units"
	"github.com/numascope/numascope/topomgr"

	"github.com/numascope/numascope/internal/words"
	"github.com/numascope/numascope/statefile"
)

const rejectedNote = "A pod rejected at admission stays Failed: the scheduler does not retry it, and a controller that recreates it may land it on the same node and fail the same way again."

func (d *diagnosis) topologyAffinity(r *rejection) {
	policy, scope, pref := d.policy()
	a := &AffinityAnalysis{Policy: policy, Scope: scope, Cause: CauseUnknown}
	f := Finding{Code: CodeTopologyAffinityError, Severity: statefile.SeverityError, Pod: r.pod, Evidence: append([]Ref{}, r.refs...), TopologyAffinityError: a,
		Title: fmt.Sprintf("Pod %s was rejected with TopologyAffinityError", r.pod)}
	if pref != nil {
		f.Evidence = append(f.Evidence, *pref)
	}
	var failing *evidence.ContainerAdmission
	if r.attempt != nil {
		if r.attempt.Scope == "pod" {
			a.Scope = "pod"
		}
		for i := range r.attempt.Containers {
			c := &r.attempt.Containers[i]
			if c.BestHint != nil && !c.Aligned {
				failing = c
			}
		}
		if failing == nil && len(r.attempt.Containers) > 0 {
			failing = &r.attempt.Containers[len(r.attempt.Containers)-1]
		}
	}
	inferred := false
	if failing != nil {
		a.Container = failing.Container
		a.LoggedHints = failing.Providers
		a.LoggedBestHint = failing.BestHint
		for _, p := range failing.Providers {
			f.Evidence = append(f.Evidence, Ref{File: r.log.Name, Line: p.Line, Quote: "TopologyHints (" + p.Provider + ")"})
		}
		if failing.BestHint != nil {
			f.Evidence = append(f.Evidence, Ref{File: r.log.Name, Line: failing.BestLine, Quote: "best hint " + failing.BestHint.String()})
		}
		if a.Policy == "" && failing.BestHint != nil {
			inferred = true
			if failing.BestHint.NUMANodes == nil {
				a.Policy = "single-numa-node"
			} else {
				a.Policy = "restricted"
			}
		}
	}
	var why []string
	if failing != nil {
		a.Cause, a.AdmissibleOnEmptyNode, why = classifyAffinity(a.Policy, failing)
		a.Resources = hintRows(failing, r.spec, d.ev.Machine)
		sim, err := d.simulate(a.Policy, failing)
		switch {
		case err != nil:
			why = append(why, fmt.Sprintf("numascope could not re-run the merge on the logged hints: %v.", err))
		case sim != nil:
			best := sim.best
			a.SimulatedBestHint, a.SimulatedAdmit, a.Agree = &best, &sim.admit, sim.agree
			layout := "the machine's NUMA nodes"
			if sim.inferred {
				layout = "the NUMA nodes named in the hints"
			}
			verdict := "rejects"
			if sim.admit {
				verdict = "admits"
			}
			text := fmt.Sprintf("Re-running the %s merge on the logged hints over %s (numascope's model of the kubelet's Topology Manager) gives best hint %s and %s the container", a.Policy, layout, best, verdict)
			switch {
			case sim.agree != nil && *sim.agree && !sim.admit:
				text += ", in agreement with the kubelet's log."
			case sim.agree != nil && *sim.agree:
				text += ": the same best hint as the log, but the model admits it, so the policy in effect was not " + a.Policy + "."
			case sim.agree != nil:
				text += fmt.Sprintf(", while the kubelet logged %s: the logged hints and outcome do not match %s (a different policy, options or kubelet version).", a.LoggedBestHint, a.Policy)
			default:
				text += "."
			}
			why = append(why, text)
		}
	}
	container := a.Container
	if a.Scope == "pod" {
		container = ""
	} else if container == "" && r.spec != nil && len(r.spec.Containers) == 1 && len(r.spec.InitContainers) == 0 {
		container = r.spec.Containers[0].Name
		a.Container = container
	}
	if rows, notes := d.stateRows(r.spec, container); len(rows) > 0 {
		a.Resources = rows
		if failing == nil {
			a.Cause, why = classifyFromState(a.Policy, rows)
			if sw, ok := d.simulateFromState(r, a); ok {
				why = sw
			}
		} else {
			why = append(why, d.compareWithState(r, a, failing)...)
		}
		why = append(why, notes...)
		why = append(why, d.heldNotes()...)
		for _, st := range d.ev.States {
			if st.Kind == statefile.KindCPU || st.Kind == statefile.KindMemory || st.Kind == statefile.KindDevice {
				f.Evidence = append(f.Evidence, Ref{File: st.Name, Quote: string(st.Kind) + " manager state"})
			}
		}
	}
	target := "pod " + r.pod
	if a.Container != "" {
		target = fmt.Sprintf("container %q of pod %s", a.Container, r.pod)
	}
	policyText := a.Policy
	if policyText == "" {
		policyText = "(unknown: pass --kubelet-config or a log that covers kubelet start-up)"
	} else if inferred {
		policyText += " (inferred from the logged best hint; pass --kubelet-config to confirm)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The kubelet's Topology Manager (policy %s, scope %s) refused %s at admission. ", policyText, words.Or(a.Scope, "container"), target)
	b.WriteString("It asks the device, CPU and memory managers where each requested resource could be placed (NUMA hints), merges the hints, and admits only when the best merged hint satisfies the policy. ")
	if len(why) > 0 {
		b.WriteString(strings.Join(why, " "))
		b.WriteString(" ")
	}
	if a.LoggedBestHint != nil {
		fmt.Fprintf(&b, "The best merged hint was %s. ", a.LoggedBestHint)
	}
	switch a.Cause {
	case CauseInsufficientResources:
		f.Title += ": a requested resource is free on no NUMA node (insufficient-resources)"
	case CausePolicyConstraint:
		if a.AdmissibleOnEmptyNode != nil && !*a.AdmissibleOnEmptyNode {
			f.Title += ": the request cannot meet the policy on this machine even when it is empty (policy-constraint)"
		} else {
			f.Title += ": the resources are free, but not on NUMA nodes the policy accepts together (policy-constraint)"
		}
	default:
		if failing == nil {
			b.WriteString("The evidence does not include the kubelet's hint log lines for this pod, so numascope cannot tell whether resources were short or the policy forbade the placement. ")
		}
	}
	b.WriteString(rejectedNote)
	f.Explanation = b.String()
	f.Remedy = affinityRemedy(a)
	d.add(f)
}

func affinityRemedy(a *AffinityAnalysis) string {
	switch a.Cause {
	case CauseInsufficientResources:
		return "Free the resource that cannot be placed (delete pods holding it, or wait for the device plugin to report its devices), or run the pod on a node that has it; then delete the failed pod so its controller recreates it. " +
			"The default scheduler does not see NUMA placement; the topology-aware scheduler plugin (NodeResourceTopologyMatch) avoids repeats."
	case CausePolicyConstraint:
		if a.AdmissibleOnEmptyNode != nil && *a.AdmissibleOnEmptyNode {
			return "The request fits the policy on an empty node: free the requested resources on one NUMA node (the table shows where each resource fits now: delete or move pods that hold exclusive CPUs, memory or devices there), " +
				"or run the pod on a node whose free resources line up; then delete the failed pod so its controller recreates it. " +
				"The default scheduler does not see NUMA placement; the topology-aware scheduler plugin (NodeResourceTopologyMatch) avoids repeats."
		}
		if a.Policy == "single-numa-node" {
			return "Make every resource of the request fit on one NUMA node (fewer CPUs, less memory or fewer devices per container, or split the workload), " +
				"or, if placement across NUMA nodes is acceptable, switch topologyManagerPolicy to restricted or best-effort (or topologyManagerScope to container). Then delete the failed pod."
		}
		return "Size the requests so every resource needs the same number of NUMA nodes (restricted admits only a merged hint that every provider prefers), " +
			"or use topologyManagerPolicy best-effort if a non-preferred placement is acceptable. Then delete the failed pod."
	}
	return "Add the kubelet log around the rejection (journalctl -u kubelet, lines \"TopologyHints\" and \"Best TopologyHint\"), the kubelet configuration and the state files, and run the diagnosis again."
}

type resourceView struct {
	name      string
	provider  string
	hints     []evidence.Hint
	impossib  bool
	singles   []int // nodes n with a hint {n}
	prefSingl []int // nodes n with a preferred hint {n}
	prefWidth int   // narrowest preferred hint width; 0 if none
	prefMasks [][]int
}

func resourceViews(c *evidence.ContainerAdmission) []resourceView {
	var out []resourceView
	for _, p := range c.Providers {
		for _, rh := range p.Resources {
			if rh.NoPreference {
				continue
			}
			v := resourceView{name: rh.Resource, provider: p.Provider, hints: rh.Hints, impossib: rh.Impossible}
			for _, h := range rh.Hints {
				if len(h.NUMANodes) == 1 {
					v.singles = append(v.singles, h.NUMANodes[0])
					if h.Preferred {
						v.prefSingl = append(v.prefSingl, h.NUMANodes[0])
					}
				}
				if h.Preferred && h.NUMANodes != nil {
					if v.prefWidth == 0 || len(h.NUMANodes) < v.prefWidth {
						v.prefWidth = len(h.NUMANodes)
					}
					v.prefMasks = append(v.prefMasks, h.NUMANodes)
				}
			}
			out = append(out, v)
		}
	}
	return out
}

// classifyAffinity decides the cause from the hints the kubelet logged for
// the failing container, following the policy's admission rule. The cause is
// insufficient-resources when some resource cannot be placed on any NUMA node
// or set of nodes, policy-constraint when every resource can be placed but
// not in a way the policy accepts. onEmpty tells whether the same request
// would be admitted on an empty node (nil when the hints do not say).
func classifyAffinity(policy string, c *evidence.ContainerAdmission) (cause string, onEmpty *bool, why []string) {
	views := resourceViews(c)
	yes, no := true, false
	var impossible []string
	for _, v := range views {
		if v.impossib {
			impossible = append(impossible, v.name)
			why = append(why, fmt.Sprintf("The %s manager found no NUMA node or set of NUMA nodes with enough free %s for the request: its hint list is empty.", v.provider, v.name))
		}
	}
	for _, p := range c.Providers {
		if p.Provider == "memory" && p.EmptyMap {
			impossible = append(impossible, "memory")
			why = append(why, "The memory manager answered hints={}: the Static policy does so for a Guaranteed container when no NUMA node or set of NUMA nodes has enough free memory (or hugepages) for it, so no NUMA set can hold it. "+
				"The Topology Manager merges an empty answer as if the memory could go anywhere, so memory did not decide this merge; had the pod been admitted, the memory manager's allocation would have failed with UnexpectedAdmissionError.")
		}
	}
	if len(impossible) > 0 {
		return CauseInsufficientResources, nil, why
	}
	if len(views) == 0 {
		why = append(why, "No provider logged a NUMA constraint for this container, which cannot produce this error; the log and the rejection probably belong to different admissions.")
		return CauseUnknown, nil, why
	}
	var parts []string
	for _, v := range views {
		var where []string
		for _, h := range v.hints {
			where = append(where, h.String())
		}
		parts = append(parts, fmt.Sprintf("%s can be placed on %s", v.name, strings.Join(where, " ")))
	}
	why = append(why, "Every requested resource can be placed somewhere with what is free now ("+strings.Join(parts, "; ")+"), but not in a way the policy accepts.")
	switch policy {
	case "single-numa-node":
		var wide []string
		for _, v := range views {
			if v.prefWidth > 1 {
				wide = append(wide, fmt.Sprintf("%s needs at least %d NUMA nodes even on an empty node", v.name, v.prefWidth))
			}
		}
		if len(wide) > 0 {
			why = append(why, "single-numa-node admits only placements on one NUMA node, but "+strings.Join(wide, " and ")+" (its preferred hints span that many nodes). This pod can never be admitted on this machine under this policy.")
			return CausePolicyConstraint, &no, why
		}
		common := map[int]int{}
		var fit []string
		for _, v := range views {
			fit = append(fit, fmt.Sprintf("%s fits alone on NUMA node(s) %s", v.name, words.Ints(v.prefSingl)))
			for _, n := range v.prefSingl {
				common[n]++
			}
		}
		var nodes []int
		for n := range common {
			nodes = append(nodes, n)
		}
		sort.Ints(nodes)
		for _, n := range nodes {
			if common[n] == len(views) {
				why = append(why, fmt.Sprintf("By the logged hints NUMA node %d could hold every resource, yet the pod was rejected: the hints and the outcome disagree (another container of the pod, or a kubelet with different code).", n))
				return CauseUnknown, nil, why
			}
		}
		why = append(why, "single-numa-node admits only a placement where one NUMA node holds everything: "+strings.Join(fit, ", ")+", so no single NUMA node has all of it free at once. On an empty node each resource would fit on one NUMA node, so freeing resources on one node would let it in.")
		return CausePolicyConstraint, &yes, why
	case "restricted":
		var short []string
		for _, v := range views {
			if v.prefWidth == 0 {
				short = append(short, v.name)
			}
		}
		if len(short) > 0 {
			why = append(why, fmt.Sprintf("restricted admits only preferred placements (the narrowest a resource could have on an empty node); for %s the narrowest placement is not free now, only wider, non-preferred ones remain (a memory NUMA group forces this too).", strings.Join(short, ", ")))
			return CausePolicyConstraint, &yes, why
		}
		widths := map[int][]string{}
		for _, v := range views {
			widths[v.prefWidth] = append(widths[v.prefWidth], v.name)
		}
		if len(widths) > 1 {
			var wp []string
			keys := make([]int, 0, len(widths))
			for k := range widths {
				keys = append(keys, k)
			}
			sort.Ints(keys)
			for _, k := range keys {
				wp = append(wp, fmt.Sprintf("%s prefer(s) %d NUMA node(s)", strings.Join(widths[k], ", "), k))
			}
			why = append(why, "restricted admits a merged hint only when every resource prefers the very same NUMA nodes, but "+strings.Join(wp, " while ")+"; that never merges into a preferred hint, however much is free.")
			return CausePolicyConstraint, &no, why
		}
		why = append(why, "Every resource has a preferred placement free, but on different NUMA nodes, so no preferred placement holds all of them at once.")
		return CausePolicyConstraint, &yes, why
	case "best-effort", "none":
		why = append(why, fmt.Sprintf("The %s policy never rejects a pod with TopologyAffinityError; the kubelet that rejected it ran another policy (check the configuration history).", policy))
		return CauseUnknown, nil, why
	}
	return CausePolicyConstraint, nil, why
}

// hintRows builds the per-resource, per-NUMA table from the logged hints and
// the pod's requests.
func hintRows(c *evidence.ContainerAdmission, pod *topomgr.Pod, m *topomgr.Machine) []ResourceRow {
	views := resourceViews(c)
	nodes := map[int]bool{}
	if m != nil {
		for _, n := range m.Nodes {
			nodes[n.ID] = true
		}
	}
	for _, v := range views {
		for _, h := range v.hints {
			for _, n := range h.NUMANodes {
				nodes[n] = true
			}
		}
	}
	ids := make([]int, 0, len(nodes))
	for n := range nodes {
		ids = append(ids, n)
	}
	sort.Ints(ids)
	var rows []ResourceRow
	for _, v := range views {
		req := requestOf(pod, c.Container, v.name)
		fits := map[int]bool{}
		for _, n := range v.singles {
			fits[n] = true
		}
		for _, n := range ids {
			rows = append(rows, ResourceRow{Resource: v.name, NUMANodes: []int{n}, Requested: req, Fits: fits[n], Source: "log hints"})
		}
		if len(v.singles) == 0 {
			// Show the narrowest wider placement that fits now.
			var best []int
			for _, h := range v.hints {
				if h.NUMANodes != nil && (best == nil || len(h.NUMANodes) < len(best)) {
					best = h.NUMANodes
				}
			}
			if best != nil {
				rows = append(rows, ResourceRow{Resource: v.name, NUMANodes: best, Requested: req, Fits: true, Source: "log hints"})
			}
		}
	}
	return rows
}

// requestOf returns the request of a resource for a container (or, in pod
// scope, the pod's effective request), as text.
func requestOf(p *topomgr.Pod, container, resource string) string {
	if p == nil {
		return ""
	}
	q := effectiveRequest(p, container, resource)
	if q.IsZero() {
		return ""
	}
	return formatQuantity(resource, q)
}

func effectiveRequest(p *topomgr.Pod, container, resource string) topomgr.Quantity {
	if container != "" {
		for _, c := range append(append([]topomgr.Container{}, p.InitContainers...), p.Containers...) {
			if c.Name == container {
				q, _ := c.Resources.Requested(resource)
				return q
			}
		}
		return topomgr.Quantity{}
	}
	// Pod scope: max(init container peaks, sum of app + restartable init containers).
	var sum, peak, sidecars topomgr.Quantity
	for _, c := range p.InitContainers {
		q, _ := c.Resources.Requested(resource)
		if c.IsRestartable() {
			sidecars = sidecars.Add(q)
			continue
		}
		if v := sidecars.Add(q); v.Cmp(peak) > 0 {
			peak = v
		}
	}
	for _, c := range p.Containers {
		q, _ := c.Resources.Requested(resource)
		sum = sum.Add(q)
	}
	sum = sum.Add(sidecars)
	if peak.Cmp(sum) > 0 {
		sum = peak
	}
	return sum
}

func formatQuantity(resource string, q topomgr.Quantity) string {
	if resource == "memory" || strings.HasPrefix(resource, "hugepages-") {
		return units.Quantity(q.Value())
	}
	return q.String()
}

// admitted notes, for the pods given as evidence that were not rejected,
// how the Topology Manager admitted them.
func (d *diagnosis) admitted(rejected []*rejection) {
	policy, _, pref := d.policy()
	for _, p := range d.ev.Pods {
		skip := evidence.IsAdmissionReason(p.Reason)
		for _, r := range rejected {
			skip = skip || evidence.SamePod(r.pod, p.Ref())
		}
		if skip {
			continue
		}
		var att *evidence.AdmissionAttempt
		var lg *evidence.KubeletLog
		for _, l := range d.ev.Logs {
			for i := range l.Attempts {
				if evidence.SamePod(l.Attempts[i].Pod, p.Ref()) && len(l.Attempts[i].Containers) > 0 {
					att, lg = &l.Attempts[i], l
				}
			}
		}
		f := Finding{Code: CodePodAdmitted, Severity: statefile.SeverityInfo, Pod: p.Ref(), Evidence: []Ref{{File: p.Source, Path: p.Path + "/status/phase", Quote: p.Phase}}}
		if pref != nil {
			f.Evidence = append(f.Evidence, *pref)
		}
		switch {
		case att != nil && att.AllAligned():
			var parts []string
			for _, c := range att.Containers {
				name := c.Container
				if name == "" {
					name = "the pod"
				}
				parts = append(parts, fmt.Sprintf("%s on %s", name, hintText(c.BestHint)))
				f.Evidence = append(f.Evidence, Ref{File: lg.Name, Line: c.BestLine, Quote: "best hint " + hintText(c.BestHint)})
			}
			for _, s := range lg.Signals {
				if (s.Kind != evidence.SignalMemoryPlacement && s.Kind != evidence.SignalCPUPlacement) || !evidence.SamePod(s.Fields["pod"], p.Ref()) {
					continue
				}
				if s.Kind == evidence.SignalMemoryPlacement {
					parts = append(parts, fmt.Sprintf("memory of %s pinned to NUMA node(s) %s (cpuset.mems)", s.Fields["container"], s.Fields["numaNodes"]))
				} else {
					parts = append(parts, fmt.Sprintf("exclusive CPUs %s for %s", s.Fields["cpuset"], s.Fields["container"]))
				}
				f.Evidence = append(f.Evidence, logRef(lg, s))
			}
			for i := range att.Containers {
				c := &att.Containers[i]
				sim, err := d.simulate(policy, c)
				if err != nil || sim == nil || sim.agree == nil {
					continue
				}
				if *sim.agree && sim.admit {
					parts = append(parts, fmt.Sprintf("numascope's model of the %s merge gives the same best hint %s for %s and admits it", policy, sim.best, words.Or(c.Container, "the pod")))
				} else {
					f.Severity = statefile.SeverityWarning
					parts = append(parts, fmt.Sprintf("numascope's model of the %s merge gives %s for %s (admit: %v), which does not match the log: the policy or options in effect differ from the evidence", policy, sim.best, words.Or(c.Container, "the pod"), sim.admit))
				}
			}
			f.Title = fmt.Sprintf("Pod %s was admitted by the Topology Manager (policy %s)", p.Ref(), words.Or(policy, "unknown"))
			f.Explanation = "The merged NUMA hints satisfied the policy: " + strings.Join(parts, ", ") + ". A non-preferred hint means the resources were placed across more NUMA nodes than the narrowest possible placement."
			f.Remedy = "Nothing to do."
		case policy == "none" && p.Phase == "Running":
			f.Title = fmt.Sprintf("Pod %s was admitted without NUMA alignment (topologyManagerPolicy none)", p.Ref())
			f.Explanation = "With the none policy the Topology Manager asks no hint provider and never rejects a pod; CPUs, memory and devices are allocated without regard to NUMA nodes."
			f.Remedy = "Nothing to do, unless the workload needs NUMA alignment: then choose restricted or single-numa-node."
		default:
			continue
		}
		d.add(f)
	}
}

// unresolvedHints notes the admissions a log shows without their outcome
// and without a pod given as evidence, when the merged hint of a container
// is not preferred: best-effort admits that container without alignment,
// restricted and single-numa-node reject the pod. Preferred hints and
// attempts of pods the other evidence covers are left alone.
func (d *diagnosis) unresolvedHints(rejected []*rejection) {
	policy, _, pref := d.policy()
	if policy == topomgr.PolicyNone {
		return
	}
	for _, r := range rejected {
		if r.pod == unnamedEventPod || r.pod == unnamedPod {
			return // a rejection the evidence does not name may be any of them
		}
	}
	seen := map[string]bool{}
	for _, l := range d.ev.Logs {
		for i := len(l.Attempts) - 1; i >= 0; i-- {
			a := &l.Attempts[i]
			if a.Reason != "" || a.Pod == "" || seen[a.Pod] {
				continue
			}
			seen[a.Pod] = true
			covered := false
			for _, r := range rejected {
				covered = covered || evidence.SamePod(r.pod, a.Pod)
			}
			for _, p := range d.ev.Pods {
				covered = covered || evidence.SamePod(p.Ref(), a.Pod)
			}
			var c *evidence.ContainerAdmission
			for j := range a.Containers {
				if b := a.Containers[j].BestHint; b != nil && !b.Preferred && !a.Containers[j].Aligned {
					c = &a.Containers[j]
					break
				}
			}
			if covered || c == nil {
				continue
			}
			who := words.Or(c.Container, "the pod")
			var hints []string
			for _, p := range c.Providers {
				hints = append(hints, providerText(p))
			}
			best := hintText(c.BestHint)
			f := Finding{Severity: statefile.SeverityInfo, Pod: a.Pod, Code: CodeHintNotPreferred,
				Evidence: []Ref{{File: l.Name, Line: c.BestLine, Quote: "best hint " + best}},
				Title:    "The log shows a non-preferred NUMA hint for pod " + a.Pod + " but not whether it was admitted",
				Explanation: "The Topology Manager merged the hints of " + who + " (" + strings.Join(hints, "; ") + ") into " + best +
					": not preferred, because no placement puts every resource on the narrowest set of NUMA nodes each could use on its own. ",
				Remedy: "Add the log lines after \"Best TopologyHint\" for this pod or `kubectl describe pod " + podName(a.Pod) + "`, and run the diagnosis again."}
			if pref != nil {
				f.Evidence = append(f.Evidence, *pref)
			}
			switch policy {
			case topomgr.PolicyBestEffort:
				f.Code = CodePodAdmitted
				f.Title = "Pod " + a.Pod + " was admitted by the Topology Manager (policy best-effort) without NUMA alignment for " + who
				f.Explanation += "best-effort admits it anyway: the CPU, memory and device managers then allocate on the NUMA nodes of that hint as far as they can, so the resources are not aligned."
				f.Remedy = "Nothing to do if the workload tolerates cross-NUMA access. Otherwise make the request fit on one NUMA node (fewer CPUs or devices, or devices on the NUMA node with free CPUs and memory), or choose restricted or single-numa-node to reject such placements."
			case "":
				f.Explanation += "What happens next depends on topologyManagerPolicy, which the evidence does not show: best-effort admits the pod without alignment; restricted and single-numa-node reject it with TopologyAffinityError."
				f.Remedy = "Add the kubelet configuration (topologyManagerPolicy), and " + strings.TrimPrefix(f.Remedy, "Add ")
			default:
				f.Explanation += "Under " + policy + " the pod is rejected with TopologyAffinityError, but the log ends before the rejection."
			}
			d.add(f)
		}
	}
}

// podName returns NAME of "namespace/NAME", with -n namespace when known.
func podName(pod string) string {
	if ns, n, ok := strings.Cut(pod, "/"); ok {
		return n + " -n " + ns
	}
	return pod
}

// heldNotes names exclusive CPUs held by finished pods and finished init
// containers, per NUMA node: freeing them is often the quickest remedy.
func (d *diagnosis) heldNotes() []string {
	f := d.ev.State(statefile.KindCPU)
	if f == nil || f.CPU == nil {
		return nil
	}
	var out []string
	for _, uid := range slices.Sorted(maps.Keys(f.CPU.Entries)) {
		p := d.podByUID(uid)
		if p == nil {
			continue
		}
		for _, cname := range slices.Sorted(maps.Keys(f.CPU.Entries[uid])) {
			cpus := f.CPU.Entries[uid][cname]
			finishedInit := false
			for _, c := range p.InitContainers {
				finishedInit = finishedInit || (c.Name == cname && c.Terminated && !c.IsRestartable())
			}
			if !terminal(p) && !finishedInit {
				continue
			}
			where := ""
			if m := d.ev.Machine; m != nil {
				nodes := map[int]bool{}
				for _, c := range cpus.List() {
					nodes[m.NUMANodeOfCPU(c)] = true
				}
				var ids []int
				for n := range nodes {
					ids = append(ids, n)
				}
				sort.Ints(ids)
				where = " on NUMA node(s) " + words.Ints(ids)
			}
			who := "finished pod " + p.Ref()
			if !terminal(p) {
				who = fmt.Sprintf("finished init container %q of pod %s", cname, p.Ref())
			}
			out = append(out, fmt.Sprintf("CPUs %s%s are still held by %s; deleting it gives them back.", cpus, where, who))
		}
	}
	return out
}
