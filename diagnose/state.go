package diagnose

import (
	"fmt"
	"sort"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/units"
	"github.com/numascope/numascope/internal/words"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// merge adds f, or adds f's evidence to an existing finding with the same code and pod.
func (d *diagnosis) merge(f Finding) {
	for i := range d.report.Findings {
		g := &d.report.Findings[i]
		if g.Code == f.Code && g.Pod == f.Pod {
			g.Evidence = append(g.Evidence, f.Evidence...)
			return
		}
	}
	d.add(f)
}

// stateVerdicts reports what the kubelet will do with each state file at its next start.
func (d *diagnosis) stateVerdicts() {
	for _, f := range d.ev.States {
		ref := Ref{File: f.Name, Quote: f.Reason}
		prov := d.ev.Provenance(f)
		repaired := prov != nil && (prov.Repair != nil || len(prov.Redactions) > 0)
		if repaired {
			// Not the node's file: no verdict on it, only what the copy shows.
			d.pasteVerdict(f, prov)
		}
		configured, written, mismatch := evidence.ParsePolicyMismatch(f.Reason)
		if !f.KubeletAccepts && (!repaired || mismatch) {
			switch {
			case prov != nil && prov.Reformatted && !f.Checksum.Valid:
				d.copyMismatch(f)
			case f.Kind == statefile.KindDevice:
				d.merge(Finding{Code: CodeDeviceCheckpointUnreadable, Severity: statefile.SeverityWarning,
					Title:    fmt.Sprintf("The device manager cannot restore %s and starts without its device assignments", f.Name),
					Evidence: append([]Ref{ref}, problemRefs(f, 3)...),
					Explanation: "Unlike the CPU and memory managers, the device manager does not stop the kubelet when its checkpoint cannot be read: it starts empty. Running pods keep their devices, " +
						"but the kubelet no longer knows it, may hand the same device to a new pod and reports wrong NUMA affinity. Reason: " + f.Reason,
					Remedy: "Drain the node and restart the kubelet so every pod with devices is admitted again.",
				})
			case mismatch:
				field := "cpuManagerPolicy"
				if f.Kind == statefile.KindMemory {
					field = "memoryManagerPolicy"
				}
				d.merge(Finding{Code: CodeCheckpointPolicyMismatch, Severity: statefile.SeverityError,
					Title:    fmt.Sprintf("The kubelet will not start: %s is %q but %s was written under policy %q", field, configured, f.Name, written),
					Evidence: []Ref{ref, {File: f.Name, Path: "/policyName", Quote: written}},
					Explanation: fmt.Sprintf("At start-up the %s manager restores its state from %s and refuses to go on when the policy recorded in the file differs from the configured one: "+
						"assignments made under %q cannot be trusted under %q. This is what happens after changing %s on a node that already ran pods.",
						f.Kind, f.Name, written, configured, field),
					Remedy: fmt.Sprintf("Drain the node (kubectl drain NODE --ignore-daemonsets), stop the kubelet, move %s away (keep a copy), start the kubelet with the new policy, then uncordon. Or set %s back to %q.", f.Name, field, written),
				})
			case strings.Contains(f.Reason, "checkpoint is corrupted") || !f.Checksum.Valid:
				d.merge(Finding{Code: CodeCorruptCheckpoint, Severity: severityOnReject(f),
					Title:    fmt.Sprintf("%s fails its checksum: the kubelet %s", f.Name, rejectWords(f)),
					Evidence: append([]Ref{ref}, problemRefs(f, 3)...),
					Explanation: fmt.Sprintf("The kubelet recomputes the checksum of %s when it restores it and rejects the file when the stored checksum (%d) does not match: the file was changed by hand, "+
						"truncated by a crash during a write, or written by a kubelet whose structures hash differently.", f.Name, f.Checksum.Stored),
					Remedy: "Drain the node, stop the kubelet, move the file away (keep a copy), start the kubelet and uncordon. `inspect " + f.Name + "` (numascope's inspect command) shows every problem of the file.",
				})
			default:
				d.merge(Finding{Code: CodeKubeletStartFailed, Severity: severityOnReject(f),
					Title:       fmt.Sprintf("The kubelet %s because of %s", rejectWords(f), f.Name),
					Evidence:    append([]Ref{ref}, problemRefs(f, 3)...),
					Explanation: "Restoring the file fails the way the kubelet's own restore path fails: " + f.Reason,
					Remedy:      "Drain the node, stop the kubelet, move the file away (keep a copy), start the kubelet and uncordon.",
				})
			}
			continue
		}
		if f.Kind == statefile.KindMemory && !d.ev.Partial(f) {
			// (in a v3 file the machine state is under /data)
			var replay []statefile.Problem
			for _, p := range f.Problems {
				if p.Severity == statefile.SeverityError && strings.HasPrefix(strings.TrimPrefix(p.Path, "/data"), "/machineState") || strings.Contains(p.Message, "expected machine state") {
					replay = append(replay, p)
				}
			}
			if len(replay) > 0 {
				var refs []Ref
				var msgs []string
				for _, p := range replay {
					refs = append(refs, Ref{File: f.Name, Path: p.Path, Quote: p.Message})
					msgs = append(msgs, p.Message)
				}
				d.merge(Finding{Code: CodeMemoryStateReplay, Severity: statefile.SeverityError,
					Title:    fmt.Sprintf("%s does not agree with itself: the kubelet will not start after its next restart", f.Name),
					Evidence: refs,
					Explanation: "At start-up the static memory manager replays the entries of memory_manager_state onto a fresh machine state and compares the result with the stored one. " +
						"Replaying this file gives a different machine state (" + words.Clip(strings.Join(msgs, "; "), 600) + "), so the kubelet would stop with " +
						"\"the expected machine state is different from the real one\".",
					Remedy: "Plan a drain: drain the node, stop the kubelet, move memory_manager_state away, start the kubelet and uncordon. The running kubelet is not affected until it restarts.",
				})
			}
		}
	}
}

func severityOnReject(f *statefile.File) statefile.Severity {
	if f.OnReject == statefile.RefusesToStart || f.OnReject == "" {
		return statefile.SeverityError
	}
	return statefile.SeverityWarning
}

func rejectWords(f *statefile.File) string {
	if f.OnReject == statefile.RefusesToStart {
		return "will not start"
	}
	return "drops its data"
}

func problemRefs(f *statefile.File, n int) []Ref {
	var out []Ref
	for _, p := range f.Problems {
		if len(out) == n {
			break
		}
		if p.Severity == statefile.SeverityError {
			out = append(out, Ref{File: f.Name, Path: p.Path, Quote: p.Message})
		}
	}
	return out
}

// machineVsState compares the state files with the machine as it is now.
func (d *diagnosis) machineVsState() {
	m := d.ev.Machine
	if m == nil {
		return
	}
	if f := d.ev.State(statefile.KindCPU); f != nil && f.CPU != nil && f.CPU.PolicyName == "static" && m.OnlineCPUs.Size() > 0 && !d.ev.Partial(f) {
		inState := f.CPU.DefaultCPUSet
		for _, c := range f.CPU.Entries {
			for _, s := range c {
				inState = inState.Union(s)
			}
		}
		online := m.OnlineCPUs
		if !online.Equals(inState) {
			offline := inState.Difference(online)
			added := online.Difference(inState)
			var parts []string
			if offline.Size() > 0 {
				parts = append(parts, fmt.Sprintf("CPUs %s are in the state file but not online", offline))
			}
			if added.Size() > 0 {
				parts = append(parts, fmt.Sprintf("CPUs %s are online but missing from the state file", added))
			}
			d.merge(Finding{Code: CodeOfflineCPUs, Severity: statefile.SeverityError,
				Title: "cpu_manager_state covers other CPUs than the ones online: the kubelet will not start (again)",
				Evidence: []Ref{{File: f.Name, Path: "/defaultCpuSet", Quote: f.CPU.DefaultCPUSet.String()},
					{File: m.Source, Quote: "online CPUs " + m.OnlineCPUs.String()}},
				Explanation: fmt.Sprintf("The static CPU manager requires the shared pool plus all exclusive assignments in cpu_manager_state to equal exactly the online CPUs; otherwise it stops "+
					"with \"current set of available CPUs %q doesn't match with CPUs in state %q\". %s. CPUs taken offline, hot-added or isolated since the file was written cause this.", online, inState, strings.Join(parts, "; ")),
				Remedy: "Bring the CPUs back online if that was not intended; otherwise drain the node, stop the kubelet, move /var/lib/kubelet/cpu_manager_state away, start the kubelet and uncordon.",
			})
		}
	}
	if f := d.ev.State(statefile.KindMemory); f != nil && f.Memory != nil && f.Memory.PolicyName == "Static" {
		var diffs []string
		var refs []Ref
		byID := map[int]topomgr.NUMANode{}
		for _, n := range m.Nodes {
			byID[n.ID] = n
		}
		ids := make([]int, 0, len(f.Memory.MachineState))
		for id := range f.Memory.MachineState {
			ids = append(ids, id)
		}
		sort.Ints(ids)
		if len(ids) != len(m.Nodes) {
			diffs = append(diffs, fmt.Sprintf("the state file has %d NUMA nodes, the machine %d", len(ids), len(m.Nodes)))
		}
		for _, id := range ids {
			ns := f.Memory.MachineState[id]
			mn, ok := byID[id]
			if !ok {
				diffs = append(diffs, fmt.Sprintf("NUMA node %d is in the state file but not on the machine", id))
				continue
			}
			if t := ns.MemoryMap["memory"]; t != nil && mn.Memory != 0 && t.TotalMemSize != mn.Memory {
				diffs = append(diffs, fmt.Sprintf("NUMA node %d memory: %s in the state file, %s on the machine", id, units.Exact(t.TotalMemSize), units.Exact(mn.Memory)))
				refs = append(refs, Ref{File: f.Name, Path: fmt.Sprintf("/machineState/%d/memoryMap/memory/total", id), Quote: fmt.Sprint(t.TotalMemSize)})
			}
			for res, t := range ns.MemoryMap {
				if !strings.HasPrefix(res, "hugepages-") {
					continue
				}
				if have := mn.HugePages[res]; have != t.TotalMemSize {
					diffs = append(diffs, fmt.Sprintf("NUMA node %d %s: %s in the state file, %s on the machine", id, res, units.Exact(t.TotalMemSize), units.Exact(have)))
					refs = append(refs, Ref{File: f.Name, Path: fmt.Sprintf("/machineState/%d/memoryMap/%s/total", id, res), Quote: fmt.Sprint(t.TotalMemSize)})
				}
			}
		}
		if len(diffs) > 0 {
			sort.Strings(diffs)
			refs = append(refs, Ref{File: m.Source, Quote: fmt.Sprintf("%d NUMA nodes", len(m.Nodes))})
			d.merge(Finding{Code: CodeNUMATotalsChanged, Severity: statefile.SeverityError,
				Title:    "The NUMA memory totals in memory_manager_state no longer match the machine: the kubelet will not start (again)",
				Evidence: refs,
				Explanation: "At start-up the static memory manager rebuilds the machine state from the current NUMA topology and replays memory_manager_state onto it; any difference in the totals stops the kubelet " +
					"with \"the expected machine state is different from the real one\". Here " + strings.Join(diffs, "; ") + ". The memory the kernel reports per NUMA node changes after a reboot, " +
					"a kernel or firmware upgrade, a change of hugepages or memory going offline.",
				Remedy: "Drain the node, stop the kubelet, move /var/lib/kubelet/memory_manager_state away (keep a copy), start the kubelet and uncordon. " +
					"If hugepages are set at boot, make the setting stable so the totals stay the same across reboots.",
			})
		}
	}
}
