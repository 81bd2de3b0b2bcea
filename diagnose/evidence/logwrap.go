package evidence

import (
	"encoding/json"
	"regexp"
	"strings"
)

// The wrappers people put around kubelet log lines (evidence-formats.md §5):
// journald short, short-precise and short-iso prefixes with any identifier,
// `journalctl -o json` objects, `<node>: ` prefixes (talosctl), and the
// pager's `-- Logs begin at ... --` / `-- Boot <id> --` lines.

// wrapped is one input line with its wrapper taken off.
type wrapped struct {
	body string // the kubelet's own line
	node string // hostname or node prefix, when the wrapper names one
	// wrapper names the form: "journald-short", "journald-precise",
	// "journald-iso", "journal-json", "node-prefix" or "" (bare line).
	wrapper string
	ident   string // journald identifier (kubelet, kubenswrapper, k3s, ...)
	month   string // a month name that is not English ("5月", "Mär")
	meta    bool   // a pager or journald banner line
	boot    bool   // a `-- Boot` line: the kubelet may have restarted
	time    string // journal JSON __REALTIME_TIMESTAMP (microseconds since the epoch)
}

var englishMonths = map[string]bool{"Jan": true, "Feb": true, "Mar": true, "Apr": true, "May": true, "Jun": true,
	"Jul": true, "Aug": true, "Sep": true, "Oct": true, "Nov": true, "Dec": true}

var reANSI = regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]")

// unwrapLine takes the wrapper off one line (already without "\r").
// journalctl colours warning and error lines with ANSI sequences when it
// writes to a terminal; they are dropped first.
func unwrapLine(line string) wrapped {
	if strings.IndexByte(line, 0x1b) >= 0 {
		line = reANSI.ReplaceAllString(line, "")
	}
	if strings.HasPrefix(line, "-- ") {
		t := strings.TrimSpace(line)
		if strings.HasSuffix(t, "--") || strings.HasPrefix(t, "-- Boot") || strings.HasPrefix(t, "-- Logs begin") ||
			strings.HasPrefix(t, "-- Journal begins") || strings.HasPrefix(t, "-- No entries") || strings.HasPrefix(t, "-- Reboot") {
			return wrapped{meta: true, boot: strings.HasPrefix(t, "-- Boot") || strings.HasPrefix(t, "-- Reboot")}
		}
	}
	if strings.HasPrefix(line, "{") && strings.Contains(line, `"MESSAGE"`) {
		if w, ok := journalJSONLine(line); ok {
			return w
		}
	}
	if w, ok := journaldPrefix(line); ok {
		return w
	}
	if w, ok := nodePrefix(line); ok {
		return w
	}
	return wrapped{body: line}
}

// journalJSONLine unwraps one record of `journalctl -o json` output. MESSAGE
// is a string, or an array of byte values when it is not valid UTF-8.
func journalJSONLine(line string) (wrapped, bool) {
	var rec struct {
		Message  json.RawMessage `json:"MESSAGE"`
		Hostname string          `json:"_HOSTNAME"`
		Ident    string          `json:"SYSLOG_IDENTIFIER"`
		Time     string          `json:"__REALTIME_TIMESTAMP"`
	}
	if json.Unmarshal([]byte(line), &rec) != nil || len(rec.Message) == 0 {
		return wrapped{}, false
	}
	w := wrapped{node: rec.Hostname, ident: rec.Ident, wrapper: "journal-json", time: rec.Time}
	var s string
	if json.Unmarshal(rec.Message, &s) == nil {
		w.body = strings.TrimRight(s, "\r\n")
		return w, true
	}
	var ints []int
	if json.Unmarshal(rec.Message, &ints) == nil {
		b := make([]byte, 0, len(ints))
		for _, v := range ints {
			b = append(b, byte(v))
		}
		w.body = strings.TrimRight(string(b), "\r\n")
		return w, true
	}
	return wrapped{}, false
}

// journaldPrefix reads "Mar 05 09:14:02[.118201] host ident[pid]: " and
// "2025-03-05T09:14:02+0000 host ident[pid]: ". The month may be localised.
func journaldPrefix(line string) (wrapped, bool) {
	isDigit := func(s string, i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }
	w := wrapped{}
	rest := ""
	switch {
	case len(line) > 19 && isDigit(line, 0) && isDigit(line, 3) && line[4] == '-' && line[7] == '-' && line[10] == 'T':
		// short-iso: the timestamp runs to the first space.
		sp := strings.IndexByte(line, ' ')
		if sp < 0 {
			return wrapped{}, false
		}
		rest = line[sp+1:]
		w.wrapper = "journald-iso"
	default:
		sp := strings.IndexByte(line, ' ')
		if sp <= 0 || sp > 12 {
			return wrapped{}, false
		}
		month := line[:sp]
		r := strings.TrimLeft(line[sp:], " ")
		// day
		d := 0
		for d < len(r) && isDigit(r, d) {
			d++
		}
		if d == 0 || d > 2 || d >= len(r) || r[d] != ' ' {
			return wrapped{}, false
		}
		r = r[d+1:]
		// hh:mm:ss[.frac]
		if len(r) < 9 || !isDigit(r, 0) || !isDigit(r, 1) || r[2] != ':' || !isDigit(r, 3) || !isDigit(r, 4) || r[5] != ':' || !isDigit(r, 6) || !isDigit(r, 7) {
			return wrapped{}, false
		}
		k := 8
		w.wrapper = "journald-short"
		if k < len(r) && r[k] == '.' {
			k++
			for isDigit(r, k) {
				k++
			}
			w.wrapper = "journald-precise"
		}
		if k >= len(r) || r[k] != ' ' {
			return wrapped{}, false
		}
		rest = r[k+1:]
		if !englishMonths[month] {
			w.month = month
		}
	}
	// host ident[pid]: body
	sp := strings.IndexByte(rest, ' ')
	if sp <= 0 {
		return wrapped{}, false
	}
	w.node = rest[:sp]
	rest = rest[sp+1:]
	colon := strings.Index(rest, ": ")
	if colon <= 0 || colon > 80 || strings.ContainsAny(rest[:colon], " \t") {
		// "ident:" at the very end of the line (an empty message).
		if strings.HasSuffix(rest, ":") && !strings.ContainsAny(rest, " \t") {
			w.ident = identName(rest[:len(rest)-1])
			return w, true
		}
		return wrapped{}, false
	}
	w.ident = identName(rest[:colon])
	w.body = rest[colon+2:]
	return w, true
}

// identName drops the "[pid]" of a journald identifier.
func identName(s string) string {
	if i := strings.IndexByte(s, '['); i > 0 && strings.HasSuffix(s, "]") {
		return s[:i]
	}
	return s
}

// nodePrefix reads talosctl's and similar "<node>: <line>" prefixes, where
// the line is a JSON log object or a klog line.
func nodePrefix(line string) (wrapped, bool) {
	colon := strings.Index(line, ": ")
	if colon <= 0 || colon > 100 {
		return wrapped{}, false
	}
	node := line[:colon]
	for _, c := range node {
		ok := c == '.' || c == '-' || c == '_' || c == ':' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !ok {
			return wrapped{}, false
		}
	}
	body := line[colon+2:]
	if strings.HasPrefix(body, "{") && jsonLogStart(body) {
		return wrapped{body: body, node: node, wrapper: "node-prefix"}, true
	}
	if h, ok := findKlogHeader(body); ok && h.start == 0 {
		return wrapped{body: body, node: node, wrapper: "node-prefix"}, true
	}
	if w, ok := journaldPrefix(body); ok {
		// A node prefix in front of a journald line: the prefix names the node.
		w.node = node
		return w, true
	}
	return wrapped{}, false
}
