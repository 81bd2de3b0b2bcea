package evidence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/words"

	"github.com/numascope/numascope/internal/yamljson"
)

// Event is one Kubernetes event about a pod, from an event list, an
// events table, the Events section of `kubectl describe pod`, a row of a
// `kubectl get pods` table whose STATUS is an admission reason, or a
// kubelet message quoted on its own.
type Event struct {
	// Line is the 1-based line for text input; Path the JSON pointer for
	// JSON/YAML input.
	Line int    `json:"line,omitempty"`
	Path string `json:"path,omitempty"`
	Type string `json:"type"`
	// Reason is the event reason, the pod's STATUS in a `kubectl get pods`
	// table, or, when Inferred, the reason the kubelet gives the message.
	Reason string `json:"reason"`
	// Object is "pod/NAME" or "pod/NAMESPACE/NAME" ("" when the input
	// does not say).
	Object  string `json:"object,omitempty"`
	Message string `json:"message"`
	Count   int    `json:"count,omitempty"`
	From    string `json:"from,omitempty"`
	// Inferred says Reason was not in the input: it is the reason of the
	// kubelet message template the text matched.
	Inferred bool `json:"inferred,omitempty"`
	// Controller groups the pods one controller keeps recreating: the pod
	// name without its random suffix (the ReplicaSet of a Deployment pod,
	// the DaemonSet or Job, the StatefulSet of name-N), "" when the name
	// has no such suffix. Rows of one Controller with one Reason are one
	// failure.
	Controller string `json:"controller,omitempty"`
}

// Events is a parsed events document.
type Events struct {
	Source string `json:"source"`
	// Format names what was read: "list" (kubectl get events -o
	// json|yaml), "events-table" (kubectl get events, -o wide, -A, the
	// pre-1.14 columns), "kubectl-events" (kubectl events), "get-pods-table"
	// (kubectl get pods, -o wide, -A), "kubelet-message" (the kubelet's
	// own messages quoted alone), "describe" (kubectl describe pod) or
	// "describe-fragment" (its Events section or Status/Reason/Message
	// lines alone). Input holding several is named by the first; Warnings
	// lists the others.
	Format string  `json:"format"`
	Events []Event `json:"events"`
	// Pod holds what `kubectl describe pod` says about the pod itself.
	Pod *DescribedPod `json:"pod,omitempty"`
	// Warnings says what was guessed, skipped or not an admission failure.
	Warnings []string `json:"warnings,omitempty"`
	// Messages are the kubelet messages of the catalogue in the events'
	// and the pod's messages that the classification calls findings (see
	// Log.Messages).
	Messages     []Message `json:"messages,omitempty"`
	MessagesMore int       `json:"messagesMore,omitempty"`
}

// DescribedPod is the header of `kubectl describe pod` output.
type DescribedPod struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Status    string `json:"status,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Message   string `json:"message,omitempty"`
	QOSClass  string `json:"qosClass,omitempty"`
	Node      string `json:"node,omitempty"`
	// Lines maps a field (Status, Reason, Message, QoS Class) to its line.
	Lines map[string]int `json:"lines,omitempty"`
}

type eventJSON struct {
	Kind           string `json:"kind"`
	Type           string `json:"type"`
	Reason         string `json:"reason"`
	Message        string `json:"message"`
	Note           string `json:"note"`
	Count          int    `json:"count"`
	InvolvedObject struct {
		Kind, Name, Namespace string
	} `json:"involvedObject"`
	Regarding struct {
		Kind, Name, Namespace string
	} `json:"regarding"`
	Source struct {
		Component string `json:"component"`
		Host      string `json:"host"`
	} `json:"source"`
	ReportingController string `json:"reportingController"`
	// A Pod in the list: its status tells an admission failure.
	Metadata struct {
		Name, Namespace string
	} `json:"metadata"`
	Status struct {
		Reason, Message string
	} `json:"status"`
}

// ParseEvents reads pod events, the kind detected from the content:
// `kubectl get events -o json|yaml`; the tables of `kubectl get events`
// (default, -o wide, -A, the pre-1.14 columns) and `kubectl events`;
// `kubectl get pods` tables (default, -o wide, -A; a row whose STATUS is
// an admission reason becomes a Warning event); `kubectl describe pod`
// output, whole or in fragments (its Events section, its Status, Reason
// and Message lines); and the kubelet's admission messages quoted alone
// or inside prose, whose reason is inferred from the message template
// (Event.Inferred). Tables are read from their header's column offsets,
// else split on runs of spaces. Lines it cannot read are skipped with a
// warning; text in which nothing is recognised is an error.
func ParseEvents(name string, data []byte) (*Events, error) {
	ev, err := parseEvents(name, data)
	if ev != nil {
		ev.Messages, ev.MessagesMore = eventMessages(ev)
	}
	return ev, err
}

func parseEvents(name string, data []byte) (*Events, error) {
	if len(data) > maxEvidenceSize {
		return nil, fmt.Errorf("%s: %d bytes is larger than the %d-byte limit for an events document", name, len(data), maxEvidenceSize)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: empty events document (pass `kubectl describe pod NAME` or `kubectl get events -o yaml`)", name)
	}
	if body := structuredBody(trimmed); body != nil {
		ev, err := parseEventList(name, body)
		if err == nil {
			return ev, nil
		}
		// JSON log lines and YAML-looking prose may still hold messages.
		if tev, terr := parseEventText(name, string(data)); terr == nil {
			tev.Warnings = append([]string{"not read as an event list (" + err.Error() + "): read as text"}, tev.Warnings...)
			return tev, nil
		}
		return nil, err
	}
	return parseEventText(name, string(data))
}

// structuredBody returns the document without the Markdown fences, shell
// prompt lines and quote prefixes a paste wraps it in, when it is a JSON
// or YAML object or list; nil otherwise.
func structuredBody(b []byte) []byte {
	if b[0] == '{' || b[0] == '[' || bytes.HasPrefix(b, []byte("apiVersion:")) || bytes.HasPrefix(b, []byte("kind:")) || bytes.HasPrefix(b, []byte("items:")) {
		return b
	}
	// Only when the first lines are wrapping (fences, prompts, quotes)
	// followed by an object.
	head := b
	for range 5 {
		line, rest, _ := bytes.Cut(head, []byte("\n"))
		t := strings.TrimSpace(cleanLine(string(line)))
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") || rePromptLine.MatchString(t) || t == "" {
			head = rest
			continue
		}
		if !isStructured([]byte(t)) {
			return nil
		}
		break
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		l = cleanLine(l)
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") || rePromptLine.MatchString(t) {
			continue
		}
		out = append(out, l)
	}
	body := bytes.TrimSpace([]byte(strings.Join(out, "\n")))
	if len(body) > 0 && isStructured(body) {
		return body
	}
	return nil
}

func isStructured(b []byte) bool {
	if b[0] == '{' || b[0] == '[' {
		return true
	}
	s := string(b)
	return strings.HasPrefix(s, "apiVersion:") || strings.HasPrefix(s, "kind:") || strings.HasPrefix(s, "items:") ||
		strings.Contains(s, "\nkind: EventList") || strings.Contains(s, "\nkind: List") || strings.Contains(s, "\nitems:")
}

func parseEventList(name string, data []byte) (*Events, error) {
	js, err := yamljson.ToJSON(data, name)
	if err != nil {
		return nil, err
	}
	var top struct {
		Kind  string            `json:"kind"`
		Items []json.RawMessage `json:"items"`
	}
	var items []json.RawMessage
	prefix := "/items"
	if bytes.HasPrefix(bytes.TrimSpace(js), []byte("[")) {
		if err := json.Unmarshal(js, &items); err != nil {
			return nil, fmt.Errorf("%s: not a list of events: %w", name, err)
		}
		prefix = ""
	} else {
		if err := json.Unmarshal(js, &top); err != nil {
			return nil, fmt.Errorf("%s: not an EventList: %w", name, err)
		}
		items = top.Items
		if top.Kind == "" && top.Items == nil {
			return nil, fmt.Errorf("%s: not an EventList: the document has neither kind nor items", name)
		}
		if top.Kind == "Event" || top.Kind == "Pod" {
			items = []json.RawMessage{js}
			prefix = "-"
		}
	}
	ev := &Events{Source: name, Format: "list"}
	pods := 0
	for i, raw := range items {
		var e eventJSON
		path := fmt.Sprintf("%s/%d", prefix, i)
		if prefix == "-" {
			path = ""
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("%s: %s: not an Event: %w", name, path, err)
		}
		if e.Kind == "Pod" {
			// `kubectl get pods -o yaml` given as events: a rejected pod's
			// status reason is its admission failure.
			if admissionStatus(e.Status.Reason) {
				ev.Events = append(ev.Events, Event{Path: path + "/status/reason", Type: "Warning", Reason: e.Status.Reason,
					Object: objectRef(e.Metadata.Name, e.Metadata.Namespace), Count: 1, Controller: controllerOf(e.Metadata.Name),
					Message: strings.TrimPrefix(strings.TrimPrefix(e.Status.Message, "Pod was rejected: "), "Pod ")})
			}
			pods++
			continue
		}
		obj := e.InvolvedObject
		if obj.Name == "" {
			obj = e.Regarding
		}
		msg := e.Message
		if msg == "" {
			msg = e.Note
		}
		from := e.Source.Component
		if from == "" {
			from = e.ReportingController
		}
		if e.Source.Host != "" {
			from += ", " + e.Source.Host
		}
		ref := obj.Name
		if obj.Namespace != "" {
			ref = obj.Namespace + "/" + obj.Name
		}
		if obj.Kind != "" {
			ref = strings.ToLower(obj.Kind) + "/" + ref
		}
		ev.Events = append(ev.Events, Event{Path: path, Type: e.Type, Reason: e.Reason, Object: ref, Message: msg, Count: e.Count, From: from})
	}
	if top.Kind != "" && top.Kind != "EventList" && top.Kind != "List" && top.Kind != "Event" && top.Kind != "Pod" && top.Kind != "PodList" {
		return nil, fmt.Errorf("%s: /kind: %q is not an EventList (pass `kubectl get events -o yaml`)", name, top.Kind)
	}
	if pods > 0 {
		ev.Warnings = append(ev.Warnings, words.Count(pods, "pod")+" read for their status: "+strconv.Itoa(len(ev.Events))+" show an admission failure")
	}
	return ev, nil
}

// ForReason returns the events with the given reason.
func (e *Events) ForReason(reason string) []Event {
	var out []Event
	for _, x := range e.Events {
		if x.Reason == reason {
			out = append(out, x)
		}
	}
	return out
}

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

// textTable is a table header: its column names and where they start.
type textTable struct {
	kind      string // formatPodsTable or formatEventsTable, or "describe"
	names     []string
	starts    []int
	collapsed bool // single spaces between the header's columns
	line      int
}

func (t *textTable) has(col string) bool { return contains(t.names, col) }

// indexOf and contains are slices.Index and slices.Contains for strings,
// written out: each generic instantiation costs the browser build.
func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func contains(list []string, s string) bool { return indexOf(list, s) >= 0 }

// end returns where a column ends: the next column's start (-1 when it is
// the last column or unknown).
func (t *textTable) end(col string) int {
	j := indexOf(t.names, col)
	if j < 0 || j+1 >= len(t.starts) {
		return -1
	}
	return t.starts[j+1]
}

var (
	podsColumns   = []string{"NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"}
	eventsColumns = []string{"NAMESPACE", "LAST SEEN", "FIRST SEEN", "COUNT", "NAME", "KIND", "SUBOBJECT", "TYPE", "REASON", "OBJECT", "SOURCE", "MESSAGE"}
	// describeColumns are the Events section's, today's and pre-1.14's.
	describeColumns = []string{"TYPE", "REASON", "AGE", "FROM", "MESSAGE", "FIRSTSEEN", "LASTSEEN", "COUNT", "SUBOBJECTPATH"}
	reRun2          = regexp.MustCompile(`\S+(?: \S+)*`)
)

// parseHeader reads a header line whose columns are all among known,
// either aligned (columns two or more spaces apart) or collapsed to
// single spaces.
func parseHeader(line string, known []string) (*textTable, bool) {
	t := &textTable{}
	for _, loc := range reRun2.FindAllStringIndex(line, -1) {
		name := strings.ToUpper(line[loc[0]:loc[1]])
		if !contains(known, name) {
			t = nil
			break
		}
		t.names = append(t.names, name)
		t.starts = append(t.starts, loc[0])
	}
	if t != nil && len(t.names) >= 3 {
		return t, true
	}
	// Collapsed: single spaces; match two-word names first.
	words := strings.Fields(line)
	t = &textTable{collapsed: true}
	for i := 0; i < len(words); {
		w := strings.ToUpper(words[i])
		if i+1 < len(words) && contains(known, w+" "+strings.ToUpper(words[i+1])) {
			t.names = append(t.names, w+" "+strings.ToUpper(words[i+1]))
			i += 2
			continue
		}
		if !contains(known, w) {
			return nil, false
		}
		t.names = append(t.names, w)
		i++
	}
	return t, len(t.names) >= 3
}

// podsHeader and eventsHeader read the header of a `kubectl get pods` and
// of a `kubectl get events` / `kubectl events` table.
func podsHeader(line string) (*textTable, bool) {
	if !strings.Contains(line, "STATUS") || !strings.Contains(line, "READY") {
		return nil, false
	}
	t, ok := parseHeader(line, podsColumns)
	return t, ok && t.has("NAME") && t.has("STATUS") && t.has("READY")
}

func eventsHeader(line string) (*textTable, bool) {
	if !strings.Contains(line, "REASON") || !strings.Contains(line, "TYPE") {
		return nil, false
	}
	t, ok := parseHeader(line, eventsColumns)
	return t, ok && t.has("TYPE") && t.has("REASON") && (t.has("MESSAGE") || t.has("LAST SEEN"))
}

// cells cuts a row at the header's offsets. ok is false when the row
// does not line up with the header (then callers split it by shape).
func (t *textTable) cells(line string, required ...string) (map[string]string, bool) {
	if t.collapsed || len(t.starts) == 0 {
		return nil, false
	}
	last := 0 // the start of the last required column
	for _, r := range required {
		if j := indexOf(t.names, r); j >= 0 {
			last = max(last, t.starts[j])
		}
	}
	if len(line) <= last || len(line) < t.starts[0] || strings.TrimSpace(line[:t.starts[0]]) != "" {
		return nil, false
	}
	out := make(map[string]string, len(t.names))
	for j, start := range t.starts {
		if start >= len(line) {
			out[t.names[j]] = ""
			continue
		}
		if start > 0 && line[start-1] != ' ' {
			return nil, false
		}
		end := len(line)
		if j+1 < len(t.starts) {
			end = t.starts[j+1]
		}
		end = min(end, len(line))
		out[t.names[j]] = strings.TrimSpace(line[start:end])
	}
	for _, r := range required {
		if j := indexOf(t.names, r); j < 0 || line[t.starts[j]] == ' ' {
			return nil, false
		}
	}
	return out, true
}

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
	rePromptLine           = regexp.MustCompile(`^\S*[$#%>]\s+(kubectl|oc|journalctl|grep|cat|k)\s`)
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

// cleanLine removes what chat, mail and terminals add to a line: CR,
// ANSI colours, quote prefixes, no-break spaces and tabs.
func cleanLine(s string) string {
	s = strings.TrimRight(s, "\r")
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = reANSI.ReplaceAllString(s, "")
	}
	for strings.HasPrefix(s, ">") {
		s = strings.TrimPrefix(strings.TrimPrefix(s, ">"), " ")
	}
	s = strings.ReplaceAll(s, "\u00a0", " ")
	return strings.ReplaceAll(s, "\t", "   ")
}

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
		line := cleanLine(raw)
		trim := strings.TrimSpace(line)
		if trim == "" {
			tbl = nil
			continue
		}
		if strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~") {
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

func (r *textReader) podRow(t *textTable, line string, ln int) bool {
	var ns, name, ready, status, node string
	if t != nil {
		if c, ok := t.cells(line, "NAME", "READY", "STATUS"); ok && reReady.MatchString(c["READY"]) && c["NAME"] != "" && c["STATUS"] != "" {
			ns, name, ready, status, node = c["NAMESPACE"], c["NAME"], c["READY"], c["STATUS"], c["NODE"]
		}
	}
	if name == "" {
		m := rePodRow.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			c := rePodRowCut.FindStringSubmatch(strings.TrimSpace(line))
			if c == nil || !admissionStatus(strings.Join(strings.Fields(c[4]), " ")) {
				return false
			}
			r.warnf("line %d: a `kubectl get pods` row without its AGE column (cut?): read by its shape", ln)
			m = append(c, "", "")
		}
		ns, name, ready, status = m[1], m[2], m[3], strings.Join(strings.Fields(m[4]), " ")
		if t != nil && !t.has("NAMESPACE") && ns != "" || t != nil && t.has("NAMESPACE") && ns == "" {
			return false
		}
		if t != nil && t.has("NODE") {
			if wide := strings.Fields(m[7]); len(wide) >= 2 {
				node = wide[1]
			}
		}
		if t == nil {
			r.saw(formatPodsTable)
		}
	}
	_ = ready
	if ns == "" {
		ns = r.namespace
	}
	if t != nil && !admissionStatus(status) && len(strings.TrimRight(line, " ")) <= t.end("STATUS") && len(status) >= 6 {
		// The row ends inside STATUS: cut at the terminal's width.
		for _, full := range []string{"TopologyAffinityError", "SMTAlignmentError", "UnexpectedAdmissionError", "EmptyPodSharedPoolError"} {
			if strings.HasPrefix(full, status) && full != status {
				r.warnf("line %d: STATUS %q is cut at the terminal's width: read as %s", ln, status, full)
				status = full
				break
			}
		}
	}
	r.podRows++
	if node != "" && node != "<none>" {
		r.nodes[node]++
	}
	if !admissionStatus(status) {
		r.otherRows[status]++
		return true
	}
	r.add(Event{Line: ln, Type: "Warning", Reason: status, Object: objectRef(name, ns), Count: 1, Controller: controllerOf(name)})
	return true
}

func (r *textReader) eventRow(t *textTable, line string, ln int) bool {
	var c map[string]string
	if t != nil {
		var ok bool
		if c, ok = t.cells(line, "TYPE", "REASON"); !ok || (c["TYPE"] != "Normal" && c["TYPE"] != "Warning") {
			c = nil
		}
	}
	if c == nil {
		m := reEventRow.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			if t == nil {
				return false
			}
			return r.eventRowByType(t, line, ln)
		}
		if t != nil && (t.has("NAMESPACE") != (m[1] != "")) {
			return r.eventRowByType(t, line, ln)
		}
		c = map[string]string{"NAMESPACE": m[1], "LAST SEEN": m[2], "TYPE": m[3], "REASON": m[4], "OBJECT": m[5], "MESSAGE": m[6]}
	}
	obj := c["OBJECT"]
	if obj == "" && c["NAME"] != "" {
		// Before 1.14: KIND and NAME columns.
		kind := c["KIND"]
		if kind == "" {
			kind = "pod"
		}
		obj = kind + "/" + c["NAME"]
	}
	format := formatEventsTable
	if k, _, ok := strings.Cut(c["OBJECT"], "/"); ok && k != strings.ToLower(k) {
		format = formatKubectlEvents
	}
	r.saw(format)
	e := Event{Line: ln, Type: c["TYPE"], Reason: c["REASON"], Message: c["MESSAGE"], From: c["SOURCE"], Count: countOf(c["LAST SEEN"])}
	if obj != "" {
		ns := c["NAMESPACE"]
		if ns == "" {
			ns = r.namespace
		}
		e.Object = objectRef(obj, ns)
	}
	if n, err := strconv.Atoi(c["COUNT"]); err == nil && e.Count == 0 {
		e.Count = n
	}
	if e.Count == 0 {
		e.Count = 1
	}
	r.add(e)
	return true
}

// eventRowByType reads a row whose columns do not line up with the
// header (collapsed spacing, empty SUBOBJECT cells): TYPE and REASON
// follow each other; OBJECT is the first kind/name after them.
func (r *textReader) eventRowByType(t *textTable, line string, ln int) bool {
	f := strings.Fields(line)
	if !t.collapsed {
		f = reColumnGap.Split(strings.TrimSpace(line), -1)
	}
	for i := 0; i+1 < len(f); i++ {
		if f[i] != "Normal" && f[i] != "Warning" {
			continue
		}
		e := Event{Line: ln, Type: f[i], Reason: f[i+1], Count: max(countOf(line), 1)}
		rest := f[i+2:]
		if len(rest) > 0 && strings.Contains(rest[0], "/") {
			e.Object = objectRef(rest[0], "")
			rest = rest[1:]
		}
		e.Message = strings.Join(rest, " ")
		if !t.collapsed {
			e.Message = strings.Join(rest, "  ")
		}
		r.saw(formatEventsTable)
		if !t.collapsed {
			r.warnf("line %d: the row does not line up with the header on line %d: message read as the rest of the row", ln, t.line)
		}
		r.add(e)
		return true
	}
	return false
}

func (r *textReader) describeRow(t *textTable, line string, ln int) bool {
	trim := strings.TrimSpace(line)
	var e Event
	if t != nil && !t.has("AGE") {
		// Before 1.14: FirstSeen LastSeen Count From SubObjectPath Type Reason Message.
		c, ok := t.cells(line, "TYPE", "REASON")
		switch {
		case ok && (c["TYPE"] == "Normal" || c["TYPE"] == "Warning"):
			e = Event{Line: ln, Type: c["TYPE"], Reason: c["REASON"], From: c["FROM"], Message: c["MESSAGE"]}
			e.Count, _ = strconv.Atoi(c["COUNT"])
		default:
			// Tab-separated in those releases: Type and Reason follow each
			// other, the message is the rest.
			f := reColumnGap.Split(strings.TrimSpace(line), -1)
			i := indexOf(f, "Warning")
			if j := indexOf(f, "Normal"); j >= 0 && (i < 0 || j < i) {
				i = j
			}
			if i < 0 || i+1 >= len(f) {
				return false
			}
			e = Event{Line: ln, Type: f[i], Reason: f[i+1], Message: strings.Join(f[i+2:], "  ")}
			if i >= 3 {
				e.Count, _ = strconv.Atoi(f[2])
			}
		}
	} else {
		m := reDescribeRow.FindStringSubmatch(trim)
		if m == nil {
			m = reDescribeRowCollapsed.FindStringSubmatch(trim)
		}
		if m == nil {
			return false
		}
		e = Event{Line: ln, Type: m[1], Reason: m[2], From: m[4], Message: m[5], Count: countOf(m[3])}
	}
	if t == nil && !r.markers["Events"] {
		r.saw(formatFragment)
	}
	if p := r.ev.Pod; p != nil && p.Name != "" && r.markers["Events"] {
		e.Object = objectRef(p.Name, p.Namespace)
	}
	r.add(e)
	return true
}

// describeField reads a `Key:  value` line of a describe header: only the
// fields kubectl describe prints at column 0.
func describeField(line string) (string, string, bool) {
	if strings.HasPrefix(line, " ") {
		return "", "", false
	}
	k, v, ok := strings.Cut(line, ":")
	if !ok || !describeKeys[k] {
		return "", "", false
	}
	return k, strings.TrimSpace(v), true
}

var describeKeys = map[string]bool{"Name": true, "Namespace": true, "Priority": true, "Priority Class Name": true,
	"Service Account": true, "Node": true, "Start Time": true, "Labels": true, "Annotations": true, "Status": true,
	"Reason": true, "Message": true, "IP": true, "IPs": true, "Controlled By": true, "Containers": true,
	"Init Containers": true, "Conditions": true, "Volumes": true, "QoS Class": true, "Node-Selectors": true,
	"Tolerations": true, "Runtime Class Name": true}

func (r *textReader) describeField(k, v string, ln int) {
	r.markers[k] = true
	if r.ev.Pod == nil {
		r.ev.Pod = &DescribedPod{Lines: map[string]int{}}
	}
	p := r.ev.Pod
	switch k {
	case "Name":
		if p.Name != "" {
			// `kubectl describe pods`: the next pod. Keep what the last one
			// said as an event.
			r.flushPod(p)
			p = &DescribedPod{Lines: map[string]int{}}
			r.ev.Pod = p
		}
		p.Name = v
	case "Namespace":
		p.Namespace = v
	case "Status":
		p.Status = v
	case "Reason":
		p.Reason = v
	case "Message":
		p.Message = v
	case "QoS Class":
		p.QOSClass = v
	case "Node":
		p.Node = v
	default:
		return
	}
	p.Lines[k] = ln
}

func (r *textReader) flushPod(p *DescribedPod) {
	if !admissionStatus(p.Reason) {
		return
	}
	r.add(Event{Line: p.Lines["Reason"], Type: "Warning", Reason: p.Reason, Object: objectRef(p.Name, p.Namespace), Count: 1,
		Message: strings.TrimPrefix(strings.TrimPrefix(p.Message, "Pod was rejected: "), "Pod "), Controller: controllerOf(p.Name)})
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
