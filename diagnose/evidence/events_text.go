package evidence

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Text readers: tables, describe output and kubelet messages.
const (
	formatPodsTable     = "get-pods-table"
	formatEventsTable   = "events-table"
	formatKubectlEvents = "kubectl-events"
	formatMessage       = "kubelet-message"
	formatDescribe      = "describe"
	formatFragment      = "describe-fragment"

	// maxEventWarnings bounds the warnings of one document.
	maxEventWarnings = 50
	// maxEvents bounds the events of one document.
	maxEvents = 100000
	// maxMatchLine bounds the part of a line searched for messages.
	maxMatchLine = 64 << 10
)

var (
	ageRe = `(?:(?:\d+[smhdy])+|<unknown>|<invalid>|unknown)`
	// rePodRow is a `kubectl get pods` row by shape: [NAMESPACE] NAME
	// READY STATUS (one or more words) RESTARTS ["(3m4s ago)"] AGE [wide].
	rePodRow = regexp.MustCompile(`^(?:(\S+)\s+)?(\S+)\s+(\d+/\d+)\s+(\S.*?)\s+(\d+(?:\s+\(` + ageRe + ` ago\))?)\s+(` + ageRe + `)(?:\s+(.*))?$`)
	// rePodRowCut is a pod row cut after RESTARTS (a paste that lost the
	// AGE column): read only when STATUS is an admission failure.
	rePodRowCut = regexp.MustCompile(`^(?:(\S+)\s+)?(\S+)\s+(\d+/\d+)\s+(\S.*?)\s+(\d+)$`)
	// reEventRow is a `kubectl get events` / `kubectl events` row by
	// shape: [NAMESPACE] LAST-SEEN TYPE REASON OBJECT MESSAGE.
	reEventRow = regexp.MustCompile(`^(?:(\S+)\s+)?(` + ageRe + `(?:\s+\(x\d+ over ` + ageRe + `\))?)\s+(Normal|Warning)\s+(\S+)\s+([A-Za-z]+/\S+)\s+(.*)$`)
	// reDescribeRow is an Events-section row: Type Reason Age From Message.
	reDescribeRow = regexp.MustCompile(`^(Normal|Warning)\s+([A-Za-z][\w ]*?[A-Za-z])\s{2,}(` + ageRe + `(?:\s+\(x\d+ over ` + ageRe + `\))?)\s{2,}(\S.*?)\s{2,}(.*)$`)
	// reDescribeRowCollapsed is the same with single spaces.
	reDescribeRowCollapsed = regexp.MustCompile(`^(Normal|Warning)\s+(\S+)\s+(` + ageRe + `(?:\s+\(x\d+ over ` + ageRe + `\))?)\s+(kubelet(?:,\s*\S+)?|default-scheduler|\S+)\s+(.*)$`)
	reColumnGap            = regexp.MustCompile(`\s{2,}`)
	reCountOver            = regexp.MustCompile(`\(x(\d+) over`)
	reReady                = regexp.MustCompile(`^\d+/\d+$`)
	rePromptLine           = regexp.MustCompile(`^\$ (?:kubectl|oc|k) `) // a pasted prompt line as normalisation keeps it
	reAlignedColumns       = regexp.MustCompile(`\s{2,}\S`)
)

// admissionStatus reports whether a pod STATUS is a reason the kubelet's
// admission gives a rejected pod (pkg/kubelet/lifecycle/predicate.go,
// cm/admission, the Topology and CPU managers).
func admissionStatus(s string) bool {
	switch s {
	case "TopologyAffinityError", "Topology Affinity Error", "SMTAlignmentError", "UnexpectedAdmissionError",
		"EmptyPodSharedPoolError", "UnexpectedPredicateFailureType", "UnknownReason", "InvalidNodeInfo",
		"PodOSNotSupported", "PodOSSelectorNodeLabelDoesNotMatch", "InitContainerRestartPolicyForbidden",
		"SupplementalGroupsPolicyNotSupported", "NodeAffinity", "NodeName", "NodePorts", "TaintToleration":
		return true
	}
	return strings.HasPrefix(s, "OutOf") && len(s) > len("OutOf")
}

// randomSuffix is the alphabet of generated name suffixes
// (k8s.io/apimachinery/pkg/util/rand).
const randomSuffix = "bcdfghjklmnpqrstvwxz2456789"

// controllerOf returns the name of the controller that made a pod, from
// its name alone: NAME-xxxxx (ReplicaSet, DaemonSet, Job) or NAME-N
// (StatefulSet).
func controllerOf(pod string) string {
	i := strings.LastIndexByte(pod, '-')
	if i <= 0 || i == len(pod)-1 {
		return ""
	}
	suf := pod[i+1:]
	if len(suf) == 5 && strings.Trim(suf, randomSuffix) == "" {
		return pod[:i]
	}
	if strings.Trim(suf, "0123456789") == "" && len(suf) <= 5 {
		return pod[:i]
	}
	return ""
}

// kubeletMessage is one admission message template of the kubelet.
type kubeletMessage struct {
	reason string
	re     *regexp.Regexp
}

// kubeletMessages are built from the kubelet's format strings:
// topologymanager (TopologyAffinityError.Error, and 1.16/1.17's
// "Topology Locality"), cm/admission/errors.go, lifecycle/predicate.go
// and cpumanager/policy_static.go (SMTAlignmentError, both forms).
var kubeletMessages = []kubeletMessage{
	{ReasonTopologyAffinity, regexp.MustCompile(`Resources cannot be allocated with Topology [lL]ocality`)},
	{ReasonSMTAlignment, regexp.MustCompile(`SMT Alignment Error: not enough free physical CPUs: available physical CPUs = \d+, requested CPUs = \d+, CPUs per core = \d+`)},
	{ReasonSMTAlignment, regexp.MustCompile(`SMT Alignment Error: requested \d+ cpus not multiple cpus per core = \d+`)},
	{ReasonUnexpected, regexp.MustCompile(`Allocate failed due to \S.*?, which is unexpected`)},
	{ReasonUnexpected, regexp.MustCompile(`Update plugin resources failed due to \S.*?, which is unexpected\.?`)},
	{ReasonUnexpected, regexp.MustCompile(`GeneralPredicates failed due to \S.*?, which is unexpected\.?`)},
	{ReasonUnexpected, regexp.MustCompile(`Unexpected error while attempting to recover from admission failure: \S[^"` + "`" + `]*`)},
	{"OutOf", regexp.MustCompile(`Node didn't have enough resource: ([\w./-]+), requested: \d+, used: \d+, capacity: \d+`)},
}

var (
	rePodInLine    = regexp.MustCompile(`\bpod(?:Name)?=\\?"?([a-z0-9][-a-z0-9.]*(?:/[a-z0-9][-a-z0-9.]*)?)|\b[pP]od/([a-z0-9][-a-z0-9.]*)|\bpod "([a-z0-9][-a-z0-9.]*)"`)
	reReasonInLine = regexp.MustCompile(`\breason=\\?"?([A-Z][A-Za-z]+)`)
)

type textReader struct {
	ev       *Events
	formats  []string
	markers  map[string]bool
	warnings int
	// pods-table bookkeeping
	podRows   int
	otherRows map[string]int
	nodes     map[string]int
	tableish  int // lines shaped like table rows that nothing read
	// From the last `$ kubectl ...` line: its namespace and the pod it names.
	namespace, pod string
}

// prompt reads a pasted `kubectl`/`oc` command line: the namespace it
// selects (-n, --namespace) and the pod it names (get|describe pod NAME),
// which the output that follows is about.
func (r *textReader) prompt(line string) {
	f := strings.Fields(line)
	r.namespace, r.pod = "", ""
	var args []string
	for i := 1; i < len(f); i++ {
		a := f[i]
		switch {
		case a == "-n" || a == "--namespace":
			if i+1 < len(f) {
				r.namespace = f[i+1]
				i++
			}
		case strings.HasPrefix(a, "--namespace="):
			r.namespace = strings.TrimPrefix(a, "--namespace=")
		case strings.HasPrefix(a, "-n") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			r.namespace = a[2:]
		case a == "|" || a == ">":
			i = len(f)
		case strings.HasPrefix(a, "-"):
			if (a == "-o" || a == "-l" || a == "--selector" || a == "--output") && i+1 < len(f) {
				i++
			}
		default:
			args = append(args, a)
		}
	}
	// args: kubectl get|describe pod[s] NAME, or pod/NAME.
	if len(args) >= 3 && (args[1] == "get" || args[1] == "describe") {
		switch {
		case args[2] == "pod" || args[2] == "pods" || args[2] == "po":
			if len(args) == 4 {
				r.pod = args[3]
			}
		case strings.HasPrefix(args[2], "pod/") && len(args) == 3:
			r.pod = strings.TrimPrefix(args[2], "pod/")
		}
	}
	if !reName.MatchString(r.namespace) {
		r.namespace = ""
	}
	if !reName.MatchString(r.pod) {
		r.pod = ""
	}
}

var reName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)

func (r *textReader) warnf(format string, args ...any) {
	r.warnings++
	switch {
	case r.warnings < maxEventWarnings:
		r.ev.Warnings = append(r.ev.Warnings, fmt.Sprintf(format, args...))
	case r.warnings == maxEventWarnings:
		r.ev.Warnings = append(r.ev.Warnings, "more warnings left out")
	}
}

func (r *textReader) saw(format string) {
	if !contains(r.formats, format) {
		r.formats = append(r.formats, format)
	}
}

func (r *textReader) add(e Event) {
	if len(r.ev.Events) < maxEvents {
		r.ev.Events = append(r.ev.Events, e)
	} else if len(r.ev.Events) == maxEvents {
		r.warnf("more than %d events: the rest are left out", maxEvents)
	}
}

// expandTabs widens tabs, which some terminals and tickets put between a
// table's columns, to a run of spaces: the readers split on runs of spaces.
func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "   ") }

func objectRef(kindName, namespace string) string {
	kind, name, ok := strings.Cut(kindName, "/")
	if !ok {
		kind, name = "pod", kindName
	}
	kind = strings.ToLower(kind)
	if namespace != "" && !strings.Contains(name, "/") {
		name = namespace + "/" + name
	}
	return kind + "/" + name
}

func countOf(s string) int {
	if m := reCountOver.FindStringSubmatch(s); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return n
		}
	}
	return 0
}

func parseEventText(name, text string) (*Events, error) {
	r := &textReader{ev: &Events{Source: name}, markers: map[string]bool{}, otherRows: map[string]int{}, nodes: map[string]int{}}
	var tbl *textTable
	inEvents := false
	for ln, rest := 1, text; rest != ""; ln++ {
		var raw string
		raw, rest, _ = strings.Cut(rest, "\n")
		if raw == "" || raw == "\r" {
			tbl = nil
			continue
		}
		if len(raw) > maxMatchLine {
			// No table row or describe line is this long: look for
			// messages only.
			if !r.messages(raw, ln) {
				r.warnf("line %d: %d characters long: skipped", ln, len(raw))
			}
			continue
		}
		line := expandTabs(raw)
		trim := strings.TrimSpace(line)
		if trim == "" {
			tbl = nil
			continue
		}
		if rePromptLine.MatchString(trim) {
			r.prompt(trim)
			tbl = nil
			continue
		}
		if trim == "..." || trim == "…" || trim == "[...]" || trim == "<snip>" {
			r.warnf("line %d: %q: lines were left out here", ln, trim)
			continue
		}
		if t, ok := podsHeader(trim); ok {
			t.kind, t.line = formatPodsTable, ln
			tbl, inEvents = t, false
			r.saw(formatPodsTable)
			if t.collapsed {
				r.warnf("line %d: the table's spacing was collapsed to single spaces: columns are read from each row's shape", ln)
			}
			r.alignHeader(t, line)
			continue
		}
		if t, ok := eventsHeader(trim); ok {
			t.kind, t.line = formatEventsTable, ln
			tbl, inEvents = t, false
			if t.collapsed {
				r.warnf("line %d: the table's spacing was collapsed to single spaces: columns are read from each row's shape", ln)
			}
			r.alignHeader(t, line)
			continue
		}
		if strings.HasPrefix(trim, "Events:") && !strings.HasPrefix(line, " ") {
			inEvents, tbl = true, nil
			r.markers["Events"] = true
			continue
		}
		if inEvents {
			if t, ok := parseHeader(trim, describeColumns); ok && t.has("TYPE") && t.has("REASON") {
				t.kind, t.line = "describe", ln
				tbl = t
				r.alignHeader(t, line)
				continue
			}
			if strings.HasPrefix(trim, "----") || trim == "<none>" {
				continue
			}
			if r.describeRow(tbl, line, ln) {
				continue
			}
			inEvents, tbl = false, nil
		}
		if tbl != nil {
			ok := false
			switch tbl.kind {
			case formatPodsTable:
				ok = r.podRow(tbl, line, ln)
			case formatEventsTable:
				ok = r.eventRow(tbl, line, ln)
			}
			if ok {
				continue
			}
			// Not a row (a wrapped or cut line, a note): the table goes on
			// until a blank line or another header.
		}
		if k, v, ok := describeField(line); ok {
			r.describeField(k, v, ln)
			tbl = nil
			continue
		}
		// Rows without a header.
		if r.describeRow(nil, line, ln) || r.eventRow(nil, line, ln) || r.podRow(nil, line, ln) {
			continue
		}
		if r.messages(line, ln) {
			continue
		}
		switch {
		case tbl != nil:
			r.warnf("line %d: skipped: not a row of the table headed on line %d (a wrapped or cut line?)", ln, tbl.line)
		case len(reAlignedColumns.FindAllStringIndex(trim, 3)) >= 2:
			r.tableish++
		}
	}
	return r.finish()
}

// alignHeader re-measures a header's offsets on the line as printed
// (parseHeader measured them on the trimmed line).
func (r *textReader) alignHeader(t *textTable, line string) {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	for j := range t.starts {
		t.starts[j] += indent
	}
}

// messages finds the kubelet's admission messages in a line, in any
// quoting, and adds one event each with the reason the kubelet gives it.
func (r *textReader) messages(line string, ln int) bool {
	if len(line) > maxMatchLine {
		line = line[:maxMatchLine]
	}
	for strings.Contains(line, `\"`) {
		line = strings.ReplaceAll(line, `\\`, `\`)
		line = strings.ReplaceAll(line, `\"`, `"`)
	}
	type hit struct {
		at, end int
		reason  string
	}
	var hits []hit
	for _, t := range kubeletMessages {
		for _, m := range t.re.FindAllStringSubmatchIndex(line, -1) {
			reason := t.reason
			if reason == "OutOf" {
				reason += line[m[2]:m[3]]
			}
			hits = append(hits, hit{m[0], m[1], reason})
		}
	}
	if len(hits) == 0 {
		return false
	}
	for i := 1; i < len(hits); i++ { // few hits: insertion sort by position
		for j := i; j > 0 && hits[j].at < hits[j-1].at; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	pod := ""
	if m := rePodInLine.FindStringSubmatch(line); m != nil {
		pod = m[1] + m[2] + m[3]
	} else if r.pod != "" {
		pod = r.pod
		if r.namespace != "" {
			pod = r.namespace + "/" + pod
		}
	}
	stated := ""
	if m := reReasonInLine.FindStringSubmatch(line); m != nil && len(hits) == 1 {
		stated = m[1]
	}
	last := -1
	for _, h := range hits {
		if h.at < last {
			continue // inside the previous message (an inner error)
		}
		last = h.end
		msg := strings.TrimRight(line[h.at:h.end], " ")
		e := Event{Line: ln, Type: "Warning", Reason: h.reason, Message: msg, Inferred: true}
		if stated != "" {
			e.Reason, e.Inferred = stated, false
		}
		if pod != "" {
			e.Object = "pod/" + pod
			if _, n, ok := strings.Cut(pod, "/"); ok {
				e.Controller = controllerOf(n)
			} else {
				e.Controller = controllerOf(pod)
			}
		}
		if e.Inferred {
			note := ""
			if strings.Contains(msg, "Topology Locality") {
				note = " (the 1.16/1.17 text, whose reason was \"Topology Affinity Error\")"
			}
			r.warnf("line %d: reason %s inferred from the kubelet's message text%s", ln, e.Reason, note)
		}
		r.add(e)
	}
	r.saw(formatMessage)
	return true
}

func (r *textReader) finish() (*Events, error) {
	ev := r.ev
	full := (r.markers["Name"] || r.markers["Events"]) && len(r.markers) >= 3
	pod := ev.Pod
	if pod != nil || r.markers["Events"] {
		f := formatFragment
		if full {
			f = formatDescribe
		}
		formats := []string{f}
		for _, s := range r.formats {
			if s != formatFragment {
				formats = append(formats, s)
			}
		}
		r.formats = formats
	}
	if pod != nil && pod.Reason == "" && pod.Message != "" {
		// A Message line without its Reason: infer it from the text.
		msg := strings.TrimPrefix(strings.TrimPrefix(pod.Message, "Pod was rejected: "), "Pod ")
		for _, t := range kubeletMessages {
			if m := t.re.FindStringSubmatch(msg); m != nil {
				pod.Reason = t.reason
				if t.reason == "OutOf" {
					pod.Reason += m[1]
				}
				r.warnf("line %d: reason %s inferred from the kubelet's message text", pod.Lines["Message"], pod.Reason)
				break
			}
		}
	}
	if pod != nil && !full && !admissionStatus(pod.Reason) && len(ev.Events) == 0 {
		// A fragment without an admission reason (Status, Name or a
		// Reason such as Evicted) says nothing about an admission.
		ev.Pod, pod = nil, nil
		r.formats = r.formats[1:]
	}
	if r.podRows > 0 {
		if len(r.otherRows) > 0 {
			var parts []string
			total := 0
			for _, s := range sortedKeys(r.otherRows) {
				parts = append(parts, fmt.Sprintf("%s %d", s, r.otherRows[s]))
				total += r.otherRows[s]
			}
			r.warnf("%d of %d pod rows are not admission failures (%s)", total, r.podRows, strings.Join(parts, ", "))
		}
		if failed := r.podRows - sumValues(r.otherRows); failed == 0 {
			r.warnf("no row of the `kubectl get pods` table shows an admission failure (TopologyAffinityError, SMTAlignmentError, UnexpectedAdmissionError, OutOf...)")
		}
		if len(r.nodes) > 1 {
			r.warnf("the table's rows are on %d nodes (%s): the other evidence describes one node", len(r.nodes), strings.Join(sortedKeys(r.nodes), ", "))
		}
	}
	if len(r.formats) == 0 {
		if r.tableish > 0 {
			return nil, fmt.Errorf("%s: not a kubectl table: no NAME/STATUS header and no row matches <name> <n>/<m> <status> (nor a `kubectl get events` or describe row); pass `kubectl get pods`, `kubectl get events` or `kubectl describe pod NAME` output as printed", ev.Source)
		}
		return nil, fmt.Errorf("%s: no admission or start-up error recognised: pass `kubectl describe pod NAME`, `kubectl get events`, `kubectl get pods` output, or the kubelet's message as it was printed", ev.Source)
	}
	ev.Format = r.formats[0]
	if len(r.formats) > 1 {
		r.warnf("also read: %s", strings.Join(r.formats[1:], ", "))
	}
	return ev, nil
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sumValues(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
