package diagnose

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// Run draws every finding the evidence supports and returns the report. It
// returns an error only when ctx is cancelled; evidence that says nothing
// yields a report with no findings.
func Run(ctx context.Context, ev *Evidence) (Report, error) {
	if ev == nil {
		ev = &Evidence{}
	}
	r := Report{Schema: SchemaVersion, Evidence: append([]EvidenceItem{}, ev.items...)}
	if r.Evidence == nil {
		r.Evidence = []EvidenceItem{}
	}
	d := &diagnosis{ev: ev, report: &r}
	for _, step := range []func(){d.admissions, d.startup, d.stateVerdicts, d.machineVsState, d.drift, d.configTraps, d.configChecks} {
		if err := ctx.Err(); err != nil {
			return Report{}, err
		}
		step()
	}
	r.finish()
	return r, nil
}

type diagnosis struct {
	ev     *Evidence
	report *Report
}

func (d *diagnosis) add(f Finding) {
	if f.Evidence == nil {
		f.Evidence = []Ref{}
	}
	d.report.Findings = append(d.report.Findings, f)
}

// policy returns the topology manager policy and scope, from the
// configuration or from the kubelet's start-up log line, and where it came from.
func (d *diagnosis) policy() (policy, scope string, ref *Ref) {
	if c := d.ev.Config; c != nil {
		return c.EffectiveTopologyPolicy(), c.EffectiveTopologyScope(), &Ref{File: c.SourceOf("topologyManagerPolicy"), Path: "/topologyManagerPolicy", Quote: c.EffectiveTopologyPolicy()}
	}
	for _, l := range d.ev.Logs {
		// The first start-up line that names the policy decides.
		if sigs := l.signalsOf(signalTopologyConfig); len(sigs) > 0 {
			s := sigs[0]
			sc := s.Fields["scope"]
			if sc == "" {
				sc = topomgr.DefaultTopologyManagerScope
			}
			return s.Fields["policy"], sc, &Ref{File: l.Name, Line: s.Line, Quote: s.Text}
		}
	}
	return "", "", nil
}

// rejection is what all evidence says about one rejected pod.
type rejection struct {
	pod     string // namespace/name or name
	reason  string
	message string
	refs    []Ref
	attempt *AdmissionAttempt
	log     *KubeletLog
	spec    *topomgr.Pod
}

func sameName(a, b string) bool {
	if a == b {
		return true
	}
	an, bn := a, b
	if i := strings.LastIndexByte(a, '/'); i >= 0 {
		an = a[i+1:]
	}
	if i := strings.LastIndexByte(b, '/'); i >= 0 {
		bn = b[i+1:]
	}
	if an != bn {
		return false
	}
	// One side has no namespace.
	return !strings.Contains(a, "/") || !strings.Contains(b, "/")
}

func normalizeReason(r string) string {
	if r == "Topology Affinity Error" {
		return CodeTopologyAffinityError
	}
	return r
}

func (d *diagnosis) rejections() []*rejection {
	var out []*rejection
	find := func(pod, reason string) *rejection {
		for _, r := range out {
			if sameName(r.pod, pod) && (r.reason == reason || reason == "" || r.reason == "") {
				if !strings.Contains(r.pod, "/") && strings.Contains(pod, "/") {
					r.pod = pod
				}
				if r.reason == "" {
					r.reason = reason
				}
				return r
			}
		}
		r := &rejection{pod: pod, reason: reason}
		out = append(out, r)
		return r
	}
	for _, p := range d.ev.Pods {
		if admissionReasons[p.Reason] {
			r := find(p.Ref(), normalizeReason(p.Reason))
			r.spec = p
			r.message = strings.TrimPrefix(p.Message, "Pod was rejected: ")
			r.refs = append(r.refs, Ref{File: p.Source, Path: p.Path + "/status/reason", Quote: p.Reason})
		}
	}
	for _, ev := range d.ev.Events {
		podName := ""
		if ev.Pod != nil {
			podName = ev.Pod.Name
			if ev.Pod.Namespace != "" {
				podName = ev.Pod.Namespace + "/" + ev.Pod.Name
			}
			if admissionReasons[ev.Pod.Reason] {
				r := find(podName, normalizeReason(ev.Pod.Reason))
				if r.message == "" {
					r.message = strings.TrimPrefix(ev.Pod.Message, "Pod was rejected: ")
				}
				r.refs = append(r.refs, Ref{File: ev.Source, Line: ev.Pod.Lines["Reason"], Quote: "Reason: " + ev.Pod.Reason})
			}
		}
		for _, e := range ev.Events {
			if !admissionReasons[e.Reason] || e.Type == "Normal" {
				continue
			}
			name := podName
			if e.Object != "" {
				name = strings.TrimPrefix(e.Object, "pod/")
			}
			r := find(name, normalizeReason(e.Reason))
			if r.message == "" {
				r.message = e.Message
			}
			r.refs = append(r.refs, Ref{File: ev.Source, Line: e.Line, Path: e.Path, Quote: e.Type + " " + e.Reason + " " + e.Message})
		}
	}
	for _, l := range d.ev.Logs {
		for i := range l.Attempts {
			a := &l.Attempts[i]
			if a.Reason == "" {
				continue
			}
			r := find(a.Pod, normalizeReason(a.Reason))
			r.attempt, r.log = a, l
			if r.message == "" {
				r.message = a.Message
			}
			r.refs = append(r.refs, Ref{File: l.Name, Line: a.ResultLine, Quote: a.Reason + ": " + a.Message})
		}
	}
	// Attach pod specs and log attempts found under the same name.
	for _, r := range out {
		if r.spec == nil {
			for _, p := range d.ev.Pods {
				if sameName(p.Ref(), r.pod) {
					r.spec = p
				}
			}
		}
		if r.attempt == nil {
			for _, l := range d.ev.Logs {
				for i := len(l.Attempts) - 1; i >= 0; i-- {
					if sameName(l.Attempts[i].Pod, r.pod) && len(l.Attempts[i].Containers) > 0 {
						r.attempt, r.log = &l.Attempts[i], l
						break
					}
				}
			}
		}
	}
	return out
}

func (d *diagnosis) admissions() {
	rejected := d.rejections()
	defer d.admitted(rejected)
	for _, r := range rejected {
		switch r.reason {
		case CodeTopologyAffinityError:
			d.topologyAffinity(r)
		case CodeSMTAlignmentError:
			d.smtAlignment(r)
		case CodeUnexpectedAdmission:
			d.unexpectedAdmission(r)
		}
	}
}

var reSMTMessage = regexp.MustCompile(`(?:not enough free physical CPUs: available physical CPUs = (\d+), requested CPUs = (\d+), CPUs per core = (\d+)|requested (\d+) cpus not multiple cpus per core = (\d+))`)

func (d *diagnosis) smtAlignment(r *rejection) {
	f := Finding{Code: CodeSMTAlignmentError, Severity: statefile.SeverityError, Pod: r.pod, Evidence: r.refs,
		Title: fmt.Sprintf("Pod %s was rejected with SMTAlignmentError (CPU manager option full-pcpus-only)", r.pod)}
	m := reSMTMessage.FindStringSubmatch(r.message)
	cfgRef := d.cpuOptionRef("full-pcpus-only")
	if cfgRef != nil {
		f.Evidence = append(f.Evidence, *cfgRef)
	}
	switch {
	case m != nil && m[4] != "":
		f.Explanation = fmt.Sprintf("The static CPU manager runs with the policy option full-pcpus-only, which hands out whole physical cores only. "+
			"The pod asks for %s CPUs, which is not a multiple of the %s hardware threads per core, so the kubelet refuses it at admission "+
			"before the Topology Manager is even involved. This is not a TopologyAffinityError: NUMA alignment played no part.", m[4], m[5])
		f.Remedy = fmt.Sprintf("Request a multiple of %s CPUs for each Guaranteed container with integer CPUs (for example %d), then delete the failed pod so its controller recreates it.",
			m[5], roundUp(atoi(m[4]), atoi(m[5])))
	case m != nil:
		avail, req, per := atoi(m[1]), atoi(m[2]), atoi(m[3])
		f.Explanation = fmt.Sprintf("The static CPU manager runs with full-pcpus-only, so a container gets whole physical cores only. "+
			"It asked for %d CPUs (%d cores of %d threads), but only %d CPUs on completely free cores were available; free CPUs whose sibling "+
			"thread is taken or reserved do not count. A kubelet restart can make this happen on a node that looks free: CPUs restored from "+
			"cpu_manager_state and reserved CPUs can split cores (kubernetes/kubernetes#129078).", req, req/max(per, 1), per, avail)
		f.Remedy = "Free whole cores (delete pods holding exclusive CPUs on half-used cores), make reservedSystemCPUs cover whole cores " +
			"(all sibling threads), or run the pod on another node; then delete the failed pod so its controller recreates it."
	default:
		f.Explanation = "The static CPU manager with full-pcpus-only refused the pod because its CPU request cannot be met with whole physical cores. " + r.message
		f.Remedy = "Request a multiple of the CPUs per core and make sure enough whole cores are free."
	}
	d.add(f)
}

func (d *diagnosis) cpuOptionRef(opt string) *Ref {
	if c := d.ev.Config; c != nil {
		if v, ok := c.CPUManagerPolicyOptions[opt]; ok {
			return &Ref{File: c.Source, Path: "/cpuManagerPolicyOptions/" + opt, Quote: opt + ": " + v}
		}
	}
	return nil
}

func roundUp(n, k int) int {
	if k <= 0 {
		return n
	}
	return (n + k - 1) / k * k
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func (d *diagnosis) unexpectedAdmission(r *rejection) {
	msg := r.message
	base := Finding{Severity: statefile.SeverityError, Pod: r.pod, Evidence: r.refs}
	switch {
	case strings.Contains(msg, "failed to find NUMA nodes to extend the current topology hint"):
		f := base
		f.Code = CodeMemoryGroupExtension
		f.Title = fmt.Sprintf("Pod %s was rejected with UnexpectedAdmissionError: the memory manager could not extend its NUMA hint", r.pod)
		f.Explanation = "The Topology Manager admitted the container with a NUMA hint, but the memory on those NUMA nodes was not free, so the static " +
			"memory manager tried to widen the hint to a larger set of NUMA nodes (a NUMA group). It found none: a NUMA node can belong either to " +
			"single-node allocations or to one multi-node group, never both, and every wider set it could use crosses a node that already holds a " +
			"single-NUMA allocation (or belongs to a different group). The kubelet reports this as UnexpectedAdmissionError, not TopologyAffinityError."
		f.Remedy = "Keep pods that need memory from several NUMA nodes apart from single-NUMA pods: run them on dedicated nodes, or start them before the single-NUMA pods; " +
			"or reduce the request so it fits on one NUMA node. Delete the failed pod so its controller recreates it."
		d.add(f)
	case strings.Contains(msg, "requested number of devices unavailable"):
		m := reDevUnavailable.FindStringSubmatch(msg)
		f := base
		f.Code = CodeDevicesUnavailable
		res, req, avail := "the device resource", "?", "?"
		if m != nil {
			res, req, avail = m[1], m[2], m[3]
		}
		f.Title = fmt.Sprintf("Pod %s was rejected with UnexpectedAdmissionError: %s devices unavailable (requested %s, available %s)", r.pod, res, req, avail)
		f.Explanation = fmt.Sprintf("The device manager had %s healthy, unallocated %s devices when the pod was admitted, but the pod needs %s. "+
			"When this happens right after a node or kubelet restart, the device plugin had not registered again yet: the kubelet admits the pods "+
			"that were already bound to the node before the plugin reports its devices (kubernetes/kubernetes#125579, #124345). It also happens when "+
			"init containers and app containers both ask for devices and the devices are not given back in time.", avail, res, req)
		f.Remedy = fmt.Sprintf("Check that the %s device plugin is running and registered (kubelet log \"Device plugin connected\"), then delete the failed pod so its controller "+
			"recreates it. To avoid it after restarts, start the device plugin early (priority class, no image pull on boot).", res)
		d.add(f)
	default:
		f := base
		f.Code = CodeUnexpectedAdmission
		f.Title = fmt.Sprintf("Pod %s was rejected with UnexpectedAdmissionError", r.pod)
		f.Explanation = "A resource manager failed to allocate for the pod after the Topology Manager admitted it: " + msg +
			". The kubelet wraps any allocation error that is not an admission error of its own in UnexpectedAdmissionError."
		f.Remedy = "Read the wrapped error: it names the manager (cpumanager, memorymanager, device plugin) and what was short. Free the resource or fix the request, then delete the failed pod."
		d.add(f)
	}
}
