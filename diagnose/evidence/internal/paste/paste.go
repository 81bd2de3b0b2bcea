// Package paste undoes what chats, tickets, mail and terminals do to text
// evidence before a reader sees it: Markdown fences and quote prefixes, chat
// bullets, shell prompts in front of the command that printed the output,
// HTML entities, smart quotes, non-breaking spaces, CRLF line endings and
// ANSI colour codes.
//
// Normalize keeps the line count: a line it removes (a fence, a prompt and
// its command) becomes an empty line, so readers' line numbers still point
// into the text as it was given. Every change is recorded as a warning with
// the line it was first made on, and each command line that was stripped
// is kept as a hint of what the text is (`cat .../cpu_manager_state | jq .`).
//
// The work is one pass over the input, linear in its size; the result is
// never longer than the input.
package paste

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Warning is one kind of change, with the first line (1-based) it was made
// on and how many lines it touched.
type Warning struct {
	Line  int
	Lines int
	What  string

	last int // the last line counted
}

func (w Warning) String() string {
	if w.Lines > 1 {
		return fmt.Sprintf("line %d: %s (%d lines)", w.Line, w.What, w.Lines)
	}
	return fmt.Sprintf("line %d: %s", w.Line, w.What)
}

// Result is the normalised text and what was done to it.
type Result struct {
	Text     []byte
	Warnings []Warning
	// Commands are the command lines found behind shell prompts, in order
	// (at most maxCommands); CommandLines are their lines (1-based), where
	// Text holds an empty line.
	Commands     []string
	CommandLines []int
}

// Changed reports whether the text differs from the input.
func (r Result) Changed() bool { return len(r.Warnings) > 0 }

// WarningStrings renders the warnings as "line N: ..." strings.
func (r Result) WarningStrings() []string {
	if len(r.Warnings) == 0 {
		return nil
	}
	out := make([]string, len(r.Warnings))
	for i, w := range r.Warnings {
		out[i] = w.String()
	}
	return out
}

const (
	maxCommands   = 8
	maxCommandLen = 300
)

// Commands a shell prompt is recognised in front of.
var knownCommands = map[string]bool{
	"cat": true, "jq": true, "kubectl": true, "k": true, "oc": true, "journalctl": true, "numactl": true, "lscpu": true,
	"grep": true, "systemctl": true, "ps": true, "crictl": true, "talosctl": true, "zcat": true,
	"sudo": true, "less": true, "tail": true, "head": true, "egrep": true, "zgrep": true, "lstopo": true, "lstopo-no-graphics": true,
}

var (
	// A prompt, anchored at the start of a line: "$ ", "# ", "[root@host ~]# ",
	// "user@host:~$ ", "root@host:/# ", "sh-5.1# ", "bash-4.4$ ", "PS C:\> ".
	promptRe = regexp.MustCompile(`^(?:\[[^\]\s@]+@[^\]\s]+(?: [^\]]*)?\][#$%]|[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+:[^\s#$]*[#$]|(?:sh|bash|zsh)-[0-9.]+[#$]|PS [A-Za-z]:[^>]*>|[$#%>])[ \t]+`)
	// A prompt glued to the end of the last line by `cat` of a file without a
	// trailing newline.
	gluedPromptRe = regexp.MustCompile(`(?:\[[^\]\s@]+@[^\]\s]+(?: [^\]]*)?\][#$%]|[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+:[^\s#$]*[#$])[ \t]*$`)
	// A line that is only a prompt.
	barePromptRe = regexp.MustCompile(`^(?:\[[^\]\s@]+@[^\]\s]+(?: [^\]]*)?\][#$%]|[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+:[^\s#$]*[#$]|(?:sh|bash|zsh)-[0-9.]+[#$])[ \t]*$`)
	fenceRe      = regexp.MustCompile("^[ \t]*(?:```+|~~~+)[ \t]*[A-Za-z0-9_+.-]*[ \t]*$")
)

// Normalize cleans data; see the package documentation. The input is not
// modified; when nothing changes, Text is the input itself.
func Normalize(data []byte) Result { return normalize(data, false) }

// NormalizeInPlace is Normalize writing the result over data, for a caller
// that owns data and needs only the result (a large log is then held once).
// The result is never longer than the input, so it fits.
func NormalizeInPlace(data []byte) Result { return normalize(data, true) }

func normalize(data []byte, inPlace bool) Result {
	n := &normaliser{}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	// Bullets are stripped only when every non-empty line carries the same
	// one, so a YAML list or a Markdown list in prose is left alone.
	n.bullet = []byte(commonBullet(data))
	// The start of the last non-blank line, where a glued prompt may sit.
	lastStart := len(bytes.TrimRight(data, " \t\r\n"))
	lastStart = bytes.LastIndexByte(data[:lastStart], '\n') + 1
	var out []byte // nil until the first change
	ln := 0
	for pos := 0; pos <= len(data); {
		raw, next := data[pos:], len(data)+1
		nl := bytes.IndexByte(raw, '\n')
		if nl >= 0 {
			raw, next = raw[:nl], pos+nl+1
		}
		ln++
		line := n.line(ln, raw, pos == lastStart)
		if out == nil && !bytes.Equal(line, raw) {
			if inPlace {
				// Output offsets never pass input offsets: each line
				// shrinks or stays, and is read before it is written.
				out = data[:pos:len(data)]
			} else {
				out = make([]byte, pos, len(data))
				copy(out, data[:pos])
			}
		}
		if out != nil {
			out = append(out, line...)
			if nl >= 0 {
				out = append(out, '\n')
			}
		}
		pos = next
	}
	if out == nil {
		out = data
	}
	n.res.Text = out
	return n.res
}

// line normalises one line (without its newline).
func (n *normaliser) line(ln int, line []byte, last bool) []byte {
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
		n.warn(ln, "converted CRLF line endings to LF")
	}
	line = n.characters(ln, line)
	// Quote prefixes first: "> $ cat file" is a quoted prompt.
	for depth := 0; depth < 8; depth++ {
		t, ok := cutQuote(line)
		if !ok {
			break
		}
		line = t
		n.warn(ln, "removed a Markdown quote prefix '> '")
	}
	if len(n.bullet) > 0 {
		if t := bytes.TrimLeft(line, " \t"); bytes.HasPrefix(t, n.bullet) {
			line = t[len(n.bullet):]
			n.warn(ln, "removed a chat bullet '"+strings.TrimSpace(string(n.bullet))+"'")
		}
	}
	if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && (t[0] == '`' || t[0] == '~') && fenceRe.Match(line) {
		n.warn(ln, "removed a Markdown code fence")
		return nil
	}
	if mayBePrompt(line) {
		if barePromptRe.Match(line) {
			n.warn(ln, "removed an empty shell prompt")
			return nil
		}
		if m := promptRe.FindIndex(line); m != nil && isCommand(string(line[m[1]:min(len(line), m[1]+64)])) {
			n.command(ln, string(line[m[1]:min(len(line), m[1]+4*maxCommandLen)]))
			n.warn(ln, "removed shell prompt and command")
			return nil
		}
	}
	if last && bytes.IndexByte(line, '@') >= 0 {
		if m := gluedPromptRe.FindIndex(line); m != nil && m[0] > 0 {
			n.warn(ln, "removed a shell prompt glued to the end of the output")
			return line[:m[0]]
		}
	}
	return line
}

// mayBePrompt is a cheap test before the prompt expressions run.
func mayBePrompt(line []byte) bool {
	if len(line) == 0 {
		return false
	}
	switch line[0] {
	case '[', '$', '#', '%', '>':
		return true
	}
	head := line[:min(len(line), 80)]
	return bytes.IndexByte(head, '@') >= 0 || bytes.HasPrefix(line, []byte("sh-")) || bytes.HasPrefix(line, []byte("bash-")) ||
		bytes.HasPrefix(line, []byte("zsh-")) || bytes.HasPrefix(line, []byte("PS "))
}

type normaliser struct {
	res    Result
	bullet []byte
	seen   map[string]int // warning text -> index in res.Warnings
}

func (n *normaliser) warn(line int, what string) {
	if n.seen == nil {
		n.seen = map[string]int{}
	}
	if i, ok := n.seen[what]; ok {
		if w := &n.res.Warnings[i]; w.last != line {
			w.Lines++
			w.last = line
		}
		return
	}
	n.seen[what] = len(n.res.Warnings)
	n.res.Warnings = append(n.res.Warnings, Warning{Line: line, Lines: 1, What: what, last: line})
}

func (n *normaliser) command(line int, c string) {
	if len(n.res.Commands) >= maxCommands {
		return
	}
	c = strings.TrimSpace(c)
	if len(c) > maxCommandLen {
		c = c[:maxCommandLen]
		for !utf8.ValidString(c) && len(c) > 0 {
			c = c[:len(c)-1]
		}
	}
	n.res.Commands = append(n.res.Commands, c)
	n.res.CommandLines = append(n.res.CommandLines, line)
}

// isCommand reports whether s starts with a known command word (optionally
// behind sudo or an environment assignment).
func isCommand(s string) bool {
	f := strings.Fields(s)
	for i := 0; i < len(f) && i < 3; i++ {
		w := f[i]
		if strings.Contains(w, "=") && !strings.HasPrefix(w, "-") {
			continue // FOO=bar cmd
		}
		if j := strings.LastIndexByte(w, '/'); j >= 0 {
			w = w[j+1:] // /usr/bin/cat
		}
		return knownCommands[w]
	}
	return false
}

// cutQuote removes one Markdown quote level: ">" at the start of the line
// followed by a space, another ">" or the end of the line.
func cutQuote(s []byte) ([]byte, bool) {
	if len(s) == 0 || s[0] != '>' {
		return s, false
	}
	rest := s[1:]
	switch {
	case len(rest) == 0:
		return rest, true
	case rest[0] == ' ':
		return rest[1:], true
	case rest[0] == '>':
		return rest, true
	}
	return s, false
}

var bullets = []string{"• ", "◦ ", "‣ ", "* "}

func commonBullet(data []byte) string {
	for _, b := range bullets {
		if !bytes.Contains(data, []byte(b)) && !bytes.Contains(data, []byte(strings.TrimSpace(b))) {
			continue
		}
		seen, all := 0, true
		for rest := data; len(rest) > 0 && all; {
			l := rest
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				l, rest = rest[:i], rest[i+1:]
			} else {
				rest = nil
			}
			t := bytes.TrimSpace(l)
			for len(t) > 0 && t[0] == '>' { // quoted bullets
				t = bytes.TrimSpace(t[1:])
			}
			if len(t) == 0 {
				continue
			}
			if !bytes.HasPrefix(t, []byte(b)) && string(t) != strings.TrimSpace(b) {
				all = false
			}
			seen++
		}
		if all && seen > 0 {
			return b
		}
	}
	return ""
}

// characters decodes HTML entities and replaces smart quotes, dashes that
// stood for "--", non-breaking spaces and ANSI escape sequences, in one
// pass over the line. The result is never longer than the line.
func (n *normaliser) characters(ln int, line []byte) []byte {
	if isASCIIClean(line) {
		return line
	}
	out := make([]byte, 0, len(line))
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == 0x1b:
			i = skipANSI(line, i)
			n.warn(ln, "removed ANSI escape codes")
			continue
		case c == '&':
			if r, w := entity(line[i:]); w > 0 {
				out = append(out, r...)
				i += w
				n.warn(ln, "decoded HTML entities")
				continue
			}
		case c >= 0x80:
			r, w := utf8.DecodeRune(line[i:])
			rep, what := "", ""
			switch r {
			case '\u00a0', '\u2007', '\u202f':
				rep, what = " ", "replaced non-breaking spaces"
			case '\u201c', '\u201d', '\u201e', '\u201f', '\u2033':
				rep, what = `"`, "replaced smart quotes with ASCII quotes"
			case '\u2018', '\u2019', '\u201a', '\u201b', '\u2032':
				rep, what = "'", "replaced smart quotes with ASCII quotes"
			case '\u2013', '\u2014':
				// "—cpu-manager-policy": a chat turned "--" into a dash.
				if (len(out) == 0 || out[len(out)-1] == ' ' || out[len(out)-1] == '\t') && i+w < len(line) && isLower(line[i+w]) {
					rep, what = "--", "replaced a dash with '--' in front of a flag name"
				}
			}
			if what != "" {
				out = append(out, rep...)
				i += w
				n.warn(ln, what)
				continue
			}
			out = append(out, line[i:i+w]...)
			i += w
			continue
		}
		out = append(out, c)
		i++
	}
	return out
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

func isASCIIClean(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 || c == 0x1b || c == '&' {
			return false
		}
	}
	return true
}

// skipANSI returns the index after the escape sequence starting at line[i]
// (CSI "ESC [ ... final", OSC "ESC ] ... BEL|ESC \", or ESC and one byte).
func skipANSI(line []byte, i int) int {
	j := i + 1
	if j >= len(line) {
		return j
	}
	switch line[j] {
	case '[':
		j++
		for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
			j++
		}
		return min(j+1, len(line))
	case ']':
		j++
		for j < len(line) {
			if line[j] == 0x07 {
				return j + 1
			}
			if line[j] == 0x1b && j+1 < len(line) && line[j+1] == '\\' {
				return j + 2
			}
			j++
		}
		return j
	}
	return j + 1
}

var namedEntities = map[string]string{
	"lt": "<", "gt": ">", "amp": "&", "quot": `"`, "apos": "'", "nbsp": " ", "#39": "'", "#34": `"`,
}

// entity decodes an HTML entity at the start of b ("&gt;", "&#39;",
// "&#x27;"); w is 0 when b does not start with one. Only entities closed by
// ';' are decoded, and only to ASCII.
func entity(b []byte) (string, int) {
	end := bytes.IndexByte(b[:min(len(b), 10)], ';')
	if end < 2 {
		return "", 0
	}
	name := string(b[1:end])
	if r, ok := namedEntities[name]; ok {
		return r, end + 1
	}
	if name[0] != '#' || len(name) < 2 {
		return "", 0
	}
	v, base, digits := 0, 10, name[1:]
	if digits[0] == 'x' || digits[0] == 'X' {
		base, digits = 16, digits[1:]
	}
	if digits == "" {
		return "", 0
	}
	for _, d := range digits {
		var x int
		switch {
		case d >= '0' && d <= '9':
			x = int(d - '0')
		case base == 16 && d >= 'a' && d <= 'f':
			x = int(d-'a') + 10
		case base == 16 && d >= 'A' && d <= 'F':
			x = int(d-'A') + 10
		default:
			return "", 0
		}
		v = v*base + x
	}
	if v < 0x20 || v > 0x7e {
		return "", 0
	}
	return string(rune(v)), end + 1
}

// WithKubectlCommands returns Text with each kubectl or oc command put back
// on its line behind a "$ " prompt, for readers that take the namespace and
// pod a command names for the output below it (the line numbers stay).
func (r Result) WithKubectlCommands() []byte {
	var keep []int
	for i, c := range r.Commands {
		if i < len(r.CommandLines) && (strings.HasPrefix(c, "kubectl ") || strings.HasPrefix(c, "oc ") || strings.HasPrefix(c, "k ")) {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		return r.Text
	}
	out := make([]byte, 0, len(r.Text)+64*len(keep))
	line, k := 1, 0
	for start := 0; start <= len(r.Text); {
		end := bytes.IndexByte(r.Text[start:], '\n')
		if end < 0 {
			end = len(r.Text)
		} else {
			end += start
		}
		if k < len(keep) && r.CommandLines[keep[k]] == line && end == start {
			out = append(out, "$ "+r.Commands[keep[k]]...)
			k++
		} else {
			out = append(out, r.Text[start:end]...)
		}
		if end == len(r.Text) {
			break
		}
		out = append(out, '\n')
		start, line = end+1, line+1
	}
	return out
}
