package evidence

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/numascope/numascope/diagnose/evidence/catalog"
	"github.com/numascope/numascope/internal/words"
)

// Message is a kubelet message of the catalogue found in the evidence: the
// kubelet's own words (one catalogue entry, or a chain of wrapped errors),
// classified as a finding, with where it was seen and how often. Rules
// read it as a typed fact: Class says what it means and what to do, Hit
// holds the values the kubelet printed.
type Message struct {
	// Hit is the first occurrence: the outermost entry and the chain of
	// errors it wraps. Its values are cut to maxMessageValue bytes.
	Hit catalog.Hit `json:"-"`
	// Class is the class that explains the message (catalog.Resolve), and
	// At the hit of the chain that carries it.
	Class catalog.Class `json:"-"`
	At    *catalog.Hit  `json:"-"`
	// Entry is the ID of the outermost entry, Code and Severity the class's.
	Entry    string `json:"entry"`
	Code     string `json:"code"`
	Severity string `json:"severity"`
	// Where says what kind of text it was found in: "log", "event",
	// "describe", "status".
	Where string `json:"where"`
	// Lines are the first lines (1-based) it was seen at in its input,
	// at most maxMessageLines; Count is how often it was seen.
	Lines []int `json:"lines,omitempty"`
	// Paths are the JSON pointers of the first objects it was seen in,
	// for structured input (an event list), at most maxMessageLines.
	Paths []string `json:"paths,omitempty"`
	Count int      `json:"count"`
	// Level is the level the kubelet printed it at, from the record's
	// severity ("I", "W", "E", "F") or the entry's.
	Level string `json:"level,omitempty"`
	// Text is the text it was found in, cut to maxMessageText bytes.
	Text string `json:"text"`
}

// Bounds of the messages kept per input.
const (
	maxMessages     = 200  // distinct messages per input; more are counted
	maxMessageLines = 8    // lines kept per message
	maxMessageText  = 2048 // bytes of the text kept
	maxMessageValue = 1024 // bytes kept of each value the kubelet printed
)

// messageSet collects the catalogue's findings of one input, grouped by
// what they say.
type messageSet struct {
	list  []Message
	index map[string]int
	more  int // occurrences of messages past maxMessages
	// seen holds, for a record text already matched (its severity and
	// text), the keys its hits counted under: a repeated record (most of
	// a journal) is counted again without matching it again. At most
	// maxSeen texts are kept.
	seen map[string][]string
}

// maxSeen bounds the record texts messageSet remembers.
const maxSeen = 4096

// add matches text against the catalogue and records every hit the
// classification table calls a finding.
func (s *messageSet) add(text, where, level string, line int) {
	s.addAt(text, where, level, line, "")
}

// addAt is add for a text found at a line or, in structured input, at a
// JSON pointer.
func (s *messageSet) addAt(text, where, level string, line int, path string) {
	s.match(text, text, where, level, line, path)
}

// match is addAt for a text matched as matched (text with a klog header
// before it, say) and kept as text.
func (s *messageSet) match(matched, text, where, level string, line int, path string) (keys []string) {
	if text == "" {
		return nil
	}
	m := catalog.Default()
	if level == "I" {
		m = infoFindings()
	}
	for _, h := range m.Match(matched) {
		pickLevel(&h, level)
		c, at, ok := catalog.Resolve(&h)
		if !ok || c.Kind != catalog.ClassFinding {
			continue
		}
		key := at.Entry.ID + "\x00" + c.Remedy(h)
		keys = append(keys, key)
		if i, ok := s.index[key]; ok {
			m := &s.list[i]
			m.Count++
			if len(m.Lines) < maxMessageLines && line > 0 {
				m.Lines = append(m.Lines, line)
			}
			if len(m.Paths) < maxMessageLines && path != "" {
				m.Paths = append(m.Paths, path)
			}
			continue
		}
		if len(s.list) >= maxMessages {
			s.more++
			continue
		}
		if s.index == nil {
			s.index = map[string]int{}
		}
		kept := clipHit(h)
		m := Message{Hit: kept, Class: c, Entry: h.Entry.ID, Code: c.Code, Severity: string(c.Severity),
			Where: where, Count: 1, Level: level, Text: words.Clip(text, maxMessageText)}
		for _, k := range kept.Chain() {
			if k.Entry == at.Entry {
				m.At = k
			}
		}
		if line > 0 {
			m.Lines = []int{line}
		}
		if path != "" {
			m.Paths = []string{path}
		}
		s.index[key] = len(s.list)
		s.list = append(s.list, m)
	}
	return keys
}

// clipHit copies a hit and the chain it wraps with every value cut to
// maxMessageValue bytes, so a kept message does not hold the line.
func clipHit(h catalog.Hit) catalog.Hit {
	c := h
	c.Captures = append([]catalog.Capture(nil), h.Captures...)
	for i := range c.Captures {
		c.Captures[i].Text = strings.Clone(words.Clip(c.Captures[i].Text, maxMessageValue))
		c.Captures[i].Hits = nil
	}
	c.Fields = append([]catalog.Field(nil), h.Fields...)
	for i := range c.Fields {
		c.Fields[i].Value = strings.Clone(words.Clip(c.Fields[i].Value, maxMessageValue))
		c.Fields[i].Hits = nil
	}
	if h.Wrapped != nil {
		w := clipHit(*h.Wrapped)
		c.Wrapped = &w
	}
	return c
}

// addRecord matches a log record as the kubelet printed it: behind a klog
// header (the catalogue reads a structured record's keys after one), the
// message, then its values.
func (s *messageSet) addRecord(r *Record) {
	if r.Severity == "I" && !mayBeInfoFinding(r.Message) {
		return
	}
	body := recordText(r)
	sev := r.Severity
	memo := sev + "\x00" + body
	if keys, ok := s.seen[memo]; ok {
		s.recount(keys, r.Line)
		return
	}
	var keys []string
	if sev == "" {
		keys = s.match(body, body, "log", sev, r.Line, "")
	} else {
		src := r.Source
		if src == "" || strings.ContainsAny(src, " ]") {
			src = "kubelet.go:1"
		}
		keys = s.match(sev+"0101 00:00:00.000000       1 "+src+"] "+body, body, "log", sev, r.Line, "")
	}
	if s.seen == nil {
		s.seen = map[string][]string{}
	}
	if len(s.seen) < maxSeen {
		s.seen[memo] = keys
	}
}

// recount counts a record again under the keys its text's hits counted
// under the first time it was seen, as match would.
func (s *messageSet) recount(keys []string, line int) {
	for _, key := range keys {
		i, ok := s.index[key]
		if !ok {
			s.more++ // left out past maxMessages the first time too
			continue
		}
		m := &s.list[i]
		m.Count++
		if len(m.Lines) < maxMessageLines && line > 0 {
			m.Lines = append(m.Lines, line)
		}
	}
}

// recordText renders a record as the kubelet printed it, for the
// catalogue: the message, quoted when the record has values, then each
// value as key="value".
func recordText(r *Record) string {
	if len(r.Values) == 0 {
		return r.Message
	}
	var b strings.Builder
	b.WriteString(strconv.Quote(r.Message))
	for _, v := range r.Values {
		b.WriteByte(' ')
		b.WriteString(v.Key)
		b.WriteByte('=')
		if v.JSON {
			b.WriteString(v.Text)
		} else {
			b.WriteString(strconv.Quote(v.Text))
		}
	}
	return b.String()
}

// infoFindings matches the few entries the kubelet prints at info level
// that the classification calls findings (an error it logs at info and
// returns, a warning phrased as information): an info record is matched
// against them only, the bulk of a log being information no finding
// reads.
var infoFindings = sync.OnceValue(func() *catalog.Matcher { return catalog.NewMatcher(infoFindingEntries()) })

// infoAnchors are the longest constant piece of each of infoFindings'
// entries: an info record whose message holds none is none of them.
var infoAnchors = sync.OnceValue(func() []string {
	var out []string
	for _, e := range infoFindingEntries() {
		best := ""
		for _, p := range catalog.ParseFormat(e.Format) {
			if p.Verb == "" && len(p.Lit) > len(best) {
				best = p.Lit
			}
		}
		if best = strings.TrimSpace(best); best != "" {
			out = append(out, best)
		}
	}
	return out
})

// mayBeInfoFinding tells whether an info record's message may be one of
// infoFindings' entries.
func mayBeInfoFinding(msg string) bool {
	for _, a := range infoAnchors() {
		if strings.Contains(msg, a) {
			return true
		}
	}
	return false
}

func infoFindingEntries() []catalog.Entry {
	var es []catalog.Entry
	for _, e := range catalog.Entries() {
		if c, ok := catalog.Classify(e.ID); ok && c.Kind == catalog.ClassFinding && e.Level == catalog.LevelInfo {
			es = append(es, e)
		}
	}
	return es
}

// Sources of the records read from lines without a klog header.
const (
	// sourceRuntime is a Go runtime panic or fatal error: the kubelet
	// crashed (its frames follow in the record's message).
	sourceRuntime = "go-runtime"
	// sourceSystemd is systemd's line about the kubelet's unit: its main
	// process exited, the unit failed, a restart was scheduled.
	sourceSystemd = "systemd"
)

// reUnitLine is systemd's report of a kubelet unit's process.
var reUnitLine = regexp.MustCompile(`^(?:kubelet|kubelite|k3s(?:-agent)?|rke2-(?:server|agent)|snap\.[\w.-]*kube[\w.-]*|[\w.-]*kubelet[\w.-]*)\.service: (?:Main process exited, code=\w+, status=\S+|Failed with result '[^']+'|Scheduled restart job, restart counter is at \d+|Start request repeated too quickly)`)

// headerless tells whether a line without a klog header is kubelet
// evidence, and its record's Source: a Go runtime panic, systemd's line
// about the kubelet's unit, or text of the kubelet that the catalogue
// knows (a message quoted on its own, an error printed before logging
// starts). ident is the journald identifier, when the line had one.
func headerless(ident, line string) (source string, ok bool) {
	t := strings.TrimSpace(line)
	switch {
	case ident == "systemd" || ident == "init" || ident == "":
		if reUnitLine.MatchString(t) {
			return sourceSystemd, true
		}
	}
	if ident != "" && !kubeletIdent(ident) {
		return "", false // another unit's line
	}
	if strings.HasPrefix(t, "panic: ") || strings.HasPrefix(t, "fatal error: ") {
		return sourceRuntime, true
	}
	for _, h := range catalog.Match(t) {
		if h.Entry.Level != catalog.LevelInfo {
			return "", true
		}
		if c, _, ok := catalog.Resolve(&h); ok && c.Kind == catalog.ClassFinding {
			return "", true
		}
	}
	return "", false
}

// kubeletIdent tells whether a journald identifier is the kubelet's (or a
// distribution's binary that runs it).
func kubeletIdent(ident string) bool {
	for _, k := range []string{"kube", "k3s", "rke2", "hyperkube", "microk8s", "openshift"} {
		if strings.Contains(ident, k) {
			return true
		}
	}
	return false
}

var (
	reFrame    = regexp.MustCompile(`(?m)^\s*((?:k8s\.io/kubernetes|k8s\.io/kubelet|k8s\.io/component-base)/[\w./-]*?)\.(\(?\*?\w+\)?\.?\w*)\(`)
	reUnitExit = regexp.MustCompile(`Main process exited, code=(\w+), status=(\S+)`)
	reUnitFail = regexp.MustCompile(`Failed with result '([^']+)'`)
	reUnitRun  = regexp.MustCompile(`Scheduled restart job, restart counter is at (\d+)`)
)

// panicFields reads a Go panic: its first line, and the first frame in
// the kubelet's code with the container manager package it is in.
func panicFields(msg string) map[string]string {
	first, _, _ := strings.Cut(msg, "\n")
	f := map[string]string{"panic": words.Clip(first, 512)}
	for _, m := range reFrame.FindAllStringSubmatch(msg, 64) {
		pkg := m[1]
		if strings.HasPrefix(pkg, "k8s.io/kubernetes/vendor/") {
			continue
		}
		if f["frame"] == "" {
			f["frame"] = pkg + "." + m[2]
		}
		if i := strings.Index(pkg, "pkg/kubelet/cm/"); i >= 0 && f["manager"] == "" {
			mgr, _, _ := strings.Cut(pkg[i+len("pkg/kubelet/cm/"):], "/")
			f["manager"] = mgr
			f["frame"] = pkg + "." + m[2]
		}
	}
	return f
}

// unitFields reads systemd's line about the kubelet's unit.
func unitFields(msg string) map[string]string {
	switch {
	case reUnitExit.MatchString(msg):
		m := reUnitExit.FindStringSubmatch(msg)
		return map[string]string{"event": "exited", "code": m[1], "status": m[2]}
	case reUnitFail.MatchString(msg):
		return map[string]string{"event": "failed", "result": reUnitFail.FindStringSubmatch(msg)[1]}
	case reUnitRun.MatchString(msg):
		return map[string]string{"event": "restart", "restarts": reUnitRun.FindStringSubmatch(msg)[1]}
	case strings.Contains(msg, "Start request repeated too quickly"):
		return map[string]string{"event": "start-limit"}
	}
	return nil
}

// eventMessages finds the catalogue's findings in the messages of events
// and of a described pod.
func eventMessages(ev *Events) ([]Message, int) {
	var s messageSet
	for _, e := range ev.Events {
		level := "I"
		if e.Type == "Warning" {
			level = "W"
		}
		s.addAt(e.Message, "event", level, e.Line, e.Path)
	}
	if p := ev.Pod; p != nil && p.Message != "" {
		s.add(p.Message, "describe", "", p.Lines["Message"])
	}
	return s.list, s.more
}

// levels maps a klog severity letter to the catalogue's level.
var levels = map[string]catalog.Level{"I": catalog.LevelInfo, "W": catalog.LevelWarning, "E": catalog.LevelError, "F": catalog.LevelFatal}

// pickLevel makes the hit's entry the one of its equivalents (the same
// text from several releases or call sites) printed at the record's
// severity: a message one release logs as an error and a later one as
// information is classified by the release that printed it.
func pickLevel(h *catalog.Hit, sev string) {
	want, ok := levels[sev]
	if !ok || h.Entry == nil || h.Entry.Level == want {
		return
	}
	for _, a := range h.Also {
		if a.Level == want {
			h.Entry = a
			return
		}
	}
}

// machineLine renders a record about the machine as the kubelet printed
// it, its values unquoted, for topomgr.ParseMachine.
func machineLine(r *Record) string {
	if len(r.Values) == 0 {
		return r.Message
	}
	var b strings.Builder
	b.WriteString(strconv.Quote(r.Message))
	for _, v := range r.Values {
		b.WriteString(" " + v.Key + "=" + v.Text)
	}
	return b.String()
}

// machineFromLog sets the machine from the kubelet's own lines about it
// when no topology was given, and says so in the log's note.
func (e *Set) machineFromLog(name string, k *KubeletLog) string {
	if e.Machine != nil {
		return ""
	}
	for _, s := range k.SignalsOf(SignalMachine) {
		m, err := ParseMachine(name, []byte(s.Fields["line"]))
		if err != nil || len(m.Nodes) == 0 {
			continue
		}
		m.Source = name + ":" + strconv.Itoa(s.Line)
		e.Machine = m
		return ", the machine's topology from line " + strconv.Itoa(s.Line)
	}
	return ""
}
