package evidence

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Kubelet log lines change shape between releases (evidence-formats.md §5).
// normalizeEra rewrites the printf-style lines of 1.16 to 1.20 into the
// structured records of 1.21 and later, and the Go renderings of hints
// (%v, %+v) into the JSON the later releases print, so that interpret reads
// every era the same way. The printf formats are those of
// pkg/kubelet/cm/topologymanager/topology_manager.go (1.16 to 1.19),
// scope_container.go and scope_pod.go (1.20), cpumanager/policy_static.go
// and client-go tools/record/event.go (Event(%#v): type: '%v' reason: '%v' %v).

var (
	reOldCPUHints    = regexp.MustCompile(`^\[cpumanager\] TopologyHints generated for pod '([^']*)', container '([^']*)': (.*)$`)
	reOldTMHints     = regexp.MustCompile(`^\[topologymanager\] TopologyHints for pod '([^']*)'(?:, container '([^']*)')?: (.*)$`)
	reOldBest        = regexp.MustCompile(`^\[topologymanager\] (ContainerTopologyHint|PodTopologyHint): (.*)$`)
	reOldBestFor     = regexp.MustCompile(`^\[topologymanager\] Best TopologyHint for \(pod: (\S+?)(?: container: (\S+))?\): (.*)$`)
	reOldAffinityFor = regexp.MustCompile(`^\[topologymanager\] Topology Affinity for \(pod: (\S+?)(?: container: (\S+))?\): (.*)$`)
	reOldAffinityMap = regexp.MustCompile(`^\[topologymanager\] Topology Affinity for Pod: (\S+) are (map\[.*\])$`)
	reOldCreate      = regexp.MustCompile(`^\[topologymanager\] Creating topology manager with (\S+) policy(?: per (\S+) scope)?`)
	reOldNoPref      = regexp.MustCompile(`^\[topologymanager\] Hint Provider has no (preference for (?:NUMA|socket) affinity with resource|possible (?:NUMA|socket) affinities for resource) '([^']*)'`)
	reOldEvent       = regexp.MustCompile(`^Event\(v1\.ObjectReference\{(.*?)\}\): type: '([^']*)' reason: '([^']*)' (.*)$`)
	reOldPatch       = regexp.MustCompile(`^Patch status for pod "([^"]*)" with (".*")$`)
	reOldVersion     = regexp.MustCompile(`^Version: (v1\.\d+\.\d+\S*)`)
	reRefField       = regexp.MustCompile(`(\w+):"((?:[^"\\]|\\.)*)"`)
	reFormatPod      = regexp.MustCompile(`^([^_()\s]+)_([^_()\s]+)\(([^()\s]*)\)$`)
	reUID            = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	reFlagLine       = regexp.MustCompile(`^FLAG: (--[a-z0-9-]+)=`)
)

// flagSince is the release that added a kubelet flag worth noting
// (evidence-formats.md §1, "Field since").
var flagSince = map[string]int{
	"--reserved-cpus":                   17,
	"--topology-manager-scope":          20,
	"--memory-manager-policy":           21,
	"--reserved-memory":                 21,
	"--cpu-manager-policy-options":      22,
	"--topology-manager-policy-options": 26,
}

// podValues turns a printed pod into key/values: format.Pod's
// "name_namespace(uid)" (1.20), a UID, or a bare name (1.16 to 1.19).
func podValues(s string) []logValue {
	if m := reFormatPod.FindStringSubmatch(s); m != nil {
		return []logValue{{Key: "pod", Text: m[2] + "/" + m[1]}, {Key: "podUID", Text: m[3]}}
	}
	if reUID.MatchString(s) {
		return []logValue{{Key: "podUID", Text: s}}
	}
	return []logValue{{Key: "pod", Text: s}}
}

// eraNorm rewrites one record of an older kubelet into the form of the
// structured records (1.21 and later) and collects the version marks the
// record's form gives.
type eraNorm struct {
	rec        *Record
	l          *Log
	marks      []versionMark
	jsonFormat bool   // the record came from the JSON log format
	msg        string // the record's message, trimmed
}

// normalizeEra rewrites rec, a record of any kubelet, into the form of the
// structured records and returns the version marks its form gives.
func normalizeEra(rec *Record, l *Log) []versionMark {
	e := &eraNorm{rec: rec, l: l, jsonFormat: rec.Time != "" && !strings.Contains(rec.Time, " "), msg: strings.TrimSpace(rec.Message)}
	msg, mark := e.msg, e.mark
	if strings.HasPrefix(msg, "[topologymanager]") || strings.HasPrefix(msg, "[cpumanager] TopologyHints") {
		mark(0, 20, "the [topologymanager]/[cpumanager] message prefix (1.20 or older)")
	}
	// Every printf-era expression below is anchored on a literal start:
	// most messages cannot match any of them.
	printfEra := false
	if msg != "" {
		switch msg[0] {
		case '[', 'E', 'P', 'V', 'F':
			printfEra = true
		}
	}
	if printfEra && (e.printfHints() || e.printfLine()) {
		return e.marks
	}
	e.structured()
	e.patchStatus()
	return e.marks
}

// mark notes that the record dates the kubelet to 1.min to 1.max (0: no
// bound).
func (e *eraNorm) mark(min, max int, why string) {
	e.marks = append(e.marks, versionMark{min: min, max: max, line: e.rec.Line, why: why})
}

// hintsSyntax marks the versions the Go syntax of converted hints gives.
func (e *eraNorm) hintsSyntax(s *goSyntaxSeen) {
	mark := e.mark
	switch {
	case s.long:
		mark(16, 17, "64-digit binary masks (1.16 or 1.17)")
	case s.short:
		mark(18, 20, "short binary masks such as {01 true} (1.18 to 1.20)")
	}
	if s.plusV {
		mark(21, 27, "masks printed as NUMANodeAffinity:01 (%+v, 1.21 to 1.27)")
	}
}

// set gives the record the structured message and puts vals before its
// values.
func (e *eraNorm) set(message string, vals ...logValue) {
	rec := e.rec
	rec.Message = message
	rec.Values = append(vals, rec.Values...)
}

// convertHints turns hints printed in Go syntax into a JSON value under key
// (a list when list is set, a map of resources otherwise); hints it cannot
// read are a warning and not ok.
func (e *eraNorm) convertHints(text string, list bool, key string) (logValue, bool) {
	rec, l, hintsSyntax := e.rec, e.l, e.hintsSyntax
	var s goSyntaxSeen
	var out string
	var err error
	if list {
		out, err = goHintList(text, &s)
	} else {
		out, err = goHintsMap(text, &s)
	}
	if err != nil {
		l.Warnings = append(l.Warnings, fmt.Sprintf("line %d: the %s value %q is not a hint rendering numascope knows (%v): ignored", rec.Line, key, clipLog(text, 80), err))
		return logValue{}, false
	}
	hintsSyntax(&s)
	return logValue{Key: key, Text: out, JSON: true, goSyntax: true}, true
}

// printfHints rewrites a printf-era line of hints (1.16 to 1.20) and
// reports whether it was one: the record is then done.
func (e *eraNorm) printfHints() bool {
	rec, l, msg, mark, set, convertHints, hintsSyntax := e.rec, e.l, e.msg, e.mark, e.set, e.convertHints, e.hintsSyntax
	switch {
	case reOldCPUHints.MatchString(msg):
		m := reOldCPUHints.FindStringSubmatch(msg)
		var s goSyntaxSeen
		list, err := goHintList(m[3], &s)
		if err != nil {
			l.Warnings = append(l.Warnings, fmt.Sprintf("line %d: the CPU manager's hints %q are not a rendering numascope knows (%v): ignored", rec.Line, clipLog(m[3], 80), err))
			return true
		}
		hintsSyntax(&s)
		vals := append(podValues(m[1]), logValue{Key: "containerName", Text: m[2]},
			logValue{Key: "hints", Text: `{"cpu":` + list + `}`, JSON: true, goSyntax: true})
		set("TopologyHints generated", vals...)
		if reFormatPod.MatchString(m[1]) {
			mark(20, 20, "pods printed as name_namespace(uid) in [cpumanager] lines (1.20)")
		}
		return true
	case reOldTMHints.MatchString(msg):
		m := reOldTMHints.FindStringSubmatch(msg)
		v, ok := convertHints(m[3], false, "hints")
		if !ok {
			return true
		}
		vals := podValues(m[1])
		if strings.Contains(msg, "', container '") {
			vals = append(vals, logValue{Key: "containerName", Text: m[2]})
		} else {
			mark(20, 20, "pod-scope TopologyHints lines (1.20)")
		}
		if reFormatPod.MatchString(m[1]) {
			mark(20, 20, "pods printed as name_namespace(uid) (1.20)")
		} else {
			mark(17, 19, "TopologyHints lines naming the pod by name only (1.17 to 1.19)")
		}
		set("TopologyHints", append(vals, v)...)
		return true
	case reOldBest.MatchString(msg):
		m := reOldBest.FindStringSubmatch(msg)
		if v, ok := convertHints(m[2], false, "bestHint"); ok {
			set(m[1], v)
		}
		return true
	case reOldBestFor.MatchString(msg):
		m := reOldBestFor.FindStringSubmatch(msg)
		mark(20, 20, "Best TopologyHint for (pod: ...) lines (1.20)")
		if v, ok := convertHints(m[3], false, "bestHint"); ok {
			vals := podValues(m[1])
			if m[2] != "" {
				vals = append(vals, logValue{Key: "containerName", Text: m[2]})
			}
			set("Best TopologyHint", append(vals, v)...)
		}
		return true
	case reOldAffinityFor.MatchString(msg):
		m := reOldAffinityFor.FindStringSubmatch(msg)
		mark(18, 20, "Topology Affinity for (pod: ... container: ...) lines (1.18 to 1.20)")
		if v, ok := convertHints(m[3], false, "bestHint"); ok {
			vals := podValues(m[1])
			if m[2] != "" {
				vals = append(vals, logValue{Key: "containerName", Text: m[2]})
			}
			set("Topology Affinity", append(vals, v)...)
		}
		return true
	case reOldAffinityMap.MatchString(msg):
		m := reOldAffinityMap.FindStringSubmatch(msg)
		mark(16, 17, "Topology Affinity for Pod: <uid> are map[...] lines (1.16 or 1.17)")
		var s goSyntaxSeen
		obj, err := goAffinityMap(m[2], &s)
		if err != nil {
			l.Warnings = append(l.Warnings, fmt.Sprintf("line %d: the pod's affinity map %q is not a rendering numascope knows (%v): ignored", rec.Line, clipLog(m[2], 80), err))
			return true
		}
		hintsSyntax(&s)
		set("Topology Affinity for Pod", logValue{Key: "podUID", Text: m[1]}, logValue{Key: "affinity", Text: obj, JSON: true, goSyntax: true})
		return true
	}
	return false
}

// printfLine rewrites the other printf-era lines the diagnosis reads
// (admission, configuration, events, status patches, the version and
// flags) and reports whether the record is then done.
func (e *eraNorm) printfLine() bool {
	rec, msg, mark, set := e.rec, e.msg, e.mark, e.set
	switch {
	case msg == "[topologymanager] Topology Admit Handler":
		set("Topology Admit Handler")
		return true
	case reOldCreate.MatchString(msg):
		m := reOldCreate.FindStringSubmatch(msg)
		vals := []logValue{{Key: "topologyPolicyName", Text: m[1]}}
		if m[2] != "" {
			vals = append(vals, logValue{Key: "topologyScopeName", Text: m[2]})
			mark(20, 20, "Creating topology manager with %s policy per %s scope (1.20)")
		} else {
			mark(16, 19, "Creating topology manager with %s policy, no scope (1.16 to 1.19)")
		}
		set("Creating topology manager with policy per scope", vals...)
		return true
	case reOldNoPref.MatchString(msg):
		m := reOldNoPref.FindStringSubmatch(msg)
		text := "Hint Provider has no preference for NUMA affinity with resource"
		if strings.HasPrefix(m[1], "possible") {
			text = "Hint Provider has no possible NUMA affinities for resource"
		}
		set(text, logValue{Key: "resource", Text: m[2]})
		return true
	case reOldEvent.MatchString(msg):
		m := reOldEvent.FindStringSubmatch(msg)
		f := map[string]string{}
		for _, kv := range reRefField.FindAllStringSubmatch(m[1], -1) {
			if v, err := strconv.Unquote(`"` + kv[2] + `"`); err == nil {
				f[kv[1]] = v
			}
		}
		obj := f["Name"]
		if f["Namespace"] != "" {
			obj = f["Namespace"] + "/" + obj
		}
		set("Event occurred", logValue{Key: "object", Text: obj}, logValue{Key: "kind", Text: f["Kind"]}, logValue{Key: "podUID", Text: f["UID"]},
			logValue{Key: "type", Text: m[2]}, logValue{Key: "reason", Text: m[3]}, logValue{Key: "message", Text: m[4]})
		reasonMarks(m[3], "", mark)
		return true
	case reOldPatch.MatchString(msg):
		m := reOldPatch.FindStringSubmatch(msg)
		patch, err := strconv.Unquote(m[2])
		if err != nil {
			return true
		}
		set("Patch status for pod", append(podValues(m[1]), logValue{Key: "patch", Text: patch})...)
	case reOldVersion.MatchString(msg) && strings.HasPrefix(rec.Source, "server.go"):
		m := reOldVersion.FindStringSubmatch(msg)
		e.marks = append(e.marks, versionMark{exact: m[1], line: rec.Line, why: "the kubelet's start-up line Version: " + m[1]})
		return true
	case reFlagLine.MatchString(msg):
		m := reFlagLine.FindStringSubmatch(msg)
		if v, ok := flagSince[m[1]]; ok {
			mark(v, 0, fmt.Sprintf("the kubelet prints the flag %s (added in 1.%d)", m[1], v))
		}
		return true
	}
	return false
}

// structured converts the Go-syntax hints of a structured record and
// marks the versions its message and keys give.
func (e *eraNorm) structured() {
	rec, msg, jsonFormat, mark, convertHints := e.rec, e.msg, e.jsonFormat, e.mark, e.convertHints
	// Structured records (1.21 and later).
	switch msg {
	case "TopologyHints", "ContainerTopologyHint", "PodTopologyHint", "Best TopologyHint", "Topology Affinity", "TopologyHints generated":
		for i := range rec.Values {
			v := &rec.Values[i]
			if v.Key != "hints" && v.Key != "bestHint" && v.Key != "cpuHints" {
				continue
			}
			if v.goSyntax && !v.JSON {
				if nv, ok := convertHints(v.Text, v.Key == "cpuHints", v.Key); ok {
					*v = nv
				}
			} else if v.JSON && !jsonFormat && strings.Contains(v.Text, `"NUMANodeAffinity"`) {
				mark(28, 0, "JSON-encoded hints in a text log (klog v2.100+, 1.28 or later)")
			}
		}
		if msg == "TopologyHints generated" {
			// The CPU manager's own line: its hints go under the cpu resource.
			for i := range rec.Values {
				if rec.Values[i].Key == "cpuHints" {
					rec.Values[i].Key = "hints"
					rec.Values[i].Text = `{"cpu":` + rec.Values[i].Text + `}`
				}
			}
		}
	case "Pod admission denied":
		mark(31, 0, `the "Pod admission denied" line (1.31 or later)`)
		r, _ := rec.Get("reason")
		m, _ := rec.Get("message")
		reasonMarks(r, m, mark)
	case "Topology Admit Handler":
		if _, ok := rec.Get("podUID"); ok {
			mark(27, 30, `"Topology Admit Handler" with podUID/podNamespace/podName keys (1.27 to 1.30)`)
		} else if !jsonFormat && len(rec.Values) == 0 {
			mark(21, 26, `a structured "Topology Admit Handler" line without keys (1.21 to 1.26)`)
		}
	case "Kubelet version":
		if v, ok := rec.Get("kubeletVersion"); ok {
			if strings.HasPrefix(v, "{") {
				// The JSON log format encodes version.Info as an object.
				var info struct {
					GitVersion string `json:"gitVersion"`
				}
				if json.Unmarshal([]byte(v), &info) != nil || info.GitVersion == "" {
					break
				}
				v = info.GitVersion
			}
			e.marks = append(e.marks, versionMark{exact: v, line: rec.Line, why: "the kubelet's start-up line \"Kubelet version\" kubeletVersion=" + v})
		}
	case "Event occurred":
		r, _ := rec.Get("reason")
		reasonMarks(r, "", mark)
	}
}

// patchStatus marks the versions the admission reason and message of a
// status patch give.
func (e *eraNorm) patchStatus() {
	rec, mark := e.rec, e.mark
	if rec.Message == "Patch status for pod" {
		p, _ := rec.Get("patch")
		if !mayHoldReason(p) {
			return
		}
		var st struct {
			Status struct{ Reason, Message string }
		}
		if json.Unmarshal([]byte(p), &st) == nil {
			reasonMarks(st.Status.Reason, st.Status.Message, mark)
		}
	}
}

// mayHoldReason tells whether a status patch may hold a reason reasonMarks
// dates: one without a JSON escape holds the reason as written.
func mayHoldReason(patch string) bool {
	if strings.IndexByte(patch, '\\') >= 0 {
		return true
	}
	if !strings.Contains(patch, "Error") { // every reason ends with it
		return false
	}
	if strings.Contains(patch, "Topology Affinity Error") {
		return true
	}
	for r := range admissionReasons {
		if strings.Contains(patch, r) {
			return true
		}
	}
	return false
}

// reasonMarks dates a rejection by its reason and status message.
func reasonMarks(reason, message string, mark func(min, max int, why string)) {
	if reason == "Topology Affinity Error" {
		mark(16, 17, `the reason "Topology Affinity Error" with spaces (1.16 or 1.17)`)
	}
	if !admissionReasons[reason] || message == "" {
		return
	}
	switch {
	case strings.HasPrefix(message, "Pod was rejected: "):
		mark(26, 0, `a status message "Pod was rejected: ..." (1.26 or later)`)
	case strings.HasPrefix(message, "Pod ") && !strings.HasPrefix(message, "Pod was"):
		mark(0, 25, `a status message "Pod <reason text>" without "was rejected" (1.25 or older)`)
	}
}

func clipLog(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// goExtent returns the length of the Go-rendered value at the start of s
// ("map[...]", "[...]", "{...}", "&{...}") up to its balancing bracket, or 0.
func goExtent(s string) int {
	i := 0
	switch {
	case strings.HasPrefix(s, "map["):
		i = 3
	case strings.HasPrefix(s, "&{"):
		i = 1
	}
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return 0
			}
		}
	}
	return 0
}

// goSyntaxSeen records which mask syntax a Go rendering used.
type goSyntaxSeen struct {
	long  bool // 64 binary digits (socketmask/bitmask %064b, 1.16 and 1.17)
	short bool // fewer digits, positional {01 true} (1.18 to 1.20)
	plusV bool // {NUMANodeAffinity:01 Preferred:true} (1.21 to 1.27)
}

type goParser struct {
	s    string
	i    int
	seen *goSyntaxSeen
}

func (p *goParser) errf(format string, a ...any) error {
	return fmt.Errorf("at offset %d: "+format, append([]any{p.i}, a...)...)
}

func (p *goParser) skipSpaces() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *goParser) eat(lit string) bool {
	if strings.HasPrefix(p.s[p.i:], lit) {
		p.i += len(lit)
		return true
	}
	return false
}

// mask reads a binary mask, node 0 the rightmost digit, or <nil>. The
// mask is binary because of where it stands (inside a Go rendering), never
// because of its digits. A mask of 64 ones is the 1.16/1.17 "any socket"
// fill and reads as "any NUMA node".
func (p *goParser) mask() (string, int, error) {
	if p.eat("<nil>") {
		return "null", 0, nil
	}
	start := p.i
	for p.i < len(p.s) && (p.s[p.i] == '0' || p.s[p.i] == '1') {
		p.i++
	}
	digits := p.s[start:p.i]
	switch {
	case digits == "":
		return "", 0, p.errf("expected a binary mask")
	case len(digits) > 64:
		return "", 0, p.errf("a mask of %d binary digits (at most 64)", len(digits))
	case strings.Count(digits, "1") == 64:
		return "null", 64, nil
	}
	v, err := strconv.ParseUint(digits, 2, 64)
	if err != nil {
		return "", 0, p.errf("mask %q: %v", digits, err)
	}
	return strconv.FormatUint(v, 10), len(digits), nil
}

// hint reads {MASK BOOL} or {NUMANodeAffinity:MASK Preferred:BOOL}.
func (p *goParser) hint() (string, error) {
	if !p.eat("{") {
		return "", p.errf("expected {")
	}
	named := p.eat("NUMANodeAffinity:")
	m, digits, err := p.mask()
	if err != nil {
		return "", err
	}
	if !p.eat(" ") {
		return "", p.errf("expected a space after the mask")
	}
	switch {
	case named:
		// %+v prints the mask through String(): binary digits, never decimal.
		if !p.eat("Preferred:") {
			return "", p.errf("expected Preferred:")
		}
		p.seen.plusV = true
	case digits == 64:
		p.seen.long = true
	case digits > 0:
		p.seen.short = true
	}
	pref := false
	switch {
	case p.eat("true"):
		pref = true
	case p.eat("false"):
	default:
		return "", p.errf("expected true or false")
	}
	if !p.eat("}") {
		return "", p.errf("expected }")
	}
	return `{"NUMANodeAffinity":` + m + `,"Preferred":` + strconv.FormatBool(pref) + `}`, nil
}

// list reads [hint hint ...].
func (p *goParser) list() (string, error) {
	if !p.eat("[") {
		return "", p.errf("expected [")
	}
	var parts []string
	for {
		p.skipSpaces()
		if p.eat("]") {
			return "[" + strings.Join(parts, ",") + "]", nil
		}
		if len(parts) >= maxLoggedHints {
			return "", p.errf("more than %d hints", maxLoggedHints)
		}
		h, err := p.hint()
		if err != nil {
			return "", err
		}
		parts = append(parts, h)
	}
}

// maxLoggedHints bounds the hints read from one rendering (2^8 NUMA sets
// for the kubelet's 8-node limit, with room for max-allowable-numa-nodes).
const maxLoggedHints = 1 << 16

// goMap reads map[key:VALUE ...] with value read by elem.
func (p *goParser) goMap(elem func() (string, error)) (string, error) {
	if !p.eat("map[") {
		return "", p.errf("expected map[")
	}
	var parts []string
	for {
		p.skipSpaces()
		if p.eat("]") {
			return "{" + strings.Join(parts, ",") + "}", nil
		}
		colon := strings.IndexByte(p.s[p.i:], ':')
		if colon <= 0 || strings.ContainsAny(p.s[p.i:p.i+colon], " []{}") {
			return "", p.errf("expected key:")
		}
		key := p.s[p.i : p.i+colon]
		p.i += colon + 1
		v, err := elem()
		if err != nil {
			return "", err
		}
		k, _ := json.Marshal(key)
		parts = append(parts, string(k)+":"+v)
	}
}

func goHintList(s string, seen *goSyntaxSeen) (string, error) {
	p := &goParser{s: strings.TrimSpace(s), seen: seen}
	if strings.HasPrefix(p.s, "{") {
		h, err := p.hint()
		if err == nil && p.i != len(p.s) {
			err = p.errf("unexpected text after the hint")
		}
		return "[" + h + "]", err
	}
	out, err := p.list()
	if err == nil && p.i != len(p.s) {
		err = p.errf("unexpected text after the list")
	}
	return out, err
}

func goHintsMap(s string, seen *goSyntaxSeen) (string, error) {
	p := &goParser{s: strings.TrimSpace(s), seen: seen}
	if strings.HasPrefix(p.s, "{") {
		// A single hint (ContainerTopologyHint: {01 true}).
		h, err := p.hint()
		if err == nil && p.i != len(p.s) {
			err = p.errf("unexpected text after the hint")
		}
		return h, err
	}
	out, err := p.goMap(p.list)
	if err == nil && p.i != len(p.s) {
		err = p.errf("unexpected text after the map")
	}
	return out, err
}

func goAffinityMap(s string, seen *goSyntaxSeen) (string, error) {
	p := &goParser{s: strings.TrimSpace(s), seen: seen}
	out, err := p.goMap(p.hint)
	if err == nil && p.i != len(p.s) {
		err = p.errf("unexpected text after the map")
	}
	return out, err
}
