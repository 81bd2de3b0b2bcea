package diagnose

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/words"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// kubeletRange is what the evidence says about the kubelet's release, as
// minor versions of 1.x: from min to max, 0 for an open end.
type kubeletRange struct {
	min, max int
	// minWhy and maxWhy are the clues that set each bound.
	minWhy, maxWhy string
	// conflict lists clues that exclude the range so far (evidence from
	// different kubelets, or an upgrade in between).
	conflict []string
}

func (r kubeletRange) known() bool { return r.min > 0 || r.max > 0 }

func rangeText(min, max int) string {
	switch {
	case min > 0 && max > 0 && min == max:
		return fmt.Sprintf("v1.%d", min)
	case min > 0 && max > 0:
		return fmt.Sprintf("v1.%d to v1.%d", min, max)
	case min > 0:
		return fmt.Sprintf("v1.%d or later", min)
	case max > 0:
		return fmt.Sprintf("v1.%d or older", max)
	}
	return "unknown"
}

// String renders the range with the clues that decide it.
func (r kubeletRange) String() string {
	if !r.known() {
		return ""
	}
	var why []string
	if r.minWhy != "" {
		why = append(why, r.minWhy)
	}
	if r.maxWhy != "" && r.maxWhy != r.minWhy {
		why = append(why, r.maxWhy)
	}
	total := rangeText(r.min, r.max)
	for i, w := range why {
		// A clue that alone decides the range needs no range of its own.
		why[i] = strings.TrimPrefix(w, total+": ")
	}
	s := total + " (" + strings.Join(why, "; ") + ")"
	if len(r.conflict) > 0 {
		s += "; clues that disagree, so the evidence may come from more than one kubelet: " + strings.Join(r.conflict, "; ")
	}
	return s
}

// narrow adds one clue: the kubelet is 1.min to 1.max (0 for an open end).
func (r *kubeletRange) narrow(min, max int, clue string) {
	text := rangeText(min, max) + ": " + clue
	if (max > 0 && r.min > max) || (min > 0 && r.max > 0 && min > r.max) {
		if len(r.conflict) < 3 && !slices.Contains(r.conflict, text) {
			r.conflict = append(r.conflict, text)
		}
		return
	}
	if min > r.min {
		r.min, r.minWhy = min, text
	}
	if max > 0 && (r.max == 0 || max < r.max) {
		r.max, r.maxWhy = max, text
	}
}

// within reports whether every release the range allows lies in 1.lo to
// 1.hi (0 for an open end).
func (r kubeletRange) within(lo, hi int) bool {
	if !r.known() || r.min < lo {
		return false
	}
	return hi == 0 || (r.max > 0 && r.max <= hi)
}

// overlaps reports whether the range may include some release from 1.lo to
// 1.hi (0 for an open end).
func (r kubeletRange) overlaps(lo, hi int) bool {
	if hi > 0 && r.min > hi {
		return false
	}
	if lo > 0 && r.max > 0 && r.max < lo {
		return false
	}
	return true
}

var (
	reVersionText   = regexp.MustCompile(`\bv?1\.(\d{1,2})\.\d+`)
	reLogVersionOld = regexp.MustCompile(`^Version: v1\.(\d{1,2})\.\d+`)
)

// kubeletRange infers the kubelet's release from all the evidence:
// the log, the admission messages, the configuration's fields and the
// checkpoint formats.
func (d *diagnosis) kubeletRange() kubeletRange {
	if d.rng != nil {
		return *d.rng
	}
	var r kubeletRange
	for _, l := range d.ev.Logs {
		logKubeletRange(l, &r)
		for _, i := range d.admissionRecords(l) {
			rec := l.Records[i]
			where := fmt.Sprintf("%s:%d", l.Name, rec.Line)
			messageRange(&r, "", rec.Message, false, where)
			for _, v := range rec.Values {
				if v.Key == "message" || v.Key == "err" {
					messageRange(&r, "", v.Text, false, where)
				}
			}
		}
	}
	for _, p := range d.ev.Pods {
		messageRange(&r, p.Reason, p.Message, true, p.Source)
	}
	for _, ev := range d.ev.Events {
		if ev.Pod != nil {
			messageRange(&r, ev.Pod.Reason, ev.Pod.Message, true, ev.Source)
		}
		for _, e := range ev.Events {
			messageRange(&r, e.Reason, e.Message, false, ev.Source)
		}
	}
	if c := d.ev.Config; c != nil {
		configRange(&r, c)
	}
	for _, st := range d.ev.States {
		stateRange(&r, st)
	}
	d.rng = &r
	return r
}

// logKubeletRange narrows r by what one kubelet log shows: its version
// line, and records whose form belongs to some releases only (the
// admission messages in it are read by kubeletRange). The log reader's own
// era detection, once it records one, belongs here too.
func logKubeletRange(l *evidence.KubeletLog, r *kubeletRange) {
	// would tells whether a clue of 1.min to 1.max would narrow r, so the
	// clue's text is built only then.
	would := func(min, max int) bool { return min > r.min || (max > 0 && (r.max == 0 || max < r.max)) }
	for _, rec := range l.Records {
		switch {
		case rec.Message == "Kubelet version":
			if v, ok := rec.Get("kubeletVersion"); ok {
				if m := reVersionText.FindStringSubmatch(v); m != nil {
					n := atoi(m[1])
					r.narrow(n, n, fmt.Sprintf("%s:%d says kubeletVersion=%s", l.Name, rec.Line, v))
				}
			}
		case strings.HasPrefix(rec.Message, "Version: v1.") && reLogVersionOld.MatchString(rec.Message):
			m := reLogVersionOld.FindStringSubmatch(rec.Message)
			n := atoi(m[1])
			r.narrow(n, n, fmt.Sprintf("%s:%d says %s", l.Name, rec.Line, rec.Message))
		case rec.Message == "Pod admission denied":
			if would(31, 0) {
				r.narrow(31, 0, fmt.Sprintf("%s:%d is a \"Pod admission denied\" record (kubernetes/kubernetes#125631)", l.Name, rec.Line))
			}
		case strings.HasPrefix(rec.Message, "[topologymanager]") || strings.HasPrefix(rec.Message, "[cpumanager]"):
			if would(0, 20) {
				r.narrow(0, 20, fmt.Sprintf("%s:%d has the [topologymanager]/[cpumanager] prefix of unstructured logs", l.Name, rec.Line))
			}
		case rec.Message == "TopologyHints" && l.Format == "text":
			if raw, ok := rec.Get("hints"); ok {
				switch {
				case strings.Contains(raw, `"NUMANodeAffinity":`):
					if would(28, 0) {
						r.narrow(28, 0, fmt.Sprintf("%s:%d prints hints as JSON (klog 2.100+)", l.Name, rec.Line))
					}
				case strings.Contains(raw, "NUMANodeAffinity:"):
					if would(21, 27) {
						r.narrow(21, 27, fmt.Sprintf("%s:%d prints hints with %%+v", l.Name, rec.Line))
					}
				}
			}
		}
	}
}

// messageRange narrows r by the text of an admission reason and message.
// status tells a pod status message (which got the "Pod was rejected: "
// prefix in 1.26) from an event message (which never has it).
func messageRange(r *kubeletRange, reason, msg string, status bool, where string) {
	if reason == "Topology Affinity Error" {
		r.narrow(16, 17, fmt.Sprintf("%s: reason \"Topology Affinity Error\" with spaces", where))
	}
	if msg == "" {
		return
	}
	if strings.Contains(msg, "Topology Locality") {
		r.narrow(16, 17, fmt.Sprintf("%s: message \"...with Topology Locality\" (capital L)", where))
	}
	if status && admissionReason(reason, msg) != "" {
		if strings.HasPrefix(msg, "Pod was rejected: ") {
			r.narrow(26, 0, fmt.Sprintf("%s: status message starts \"Pod was rejected:\" (kubernetes/kubernetes#112644)", where))
		} else if reason != "" {
			r.narrow(0, 25, fmt.Sprintf("%s: status message without \"Pod was rejected:\"", where))
		}
	}
	if strings.Contains(msg, "SMT Alignment Error") {
		r.narrow(22, 0, fmt.Sprintf("%s: SMTAlignmentError (full-pcpus-only)", where))
		if strings.Contains(msg, "not enough free physical CPUs") {
			r.narrow(27, 0, fmt.Sprintf("%s: SMT message \"not enough free physical CPUs\" (kubernetes/kubernetes#114114)", where))
		}
		if e, ok := evidence.ParseSMTError(msg); ok && e.NotMultiple {
			if per := e.PerCore; per > 0 && e.Requested%per == 0 {
				r.narrow(27, 31, fmt.Sprintf("%s: SMT \"not multiple\" message for a multiple of the core size (kubernetes/kubernetes#127959)", where))
			}
		}
	}
	if strings.Contains(msg, "which is unexpected") {
		r.narrow(18, 0, fmt.Sprintf("%s: UnexpectedAdmissionError", where))
	}
	switch in := evidence.ParseAllocationError(msg); in.Kind {
	case evidence.AllocCPUs:
		if in.Requested != "" {
			r.narrow(28, 0, fmt.Sprintf("%s: \"not enough cpus available to satisfy request: requested=...\"", where))
		} else if !strings.Contains(msg, "request:") {
			r.narrow(0, 29, fmt.Sprintf("%s: \"not enough cpus available to satisfy request\" without counts", where))
		}
	case evidence.AllocMemoryExtend, evidence.AllocMemoryDefault, evidence.AllocMemoryExtended, evidence.AllocMemoryNoAffinity:
		r.narrow(21, 0, fmt.Sprintf("%s: memory manager error", where))
	case evidence.AllocMemoryViolates:
		r.narrow(32, 0, fmt.Sprintf("%s: \"preferred hint violates NUMA node allocation\" (from 1.32)", where))
	case evidence.AllocDeviceUnhealthy:
		r.narrow(26, 0, fmt.Sprintf("%s: \"cannot allocate unhealthy devices\"", where))
	case evidence.AllocDeviceUnregister:
		if strings.Contains(msg, "can't allocate") {
			r.narrow(0, 27, fmt.Sprintf("%s: \"can't allocate unregistered device\"", where))
		} else {
			r.narrow(26, 0, fmt.Sprintf("%s: \"cannot allocate unregistered device\"", where))
		}
	}
}

// configRange narrows r by configuration fields that exist only from a release.
func configRange(r *kubeletRange, c *topomgr.KubeletConfig) {
	fields := []struct {
		field string
		since int
	}{
		{"topologyManagerScope", 20},
		{"memoryManagerPolicy", 21},
		{"reservedMemory", 21},
		{"cpuManagerPolicyOptions", 22},
		{"topologyManagerPolicyOptions", 26},
	}
	for _, f := range fields {
		if slices.Contains(c.Set, f.field) {
			r.narrow(f.since, 0, fmt.Sprintf("%s sets %s", c.Source, f.field))
		}
	}
	// The kubelet refuses a feature gate it does not know, so a gate that
	// was added or removed dates the kubelet. The bounds are the ones read
	// in the kubelet sources of v1.21.0, v1.27.0, v1.30.0 and v1.37.2.
	gates := []struct {
		gate     string
		min, max int
	}{
		{"TopologyManager", 0, 29},
		{"CPUManager", 0, 36},
		{"MemoryManager", 0, 36},
		{"TopologyManagerPolicyOptions", 22, 0},
		{"TopologyManagerPolicyAlphaOptions", 22, 0},
		{"TopologyManagerPolicyBetaOptions", 22, 0},
		{"CPUManagerPolicyOptions", 22, 0},
		{"CPUManagerPolicyAlphaOptions", 22, 0},
		{"CPUManagerPolicyBetaOptions", 22, 0},
	}
	for _, g := range gates {
		if _, ok := c.FeatureGates[g.gate]; ok {
			r.narrow(g.min, g.max, fmt.Sprintf("%s sets the feature gate %s", c.Source, g.gate))
		}
	}
}

// stateRange narrows r by the checkpoint formats, which the statefile
// package dates.
func stateRange(r *kubeletRange, f *statefile.File) {
	where := f.Name + " is "
	switch {
	case f.Kind == statefile.KindCPU && f.Format == statefile.FormatV1:
		r.narrow(0, 17, where+"a cpu v1 checkpoint (containerID keys)")
	case f.Kind == statefile.KindCPU && f.Format != "":
		r.narrow(18, 0, where+"a cpu checkpoint keyed by pod UID")
	case f.Kind == statefile.KindMemory && f.Format != "":
		r.narrow(21, 0, where+"a memory manager checkpoint")
	case f.Kind == statefile.KindDevice && f.Format == statefile.FormatV1:
		r.narrow(0, 19, where+"a device v1 checkpoint (flat DeviceIDs)")
	case f.Kind == statefile.KindDevice && f.Format == statefile.FormatV2:
		r.narrow(20, 0, where+"a device v2 checkpoint (DeviceIDs per NUMA node)")
	case f.Kind == statefile.KindDRA && f.Format == statefile.FormatCRC32:
		r.narrow(31, 0, where+"a crc32 DRA checkpoint")
	case f.Kind == statefile.KindDRA && f.Format == statefile.FormatSpewV1:
		r.narrow(27, 30, where+"a spew DRA checkpoint")
	}
}

// releaseVerdicts gives the checkpoint verdicts again for the kubelet
// release set with SetKubeletVersion or shown by the evidence: by the logs
// alone, else by all of it (exactly one minor release, without disagreeing
// clues, within statefile's range).
func (d *diagnosis) releaseVerdicts() {
	version, why := d.ev.KubeletVersion(), "the release given"
	if version == "" {
		// The logs are the running kubelet's; the checkpoint formats say
		// which kubelet wrote them, which an upgrade leaves behind. So
		// the logs decide first, then all the evidence.
		var logs kubeletRange
		for _, l := range d.ev.Logs {
			logKubeletRange(l, &logs)
		}
		r := logs
		if r.min == 0 || r.min != r.max || len(r.conflict) > 0 {
			r = d.kubeletRange()
		}
		if r.min < 28 || r.min > 37 || r.min != r.max || len(r.conflict) > 0 {
			return
		}
		version, why = fmt.Sprintf("1.%d", r.min), strings.TrimPrefix(r.minWhy, rangeText(r.min, r.max)+": ")
	}
	for _, f := range d.ev.States {
		in, ok := d.ev.StateInput(f)
		if !ok {
			continue
		}
		opts := in.Options
		opts.KubeletVersion = version
		g, err := d.ev.DecodeState(in.Data, opts)
		if err != nil {
			continue
		}
		if f.KubeletAccepts != g.KubeletAccepts && d.ev.Provenance(f) == nil {
			if d.skews == nil {
				d.skews = map[*statefile.File]skew{}
			}
			d.skews[f] = skew{release: version, newestAccepts: f.KubeletAccepts, newestReason: f.Reason, era: f.Checksum.Era}
		}
		// the same *File stays in the evidence: findings and notes refer to it
		*f = *g
		if d.ev.Provenance(f) != nil {
			continue
		}
		for i := range d.report.Evidence {
			it := &d.report.Evidence[i]
			if it.File == f.Name && it.Kind == "state-"+string(f.Kind) {
				it.Note = "kubelet " + version + " accepts it"
				if !f.KubeletAccepts {
					it.Note = "kubelet " + version + " " + f.OnReject
				}
				it.Note += " (" + why + ")"
			}
		}
	}
}

// skew is a checkpoint whose verdict differs between the newest kubelet
// and the release the evidence shows.
type skew struct {
	release       string
	newestAccepts bool
	newestReason  string
	era           string // the checksum layout's era, as the newest verdict matched it
}

// versionSkews says what a verdict that differs between releases means:
// a file the newest kubelet accepts but the running release refuses was
// written by a newer kubelet (a downgrade, an image rolled back), which
// the finding about the refusal says; a file the running release accepts
// but the newest refuses will stop the kubelet after an upgrade.
func (d *diagnosis) versionSkews() {
	for f, s := range d.skews {
		if s.newestAccepts {
			why := fmt.Sprintf(" The newest kubelet (1.37) accepts %s, kubelet %s does not: the file is in a format or checksum layout newer than %s reads", f.Name, s.release, s.release)
			if s.era != "" {
				why += " (" + s.era + ")"
			}
			why += ", so this is a version skew (a newer kubelet wrote it and the node now runs an older one: a downgrade, a node image rolled back), not damage."
			for i := range d.report.Findings {
				if fd := &d.report.Findings[i]; citesFile(*fd, f.Name) {
					fd.Explanation += why
				}
			}
			continue
		}
		d.add(Finding{Code: CodeCheckpointVersionSkew, Severity: statefile.SeverityWarning,
			Title:    fmt.Sprintf("kubelet %s accepts %s, but newer kubelets refuse it: an upgrade will stop the kubelet", s.release, f.Name),
			Evidence: []Ref{{File: f.Name, Quote: words.Clip(s.newestReason, 300)}},
			Explanation: fmt.Sprintf("The release the evidence shows (%s) restores %s; the newest kubelet's restore path refuses it: %s. After an upgrade the kubelet will not start (or will drop the file's data) until the file is moved away.",
				s.release, f.Name, words.Or(s.newestReason, "it does not read this format")),
			Remedy: "Before upgrading the kubelet on this node, drain it and move " + f.Name + " away (keep a copy), so the new kubelet writes a fresh one."})
	}
}

// citesFile tells whether a finding cites a file.
func citesFile(f Finding, name string) bool {
	for _, r := range f.Evidence {
		if r.File == name {
			return true
		}
	}
	return false
}
