package diagnose

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// Run draws every finding the evidence supports and returns the report. It
// returns an error only when ctx is cancelled; evidence that says nothing
// yields a report with no findings.
func Run(ctx context.Context, ev *evidence.Set) (Report, error) {
	if ev == nil {
		ev = &evidence.Set{}
	}
	r := Report{Schema: SchemaVersion, Evidence: append([]evidence.Item{}, ev.Items()...)}
	if r.Evidence == nil {
		r.Evidence = []evidence.Item{}
	}
	d := &diagnosis{ev: ev, report: &r}
	for _, step := range []func(){d.releaseVerdicts, d.admissions, d.startup, d.stateVerdicts, d.machineVsState, d.drift, d.configTraps, d.configChecks, d.nrtVsKubelet, d.stateProblemFindings} {
		if err := ctx.Err(); err != nil {
			return Report{}, err
		}
		step()
	}
	d.versionSkews()
	d.kubeletMessages()
	d.runtimeFailures()
	d.fatalRecords()
	d.unreadableInputs()
	d.knownBugFindings()
	r.Kubelet = d.kubeletRange().String()
	r.finish()
	r.Next = nextEvidence(&r, ev.Logs)
	return r, nil
}

// nextEvidence says what to add when no finding is an error or a warning and
// nothing read can show an admission or a start-up: a topology, a state
// file or a configuration on its own is not a diagnosis of a pod.
func nextEvidence(r *Report, logs []*evidence.KubeletLog) string {
	if r.Summary.Errors > 0 || r.Summary.Warnings > 0 {
		return ""
	}
	used, hasLog := 0, false
	for _, e := range r.Evidence {
		if !e.Used() {
			continue
		}
		used++
		switch e.Kind {
		case evidence.KindEvents, evidence.KindPod:
			return ""
		case evidence.KindLog:
			hasLog = true
		}
	}
	if used == 0 {
		return ""
	}
	if hasLog {
		// A log that shows admissions without their outcome (cut, or
		// from a kubelet that logs no result) cannot tell a rejection.
		var pods []string
		for _, l := range logs {
			for _, a := range l.Attempts {
				explained := false
				for _, f := range r.Findings {
					explained = explained || (f.Pod != "" && evidence.SamePod(f.Pod, a.Pod))
				}
				if a.Reason == "" && a.Pod != "" && !explained && !slices.Contains(pods, a.Pod) && len(pods) < 3 {
					pods = append(pods, a.Pod)
				}
			}
		}
		who := strings.Join(pods, ", ")
		if len(pods) == 0 && len(r.Findings) == 0 {
			// Kubelets before 1.20 log admissions without the pod's name.
			for _, l := range logs {
				for _, rec := range l.Records {
					if strings.Contains(rec.Message, "Topology Admit Handler") {
						who = "a pod"
					}
				}
			}
		}
		if who == "" {
			return ""
		}
		return "The log shows the Topology Manager admitting " + who + " but not the outcome: if a pod was rejected, add its `kubectl describe pod NAME` " +
			"(or `kubectl get pods` with its STATUS) and the log lines after the admission (`journalctl -u kubelet --no-pager`)."
	}
	return "Nothing here shows a pod's admission or the kubelet's start-up (no pod status, event or kubelet log): to explain a rejected pod, add `kubectl describe pod NAME` " +
		"and the kubelet log around the rejection (`journalctl -u kubelet --no-pager --since=-1h`); for a kubelet that does not start, its log since the last start."
}

type diagnosis struct {
	ev     *evidence.Set
	report *Report
	rng    *kubeletRange // computed once by kubeletRange
	// cands holds, per log, the records that may carry an admission error
	// (computed once by admissionRecords).
	cands map[*evidence.KubeletLog][]int
	// skews are the checkpoints whose verdict the release the evidence
	// shows gives otherwise than the newest kubelet (releaseVerdicts).
	skews map[*statefile.File]skew
}

// admissionRecords returns the indices of the records of l whose message
// or error values hold an admission error's literal.
func (d *diagnosis) admissionRecords(l *evidence.KubeletLog) []int {
	if c, ok := d.cands[l]; ok {
		return c
	}
	var out []int
	for i := range l.Records {
		if evidence.MentionsAdmission(l.Records[i]) {
			out = append(out, i)
		}
	}
	if d.cands == nil {
		d.cands = map[*evidence.KubeletLog][]int{}
	}
	d.cands[l] = out
	return out
}

func (d *diagnosis) add(f Finding) {
	if f.Pod == unnamedPod || f.Pod == unnamedEventPod {
		f.Pod = "" // the evidence does not name it: the title says so
	}
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
		if sigs := l.SignalsOf(evidence.SignalTopologyConfig); len(sigs) > 0 {
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
	attempt *evidence.AdmissionAttempt
	log     *evidence.KubeletLog
	spec    *topomgr.Pod
	// siblings are other pods of the same controller rejected with the
	// same reason (a controller recreates a rejected pod): one failure.
	siblings []string
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
			if evidence.SamePod(r.pod, pod) && (r.reason == reason || reason == "" || r.reason == "") {
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
		if reason := admissionReason(p.Reason, p.Message); reason != "" {
			r := find(p.Ref(), reason)
			r.spec = p
			r.message = strings.TrimPrefix(p.Message, "Pod was rejected: ")
			r.refs = append(r.refs, Ref{File: p.Source, Path: p.Path + "/status/reason", Quote: p.Reason})
		}
	}
	groups := map[string]*rejection{} // namespace/controller|reason → first rejection
	for _, ev := range d.ev.Events {
		podName := ""
		if ev.Pod != nil {
			podName = ev.Pod.Name
			if ev.Pod.Namespace != "" {
				podName = ev.Pod.Namespace + "/" + ev.Pod.Name
			}
			if reason := admissionReason(ev.Pod.Reason, ev.Pod.Message); reason != "" {
				r := find(podName, reason)
				if r.message == "" {
					r.message = strings.TrimPrefix(ev.Pod.Message, "Pod was rejected: ")
				}
				r.refs = append(r.refs, Ref{File: ev.Source, Line: ev.Pod.Lines["Reason"], Quote: "Reason: " + ev.Pod.Reason})
			}
		}
		for _, e := range ev.Events {
			reason := admissionReason(e.Reason, e.Message)
			if reason == "" || e.Type == "Normal" {
				continue
			}
			name := podName
			if e.Object != "" {
				name = strings.TrimPrefix(e.Object, "pod/")
			}
			if e.Controller != "" {
				key := namespaceOf(name) + "/" + e.Controller + "|" + reason
				if first := groups[key]; first != nil && !evidence.SamePod(first.pod, name) {
					if !slices.Contains(first.siblings, name) {
						first.siblings = append(first.siblings, name)
					}
					first.refs = append(first.refs, Ref{File: ev.Source, Line: e.Line, Path: e.Path, Quote: strings.TrimSpace(e.Type + " " + e.Reason + " " + e.Message)})
					continue
				}
			}
			r := find(name, reason)
			if e.Controller != "" {
				key := namespaceOf(name) + "/" + e.Controller + "|" + reason
				if groups[key] == nil {
					groups[key] = r
				}
			}
			if r.message == "" {
				r.message = e.Message
			}
			r.refs = append(r.refs, Ref{File: ev.Source, Line: e.Line, Path: e.Path, Quote: strings.TrimSpace(e.Type + " " + e.Reason + " " + e.Message)})
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
	// Log records that carry an admission error but belong to no attempt
	// (an "Allocate error" line, a log cut before the result, an old
	// kubelet's unstructured line) still name a rejection.
	for _, l := range d.ev.Logs {
		for _, i := range d.admissionRecords(l) {
			rec := l.Records[i]
			reason, text := recordRejection(rec)
			if reason == "" {
				continue
			}
			pod := rec.PodRef()
			known := false
			for _, r := range out {
				known = known || (pod != "" && evidence.SamePod(r.pod, pod)) || (pod == "" && r.reason == reason)
			}
			if known {
				continue
			}
			if pod == "" {
				pod = unnamedPod
			}
			r := find(pod, reason)
			r.log = l
			if r.message == "" {
				r.message = text
			}
			q := text
			if len(q) > 300 {
				q = q[:300] + "..."
			}
			r.refs = append(r.refs, Ref{File: l.Name, Line: rec.Line, Quote: q})
		}
	}
	out = nameRejections(out, d.ev.Logs)
	// Attach pod specs and log attempts found under the same name.
	for _, r := range out {
		if r.spec == nil {
			for _, p := range d.ev.Pods {
				if evidence.SamePod(p.Ref(), r.pod) {
					r.spec = p
				}
			}
		}
		if r.attempt == nil {
			for _, l := range d.ev.Logs {
				for i := len(l.Attempts) - 1; i >= 0; i-- {
					if evidence.SamePod(l.Attempts[i].Pod, r.pod) && len(l.Attempts[i].Containers) > 0 {
						r.attempt, r.log = &l.Attempts[i], l
						break
					}
				}
			}
		}
	}
	return out
}

// unnamedPod stands for a pod the evidence does not name.
const unnamedPod = "(pod not named in the log)"

// unnamedEventPod stands for a pod of a status message or event that is
// pasted without the pod's name (a describe's Message: line on its own).
const unnamedEventPod = "(pod not named in the evidence)"

// nameRejections gives the rejections whose evidence names no pod a name.
// A message pasted without its pod and, in the same files, exactly one named
// pod rejected for the same reason whose message is missing (a `kubectl get
// pods` row beside a describe's Message: line) are one rejection: the
// message goes to the named pod. Any other nameless rejection is labelled
// as such, so that no title reads "Pod  was rejected".
func nameRejections(out []*rejection, logs []*evidence.KubeletLog) []*rejection {
	files := func(r *rejection) map[string]bool {
		m := map[string]bool{}
		for _, ref := range r.refs {
			m[ref.File] = true
		}
		return m
	}
	kept := make([]*rejection, 0, len(out))
	for _, r := range out {
		if r.pod != "" {
			kept = append(kept, r)
			continue
		}
		fr := files(r)
		var match *rejection
		n := 0
		for _, o := range out {
			if o == r || o.pod == "" || o.pod == unnamedPod || o.reason != r.reason || o.message != "" {
				continue
			}
			same := len(o.refs) > 0
			for f := range files(o) {
				same = same && fr[f]
			}
			if same {
				match, n = o, n+1
			}
		}
		if n == 1 && r.message != "" {
			match.message = r.message
			match.refs = append(r.refs, match.refs...)
			if match.attempt == nil {
				match.attempt, match.log = r.attempt, r.log
			}
			continue
		}
		if a, l := loneUnalignedAttempt(out, logs); r.reason == CodeTopologyAffinityError && a != nil {
			// The log shows one pod whose merged hint the policy did not
			// accept and no outcome for it: the nameless rejection is that pod's.
			r.pod, r.attempt, r.log = a.Pod, a, l
			kept = append(kept, r)
			continue
		}
		r.pod = unnamedEventPod
		kept = append(kept, r)
	}
	return kept
}

// loneUnalignedAttempt returns the admission attempt of the only pod that
// the logs show with a container whose best hint was not accepted and no
// outcome, when no rejection names that pod; nil when there are none or
// several.
func loneUnalignedAttempt(out []*rejection, logs []*evidence.KubeletLog) (*evidence.AdmissionAttempt, *evidence.KubeletLog) {
	var found *evidence.AdmissionAttempt
	var in *evidence.KubeletLog
	for _, l := range logs {
		for i := range l.Attempts {
			a := &l.Attempts[i]
			if a.Reason != "" || a.Pod == "" {
				continue
			}
			unaligned := false
			for _, c := range a.Containers {
				unaligned = unaligned || (c.BestHint != nil && !c.Aligned && !c.BestHint.Preferred)
			}
			if !unaligned {
				continue
			}
			if found != nil && !evidence.SamePod(found.Pod, a.Pod) {
				return nil, nil
			}
			found, in = a, l
		}
	}
	if found == nil {
		return nil, nil
	}
	for _, r := range out {
		if r.pod != "" && evidence.SamePod(r.pod, found.Pod) {
			return nil, nil
		}
	}
	return found, in
}

// admissionReason returns the admission reason of a status or event: the
// reason when it is one of the kubelet's admission reasons, otherwise,
// when the reason is missing, the one the message's template carries.
func admissionReason(reason, message string) string {
	if evidence.IsAdmissionReason(reason) {
		return normalizeReason(reason)
	}
	if reason == "" {
		return evidence.ReasonOf(message)
	}
	return ""
}

// recordRejection tells whether a log record carries an admission error
// of the kubelet, and returns its reason and text.
func recordRejection(rec evidence.Record) (string, string) {
	if !evidence.MentionsAdmission(rec) {
		return "", ""
	}
	t := rec.Text()
	if reason := evidence.ReasonOf(t); reason != "" {
		return reason, t
	}
	switch evidence.ParseAllocationError(t).Kind {
	case evidence.AllocCPUs, evidence.AllocMemoryExtend, evidence.AllocMemoryDefault, evidence.AllocMemoryExtended, evidence.AllocMemoryNoAffinity, evidence.AllocMemoryViolates,
		evidence.AllocDevicesShort, evidence.AllocDeviceUnregister, evidence.AllocDeviceEndpoint, evidence.AllocDeviceUnhealthy:
		return CodeUnexpectedAdmission, t
	}
	return "", ""
}

func (d *diagnosis) admissions() {
	rejected := d.rejections()
	defer d.admitted(rejected)
	defer d.unresolvedHints(rejected)
	for _, r := range rejected {
		n := len(d.report.Findings)
		switch r.reason {
		case CodeTopologyAffinityError:
			d.topologyAffinity(r)
		case CodeSMTAlignmentError:
			d.smtAlignment(r)
		case CodeUnexpectedAdmission:
			d.unexpectedAdmission(r)
		}
		if len(r.siblings) == 0 {
			continue
		}
		for i := n; i < len(d.report.Findings); i++ {
			if f := &d.report.Findings[i]; f.Pod == r.pod {
				f.Title += fmt.Sprintf(" (and %d more %s of the same controller)", len(r.siblings), map[bool]string{true: "pod", false: "pods"}[len(r.siblings) == 1])
				f.Explanation += fmt.Sprintf(" The same rejection hit %s: pods of one controller that its controller recreates after each rejection, so this is one failure, not %d.",
					strings.Join(r.siblings, ", "), len(r.siblings)+1)
			}
		}
	}
}

// namespaceOf returns the namespace of "namespace/name", or "".
func namespaceOf(pod string) string {
	if i := strings.LastIndexByte(pod, '/'); i >= 0 {
		return pod[:i]
	}
	return ""
}

func (d *diagnosis) smtAlignment(r *rejection) {
	f := Finding{Code: CodeSMTAlignmentError, Severity: statefile.SeverityError, Pod: r.pod, Evidence: r.refs, inner: r.message,
		Title: fmt.Sprintf("Pod %s was rejected with SMTAlignmentError (CPU manager option full-pcpus-only)", r.pod)}
	smt, isSMT := evidence.ParseSMTError(r.message)
	if cfgRef := d.cpuOptionRef("full-pcpus-only"); cfgRef != nil {
		f.Evidence = append(f.Evidence, *cfgRef)
	}
	const whole = "The static CPU manager runs with the policy option full-pcpus-only, which hands out whole physical cores only. "
	switch {
	case isSMT && smt.NotMultiple:
		req, per := smt.Requested, smt.PerCore
		if per > 0 && req%per == 0 {
			// A multiple of the core size cannot fail the multiple check: the
			// kubelet printed the wrong form of the error.
			cause := "every core has at least one thread taken or reserved"
			if per == 1 {
				cause = "no CPU was free for exclusive use at all (with 1 CPU per core every free CPU is a whole core)"
			}
			f.Explanation = fmt.Sprintf(whole+"The message says %d CPUs are not a multiple of %d CPUs per core, yet %d is one. Kubelets 1.27 to 1.31 print this form of the error "+
				"also when no CPU on a completely free core is left (available physical CPUs = 0), so the real cause is that %s "+
				"(1.32 prints the right form).", req, per, req, cause)
			f.Remedy = "Free CPUs on this node (delete pods holding exclusive CPUs, completed pods and pods with finished init containers that hold them) or run the pod on another node; then delete the failed pod so its controller recreates it."
			break
		}
		f.Explanation = fmt.Sprintf(whole+"The pod asks for %d CPUs, which is not a multiple of the %d hardware threads per core, so the static policy's Allocate refuses it: "+
			"the Topology Manager's admit handler calls the CPU manager's Allocate for each container after it has merged the providers' hints and accepted them "+
			"(under topologyManagerPolicy none it calls Allocate without hints), and Allocate checks the request against the core size before it takes any CPU. "+
			"This is not a TopologyAffinityError: the NUMA placement was acceptable; the core size decided.", req, per)
		f.Remedy = fmt.Sprintf("Request a multiple of %d CPUs for each Guaranteed container with integer CPUs (for example %d), then delete the failed pod so its controller recreates it.",
			per, roundUp(req, per))
	case isSMT:
		avail, req, per := smt.Available, smt.Requested, smt.PerCore
		if per <= 1 {
			f.Explanation = fmt.Sprintf(whole+"The kubelet reports 1 CPU per core on this node (SMT is off, or hidden from the kubelet), so every free CPU is a whole core. "+
				"The container asked for %d CPUs but only %d CPUs were free for exclusive use (not reserved, not assigned to other containers). "+
				"A kubelet restart can cause this on a node that looks free: CPUs restored from cpu_manager_state are counted before the pod's own assignment.", req, avail)
			f.Remedy = fmt.Sprintf("Free at least %d CPUs (delete pods holding exclusive CPUs, including completed pods and pods whose init containers still hold CPUs), lower the request, or run the pod on another node; "+
				"then delete the failed pod so its controller recreates it.", req-avail)
			break
		}
		f.Explanation = fmt.Sprintf("The static CPU manager runs with full-pcpus-only, so a container gets whole physical cores only. "+
			"It asked for %d CPUs (%d cores of %d threads), but only %d CPUs on completely free cores were available; free CPUs whose sibling "+
			"thread is taken or reserved do not count. A kubelet restart can make this happen on a node that looks free: CPUs restored from "+
			"cpu_manager_state and reserved CPUs can split cores.", req, req/max(per, 1), per, avail)
		f.Remedy = "Free whole cores (delete pods holding exclusive CPUs on half-used cores), make reservedSystemCPUs cover whole cores " +
			"(all sibling threads), or run the pod on another node; then delete the failed pod so its controller recreates it."
	case strings.TrimSpace(r.message) == "":
		f.Explanation = whole + "It refused the pod because its CPU request cannot be met with whole physical cores: either the request is not a multiple of the CPUs per core, " +
			"or not enough completely free cores are left. The evidence does not carry the message, which says which of the two and gives the figures."
		f.Remedy = "Add the pod's status message (`kubectl get pod -o yaml` or `kubectl describe pod`) or the kubelet log around the rejection and run the diagnosis again; " +
			"meanwhile request a multiple of the CPUs per core and make sure enough whole cores are free."
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
