// Package jsonrepair turns a pasted JSON document back into JSON: the text a
// node engineer copies from a terminal or a chat around a kubelet checkpoint
// (a shell prompt before it or glued after it, `jq` output, `# <-- note` and
// `// note` comments, trailing commas, `...`/`…`/`<snip>` elisions between
// entries, redacted tokens, a cut end). Every change is recorded with the
// line it was made on, and the result says whether values were lost or
// changed (Lossy), so a caller never mistakes a reconstruction for the file.
//
// Repair is one pass over the input with an explicit stack: linear in the
// input, bounded in depth (Options.MaxDepth), in output size (at most twice
// the input plus the closing brackets) and in the repairs it records
// (maxRepairs, the rest counted, each pointer at most maxPathSeg tokens of
// at most a few hundred bytes). It never panics.
package jsonrepair

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/numascope/numascope/internal/jsonptr"
)

// Kind names one kind of repair.
type Kind string

// The repairs Repair makes. Cosmetic ones (prompt, trailing text, quote
// prefix, comment, comma, smart quote, ANSI) change no value; the others
// lose or may change values and make Result.Lossy true.
const (
	KindPrompt       Kind = "prompt"        // text before the JSON (a prompt, the command, a fence)
	KindTrailingText Kind = "trailing-text" // text after the JSON (a glued prompt, a fence)
	KindQuotePrefix  Kind = "quote-prefix"  // "> " mail or Markdown quote prefixes
	KindComment      Kind = "comment"       // # ..., // ... or /* ... */ outside strings
	KindComma        Kind = "comma"         // a trailing, doubled or missing comma
	KindSmartQuote   Kind = "smart-quote"   // “ ” used as string quotes
	KindANSI         Kind = "ansi"          // terminal colour codes (jq -C)
	KindElision      Kind = "elision"       // ..., …, <snip>, [...], "# 40 more lines"
	KindRedaction    Kind = "redaction"     // <uid>, xxxx, REDACTED, *** in a value or key, or as a bare token
	KindJoinedLine   Kind = "joined-line"   // a string wrapped over two lines, joined
	KindDropped      Kind = "dropped"       // a member whose value could not be read, left out
	KindSkipped      Kind = "skipped"       // text that is not JSON, left out
	KindTruncation   Kind = "truncation"    // the input ends inside the document
)

// Lossy reports whether a repair of this kind may have lost or changed values.
func (k Kind) Lossy() bool {
	switch k {
	case KindElision, KindRedaction, KindJoinedLine, KindDropped, KindSkipped, KindTruncation:
		return true
	}
	return false
}

// Change is one repair made to the input.
type Change struct {
	Kind Kind `json:"kind"`
	// Line is the 1-based input line the change was made on.
	Line int `json:"line"`
	// Path is the JSON pointer of the place in the repaired document ("" at the top).
	Path string `json:"path,omitempty"`
	// Text is what was removed or changed, as found (clipped).
	Text string `json:"text,omitempty"`
}

func (r Change) String() string {
	s := fmt.Sprintf("line %d: %s", r.Line, r.Kind)
	if r.Path != "" {
		s += " at " + r.Path
	}
	if r.Text != "" {
		s += " " + strconv.Quote(r.Text)
	}
	return s
}

// Cut says where a truncated input ends.
type Cut struct {
	// Line is the last input line that holds part of the document.
	Line int `json:"line"`
	// Path is the JSON pointer of the innermost value the input ends in.
	Path string `json:"path"`
	// Field is the first token of Path: the top-level member the cut is in
	// ("" when the input ends between top-level members).
	Field string `json:"field,omitempty"`
	// Dropped is the JSON pointer of the partial member left out ("" when none).
	Dropped string `json:"dropped,omitempty"`
}

// Result is a repaired document.
type Result struct {
	// JSON is the repaired document: valid JSON, one top-level object.
	JSON []byte
	// Repairs lists the changes in input order (at most maxRepairs; Omitted counts the rest).
	Repairs []Change
	Omitted int
	// Lossy is true when some repair lost or may have changed values.
	Lossy bool
	// Cut is set when the input ends inside the document.
	Cut *Cut
}

// Changed reports whether Repair changed anything at all.
func (r *Result) Changed() bool { return len(r.Repairs) > 0 || r.Omitted > 0 }

// Count returns how many repairs of kind k were recorded.
func (r *Result) Count(k Kind) int {
	n := 0
	for _, p := range r.Repairs {
		if p.Kind == k {
			n++
		}
	}
	return n
}

// Options bounds and guides Repair.
type Options struct {
	// MaxSize is the largest input accepted in bytes; 0 means 64 MiB.
	MaxSize int
	// MaxDepth is the deepest nesting accepted; 0 means 10,000 (encoding/json's limit).
	MaxDepth int
	// Records are JSON pointers (matched case-insensitively, as encoding/json
	// matches field names) of collections whose members are whole records,
	// e.g. "/entries": when the input ends inside such a member the member is
	// left out whole rather than kept with part of its content.
	Records []string
}

// Errors of Repair; test with errors.Is.
var (
	ErrTooLarge = errors.New("input larger than the size limit")
	ErrTooDeep  = errors.New("JSON nested deeper than the limit")
	ErrNoObject = errors.New("no JSON object found")
)

const (
	maxRepairs = 200
	maxText    = 120
	maxPathSeg = 32
)

// maxTokenBytes is the longest key a pointer of a repair holds whole; a
// longer one is written as its first cutTokenBytes bytes, "…" and its
// length ("aaaa… (131072 bytes)"), as statefile's problems write one.
const (
	maxTokenBytes = 320
	cutTokenBytes = 32
)

type state uint8

const (
	wantKey   state = iota // object: a key or the end
	wantColon              // object: the colon after a key
	wantValue              // object after a colon, or array: a value (or, in an array, the end)
	wantComma              // after a value: a comma or the end
)

type frame struct {
	obj         bool
	st          state
	key         string // the current member's key (objects), decoded
	keyRaw      []byte // the same key as its JSON string body
	keyLine     int
	idx         int  // the current element's index (arrays)
	n           int  // members or elements written
	comma       bool // a comma was read since the last value
	memberStart int  // output offset where the current member begins (before its comma)
	record      bool // this container is the value of a member of an Options.Records collection
	// node is where this container's pointer is in the records' trie
	// (noNode when no record starts with it)
	node int
}

type repairer struct {
	in      []byte
	i       int
	line    int
	out     []byte
	stack   []frame
	res     *Result
	opts    Options
	records recordTrie
	// ansiListed is set once a terminal colour repair is in res.Repairs
	ansiListed bool
}

// Repair reads data as a pasted JSON object and returns it repaired. It
// fails only when the input is too large, nested too deep or holds no JSON
// object; a cut end, comments, elisions and junk are repaired and recorded.
func Repair(data []byte, opts Options) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("internal error while repairing (please report it): %v", r)
		}
	}()
	if opts.MaxSize <= 0 {
		opts.MaxSize = 64 << 20
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = 10000
	}
	if len(data) > opts.MaxSize {
		return nil, fmt.Errorf("%w (%d bytes > %d)", ErrTooLarge, len(data), opts.MaxSize)
	}
	r := &repairer{line: 1, res: &Result{}, opts: opts, records: newRecordTrie(opts.Records)}
	r.in = r.stripQuotePrefix(data)
	start := findStart(r.in)
	if start < 0 {
		return nil, fmt.Errorf("%w: no line starts a JSON object ('{' followed by '\"' or '}')", ErrNoObject)
	}
	if pre := bytes.TrimSpace(r.in[:start]); len(pre) > 0 {
		r.add(KindPrompt, 1, "", firstLine(pre))
	}
	r.line += bytes.Count(r.in[:start], []byte("\n"))
	r.i = start
	r.out = make([]byte, 0, len(r.in)+16)
	if err := r.run(); err != nil {
		return nil, err
	}
	if !json.Valid(r.out) {
		// The scanner writes only well-formed tokens; this is a last line of defence.
		return nil, fmt.Errorf("%w: the repaired text is still not JSON", ErrNoObject)
	}
	r.res.JSON = r.out
	return r.res, nil
}

// stripQuotePrefix removes "> " quote prefixes when every non-blank line has one.
func (r *repairer) stripQuotePrefix(data []byte) []byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	quoted := 0
	for _, l := range lines {
		t := bytes.TrimSpace(l)
		if len(t) == 0 {
			continue
		}
		if t[0] != '>' {
			return data
		}
		quoted++
	}
	if quoted == 0 {
		return data
	}
	out := make([]byte, 0, len(data))
	for _, l := range lines {
		t := bytes.TrimLeft(l, " \t")
		for len(t) > 0 && t[0] == '>' {
			t = t[1:]
		}
		if len(t) > 0 && t[0] == ' ' {
			t = t[1:]
		}
		out = append(out, t...)
	}
	r.add(KindQuotePrefix, 1, "", "> ")
	return out
}

// findStart returns the offset of the first '{' that opens an object: the
// next non-blank character is a quote, '}' or the end of the line.
func findStart(in []byte) int {
	for i := 0; i < len(in); i++ {
		if in[i] != '{' {
			continue
		}
		j := i + 1
		for j < len(in) && (in[j] == ' ' || in[j] == '\t') {
			j++
		}
		if j == len(in) || in[j] == '"' || in[j] == '}' || in[j] == '\n' || in[j] == '\r' || bytes.HasPrefix(in[j:], []byte("\u201c")) {
			return i
		}
	}
	return -1
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return clip(string(bytes.TrimSpace(b)))
}

func clip(s string) string {
	if len(s) <= maxText {
		return s
	}
	cut := maxText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func (r *repairer) add(k Kind, line int, path, text string) {
	if k.Lossy() {
		r.res.Lossy = true
	}
	if len(r.res.Repairs) >= maxRepairs {
		r.res.Omitted++
		return
	}
	r.res.Repairs = append(r.res.Repairs, Change{Kind: k, Line: line, Path: path, Text: clip(text)})
	if k == KindANSI {
		r.ansiListed = true
	}
}

// path is the JSON pointer of the current position (the member being read).
// Past maxRepairs no repair is recorded, so it is not computed either.
func (r *repairer) path() string {
	if len(r.res.Repairs) >= maxRepairs {
		return ""
	}
	return r.pathOf(len(r.stack), true)
}

// pathOf renders the pointer of the first n frames; withCurrent adds the
// current member of the innermost one.
func (r *repairer) pathOf(n int, withCurrent bool) string {
	var b strings.Builder
	for d := 0; d < n && d < maxPathSeg; d++ {
		f := &r.stack[d]
		if d == n-1 && !withCurrent {
			break
		}
		if f.obj {
			if f.st == wantKey && d == n-1 {
				break // between members
			}
			b.WriteByte('/')
			b.WriteString(jsonptr.Escape(keyToken(f.key)))
		} else {
			if f.st == wantComma && d == n-1 {
				break
			}
			b.WriteByte('/')
			b.WriteString(strconv.Itoa(f.idx))
		}
	}
	if n > maxPathSeg {
		b.WriteString("/…")
	}
	return b.String()
}

// keyToken is a key as a token of a repair's pointer: whole up to
// maxTokenBytes, else its first bytes, "…" and its length.
func keyToken(k string) string {
	if len(k) <= maxTokenBytes {
		return k
	}
	n := cutTokenBytes
	for n > 0 && !utf8.RuneStart(k[n]) {
		n--
	}
	return k[:n] + "… (" + strconv.Itoa(len(k)) + " bytes)"
}

// noNode is the trie node of a pointer no record starts with.
const noNode = -1

// recordTrie holds the Options.Records pointers, lowered, token by token:
// a container's node is one step from its parent's, so that telling
// whether a container is a record costs a lookup of one token, not the
// rendering of its pointer (which, under a long key, made Repair
// quadratic: 110 s for 1 MB).
type recordTrie struct {
	next   []map[string]int // each node's children by token (escaped, lowered)
	isEnd  []bool           // a record ends at the node
	maxLen int              // the longest token of any record
}

func newRecordTrie(records []string) recordTrie {
	t := recordTrie{next: []map[string]int{nil}, isEnd: []bool{false}}
	for _, p := range records {
		p = strings.ToLower(p)
		if p != "" && !strings.HasPrefix(p, "/") {
			continue // no pointer is written so
		}
		node := 0
		if p != "" {
			for _, tok := range strings.Split(p[1:], "/") {
				t.maxLen = max(t.maxLen, len(tok))
				if t.next[node] == nil {
					t.next[node] = map[string]int{}
				}
				child, ok := t.next[node][tok]
				if !ok {
					child = len(t.next)
					t.next = append(t.next, nil)
					t.isEnd = append(t.isEnd, false)
					t.next[node][tok] = child
				}
				node = child
			}
		}
		t.isEnd[node] = true
	}
	return t
}

// final reports whether a record ends at node.
func (t *recordTrie) final(node int) bool { return node != noNode && t.isEnd[node] }

// step is the node of the pointer of the value parent is reading now: its
// pointer and the token of its current member (its pointer as pathOf
// writes it, lowered as the records are).
func (t *recordTrie) step(parent *frame) int {
	if parent.node == noNode || t.next[parent.node] == nil {
		return noNode
	}
	var tok string
	if parent.obj {
		// lowering keeps at least a third of the bytes: a key longer than
		// three times every record token matches none
		if len(parent.key) > 3*t.maxLen {
			return noNode
		}
		tok = strings.ToLower(jsonptr.Escape(parent.key))
	} else {
		tok = strconv.Itoa(parent.idx)
	}
	if child, ok := t.next[parent.node][tok]; ok {
		return child
	}
	return noNode
}

func (r *repairer) top() *frame {
	if len(r.stack) == 0 {
		return nil
	}
	return &r.stack[len(r.stack)-1]
}

// beginValue is called before a value is written into the innermost
// container; it writes the comma and the pending key. It returns false
// when no value is expected here (the value is then skipped).
func (r *repairer) beginValue(what string) bool {
	f := r.top()
	if f == nil {
		return false
	}
	if f.st == wantComma {
		// A value right after a value: the comma between them is missing
		// (for example where an elided line was).
		if f.obj {
			return false
		}
		r.add(KindComma, r.line, r.path(), "missing comma inserted")
		f.st, f.idx = wantValue, f.idx+1
	}
	if f.obj && f.st == wantColon {
		f.st = wantValue // "key" {...}: the colon is missing
	}
	if f.obj && f.st != wantValue {
		return false
	}
	f.memberStart = len(r.out)
	if f.n > 0 {
		r.out = append(r.out, ',')
	}
	if f.obj {
		r.out = append(r.out, '"')
		r.out = append(r.out, f.keyRaw...)
		r.out = append(r.out, '"', ':')
	}
	return true
}

// endValue marks the current member of the innermost container as written.
func (r *repairer) endValue() {
	if f := r.top(); f != nil {
		f.n++
		f.st, f.comma = wantComma, false
	}
}

func (r *repairer) run() error {
	in := r.in
	for r.i < len(in) {
		c := in[r.i]
		switch {
		case c == '\n':
			r.line++
			r.i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			r.i++
		case c == 0xC2 && r.i+1 < len(in) && in[r.i+1] == 0xA0: // no-break space
			r.i += 2
		case c == 0x1B:
			r.skipANSI()
		case c == '#' || c == '/' && r.i+1 < len(in) && (in[r.i+1] == '/' || in[r.i+1] == '*'):
			r.comment()
		case c == '"' || bytes.HasPrefix(in[r.i:], []byte("\u201c")) || bytes.HasPrefix(in[r.i:], []byte("\u201d")):
			r.str()
		case c == '{' || c == '[':
			if c == '[' && r.elision() {
				continue
			}
			if len(r.stack) > 0 && !r.beginValue("") {
				r.junk()
				continue
			}
			if len(r.stack) >= r.opts.MaxDepth {
				return fmt.Errorf("%w (%d levels) at line %d", ErrTooDeep, r.opts.MaxDepth, r.line)
			}
			// the new container's pointer, in the records' trie: one
			// step from its parent's (the pointer is never written out)
			rec, node := false, 0
			if p := r.top(); p != nil {
				rec = len(r.stack) <= 6 && r.records.final(p.node)
				node = r.records.step(p)
			}
			r.out = append(r.out, c)
			st := wantValue
			if c == '{' {
				st = wantKey
			}
			r.stack = append(r.stack, frame{obj: c == '{', st: st, record: rec, node: node})
			r.i++
		case c == '}' || c == ']':
			f := r.top()
			if f == nil || f.obj != (c == '}') {
				r.add(KindSkipped, r.line, r.path(), string(c))
				r.i++
				continue
			}
			switch {
			case f.obj && (f.st == wantColon || f.st == wantValue):
				r.add(KindDropped, r.line, r.path(), "member "+strconv.Quote(f.key)+" has no value")
			case f.comma && f.n > 0:
				r.add(KindComma, r.line, r.pathOf(len(r.stack), false), "trailing comma removed")
			}
			r.out = append(r.out, c)
			r.stack = r.stack[:len(r.stack)-1]
			r.i++
			if len(r.stack) == 0 {
				r.trailing()
				return nil
			}
			r.endValue()
		case c == ':':
			if f := r.top(); f != nil && f.obj && f.st == wantColon {
				f.st = wantValue
			} else {
				r.add(KindSkipped, r.line, r.path(), ":")
			}
			r.i++
		case c == ',':
			f := r.top()
			switch {
			case f == nil:
			case f.st == wantComma:
				f.comma = true
				if f.obj {
					f.st = wantKey
				} else {
					f.st, f.idx = wantValue, f.idx+1
				}
			default:
				r.add(KindComma, r.line, r.path(), "extra comma removed")
			}
			r.i++
		case c == '-' || c >= '0' && c <= '9':
			r.number()
		default:
			if r.elision() {
				continue
			}
			r.word()
		}
	}
	r.truncated()
	return nil
}

// trailing records what follows the top-level object.
func (r *repairer) trailing() {
	rest := r.in[r.i:]
	if t := bytes.TrimSpace(rest); len(t) > 0 {
		r.add(KindTrailingText, r.line, "", firstLine(t))
	}
	r.i = len(r.in)
}

func (r *repairer) skipANSI() {
	j := r.i + 1
	if j < len(r.in) && r.in[j] == '[' {
		j++
		for j < len(r.in) && (r.in[j] >= '0' && r.in[j] <= '9' || r.in[j] == ';') {
			j++
		}
		if j < len(r.in) {
			j++
		}
	}
	if !r.ansiListed {
		r.add(KindANSI, r.line, "", "terminal colour codes removed")
	}
	r.i = j
}

var elisionWords = [][]byte{[]byte("[...]"), []byte("[…]"), []byte("..."), []byte("…"), []byte("<snip>"), []byte("<snipped>"), []byte("(output trimmed)"), []byte("(truncated)"), []byte("<...>")}

// elision consumes an elision marker at the current position.
func (r *repairer) elision() bool {
	for _, w := range elisionWords {
		if !bytes.HasPrefix(r.in[r.i:], w) {
			continue
		}
		j := r.i + len(w)
		for j < len(r.in) && r.in[j] == '.' {
			j++
		}
		r.markElision(string(r.in[r.i:j]))
		r.i = j
		return true
	}
	return false
}

func (r *repairer) markElision(text string) {
	f := r.top()
	if f != nil && f.obj && (f.st == wantColon || f.st == wantValue) {
		r.add(KindElision, r.line, r.path(), text+" (member "+strconv.Quote(f.key)+" left out)")
		f.st = wantComma
		f.comma = false
		return
	}
	r.add(KindElision, r.line, r.path(), text)
}

func (r *repairer) comment() {
	in := r.in
	start := r.i
	line := r.line
	var text []byte
	if bytes.HasPrefix(in[r.i:], []byte("/*")) {
		end := bytes.Index(in[r.i+2:], []byte("*/"))
		if end < 0 {
			end = len(in) - r.i - 2
		}
		text = in[r.i+2 : r.i+2+end]
		r.line += bytes.Count(text, []byte("\n"))
		r.i = min(len(in), r.i+2+end+2)
	} else {
		end := bytes.IndexByte(in[r.i:], '\n')
		if end < 0 {
			end = len(in) - r.i
		}
		r.i += end
		text = bytes.TrimLeft(in[start:r.i], "#/ \t")
	}
	t := strings.TrimSpace(string(text))
	low := strings.ToLower(t)
	if strings.Contains(low, "more line") || strings.Contains(low, "trimmed") || strings.Contains(low, "snip") || strings.Contains(low, "omitted") || t == "..." || t == "…" {
		r.markElision(t)
		return
	}
	r.add(KindComment, line, r.path(), t)
}

// junk skips one unreadable token up to the next structural character,
// space or line end, and records it.
func (r *repairer) junk() {
	start := r.i
	for r.i < len(r.in) {
		c := r.in[r.i]
		if c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == ',' || c == '}' || c == ']' || c == '"' {
			break
		}
		r.i++
	}
	if r.i == start {
		r.i++
	}
	r.add(KindSkipped, r.line, r.path(), string(r.in[start:r.i]))
}

// Redacted reports whether a key, value or bare token looks like a redaction
// rather than data a kubelet wrote: a placeholder in angle brackets (<uid>),
// or a word that is all x (xxxx, at least four), all * (***) or REDACTED.
// Words are split at anything but letters, digits and '*', so a UID written
// as xxxxxxxx-xxxx-... counts, and a container named "proxy" does not.
func Redacted(w string) bool {
	l := strings.ToLower(w)
	if hasAngleToken(l) {
		return true
	}
	start := -1
	for i := 0; i <= len(l); i++ {
		if i < len(l) && (l[i] >= 'a' && l[i] <= 'z' || l[i] >= '0' && l[i] <= '9' || l[i] == '*') {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && redactedWord(l[start:i]) {
			return true
		}
		start = -1
	}
	return false
}

func redactedWord(w string) bool {
	if w == "redacted" {
		return true
	}
	if len(w) >= 3 && strings.Trim(w, "*") == "" {
		return true
	}
	return len(w) >= 4 && strings.Trim(w, "x") == ""
}

// hasAngleToken finds a placeholder such as <uid> or <pod-name> in s.
func hasAngleToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		j := i + 1
		for j < len(s) && j-i <= 32 && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9' || s[j] == '-' || s[j] == '_' || s[j] == ' ' || s[j] == '.') {
			j++
		}
		if j < len(s) && s[j] == '>' && j > i+1 {
			return true
		}
		i = j - 1
	}
	return false
}

// word reads a bare word: a literal, a redacted token, or junk.
func (r *repairer) word() {
	start := r.i
	for r.i < len(r.in) {
		c := r.in[r.i]
		if c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == ',' || c == '}' || c == ']' || c == '"' || c == ':' || c == '{' || c == '[' {
			break
		}
		r.i++
	}
	if r.i == start {
		r.i++
	}
	w := string(r.in[start:r.i])
	f := r.top()
	if w == "true" || w == "false" || w == "null" {
		if r.i == len(r.in) {
			r.partialScalar(w)
			return
		}
		if r.beginValue(w) {
			r.out = append(r.out, w...)
			r.endValue()
			return
		}
	}
	if f != nil && f.obj && (f.st == wantValue || f.st == wantColon) {
		k := KindDropped
		if Redacted(w) {
			k = KindRedaction
		}
		r.add(k, r.line, r.path(), w+" (member "+strconv.Quote(f.key)+" left out)")
		f.st, f.comma = wantComma, false
		return
	}
	if Redacted(w) {
		if f != nil && f.obj && f.st == wantKey {
			// <uid>: {...} — a redacted key without quotes
			f.key, f.keyRaw, f.keyLine, f.st = w, jsonBody(w), r.line, wantColon
		}
		r.add(KindRedaction, r.line, r.path(), w)
		return
	}
	r.add(KindSkipped, r.line, r.path(), w)
}

// partialScalar handles a number or literal that the input ends in: it may
// be cut, so the member is left to truncated().
func (r *repairer) partialScalar(string) {
	if f := r.top(); f != nil && !f.obj && f.st == wantComma {
		f.st, f.idx = wantValue, f.idx+1
	}
}

func (r *repairer) number() {
	start := r.i
	for r.i < len(r.in) {
		c := r.in[r.i]
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || c >= '0' && c <= '9' {
			r.i++
			continue
		}
		break
	}
	tok := r.in[start:r.i]
	if r.i == len(r.in) && len(r.stack) > 0 {
		r.partialScalar(string(tok))
		return
	}
	if !json.Valid(tok) {
		r.i = start
		r.word()
		return
	}
	if !r.beginValue(string(tok)) {
		r.add(KindSkipped, r.line, r.path(), string(tok))
		return
	}
	r.out = append(r.out, tok...)
	r.endValue()
}

// str reads a string (quoted with " or with smart quotes), repairs a line
// wrapped inside it, and places it as a key or a value.
func (r *repairer) str() {
	in := r.in
	line := r.line
	smart := in[r.i] != '"'
	if smart {
		r.i += 3
		r.add(KindSmartQuote, line, r.path(), "“…”")
	} else {
		r.i++
	}
	var raw []byte // the string's JSON body, escapes kept
	closed, cut, joined := false, false, false
	for r.i < len(in) {
		c := in[r.i]
		if c == '"' {
			r.i++
			closed = true
			break
		}
		if smart && (bytes.HasPrefix(in[r.i:], []byte("\u201d")) || bytes.HasPrefix(in[r.i:], []byte("\u201c"))) {
			r.i += 3
			closed = true
			break
		}
		if c == '\\' {
			if r.i+1 >= len(in) {
				r.i++
				break
			}
			e := in[r.i+1]
			if e == 'u' {
				if r.i+6 > len(in) || !isHex4(in[r.i+2:r.i+6]) {
					// a broken escape: keep the characters literally
					raw = append(raw, '\\', '\\')
					r.i++
					continue
				}
				raw = append(raw, in[r.i:r.i+6]...)
				r.i += 6
				continue
			}
			if strings.IndexByte(`"\/bfnrt`, e) < 0 {
				raw = append(raw, '\\', '\\')
				r.i++
				continue
			}
			raw = append(raw, c, e)
			r.i += 2
			continue
		}
		if c == '\n' || c == '\r' {
			// A raw line break inside a string: a wrapped line, or a line
			// cut at the terminal's width followed by the next member.
			j := r.i
			for j < len(in) && (in[j] == '\n' || in[j] == '\r' || in[j] == ' ' || in[j] == '\t') {
				j++
			}
			if j >= len(in) || in[j] == '"' || in[j] == '}' || in[j] == ']' {
				cut = true
				break
			}
			r.line += bytes.Count(in[r.i:j], []byte("\n"))
			r.i = j
			joined = true
			continue
		}
		if c < 0x20 {
			raw = append(raw, fmt.Sprintf(`\u%04x`, c)...)
			r.i++
			continue
		}
		raw = append(raw, c)
		r.i++
	}
	s := string(raw)
	if bytes.IndexByte(raw, '\\') >= 0 {
		if err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s); err != nil {
			s = string(raw)
		}
	}
	f := r.top()
	if !closed {
		if r.i >= len(in) && !cut {
			// The input ends inside this string: truncated() reports it.
			if f != nil && f.obj && f.st == wantKey {
				f.key, f.keyRaw, f.st = s, raw, wantColon
			}
			if f != nil && !f.obj && f.st == wantComma {
				f.st, f.idx = wantValue, f.idx+1
			}
			return
		}
		r.add(KindDropped, line, r.path(), "line cut inside a string: "+s)
		if f != nil && f.obj && f.st == wantKey {
			f.key, f.keyRaw = s, raw
		}
		if f != nil {
			f.st, f.comma = wantComma, false
		}
		return
	}
	if f == nil {
		r.add(KindSkipped, line, "", s)
		return
	}
	if f.obj && f.st == wantComma {
		r.add(KindComma, line, r.path(), "missing comma inserted")
		f.st = wantKey
	}
	if f.obj && f.st == wantKey {
		f.key, f.keyRaw, f.keyLine, f.st = s, raw, line, wantColon
		if Redacted(s) {
			r.add(KindRedaction, line, r.path(), s)
		}
		return
	}
	if f.obj && f.st == wantColon {
		// "a" "b": the colon is missing; take the string as the value.
		f.st = wantValue
	}
	if !r.beginValue(s) {
		r.add(KindSkipped, line, r.path(), s)
		return
	}
	if joined {
		r.add(KindJoinedLine, line, r.path(), s)
	}
	if Redacted(s) {
		r.add(KindRedaction, line, r.path(), s)
	}
	r.out = append(r.out, '"')
	r.out = append(r.out, raw...)
	r.out = append(r.out, '"')
	r.endValue()
}

// jsonBody returns s as the body of a JSON string.
func jsonBody(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) != nil {
		return nil
	}
	b := bytes.TrimSpace(buf.Bytes())
	return b[1 : len(b)-1]
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return len(b) == 4
}

// truncated closes what is open at the end of a cut input: the partial
// member is left out (a whole record inside an Options.Records collection),
// every open container is closed, and the cut is recorded.
func (r *repairer) truncated() {
	if len(r.stack) == 0 {
		return
	}
	cut := &Cut{Line: r.lastContentLine(), Path: r.pathOf(len(r.stack), true)}
	if toks, ok := jsonptr.Split(cut.Path); ok && len(toks) > 0 {
		cut.Field = toks[0]
	}
	// A record partly read is left out whole.
	for d := range r.stack {
		if r.stack[d].record && d > 0 {
			parent := &r.stack[d-1]
			cut.Dropped = r.pathOf(d, true)
			r.out = r.out[:parent.memberStart]
			r.stack = r.stack[:d]
			parent.st = wantComma
			goto close
		}
	}
	if f := r.top(); f != nil && (f.obj && (f.st == wantColon || f.st == wantValue) || !f.obj && f.st == wantValue && (f.comma || f.n == 0)) {
		cut.Dropped = cut.Path
	}
close:
	for len(r.stack) > 0 {
		f := r.top()
		if f.obj {
			r.out = append(r.out, '}')
		} else {
			r.out = append(r.out, ']')
		}
		r.stack = r.stack[:len(r.stack)-1]
		if t := r.top(); t != nil {
			t.n++
		}
	}
	r.res.Cut = cut
	text := "input ends inside " + orTop(cut.Path)
	if cut.Dropped != "" {
		text += "; partial " + cut.Dropped + " left out"
	}
	r.add(KindTruncation, cut.Line, cut.Path, text)
}

func orTop(p string) string {
	if p == "" {
		return "the top-level object"
	}
	return p
}

func (r *repairer) lastContentLine() int {
	line := r.line
	for j := len(r.in) - 1; j >= 0; j-- {
		c := r.in[j]
		if c == '\n' {
			line--
			continue
		}
		if c != ' ' && c != '\t' && c != '\r' {
			break
		}
	}
	return max(line, 1)
}
