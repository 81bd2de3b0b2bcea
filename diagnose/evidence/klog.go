package evidence

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Record is one kubelet log entry, in either the klog text format or the
// JSON log format.
type Record struct {
	// Line is the 1-based line of the file where the record starts.
	Line int `json:"line"`
	// Severity is "I", "W", "E" or "F".
	Severity string `json:"severity"`
	// Time is the timestamp as printed ("1129 10:00:00.000000" for text, the
	// "ts" value for JSON).
	Time string `json:"time,omitempty"`
	// Source is the file:line that emitted the record ("scope_container.go:57").
	Source string `json:"source,omitempty"`
	// Message is the structured message, or the whole printf-style text.
	Message string `json:"message"`
	// Values holds the key/value pairs in the order they were printed.
	Values []logValue `json:"values,omitempty"`
	// Node is the host the wrapper names (journald hostname, a talosctl or
	// `oc adm node-logs --role` node prefix, journal JSON _HOSTNAME).
	Node string `json:"node,omitempty"`
	// cut is set when a quoted or bracketed value does not end on the line.
	cut bool
}

// logValue is one key/value pair of a structured log record. Text holds a
// string value unquoted, or the raw JSON of a structured value (objects,
// arrays, numbers, booleans, null).
type logValue struct {
	Key  string `json:"key"`
	Text string `json:"text"`
	// JSON reports that Text is raw JSON rather than a plain string.
	JSON bool `json:"json,omitempty"`
	// goSyntax: the kubelet printed the value with Go's %v or %+v (before
	// 1.28), where nil and empty maps and lists look the same; Text may have
	// been converted to JSON since.
	goSyntax bool
}

// Get returns the value of key; for an object such as a pod reference
// ({"name":..,"namespace":..}) it returns the JSON text.
func (r Record) Get(key string) (string, bool) {
	for i := len(r.Values) - 1; i >= 0; i-- {
		if r.Values[i].Key == key {
			return r.Values[i].Text, true
		}
	}
	return "", false
}

// raw returns the value of key as JSON text, quoting plain strings.
func (r Record) raw(key string) (string, bool) {
	for i := len(r.Values) - 1; i >= 0; i-- {
		if r.Values[i].Key == key {
			if r.Values[i].JSON {
				return r.Values[i].Text, true
			}
			b, _ := json.Marshal(r.Values[i].Text)
			return string(b), true
		}
	}
	return "", false
}

// PodRef returns the "namespace/name" of the record's pod key, whichever
// format it was printed in.
func (r Record) PodRef() string {
	for _, k := range []string{"pod", "object"} {
		v, ok := r.Get(k)
		if !ok {
			continue
		}
		if strings.HasPrefix(v, "{") {
			var o struct{ Name, Namespace string }
			if json.Unmarshal([]byte(v), &o) == nil {
				if o.Namespace == "" {
					return o.Name
				}
				return o.Namespace + "/" + o.Name
			}
		}
		return v
	}
	ns, _ := r.Get("podNamespace")
	name, ok := r.Get("podName")
	if ok {
		if ns == "" {
			return name
		}
		return ns + "/" + name
	}
	return ""
}

// Text returns the message together with every value, for substring matching
// of error texts that can sit in either.
func (r Record) Text() string {
	var b strings.Builder
	b.WriteString(r.Message)
	for _, v := range r.Values {
		b.WriteByte(' ')
		b.WriteString(v.Key)
		b.WriteByte('=')
		b.WriteString(v.Text)
	}
	return b.String()
}

// appendText appends Text to b.
func (r Record) appendText(b []byte) []byte {
	b = append(b, r.Message...)
	for _, v := range r.Values {
		b = append(b, ' ')
		b = append(b, v.Key...)
		b = append(b, '=')
		b = append(b, v.Text...)
	}
	return b
}

// Log is a parsed kubelet log file.
type Log struct {
	// Name is the file name used in errors and evidence references.
	Name string `json:"name"`
	// Format is "text", "json" or "mixed".
	Format string `json:"format"`
	// Records are the kubelet records in file order. Lines that are not
	// kubelet records (journald banners, other units) are skipped.
	Records []Record `json:"records"`
	// Skipped counts lines that were not recognised as log records.
	Skipped int `json:"skipped"`
	// Dropped counts the records a streamed log read and let go because no
	// finding reads them (other components' lines, routine events); they
	// are not in Records.
	Dropped int `json:"dropped,omitempty"`
	// Lines is the number of lines read.
	Lines int `json:"lines,omitempty"`
	// Wrapper is how the lines were wrapped: "journald-short",
	// "journald-precise", "journald-iso", "journal-json", "node-prefix",
	// "plain", or several joined by "+".
	Wrapper string `json:"wrapper,omitempty"`
	// Compressed is "gzip" when the input was gzip-compressed.
	Compressed string `json:"compressed,omitempty"`
	// Nodes are the hosts the lines came from, when the wrapper names them.
	Nodes []string `json:"nodes,omitempty"`
	// Release is the kubelet release (or range of releases) the lines imply.
	Release logRelease `json:"release"`
	// Messages are the kubelet messages of the catalogue that the log
	// holds and the classification calls findings, grouped by what they
	// say (at most maxMessages); MessagesMore counts the occurrences of
	// the ones past that.
	Messages     []Message `json:"messages,omitempty"`
	MessagesMore int       `json:"messagesMore,omitempty"`
	// Warnings say what was read with doubt: localised month names, mixed
	// nodes, lines cut at a pager width, ambiguous hint renderings.
	Warnings []string `json:"warnings,omitempty"`
}

type klogHead struct {
	severity, time, source string
	start                  int // offset of the severity letter
	end                    int // offset of the message
}

// findKlogHeader finds the klog text header `I1129 10:00:00.000000 1234
// file.go:123] ` wherever it starts on the line (journald and syslog put
// their own prefix in front of it).
func findKlogHeader(s string) (klogHead, bool) {
	isDigit := func(i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }
	for i := 0; i+15 < len(s); i++ {
		switch s[i] {
		case 'I', 'W', 'E', 'F':
		default:
			continue
		}
		if i > 0 && s[i-1] != ' ' && s[i-1] != '\t' && s[i-1] != ':' {
			continue
		}
		// mmdd hh:mm:ss
		j := i + 1
		if !(isDigit(j) && isDigit(j+1) && isDigit(j+2) && isDigit(j+3) && s[j+4] == ' ' &&
			isDigit(j+5) && isDigit(j+6) && s[j+7] == ':' && isDigit(j+8) && isDigit(j+9) && s[j+10] == ':' && isDigit(j+11) && isDigit(j+12)) {
			continue
		}
		k := j + 13
		if k < len(s) && s[k] == '.' {
			k++
			for isDigit(k) {
				k++
			}
		}
		timeEnd := k
		sp := k
		for sp < len(s) && s[sp] == ' ' {
			sp++
		}
		if sp == k || !isDigit(sp) {
			continue
		}
		for isDigit(sp) {
			sp++
		}
		if sp >= len(s) || s[sp] != ' ' {
			continue
		}
		src := sp + 1
		end := src
		for end < len(s) && s[end] != ']' && s[end] != ' ' && s[end] != '\t' {
			end++
		}
		if end >= len(s) || s[end] != ']' || end == src {
			continue
		}
		h := klogHead{start: i, severity: s[i : i+1], time: s[j:j+4] + " " + s[j+5:timeEnd], source: s[src:end], end: end + 1}
		if h.end < len(s) && s[h.end] == ' ' {
			h.end++
		}
		return h, true
	}
	return klogHead{}, false
}

// findCutKlogHeader finds what is left of a klog text header whose severity,
// date and time were cut off — `1234 file.go:123] ` at the start of the
// line, as people paste lines with the timestamps trimmed. The severity and
// time are unknown (empty).
func findCutKlogHeader(s string) (klogHead, bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == start || i-start > 10 || i >= len(s) || s[i] != ' ' {
		return klogHead{}, false
	}
	for i < len(s) && s[i] == ' ' {
		i++
	}
	src := i
	for i < len(s) && s[i] != ']' && s[i] != ' ' && s[i] != '\t' {
		i++
	}
	if i >= len(s) || s[i] != ']' {
		return klogHead{}, false
	}
	// The source is file.go:line.
	name, line, ok := strings.Cut(s[src:i], ".go:")
	if !ok || name == "" || line == "" || !isNumber(line) {
		return klogHead{}, false
	}
	h := klogHead{start: start, source: s[src:i], end: i + 1}
	if h.end < len(s) && s[h.end] == ' ' {
		h.end++
	}
	return h, true
}

func jsonLogStart(s string) bool {
	return strings.HasPrefix(s, `{"ts":`) || strings.HasPrefix(s, `{"caller":`) || strings.HasPrefix(s, `{"msg":`) ||
		(strings.Contains(s, `"msg":`) && strings.Contains(s, `"ts":`))
}

func parseJSONRecord(s string) (Record, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return Record{}, fmt.Errorf("not a JSON object")
	}
	rec := Record{Severity: "I"}
	hasV, hasErr := false, false
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return Record{}, err
		}
		key, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return Record{}, err
		}
		var str string
		isStr := json.Unmarshal(raw, &str) == nil
		switch key {
		case "ts":
			rec.Time = string(raw)
			continue
		case "caller":
			rec.Source = str
			if k := strings.LastIndexByte(str, '/'); k >= 0 {
				rec.Source = str[k+1:]
			}
			continue
		case "msg":
			rec.Message = str
			continue
		case "v":
			hasV = true
			continue
		case "level":
			switch strings.ToLower(str) {
			case "error":
				rec.Severity = "E"
			case "warn", "warning":
				rec.Severity = "W"
			}
			continue
		case "err":
			hasErr = true
		}
		if isStr {
			rec.Values = append(rec.Values, logValue{Key: key, Text: str})
		} else {
			rec.Values = append(rec.Values, logValue{Key: key, Text: string(raw), JSON: true})
		}
	}
	if _, err := dec.Token(); err != nil {
		return Record{}, err
	}
	if !hasV && hasErr && rec.Severity == "I" {
		rec.Severity = "E"
	}
	return rec, nil
}

// parseTextBody parses `"msg" k=v k2="v" k3={...}` or a printf-style message.
func parseTextBody(rec *Record, body string, more func() (string, bool)) {
	if !strings.HasPrefix(body, `"`) {
		rec.Message = body
		return
	}
	msg, rest, ok := cutQuoted(body)
	if !ok {
		rec.Message = body
		rec.cut = true
		return
	}
	rec.Message = msg
	for {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			return
		}
		eq := strings.IndexByte(rest, '=')
		if eq <= 0 || strings.ContainsAny(rest[:eq], " \"") {
			// Not a key/value pair: keep the remainder as an anonymous value.
			rec.Values = append(rec.Values, logValue{Key: "", Text: rest})
			return
		}
		key := rest[:eq]
		rest = rest[eq+1:]
		switch {
		case strings.HasPrefix(rest, `"`):
			v, r2, ok := cutQuoted(rest)
			if !ok {
				rec.Values = append(rec.Values, logValue{Key: key, Text: rest})
				rec.cut = true
				return
			}
			rec.Values = append(rec.Values, logValue{Key: key, Text: v})
			rest = r2
		case strings.HasPrefix(rest, "<") && strings.TrimSpace(rest) == "<":
			// Multi-line value.
			var b strings.Builder
			for {
				l, ok := more()
				if !ok {
					break
				}
				if strings.TrimSpace(l) == ">" {
					break
				}
				if b.Len() > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(strings.TrimPrefix(l, "\t"))
			}
			rec.Values = append(rec.Values, logValue{Key: key, Text: b.String()})
			rest = ""
		case strings.HasPrefix(rest, "{") || strings.HasPrefix(rest, "[") || strings.HasPrefix(rest, "map[") || strings.HasPrefix(rest, "&{"):
			if n := jsonExtent(rest); n > 0 {
				rec.Values = append(rec.Values, logValue{Key: key, Text: rest[:n], JSON: true})
				rest = rest[n:]
				continue
			}
			// Go's %v / %+v rendering (klog before v2.100, kubelet before 1.28).
			n := goExtent(rest)
			if n <= 0 {
				rec.Values = append(rec.Values, logValue{Key: key, Text: rest})
				rec.cut = true
				return
			}
			rec.Values = append(rec.Values, logValue{Key: key, Text: rest[:n], goSyntax: true})
			rest = rest[n:]
		default:
			sp := strings.IndexByte(rest, ' ')
			if sp < 0 {
				sp = len(rest)
			}
			tok := rest[:sp]
			isJSON := tok == "null" || tok == "true" || tok == "false" || isNumber(tok)
			rec.Values = append(rec.Values, logValue{Key: key, Text: tok, JSON: isJSON})
			rest = rest[sp:]
		}
	}
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// cutQuoted reads a Go-quoted string at the start of s. It is the byte
// loop of cutQuotedSlow with strconv.Unquote, in one pass: a string without
// a backslash before its closing quote is found with IndexByte and taken
// as it is; one with the escapes klog writes (\" \\ \n \t) is scanned to
// its end once, then unescaped into one allocation (a status patch holds
// hundreds of escapes); anything else
// (other escapes, invalid UTF-8, a raw newline) goes to cutQuotedSlow.
func cutQuoted(s string) (string, string, bool) {
	if len(s) < 2 {
		return cutQuotedSlow(s)
	}
	in := s[1:]
	q := strings.IndexByte(in, '"')
	if q < 0 {
		return "", s, false
	}
	bs := strings.IndexByte(in[:q], '\\')
	if bs < 0 {
		v := in[:q]
		if strings.IndexByte(v, '\n') >= 0 || !utf8.ValidString(v) {
			return cutQuotedSlow(s)
		}
		return v, in[q+1:], true
	}
	if strings.IndexByte(in[:bs], '\n') >= 0 {
		return cutQuotedSlow(s)
	}
	// Find the end, with only the escapes unescape knows on the way.
	e := bs
	for e < len(in) && in[e] != '"' {
		switch in[e] {
		case '\\':
			if e+1 >= len(in) || unescape(in[e+1]) == 0 {
				return cutQuotedSlow(s)
			}
			e += 2
		case '\n':
			return cutQuotedSlow(s)
		default:
			e++
		}
	}
	if e >= len(in) || !utf8.ValidString(in[:e]) {
		return cutQuotedSlow(s)
	}
	var b strings.Builder
	b.Grow(e)
	for seg := in[:e]; ; {
		k := strings.IndexByte(seg, '\\')
		if k < 0 {
			b.WriteString(seg)
			break
		}
		b.WriteString(seg[:k])
		b.WriteByte(unescape(seg[k+1]))
		seg = seg[k+2:]
	}
	return b.String(), in[e+1:], true
}

// unescape is the byte a klog escape \c stands for, 0 for the escapes left
// to strconv.
func unescape(c byte) byte {
	switch c {
	case '"', '\\':
		return c
	case 'n':
		return '\n'
	case 't':
		return '\t'
	}
	return 0
}

// cutQuotedSlow reads a Go-quoted string at the start of s: the first
// quote not escaped by a backslash ends it, and strconv.Unquote reads it.
func cutQuotedSlow(s string) (string, string, bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			v, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", s, false
			}
			return v, s[i+1:], true
		}
	}
	return "", s, false
}

// jsonExtent returns the length of the balanced JSON object or array at the
// start of s, or 0 when it is not balanced.
func jsonExtent(s string) int {
	depth := 0
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				if json.Valid([]byte(s[:i+1])) {
					return i + 1
				}
				return 0
			}
		}
	}
	return 0
}
