package diagnose

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/numascope/numascope/internal/jsonrepair"
	"github.com/numascope/numascope/internal/units"
	"github.com/numascope/numascope/internal/words"
	"github.com/numascope/numascope/topomgr"

	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/statefile"
	"k8s.io/utils/cpuset"
)

// podByUID finds a pod of the evidence by UID.
func (d *diagnosis) podByUID(uid string) *topomgr.Pod {
	for _, p := range d.ev.Pods {
		if p.UID == uid && uid != "" {
			return p
		}
	}
	return nil
}

func terminal(p *topomgr.Pod) bool { return p.Phase == "Succeeded" || p.Phase == "Failed" }

// drift compares the state files with what the pods and PodResources say now.
func (d *diagnosis) drift() {
	// drift is the last step that reads the state files: mark what rests
	// on an unverified copy once every state finding is in.
	defer d.markUnverified()
	cpuF := d.ev.State(statefile.KindCPU)
	memF := d.ev.State(statefile.KindMemory)
	pr := d.ev.PodResources
	if cpuF != nil && cpuF.CPU != nil {
		uids := slices.Sorted(maps.Keys(cpuF.CPU.Entries))
		for _, uid := range uids {
			if jsonrepair.Redacted(uid) {
				continue // a redacted pod UID matches no pod; the paste verdict says so
			}
			containers := cpuF.CPU.Entries[uid]
			pod := d.podByUID(uid)
			base := statefile.Pointer("entries", uid)
			for _, cname := range slices.Sorted(maps.Keys(containers)) {
				cpus := containers[cname]
				ref := Ref{File: cpuF.Name, Path: base + statefile.Pointer(cname), Quote: cpus.String()}
				if pod != nil {
					if d.heldByFinished(pod, cname, cpus, ref) {
						continue
					}
				}
				if pr != nil && !cpusReported(pr, cname, cpus) {
					who := "pod UID " + statefile.NameText(uid)
					if pod != nil {
						who = "pod " + pod.Ref()
					}
					d.add(Finding{Code: CodeStaleStateEntry, Severity: statefile.SeverityWarning, Pod: refOrEmpty(pod),
						Title:    fmt.Sprintf("cpu_manager_state assigns CPUs %s to container %q of %s, which PodResources does not list", cpus, cname, who),
						Evidence: []Ref{ref, {File: d.ev.PodResourcesName(), Quote: "no container " + cname + " with cpuIds " + cpus.String()}},
						Explanation: fmt.Sprintf("The CPU manager still records CPUs %s as exclusive to container %q, but the kubelet's PodResources API reports no running container holding them. "+
							"The entry is left over from a pod that is gone (the kubelet removes stale entries only when it next admits a pod or reconciles), so these CPUs are missing from the shared pool "+
							"and from what new Guaranteed pods can get, and the NUMA hints for new pods are computed as if they were taken.", cpus, cname),
						Remedy: "Admitting any new pod on the node triggers the kubelet's stale-state cleanup; if the entry survives that, drain the node, stop the kubelet, move cpu_manager_state away and restart it.",
					})
				}
			}
		}
	}
	if memF != nil && memF.Memory != nil {
		for _, uid := range slices.Sorted(maps.Keys(memF.Memory.Entries)) {
			if jsonrepair.Redacted(uid) {
				continue
			}
			containers := memF.Memory.Entries[uid]
			pod := d.podByUID(uid)
			base := statefile.Pointer("entries", uid)
			for _, cname := range slices.Sorted(maps.Keys(containers)) {
				blocks := containers[cname]
				ref := Ref{File: memF.Name, Path: base + statefile.Pointer(cname), Quote: blocksText(blocks)}
				if pod != nil && terminal(pod) {
					d.completedPod(pod, "memory "+blocksText(blocks), ref)
					continue
				}
				if pr != nil && !memoryReported(pr, cname, blocks) {
					who := "pod UID " + statefile.NameText(uid)
					if pod != nil {
						who = "pod " + pod.Ref()
					}
					d.add(Finding{Code: CodeStaleStateEntry, Severity: statefile.SeverityWarning, Pod: refOrEmpty(pod),
						Title:    fmt.Sprintf("memory_manager_state pins %s to container %q of %s, which PodResources does not list", blocksText(blocks), cname, who),
						Evidence: []Ref{ref, {File: d.ev.PodResourcesName(), Quote: "no container " + cname + " with these memory blocks"}},
						Explanation: "The memory manager still reserves this memory for a container the PodResources API no longer reports. Until the entry is removed the memory counts as reserved " +
							"on those NUMA nodes, and if it spans several nodes it keeps them tied together as a group.",
						Remedy: "Admitting any new pod triggers the kubelet's stale-state cleanup; if the entry survives, drain the node, stop the kubelet, move memory_manager_state away and restart it.",
					})
				}
			}
		}
		if !d.ev.Partial(memF) {
			d.unexplainedGroups(memF)
		}
	}
	if pr != nil {
		for i := range pr.Pods {
			pp := &pr.Pods[i]
			for _, p := range d.ev.Pods {
				if p.Name == pp.Name && p.Namespace == pp.Namespace && terminal(p) && pp.HasExclusive() {
					d.add(Finding{Code: CodeTerminatedPodHoldsResources, Severity: statefile.SeverityWarning, Pod: p.Ref(),
						Title:    fmt.Sprintf("Pod %s has finished (%s) but PodResources still reports exclusive resources for it", p.Ref(), p.Phase),
						Evidence: []Ref{{File: p.Source, Path: p.Path + "/status/phase", Quote: p.Phase}, {File: d.ev.PodResourcesName(), Quote: "pod " + pp.Ref() + " with exclusive resources"}},
						Explanation: "The kubelet reports terminated pods in PodResources List and keeps their CPUs and memory assigned until the pod object is deleted. " +
							"Monitoring built on PodResources over-counts what is allocated, and the resources are not offered to new pods.",
						Remedy: fmt.Sprintf("Delete the finished pod (kubectl delete pod -n %s %s); for Jobs set ttlSecondsAfterFinished so finished pods are cleaned up.", p.Namespace, p.Name),
					})
				}
			}
		}
	}
}

func refOrEmpty(p *topomgr.Pod) string {
	if p == nil {
		return ""
	}
	return p.Ref()
}

// heldByFinished reports CPUs kept by a finished init container or a
// completed pod; it returns true when the entry was explained that way.
func (d *diagnosis) heldByFinished(pod *topomgr.Pod, cname string, cpus cpuset.CPUSet, ref Ref) bool {
	if terminal(pod) {
		d.completedPod(pod, "CPUs "+cpus.String(), ref)
		return true
	}
	for _, c := range pod.InitContainers {
		if c.Name != cname || c.IsRestartable() || !c.Terminated {
			continue
		}
		// CPUs reused by an app container are not lost.
		reused := cpuset.New()
		if f := d.ev.State(statefile.KindCPU); f != nil {
			for other, s := range f.CPU.Entries[pod.UID] {
				if other != cname {
					reused = reused.Union(s.Intersection(cpus))
				}
			}
		}
		held := cpus.Difference(reused)
		if held.Size() == 0 {
			return true
		}
		d.add(Finding{Code: CodeCPUsHeldByFinishedInit, Severity: statefile.SeverityWarning, Pod: pod.Ref(),
			Title: fmt.Sprintf("Init container %q of pod %s has finished but still holds exclusive CPUs %s", cname, pod.Ref(), held),
			Evidence: []Ref{ref, {File: pod.Source, Path: c.Path, Quote: "terminated init container " + cname},
				{File: pod.Source, Path: pod.Path + "/status/initContainerStatuses", Quote: "terminated"}},
			Explanation: fmt.Sprintf("The static CPU manager gave init container %q exclusive CPUs. When it finished, the CPUs that no app container of the pod reused (%s) stayed assigned to it in "+
				"cpu_manager_state: they are neither in the shared pool nor available to other Guaranteed pods until the whole pod is removed. On a busy node that makes later pods fail with "+
				"TopologyAffinityError or SMTAlignmentError although the CPUs are idle.", cname, held),
			Remedy: "Give init containers the same integer CPU request as the largest app container (their CPUs are then reused), or make them Burstable (request no exclusive CPUs). Restarting the pod releases the CPUs.",
		})
		return true
	}
	return false
}

func (d *diagnosis) completedPod(pod *topomgr.Pod, what string, ref Ref) {
	job := ""
	if pod.OwnerKind == "Job" {
		job = " It belongs to a Job: completed Job pods stay until the Job's ttlSecondsAfterFinished or history limit removes them."
	}
	for i := range d.report.Findings {
		f := &d.report.Findings[i]
		if f.Code == CodeCPUsHeldByCompletedPod && f.Pod == pod.Ref() {
			f.Evidence = append(f.Evidence, ref)
			return
		}
	}
	d.add(Finding{Code: CodeCPUsHeldByCompletedPod, Severity: statefile.SeverityWarning, Pod: pod.Ref(),
		Title:    fmt.Sprintf("Pod %s has %s but its exclusive resources are still assigned (%s)", pod.Ref(), strings.ToLower(pod.Phase), what),
		Evidence: []Ref{ref, {File: pod.Source, Path: pod.Path + "/status/phase", Quote: pod.Phase}},
		Explanation: fmt.Sprintf("Pod %s is %s, yet the kubelet's state still assigns it exclusive resources. The CPU and memory managers release a container's resources when the container is "+
			"removed, and a finished pod's containers are kept until the pod object is deleted, so the resources stay out of the shared pool and out of reach of new pods.%s", pod.Ref(), pod.Phase, job),
		Remedy: fmt.Sprintf("Delete the finished pod (kubectl delete pod -n %s %s); for Jobs set ttlSecondsAfterFinished.", pod.Namespace, pod.Name),
	})
}

func cpusReported(pr *podresources.Snapshot, cname string, cpus cpuset.CPUSet) bool {
	for _, p := range pr.Pods {
		for _, c := range p.Containers {
			if c.Name == cname && cpuset.New(c.CPUIDs...).Equals(cpus) {
				return true
			}
		}
		if cpuset.New(p.CPUIDs...).Equals(cpus) && len(p.CPUIDs) > 0 {
			return true
		}
	}
	return false
}

func memoryReported(pr *podresources.Snapshot, cname string, blocks []statefile.Block) bool {
	for _, p := range pr.Pods {
		for _, c := range p.Containers {
			if c.Name != cname || len(c.Memory) == 0 {
				continue
			}
			all := true
			for _, b := range blocks {
				found := false
				for _, m := range c.Memory {
					if m.Type == b.Type && m.Size == b.Size && sameInts(m.NUMANodes, b.NUMAAffinity) {
						found = true
					}
				}
				all = all && found
			}
			if all {
				return true
			}
		}
	}
	return false
}

func sameInts(a, b []int) bool {
	x := append([]int{}, a...)
	y := append([]int{}, b...)
	sort.Ints(x)
	sort.Ints(y)
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

func blocksText(blocks []statefile.Block) string {
	var parts []string
	for _, b := range blocks {
		parts = append(parts, fmt.Sprintf("%s %s on NUMA %s", units.Quantity(int64(b.Size)), b.Type, words.Ints(b.NUMAAffinity)))
	}
	return strings.Join(parts, ", ")
}

// unexplainedGroups reports multi-node groups no entry accounts for.
func (d *diagnosis) unexplainedGroups(f *statefile.File) {
	for _, g := range f.Memory.Groups() {
		if len(g.Nodes) < 2 {
			continue
		}
		explained := false
		for _, containers := range f.Memory.Entries {
			for _, blocks := range containers {
				for _, b := range blocks {
					explained = explained || sameInts(b.NUMAAffinity, g.Nodes)
				}
			}
		}
		for _, pe := range f.Memory.PodEntries {
			for _, b := range pe.MemoryBlocks {
				explained = explained || sameInts(b.NUMAAffinity, g.Nodes)
			}
		}
		if explained {
			continue
		}
		d.add(Finding{Code: CodeUnexplainedNUMAGroup, Severity: statefile.SeverityWarning,
			Title:    fmt.Sprintf("NUMA nodes %s are tied into a memory group that no current assignment explains", words.Ints(g.Nodes)),
			Evidence: []Ref{{File: f.Name, Path: fmt.Sprintf("/machineState/%d/cells", g.Nodes[0]), Quote: fmt.Sprint(g.Nodes)}},
			Explanation: fmt.Sprintf("memory_manager_state groups NUMA nodes %s (each lists the others in its cells), but no entry has a memory block spanning exactly these nodes. "+
				"A group forms when a container's memory spans several nodes and dissolves when its last assignment goes; one left behind keeps single-NUMA pods off these nodes "+
				"(their hints skip nodes in a multi-node group) and makes the kubelet's start-up replay fail.", words.Ints(g.Nodes)),
			Remedy: "Drain the node, stop the kubelet, move memory_manager_state away and restart it so the groups are rebuilt from the running pods.",
		})
	}
}
