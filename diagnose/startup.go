package diagnose

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"

	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/internal/words"
)

func logRef(l *evidence.KubeletLog, s evidence.Signal) Ref {
	q := s.Text
	if len(q) > 300 {
		q = q[:300] + "..."
	}
	return Ref{File: l.Name, Line: s.Line, Quote: q}
}

// startup turns start-up failures in the kubelet log into findings.
func (d *diagnosis) startup() {
	seen := map[string]bool{}
	once := func(key string) bool {
		if seen[key] {
			return false
		}
		seen[key] = true
		return true
	}
	for _, l := range d.ev.Logs {
		specific := false
		for _, found := range []func(*evidence.KubeletLog, func(string) bool) bool{
			d.policyMismatches, d.memoryStateMismatches, d.cpuSetMismatches, d.numaLimits, d.corruptCheckpoints, d.unknownPolicies,
		} {
			if found(l, once) {
				specific = true
			}
		}
		d.deviceCheckpoint(l, once)
		if !specific {
			d.startFailures(l, once)
		}
	}
}

// policyMismatches adds a finding for each manager whose checkpoint was written
// under another policy than the configured one, and reports whether the
// log has such a signal.
func (d *diagnosis) policyMismatches(l *evidence.KubeletLog, once func(string) bool) bool {
	specific := false
	for _, s := range l.SignalsOf(evidence.SignalPolicyMismatch) {
		specific = true
		if !once("pm" + s.Fields["manager"]) {
			continue
		}
		file := statefile.KindCPU.Path()
		field := "cpuManagerPolicy"
		if s.Fields["manager"] == "memory" {
			file, field = statefile.KindMemory.Path(), "memoryManagerPolicy"
		}
		d.add(Finding{Code: CodeCheckpointPolicyMismatch, Severity: statefile.SeverityError,
			Title:    fmt.Sprintf("The kubelet will not start: %s is %q but %s was written under policy %q", field, s.Fields["configured"], file, s.Fields["checkpoint"]),
			Evidence: []Ref{logRef(l, s)},
			Explanation: fmt.Sprintf("At start-up the %s manager restores its state from %s and refuses to go on when the policy recorded in the file differs from the configured one: "+
				"assignments made under %q cannot be trusted under %q. This is what happens after changing %s on a node that already ran pods.",
				s.Fields["manager"], file, s.Fields["checkpoint"], s.Fields["configured"], field),
			Remedy: fmt.Sprintf("Drain the node (kubectl drain NODE --ignore-daemonsets), stop the kubelet, move %s away (keep a copy), start the kubelet with the new policy, then uncordon. "+
				"Or set %s back to %q.", file, field, s.Fields["checkpoint"]),
		})
	}
	return specific
}

// cpuSetMismatches adds a finding when cpu_manager_state covers other CPUs than
// the online ones, and reports whether the log has such a signal.
func (d *diagnosis) cpuSetMismatches(l *evidence.KubeletLog, once func(string) bool) bool {
	specific := false
	for _, s := range l.SignalsOf(evidence.SignalCPUSetMismatch) {
		specific = true
		if !once("cpus") {
			continue
		}
		online, oerr := cpulist.Parse(s.Fields["online"])
		state, serr := cpulist.Parse(s.Fields["state"])
		offline := state.Difference(online)
		added := online.Difference(state)
		var parts []string
		if oerr != nil || serr != nil {
			parts = append(parts, "the logged CPU sets cannot be compared: "+errors.Join(oerr, serr).Error())
		}
		if offline.Size() > 0 {
			parts = append(parts, fmt.Sprintf("CPUs %s are in the state file but not online now", offline))
		}
		if added.Size() > 0 {
			parts = append(parts, fmt.Sprintf("CPUs %s are online now but missing from the state file", added))
		}
		d.add(Finding{Code: CodeOfflineCPUs, Severity: statefile.SeverityError,
			Title:    "The kubelet will not start: cpu_manager_state covers other CPUs than the ones online",
			Evidence: []Ref{logRef(l, s)},
			Explanation: fmt.Sprintf("The static CPU manager requires the shared pool plus all exclusive assignments in cpu_manager_state to equal exactly the online CPUs (%s); the file covers %s. %s. "+
				"CPUs taken offline, hot-added or isolated since the file was written cause this.", s.Fields["online"], s.Fields["state"], strings.Join(parts, "; ")),
			Remedy: "Bring the CPUs back online if that was not intended; otherwise drain the node, stop the kubelet, move /var/lib/kubelet/cpu_manager_state away, start the kubelet and uncordon.",
		})
	}
	return specific
}

// numaLimits adds a finding when the Topology Manager refused a machine with
// too many NUMA nodes, and reports whether the log has such a signal.
func (d *diagnosis) numaLimits(l *evidence.KubeletLog, once func(string) bool) bool {
	specific := false
	for _, s := range l.SignalsOf(evidence.SignalNUMALimit) {
		specific = true
		if !once("numa") {
			continue
		}
		nodes := ""
		if m := d.ev.Machine; m != nil {
			nodes = strconv.Itoa(len(m.Nodes))
		}
		d.merge(tooManyNUMA(s.Fields["limit"], nodes, []Ref{logRef(l, s)}))
	}
	return specific
}

// corruptCheckpoints adds a finding when a checkpoint file failed its checksum,
// and reports whether the log has such a signal.
func (d *diagnosis) corruptCheckpoints(l *evidence.KubeletLog, once func(string) bool) bool {
	specific := false
	for _, s := range l.SignalsOf(evidence.SignalCorruptCheckpoint) {
		specific = true
		if !once("corrupt") {
			continue
		}
		file, title := "the state file named in the log", "The kubelet will not start: a checkpoint file is corrupted (checksum mismatch)"
		if p := s.Fields["file"]; p != "" {
			file = p
			title = "The kubelet will not start: " + p + " is corrupted (checksum mismatch)"
		}
		d.add(Finding{Code: CodeCorruptCheckpoint, Severity: statefile.SeverityError,
			Title:    title,
			Evidence: []Ref{logRef(l, s)},
			Explanation: "The kubelet recomputes the checksum of its state file at start-up and refuses it when the stored checksum does not match: the file was changed by hand, " +
				"truncated by a crash during a write, or written by a kubelet whose struct layout hashes differently.",
			Remedy: "Drain the node, stop the kubelet, move " + file + " away (keep a copy for analysis with `inspect " + words.Or(s.Fields["file"], "FILE") + "`), start the kubelet and uncordon.",
		})
	}
	return specific
}

// unknownPolicies adds a finding for each policy the kubelet does not know, and
// reports whether the log has such a signal.
func (d *diagnosis) unknownPolicies(l *evidence.KubeletLog, once func(string) bool) bool {
	specific := false
	for _, s := range l.SignalsOf(evidence.SignalUnknownPolicy) {
		specific = true
		if once("unknown" + s.Fields["policy"]) {
			d.merge(policyCase(s.Fields["policy"], "", []Ref{logRef(l, s)}))
		}
	}
	return specific
}

// memoryStateMismatches adds a finding when the memory manager's replay of
// memory_manager_state failed, and reports whether the log has such a
// signal.
func (d *diagnosis) memoryStateMismatches(l *evidence.KubeletLog, once func(string) bool) bool {
	specific := false
	details := l.SignalsOf(evidence.SignalMemoryStateDetail)
	mismatches := l.SignalsOf(evidence.SignalMemoryStateMismatch)
	if len(mismatches) == 0 && len(details) > 0 {
		// The memory manager logs these details only from validateState,
		// which then fails with "the expected machine state is different
		// from the real one": a paste cut after the detail still shows
		// the failure.
		mismatches = details[:1]
	}
	for _, s := range mismatches {
		specific = true
		if !once("msm") {
			continue
		}
		d.add(memoryStateFinding(l, s, details))
	}
	return specific
}

// memoryStateFinding explains the failed replay signal s from the details
// the memory manager logged before it: changed NUMA totals, or another
// difference.
func memoryStateFinding(l *evidence.KubeletLog, s evidence.Signal, details []evidence.Signal) Finding {
	refs := []Ref{logRef(l, s)}
	total, cutShort := false, false
	var detailText []string
	for _, dd := range details {
		if dd.Line != s.Line {
			refs = append(refs, logRef(l, dd))
		}
		t1, t2, n := loggedTotals(dd.Fields["memoryState1"] + " " + dd.Fields["memoryState2"])
		if dd.Fields["field"] == "" && n == 1 {
			cutShort = true
		}
		if dd.Fields["field"] == "TotalMemSize" {
			total = true
			detailText = append(detailText, fmt.Sprintf("the state file records a total of %s bytes where the machine now has %s", dd.Fields["TotalMemSize1"], dd.Fields["TotalMemSize2"]))
		} else if dd.Fields["field"] == "" && n == 2 && t1 != t2 {
			// Kubelets before 1.32 log both memory tables without
			// naming the field that differs.
			total = true
			detailText = append(detailText, fmt.Sprintf("NUMA node %s %s: the state file records a total of %s bytes where the machine now has %s", dd.Fields["node"], dd.Fields["resource"], t1, t2))
		} else if dd.Fields["field"] != "" {
			detailText = append(detailText, fmt.Sprintf("field %s differs on NUMA node %s (%s)", dd.Fields["field"], dd.Fields["node"], dd.Fields["resource"]))
		} else if dd.Text != "" {
			detailText = append(detailText, strings.ToLower(dd.Text[:1])+dd.Text[1:])
		}
	}
	f := Finding{Severity: statefile.SeverityError, Evidence: refs,
		Remedy: "Drain the node, stop the kubelet, move /var/lib/kubelet/memory_manager_state away (keep a copy), start the kubelet and uncordon. " +
			"If reservedMemory or the hugepage configuration changed, make them match the machine first."}
	if total {
		f.Code = CodeNUMATotalsChanged
		f.Title = "The kubelet will not start: the NUMA memory totals in memory_manager_state no longer match the machine"
		f.Explanation = "At start-up the static memory manager rebuilds the machine state from the current NUMA topology and replays every assignment of memory_manager_state onto it. " +
			"The totals differ (" + strings.Join(detailText, "; ") + "): the memory the kernel reports per NUMA node changed, which happens after a reboot, a kernel or firmware upgrade, " +
			"a change of hugepages, or memory going offline. The kubelet then stops with \"the expected machine state is different from the real one\"."
	} else {
		f.Code = CodeMemoryStateReplay
		f.Title = "The kubelet will not start: the memory manager's machine-state replay failed"
		f.Explanation = "At start-up the static memory manager replays the assignments in memory_manager_state onto a fresh machine state and compares the result with the stored one; they differ"
		if len(detailText) > 0 {
			f.Explanation += " (" + strings.Join(detailText, "; ") + ")"
		}
		f.Explanation += ". Overlapping NUMA groups, a changed reservedMemory or a file written by a kubelet with different accounting all lead here."
		if cutShort {
			f.Explanation += " The logged line is cut before the machine's values (memoryState2), so which field differs cannot be read; the most common cause is that the memory the kernel reports per NUMA node " +
				"changed across a reboot, a kernel or firmware upgrade or a hugepage change, although the node's total stayed the same."
			f.Remedy += " To tell which field differs, paste the whole line: `journalctl -u kubelet --no-pager | grep 'Memory states for the NUMA node'` (the pager cuts long lines at the terminal's width; --no-pager keeps them), " +
				"or the memory_manager_state file with `numactl -H` of the node."
		}
	}
	return f
}

// deviceCheckpoint adds a finding when the device manager could not read
// its checkpoint and started without its device assignments.
func (d *diagnosis) deviceCheckpoint(l *evidence.KubeletLog, once func(string) bool) {
	for _, s := range l.SignalsOf(evidence.SignalDeviceCheckpoint) {
		if !once("devcp") {
			continue
		}
		d.add(Finding{Code: CodeDeviceCheckpointUnreadable, Severity: statefile.SeverityWarning,
			Title:    "The device manager could not read kubelet_internal_checkpoint and started without its device assignments",
			Evidence: []Ref{logRef(l, s)},
			Explanation: "Unlike the CPU and memory managers, the device manager does not stop the kubelet when its checkpoint cannot be read: it logs the error and starts empty. " +
				"Running pods keep their devices, but the kubelet no longer knows it, may hand the same device to a new pod and reports wrong NUMA affinity.",
			Remedy: "Drain the node and restart the kubelet so every pod with devices is admitted again; check the file with `inspect /var/lib/kubelet/device-plugins/kubelet_internal_checkpoint`.",
		})
	}
}

// startFailures explains the container manager, restore and invalid-state
// failures of a log that has no more specific start-up signal.
func (d *diagnosis) startFailures(l *evidence.KubeletLog, once func(string) bool) {
	for _, s := range l.Signals {
		if s.Kind != evidence.SignalContainerManager && s.Kind != evidence.SignalRestoreFailed && s.Kind != evidence.SignalInvalidState {
			continue
		}
		if f, ok := reservationStartFailure(s.Text, []Ref{logRef(l, s)}); ok {
			if once("reservation" + f.Code) {
				d.add(f)
			}
			continue
		}
		if s.Kind == evidence.SignalRestoreFailed {
			if once("restore") {
				d.add(restoreFailure(l, s))
			}
			continue
		}
		if once("start") {
			d.add(Finding{Code: CodeKubeletStartFailed, Severity: statefile.SeverityError,
				Title:       "The kubelet failed to start its container manager",
				Evidence:    []Ref{logRef(l, s)},
				Explanation: "The kubelet stopped while starting the CPU, memory, device or DRA manager: " + s.Text,
				Remedy:      "Read the wrapped error; for a state file the kubelet names, drain the node, move the file away and restart the kubelet.",
			})
		}
	}
}

// reAnyCheckpointFile finds the file a failed restore names, whichever
// checkpoint it is (the CPU or memory manager's, the pod allocation one).
var reAnyCheckpointFile = regexp.MustCompile(`checkpoint file \\?"([^"\\]+)\\?"`)

// restoreFailure explains "could not restore state from checkpoint" when no
// more specific signal (policy mismatch, corrupted checksum) names the
// reason: the reason the kubelet gives, or, when the paste cut it off, the
// checks that lead there and what to paste to tell them apart.
func restoreFailure(l *evidence.KubeletLog, s evidence.Signal) Finding {
	file := s.Fields["file"]
	if file == "" {
		if m := reAnyCheckpointFile.FindStringSubmatch(s.Text); m != nil {
			file = m[1]
		}
	}
	what := "a checkpoint file"
	if file != "" {
		what = file
	}
	reason := ""
	if s.Fields["cut"] == "" {
		if _, r, ok := strings.Cut(s.Text, "could not restore state from checkpoint: "); ok {
			for _, stop := range []string{", please drain", "\n", "\\n"} {
				if i := strings.Index(r, stop); i >= 0 {
					r = r[:i]
				}
			}
			reason = strings.TrimSpace(r)
		}
	}
	f := Finding{Code: CodeKubeletStartFailed, Severity: statefile.SeverityError, Evidence: []Ref{logRef(l, s)},
		Title: "The kubelet will not start: it could not restore " + what}
	checks := "A checkpoint is refused when its JSON cannot be decoded (a file cut by a crash or edited by hand), when its checksum does not match " +
		"(\"checkpoint is corrupted\": also a file written by a kubelet release that computed the checksum differently), " +
		"when it was written under another policy (the policy was changed), or when a CPU set in it cannot be parsed."
	// inspect reads the resource managers' checkpoints, not the others.
	check := ""
	if _, ok := statefile.KindOfFileName(path.Base(file)); ok || path.Base(file) == "." {
		check = "`inspect " + words.Or(file, "FILE") + "` reads the file as the kubelet does. "
	}
	back := "To get the node back, drain it, stop the kubelet, move " + what + " away (keep a copy), start the kubelet and uncordon."
	if reason != "" {
		f.Explanation = fmt.Sprintf("At start-up the kubelet reads %s and refused it: %s.", what, reason)
		f.Remedy = check + back
		return f
	}
	f.Explanation = "At start-up the kubelet reads " + what + " and refused it, but the message is cut before the reason, so which check failed cannot be read. " + checks
	f.Remedy = "Paste the whole error: `journalctl -u kubelet --no-pager | grep -A1 'could not restore state'` (the pager cuts long lines at the terminal's width; --no-pager keeps them), and the file itself; " +
		check + back
	return f
}

// reLoggedTotal finds the total of a memory table as the kubelet logs it:
// a Go struct before 1.28 ({TotalMemSize:N ...}), JSON since ({"total":N,...}).
var reLoggedTotal = regexp.MustCompile(`TotalMemSize:(\d+)|"total":(\d+)`)

// loggedTotals returns the totals of the state file's (first) and the
// machine's (second) memory table on a "Memory states for the NUMA node
// and resource are different" line, and how many it found (0 to 2; 1 when
// the line is cut inside the second table).
func loggedTotals(text string) (string, string, int) {
	var got []string
	for _, m := range reLoggedTotal.FindAllStringSubmatch(text, 2) {
		got = append(got, m[1]+m[2])
	}
	switch len(got) {
	case 0:
		return "", "", 0
	case 1:
		return got[0], "", 1
	}
	return got[0], got[1], 2
}

// The reservation checks the CPU and memory managers make at start-up
// (cpumanager/cpu_manager.go, memorymanager/memory_manager.go).
var (
	reMemoryTotal    = regexp.MustCompile(`the total amount \\?"([^"\\]*)\\?" of type \\?"([^"\\]*)\\?" is not equal to the value \\?"([^"\\]*)\\?" determined by Node Allocatable feature`)
	reMemoryNoNode   = regexp.MustCompile(`the reserved memory configuration references a NUMA node (\d+) that does not exist on this machine`)
	staticNeedsCPUs  = "the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero"
	duplicateReserve = "the reserved memory has a duplicate value for NUMA node"
)

// reservationStartFailure reads a container-manager start error that a
// reservation check caused, as the configuration finding it is.
func reservationStartFailure(text string, refs []Ref) (Finding, bool) {
	f := Finding{Severity: statefile.SeverityError, Evidence: refs}
	switch {
	case reMemoryTotal.MatchString(text):
		m := reMemoryTotal.FindStringSubmatch(text)
		f.Code = CodeReservedMemoryMismatch
		f.Title = fmt.Sprintf("The kubelet will not start: reservedMemory adds up to %s of %s, but Node Allocatable reserves %s", m[1], m[2], m[3])
		f.Explanation = fmt.Sprintf("With the Static memory manager the reservedMemory entries of all NUMA nodes must add up, for each memory type, to exactly what Node Allocatable keeps back: "+
			"systemReserved + kubeReserved + the hard-eviction threshold memory.available (100Mi by default). For %s they add up to %s where %s is reserved, so the memory manager refuses to start and the kubelet exits.", m[2], m[1], m[3])
		f.Remedy = fmt.Sprintf("Make the reservedMemory (--reserved-memory) entries for %s add up to %s, or change systemReserved/kubeReserved/evictionHard so that they reserve %s, and restart the kubelet.", m[2], m[3], m[1])
	case reMemoryNoNode.MatchString(text):
		m := reMemoryNoNode.FindStringSubmatch(text)
		f.Code = CodeReservedMemoryMismatch
		f.Title = fmt.Sprintf("The kubelet will not start: reservedMemory names NUMA node %s, which this machine does not have", m[1])
		f.Explanation = "The Static memory manager checks every reservedMemory entry against the machine's NUMA nodes at start-up and exits when one names a node that does not exist: a configuration shared by machines with different NUMA layouts, or node numbering that changed with a BIOS setting (sub-NUMA clustering, NPS)."
		f.Remedy = "Give this node a reservedMemory that names only its NUMA nodes (numactl -H lists them), keeping the total equal to what Node Allocatable reserves, and restart the kubelet."
	case strings.Contains(text, duplicateReserve):
		f.Code = CodeReservedMemoryMismatch
		f.Title = "The kubelet will not start: reservedMemory names the same NUMA node and resource twice"
		f.Explanation = "The kubelet's configuration validation refuses a reservedMemory (or --reserved-memory) that lists one NUMA node and resource more than once; repeated --reserved-memory flags append, so a flag repeated in a drop-in and a unit file does this."
		f.Remedy = "Keep one entry per NUMA node and resource (check every --reserved-memory flag and the config file) and restart the kubelet."
	case strings.Contains(text, staticNeedsCPUs):
		f.Code = CodeReservationMissing
		f.Title = "The kubelet will not start: the static CPU manager needs CPUs reserved for the system"
		f.Explanation = "The static CPU manager hands out exclusive CPUs only from what is not reserved, and refuses to start when neither reservedSystemCPUs nor a CPU quantity in kubeReserved or systemReserved sets a reservation."
		f.Remedy = "Set reservedSystemCPUs (--reserved-cpus, e.g. \"0\" or one core and its sibling) or kubeReserved/systemReserved cpu, and restart the kubelet."
	default:
		return Finding{}, false
	}
	return f, true
}

func tooManyNUMA(limit, nodes string, refs []Ref) Finding {
	if limit == "" {
		limit = "8"
	}
	n := nodes
	if n == "" {
		n = "more than " + limit
	}
	return Finding{Code: CodeTooManyNUMANodes, Severity: statefile.SeverityError,
		Title:    fmt.Sprintf("The Topology Manager refuses to start on a machine with %s NUMA nodes", n),
		Evidence: refs,
		Explanation: fmt.Sprintf("Merging hints costs one step per combination of NUMA nodes, so the Topology Manager refuses machines with more than %s NUMA nodes unless the policy option "+
			"max-allowable-numa-nodes raises the limit; with any policy other than none, the kubelet then fails to start (GB200-class machines have 34).", limit),
		Remedy: "Add `topologyManagerPolicyOptions: {max-allowable-numa-nodes: \"N\"}` with N at least the machine's NUMA node count (beta since 1.31, GA in 1.35; before 1.31 also enable the TopologyManagerPolicyAlphaOptions feature gate). " +
			"Admission gets slower as N grows; measure it with the topology_manager_admission_duration_ms metric.",
	}
}

func policyCase(value, field string, refs []Ref) Finding {
	correct := map[string]string{"static": "Static", "none": "None", "Static": "static", "None": "none", "STATIC": "Static or static", "NONE": "None or none"}
	want := correct[value]
	if field == "" {
		if value == "static" || value == "none" {
			field = "memoryManagerPolicy"
		} else {
			field = "cpuManagerPolicy"
		}
	}
	return Finding{Code: CodePolicyNameCase, Severity: statefile.SeverityError,
		Title:    fmt.Sprintf("%s %q is not a policy name the kubelet knows; the kubelet will not start", field, value),
		Evidence: refs,
		Explanation: fmt.Sprintf("Policy names are case-sensitive and the managers disagree: the memory manager's policies are `None` and `Static` (capitalised), the CPU manager's are `none` and `static`. "+
			"%s %q matches neither, so the manager fails with `unknown policy: %q` and the kubelet stops at start-up.", field, value, value),
		Remedy: fmt.Sprintf("Set %s to %q and restart the kubelet.", field, strings.Split(want, " ")[0]),
	}
}

// configTraps reports configuration that will hurt, from the configuration,
// the pods, the machine and device-related log lines.
func (d *diagnosis) configTraps() {
	c := d.ev.Config
	if c != nil {
		if v := c.MemoryManagerPolicy; v != "" && v != "None" && v != "Static" && v != "BestEffort" {
			d.addOnce(policyCase(v, "memoryManagerPolicy", []Ref{{File: c.Source, Path: "/memoryManagerPolicy", Quote: v}}))
		}
		if v := c.CPUManagerPolicy; v != "" && v != "none" && v != "static" {
			d.addOnce(policyCase(v, "cpuManagerPolicy", []Ref{{File: c.Source, Path: "/cpuManagerPolicy", Quote: v}}))
		}
	}
	if m := d.ev.Machine; m != nil && len(m.Nodes) > 8 {
		policy, _, _ := d.policy()
		limit := 8
		if c != nil {
			if v, ok := c.TopologyManagerPolicyOptions["max-allowable-numa-nodes"]; ok {
				limit, _ = strconv.Atoi(v)
			}
		}
		if policy != "none" && len(m.Nodes) > limit {
			refs := []Ref{{File: m.Source, Quote: fmt.Sprintf("%d NUMA nodes", len(m.Nodes))}}
			if c != nil {
				refs = append(refs, Ref{File: c.Source, Path: "/topologyManagerPolicyOptions", Quote: fmt.Sprintf("max-allowable-numa-nodes: %d", limit)})
			}
			d.addOnce(tooManyNUMA(strconv.Itoa(limit), strconv.Itoa(len(m.Nodes)), refs))
		}
	}
	if c != nil && c.EffectiveCPUManagerPolicy() == "static" {
		for _, p := range d.ev.Pods {
			if p.QOSClass != "Guaranteed" {
				continue
			}
			for _, ct := range append(append([]topomgr.Container{}, p.InitContainers...), p.Containers...) {
				q, ok := ct.Resources.Requested("cpu")
				if !ok || q.IsInteger() {
					continue
				}
				d.add(Finding{Code: CodeFractionalCPU, Severity: statefile.SeverityWarning, Pod: p.Ref(),
					Title:    fmt.Sprintf("Container %q of Guaranteed pod %s asks for %s CPUs: it gets no exclusive CPUs and no CPU alignment", ct.Name, p.Ref(), q),
					Evidence: []Ref{{File: p.Source, Path: ct.Path + "/resources/requests/cpu", Quote: q.String()}, {File: c.Source, Path: "/cpuManagerPolicy", Quote: c.CPUManagerPolicy}},
					Explanation: "The static CPU manager gives exclusive CPUs only to containers of Guaranteed pods whose CPU request is a whole number. A fractional request runs in the shared pool, " +
						"and the CPU manager gives the Topology Manager no hint for it, so its CPUs are not aligned with its memory or devices, even under single-numa-node.",
					Remedy: fmt.Sprintf("Request a whole number of CPUs (for example %d) with requests equal to limits if the container needs exclusive, NUMA-aligned CPUs; otherwise this is expected.", q.Value()),
				})
			}
		}
	}
	seenDev := map[string]bool{}
	for _, l := range d.ev.Logs {
		for _, s := range l.SignalsOf(evidence.SignalDeviceNoTopology) {
			res := s.Fields["resource"]
			if seenDev[res] {
				continue
			}
			seenDev[res] = true
			d.add(Finding{Code: CodeDeviceWithoutNUMA, Severity: statefile.SeverityWarning,
				Title:    fmt.Sprintf("Device resource %s has no NUMA topology: it is never aligned", res),
				Evidence: []Ref{logRef(l, s)},
				Explanation: fmt.Sprintf("The device plugin for %s reports its devices without NUMA nodes, so the device manager gives the Topology Manager no preference for them "+
					"and single-numa-node or restricted cannot keep them next to the pod's CPUs and memory. Some plugins leave out the topology by default or cannot read it on virtual machines.", res),
				Remedy: "Enable NUMA topology reporting in the device plugin (each device's Topology.Nodes), or accept that this resource is placed without alignment.",
			})
		}
	}
}

func (d *diagnosis) addOnce(f Finding) { d.merge(f) }
