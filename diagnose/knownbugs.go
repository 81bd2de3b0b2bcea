package diagnose

import (
	"fmt"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// knownBug is an upstream kubelet bug of the Topology, CPU, memory or
// device manager that changed what a pod or a node sees, by release.
// README.md renders the same table (TestKnownBugsREADME keeps them in sync).
type knownBug struct {
	// issue is the upstream issue, fix the pull request that fixed it; 0
	// when there is none (a bug fixed without an issue, or still open).
	issue, fix int
	manager    string
	// summary says what goes wrong, in one sentence.
	summary string
	// from and to are the kubelet minor releases (1.from to 1.to) known to
	// have the bug; 0 for an open end.
	from, to int
	// fixedIn names the first fixed release(s); "" while the bug is open.
	fixedIn string
	// workaround is what to do on a kubelet that has the bug.
	workaround string
	// verified says how numascope checked the entry against the kubelet's history.
	verified string
	// match tells whether a finding shows the bug.
	match func(c bugContext) bool
}

// bugContext is what a known bug's condition looks at.
type bugContext struct {
	f      *Finding
	policy string
	pod    *topomgr.Pod
	// restarted is set when the evidence shows a kubelet start before the
	// finding's log line, or the pod's CPUs already in cpu_manager_state.
	restarted bool
}

func (b knownBug) ref() string {
	n := b.fix
	if n == 0 {
		n = b.issue
	}
	return fmt.Sprintf("kubernetes/kubernetes#%d", n)
}

func (b knownBug) refs() string {
	var parts []string
	if b.issue != 0 {
		parts = append(parts, fmt.Sprintf("issue #%d", b.issue))
	}
	if b.fix != 0 {
		parts = append(parts, fmt.Sprintf("fix #%d", b.fix))
	}
	return strings.Join(parts, ", ")
}

func smtForm(f *Finding) (req, per int, notMultiple, ok bool) {
	e, ok := evidence.ParseSMTError(f.inner)
	return e.Requested, e.PerCore, e.NotMultiple, ok
}

func singleNUMAOrUnknown(p string) bool { return p == "" || p == topomgr.PolicySingleNumaNode }

// knownBugs is the table of known kubelet bugs, oldest first.
var knownBugs = []knownBug{
	{
		issue: 83695, fix: 83697, manager: "Topology Manager",
		summary: "single-numa-node rejected Guaranteed pods with TopologyAffinityError when a hint provider had no preference (for example a CPU-only pod without devices)",
		from:    16, to: 16,
		fixedIn:    "v1.17.0; v1.16 by the cherry-pick #83751",
		workaround: "use the restricted policy",
		verified:   "CHANGELOG v1.17.0-alpha.2 lists #83697; #83751 is its merged release-1.16 cherry-pick",
		match: func(c bugContext) bool {
			return c.f.Code == CodeTopologyAffinityError && singleNUMAOrUnknown(c.policy)
		},
	},
	{
		issue: 83775, fix: 83777, manager: "Topology Manager",
		summary: "single-numa-node rejected Guaranteed pods with a fractional CPU request with Topology Affinity Error: their hint spans every NUMA node",
		from:    16, to: 16,
		fixedIn:    "v1.17.0; v1.16 by the cherry-pick #85912",
		workaround: "give the pod whole CPUs, or use the restricted policy",
		verified:   "#85912, the merged release-1.16 cherry-pick of #83777, names this 1.16 case; #83777 itself fixed the same rejection of non-Guaranteed pods before v1.17.0",
		match: func(c bugContext) bool {
			if c.f.Code != CodeTopologyAffinityError || !singleNUMAOrUnknown(c.policy) || c.pod == nil || c.pod.QOSClass != "Guaranteed" {
				return false
			}
			for _, ct := range c.pod.Containers {
				if q, ok := ct.Resources.Requested("cpu"); ok && !q.IsInteger() {
					return true
				}
			}
			return false
		},
	},
	{
		issue: 118559, fix: 118635, manager: "Device Manager",
		summary: "after a kubelet restart, running pods with devices were admitted again before the device plugin had registered, failed with UnexpectedAdmissionError and were killed",
		from:    25, to: 27,
		fixedIn:    "v1.28; v1.25.14 by the cherry-pick #119707",
		workaround: "start the device plugin before the workloads (priority class) and recreate the failed pods",
		verified:   "the running-container check (isContainerAlreadyRunning) is absent from kubelet v1.27.0 and present in v1.30.0; #124345 names the v1.25.14 cherry-pick",
		match: func(c bugContext) bool {
			return c.restarted && (c.f.Code == CodeDevicesUnavailable || c.f.Cause == evidence.AllocDeviceUnhealthy)
		},
	},
	{
		issue: 125579, manager: "Device Manager",
		summary:    "after a node reboot, pods with devices are admitted before the device plugin reports healthy devices and fail with \"no healthy devices present\"; a bare pod never recovers",
		from:       26,
		workaround: "run device pods under a controller, start the device plugin early, and delete the failed pods once the plugin is up",
		verified:   "issue #125579 is open; the \"no healthy devices present\" check is in kubelet v1.30.0 and v1.37.2",
		match: func(c bugContext) bool {
			return c.f.Cause == evidence.AllocDeviceUnhealthy && strings.Contains(c.f.inner, "no healthy devices present")
		},
	},
	{
		fix: 123443, manager: "Memory Manager",
		summary: "the static memory manager could admit a hint that puts single-NUMA and multi-NUMA allocations on the same NUMA node, against its own rule, so admissions became inconsistent and memory_manager_state can hold groups that overlap single-NUMA allocations",
		from:    21, to: 30,
		fixedIn:    "a release after v1.30 (the check is in v1.32.10 and v1.37.2)",
		workaround: "keep multi-NUMA memory pods and single-NUMA pods on different nodes",
		verified:   "\"preferred hint violates NUMA node allocation\" is absent from kubelet v1.30.0 and present in v1.37.2",
		match: func(c bugContext) bool {
			return c.f.Code == CodeMemoryStateReplay
		},
	},
	{
		fix: 127959, manager: "CPU Manager",
		summary: "with full-pcpus-only, when no whole core is free the kubelet reports \"requested N cpus not multiple cpus per core = K\" although N is a multiple of K",
		from:    27, to: 31,
		fixedIn:    "v1.32.0",
		workaround: "read the message as \"no free physical CPUs\": free whole cores",
		verified:   "kubelet v1.30.0 picks the message by AvailablePhysicalCPUs > 0; v1.37.2 by CausedByPhysicalCPUs",
		match: func(c bugContext) bool {
			req, per, notMultiple, ok := smtForm(c.f)
			return ok && notMultiple && per > 0 && req%per == 0
		},
	},
	{
		issue: 129078, fix: 129079, manager: "CPU Manager",
		summary: "with full-pcpus-only, a pod admitted again after a kubelet restart fails with SMTAlignmentError: the SMT check runs before the CPUs the container already holds are taken into account",
		from:    22, to: 36,
		fixedIn:    "a release after v1.30 (v1.37.2 has the fix)",
		workaround: "after a kubelet restart, delete the pods that failed with SMTAlignmentError so their controllers recreate them",
		verified:   "kubelet v1.30.0 runs the SMT check before looking up the container's CPUs in the state; v1.37.2 looks them up first",
		match: func(c bugContext) bool {
			_, _, _, ok := smtForm(c.f)
			return ok && c.restarted
		},
	},
	{
		issue: 112228, manager: "CPU Manager",
		summary:    "exclusive CPUs of an init container that the app containers do not reuse stay assigned until the pod is removed; later pods fail with \"not enough cpus available to satisfy request\"",
		workaround: "give init containers the same integer CPU request as the largest app container, or no exclusive CPUs",
		verified:   "issue #112228 is open (see also #94220)",
		match: func(c bugContext) bool {
			return c.f.Code == CodeCPUsHeldByFinishedInit || (c.f.Cause == evidence.AllocCPUs && hasExclusiveInit(c.pod))
		},
	},
}

// hasExclusiveInit reports whether a Guaranteed pod has an init container
// with a whole CPU request (one that gets exclusive CPUs).
func hasExclusiveInit(p *topomgr.Pod) bool {
	if p == nil || p.QOSClass != "Guaranteed" {
		return false
	}
	for _, c := range p.InitContainers {
		if q, ok := c.Resources.Requested("cpu"); ok && q.IsInteger() && !q.IsZero() && !c.IsRestartable() {
			return true
		}
	}
	return false
}

// knownBugFindings tells, on each finding that shows a known kubelet bug
// in the releases the evidence allows, which bug it is and what to do.
func (d *diagnosis) knownBugFindings() {
	rng := d.kubeletRange()
	policy, _, _ := d.policy()
	for i := range d.report.Findings {
		f := &d.report.Findings[i]
		c := bugContext{f: f, policy: policy}
		for _, p := range d.ev.Pods {
			if f.Pod != "" && evidence.SamePod(p.Ref(), f.Pod) {
				c.pod = p
			}
		}
		c.restarted = d.restartedBefore(f, c.pod)
		for _, b := range knownBugs {
			if !b.match(c) {
				continue
			}
			switch {
			case b.fixedIn == "":
				f.KnownBugs = append(f.KnownBugs, b.ref())
				f.Explanation += fmt.Sprintf(" This matches a known kubelet bug that is still open upstream (%s): %s; workaround: %s.", b.ref(), b.summary, b.workaround)
			case rng.within(b.from, b.to):
				f.KnownBugs = append(f.KnownBugs, b.ref())
				f.Explanation += fmt.Sprintf(" The evidence shows kubelet %s, which has a known kubelet bug: %s (fixed in %s, %s).", rangeText(rng.min, rng.max), b.summary, b.fixedIn, b.ref())
				f.Remedy = fmt.Sprintf("This is a known kubelet bug fixed in %s (%s); upgrade the kubelet. Until then: %s. ", b.fixedIn, b.ref(), b.workaround) + f.Remedy
			case rng.known() && rng.overlaps(b.from, b.to):
				f.Explanation += fmt.Sprintf(" If this kubelet is %s, this is also a known kubelet bug: %s (fixed in %s, %s).", rangeText(b.from, b.to), b.summary, b.fixedIn, b.ref())
			}
		}
	}
}

// knownBugsTable renders the table of known kubelet bugs as Markdown, the
// form README.md carries.
func knownBugsTable() string {
	var b strings.Builder
	b.WriteString("| Manager | What goes wrong | Releases with the bug | Fixed in | Upstream | Checked |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, k := range knownBugs {
		affected := "all with the feature"
		if k.from > 0 || k.to > 0 {
			affected = rangeText(k.from, k.to)
		}
		fixed := k.fixedIn
		if fixed == "" {
			fixed = "open; workaround: " + k.workaround
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", k.manager, k.summary, affected, fixed, k.refs(), k.verified)
	}
	return b.String()
}

// restartedBefore reports whether the evidence shows the kubelet starting
// before the finding's log line (a re-admission after a restart), or the
// pod's containers already holding CPUs in cpu_manager_state.
func (d *diagnosis) restartedBefore(f *Finding, pod *topomgr.Pod) bool {
	for _, l := range d.ev.Logs {
		last := 0
		for _, ref := range f.Evidence {
			if ref.File == l.Name && ref.Line > last {
				last = ref.Line
			}
		}
		if last == 0 {
			continue
		}
		for _, rec := range l.Records {
			if rec.Line < last && (evidence.IsKubeletStart(rec.Message) || reLogVersionOld.MatchString(rec.Message)) {
				return true
			}
		}
	}
	if pod != nil && pod.UID != "" {
		if st := d.ev.State(statefile.KindCPU); st != nil && st.CPU != nil {
			if _, ok := st.CPU.Entries[pod.UID]; ok {
				return true
			}
		}
	}
	return false
}
