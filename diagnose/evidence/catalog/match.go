package catalog

import (
	"cmp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Hit is one catalogue entry found in a text.
type Hit struct {
	// Entry is the entry that matches best (the most constant text, then
	// the best fit to where the text was found, then the newest release);
	// Also are the others that match the same text, best first: the
	// kubelet prints it from several places.
	Entry *Entry
	Also  []*Entry
	// Start and End are the byte span in the text given to Match. For a
	// structured message that is a log line's whole message, the span runs
	// to the end of its fields.
	Start, End int
	// Captures are the verbs of the matched line of Entry.Format, in order.
	Captures []Capture
	// Fields are the key/value pairs that follow a structured message (a
	// klog text line's key=value pairs, a JSON log's members).
	Fields []Field
	// Wrapped is the kubelet text found in this one's error operand (a
	// %w, an error printed with %v, the err field), matched in turn: the
	// chain of wrapped errors, outermost first.
	Wrapped *Hit
}

// Capture is the text one verb of the format matched.
type Capture struct {
	Verb  string // "%v", "%q", "%d", ...
	Index int    // the verb's index in Entry.Format
	// Text is what the verb printed; for %q, the string unquoted.
	Text       string
	Start, End int
	Err        bool  // the operand is an error
	Hits       []Hit // catalogue entries found inside it
}

// Int reads a capture's text as an integer (a %d, %x, %o or %b verb's
// number, in its base); ok is false when the text is not one.
func (c Capture) Int() (n int64, ok bool) {
	base := 10
	switch c.Verb[len(c.Verb)-1] {
	case 'x', 'X':
		base = 16
	case 'o':
		base = 8
	case 'b':
		base = 2
	}
	v, err := strconv.ParseInt(c.Text, base, 64)
	return v, err == nil
}

// Field is one key/value pair after a structured message.
type Field struct {
	Key, Value string // Value unquoted when it was quoted
	Start, End int    // the value's span
	Hits       []Hit  // catalogue entries found inside it
}

// Chain returns h and the hits it wraps, outermost first.
func (h *Hit) Chain() []*Hit {
	var out []*Hit
	for x := h; x != nil; x = x.Wrapped {
		out = append(out, x)
	}
	return out
}

// Innermost returns the innermost known error of the chain: the last hit
// of Chain.
func (h *Hit) Innermost() *Hit {
	x := h
	for x.Wrapped != nil {
		x = x.Wrapped
	}
	return x
}

// Matcher finds catalogue entries in text. It is safe for concurrent use.
const (
	// MaxLine is how much of one line Match reads (see Match).
	MaxLine = 64 << 10
	// MaxDepth is how many hits deep Match follows wrapped errors.
	MaxDepth = 32
)

// cutLine cuts a line to MaxLine bytes, back to the start of a UTF-8
// character.
func cutLine(line string) string {
	n := MaxLine
	for n > MaxLine-4 && n > 0 && line[n]&0xc0 == 0x80 {
		n--
	}
	return line[:n]
}

type Matcher struct {
	entries     []Entry
	pats        []*pattern
	unmatchable []*Entry
	ac          *automaton
	filter      *filter
	lits        []string
	litID       map[string]int32
	anchorOf    [][]int32 // automaton pattern id -> indexes of pats anchored on it
	pool        sync.Pool
}

// NewMatcher compiles entries (copied) into a matcher: their format
// strings to patterns, their literals into one automaton.
func NewMatcher(entries []Entry) *Matcher { return newMatcherShared(append([]Entry(nil), entries...)) }

// newMatcherShared compiles entries in place: hits point into the slice.
func newMatcherShared(entries []Entry) *Matcher {
	m := &Matcher{entries: entries, litID: map[string]int32{}}
	var lits []string
	for i := range m.entries {
		e := &m.entries[i]
		p, ok := compile(e)
		if !ok {
			m.unmatchable = append(m.unmatchable, e)
			continue
		}
		p.litIDs = make([]int32, len(p.lits))
		for j, l := range p.lits {
			p.litIDs[j] = -1
			if len(l) < minLiteral {
				continue
			}
			id, ok := m.litID[l]
			if !ok {
				id = int32(len(lits))
				m.litID[l] = id
				lits = append(lits, l)
				m.anchorOf = append(m.anchorOf, nil)
			}
			p.litIDs[j] = id
		}
		m.anchorOf[p.litIDs[p.anchor]] = append(m.anchorOf[p.litIDs[p.anchor]], int32(len(m.pats)))
		m.pats = append(m.pats, p)
	}
	m.ac = newAutomaton(lits)
	m.lits = lits
	var anchors []int32
	for id, a := range m.anchorOf {
		if len(a) > 0 {
			anchors = append(anchors, int32(id))
		}
	}
	texts := make([]string, len(m.entries))
	for i := range m.entries {
		texts[i] = m.entries[i].Format
	}
	m.filter = newFilter(lits, anchors, texts)
	m.pool.New = func() any {
		return &scanner{m: m, byPat: map[int32]patList{}, fwdMemo: map[string]memo{}, backMemo: map[string]memo{}}
	}
	return m
}

// Unmatchable returns the entries that cannot be told from other text:
// their format has no literal of three bytes or more.
func (m *Matcher) Unmatchable() []*Entry { return append([]*Entry(nil), m.unmatchable...) }

// Match finds every catalogue entry in text: in log lines with or without
// their klog or journald headers, in JSON log lines, in quoted and escaped
// strings (an err="..." value, a JSON string), in describe Message fields
// and event table rows, and in bare text. Text is read line by line. Each
// hit's error operands are matched in turn (Hit.Wrapped); the hits
// returned are those not inside another. The work is linear in the text.
//
// A line longer than MaxLine bytes is matched on its first MaxLine bytes:
// the kubelet's messages open their lines, and what runs past that is data
// (a dump, a repeated fragment) whose matching would cost memory in
// proportion. A chain of wrapped errors is followed MaxDepth hits deep; the
// text past that stays the innermost hit's capture.
func (m *Matcher) Match(text string) []Hit {
	sc := m.pool.Get().(*scanner)
	defer m.pool.Put(sc)
	var out []Hit
	start := 0
	for start <= len(text) {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		line := text[start:end]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if len(line) > MaxLine {
			line = cutLine(line)
		}
		if len(line) > 0 {
			out = sc.line(line, start, out)
		}
		start = end + 1
	}
	return out
}

// verify matches pattern p in seg with its anchor literal at a, and returns
// the candidate, or nil.
func (sc *scanner) verify(seg *segment, p *pattern, a int) *cand {
	s := seg.text
	k := p.anchor
	if !strings.HasPrefix(s[a:], p.lits[k]) {
		return nil
	}
	c0 := len(sc.capAr)
	for range p.gaps {
		sc.capAr = append(sc.capAr, capSpan{})
	}
	capList := sc.capAr[c0:len(sc.capAr):len(sc.capAr)]
	// backwards from the anchor
	freeHead, freeTail := false, false
	fixedStart, fixedEnd := 0, 0
	cur := a
	for j := k - 1; j >= 0; j-- {
		g := p.gaps[j]
		if j == 0 && p.lits[0] == "" {
			st := 0
			if t, ok := scanBack(s, cur, g); ok {
				st = t
			} else {
				freeHead = true
			}
			capList[j] = capSpan{g: g[0], ls: st, le: cur}
			fixedStart = cur
			cur = st
			break
		}
		lit := p.lits[j]
		if t, ok := scanBack(s, cur, g); ok && t >= len(lit) && s[t-len(lit):t] == lit {
			capList[j] = capSpan{g: g[0], ls: t, le: cur}
			cur = t - len(lit)
			continue
		}
		q := sc.prev(seg, p, j, cur)
		if q < 0 {
			sc.capAr = sc.capAr[:c0]
			return nil
		}
		capList[j] = capSpan{g: g[0], ls: q + len(lit), le: cur}
		cur = q
	}
	start := cur
	if !freeHead {
		fixedStart = start
	}
	cur = a + len(p.lits[k])
	n := len(p.lits) - 1
	for j := k + 1; j <= n; j++ {
		g := p.gaps[j-1]
		lit := p.lits[j]
		if j == n && lit == "" {
			e := len(s)
			if t, ok := scanFwd(s, cur, g); ok {
				e = t
			} else {
				freeTail = true
			}
			fixedEnd = cur
			capList[j-1] = capSpan{g: g[0], ls: cur, le: e}
			cur = e
			break
		}
		if t, ok := scanFwd(s, cur, g); ok && strings.HasPrefix(s[t:], lit) {
			capList[j-1] = capSpan{g: g[0], ls: cur, le: t}
			cur = t + len(lit)
			continue
		}
		if j == n && p.whole {
			// a short entry must be the whole message: its last literal
			// ends it, whatever the verb before printed
			if e := len(strings.TrimRight(s, " \t")); e-len(lit) >= cur && s[e-len(lit):e] == lit {
				capList[j-1] = capSpan{g: g[0], ls: cur, le: e - len(lit)}
				cur = e
				break
			}
		}
		q := sc.next(seg, p, j, cur)
		if q < 0 {
			sc.capAr = sc.capAr[:c0]
			return nil
		}
		capList[j-1] = capSpan{g: g[0], ls: cur, le: q}
		cur = q + len(lit)
	}
	end := cur
	if !freeTail {
		fixedEnd = end
	}
	whole := strings.TrimSpace(s[:start]) == "" && strings.TrimSpace(s[end:]) == ""
	if p.whole && !whole {
		sc.capAr = sc.capAr[:c0]
		return nil
	}
	c := sc.candAr.get()
	*c = cand{p: p, seg: seg, start: seg.raw(start), end: seg.raw(end),
		fixedStart: seg.raw(fixedStart), fixedEnd: seg.raw(fixedEnd), freeHead: freeHead, freeTail: freeTail}
	c.caps = capList[:0]
	for _, cp := range capList {
		if cp.g.index < 0 {
			continue // text of another line of a multi-line format
		}
		cp.start, cp.end = seg.raw(cp.ls), seg.raw(cp.le)
		cp.text = s[cp.ls:cp.le]
		if cp.g.char == 'q' {
			if u, err := strconv.Unquote(cp.text); err == nil {
				cp.text = u
			}
		}
		c.caps = append(c.caps, cp)
	}
	if whole && seg.role == roleMsg {
		// the log line's whole message: the hit runs over its fields
		c.start, c.end = seg.start, max(seg.end, seg.fieldsEnd)
		c.fixedStart, c.fixedEnd, c.freeHead, c.freeTail = c.start, c.end, false, false
		c.fields = sc.fieldsOf(seg)
	}
	c.score = sc.contextScore(seg, p.entry)
	return c
}

// scanBack reads a typed verb's text backwards from s[:to]: digits for %d,
// a quoted string for %q, true or false for %t. ok is false for a free
// verb (%v, %s) or text that does not fit, which the caller then bounds by
// the literal before it.
func scanBack(s string, to int, g []gapVerb) (int, bool) {
	if len(g) != 1 {
		return 0, false
	}
	switch g[0].char {
	case 'd', 'x', 'X', 'o', 'b':
		i := to
		for i > 0 && isDigitOf(g[0].char, s[i-1]) {
			i--
		}
		if i == to {
			return 0, false
		}
		if i > 0 && s[i-1] == '-' {
			i--
		}
		return i, true
	case 'q':
		if to == 0 || s[to-1] != '"' {
			return 0, false
		}
		for i := to - 2; i >= 0 && to-i < 1<<16; i-- {
			if s[i] == '"' {
				bs := 0
				for k := i - 1; k >= 0 && s[k] == '\\'; k-- {
					bs++
				}
				if bs%2 == 0 {
					return i, true
				}
			}
		}
		return 0, false
	case 't':
		if strings.HasSuffix(s[:to], "true") {
			return to - 4, true
		}
		if strings.HasSuffix(s[:to], "false") {
			return to - 5, true
		}
	}
	return 0, false
}

// scanFwd reads a typed verb's text forwards from s[from:].
func scanFwd(s string, from int, g []gapVerb) (int, bool) {
	if len(g) != 1 {
		return 0, false
	}
	switch g[0].char {
	case 'd', 'x', 'X', 'o', 'b':
		i := from
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		j := i
		for j < len(s) && isDigitOf(g[0].char, s[j]) {
			j++
		}
		if j == i {
			return 0, false
		}
		return j, true
	case 'q':
		if from < len(s) && s[from] == '"' {
			if e := quoteEnd(s, from); e > 0 {
				return e, true
			}
		}
	case 't':
		if strings.HasPrefix(s[from:], "true") {
			return from + 4, true
		}
		if strings.HasPrefix(s[from:], "false") {
			return from + 5, true
		}
	case 'c':
		if from < len(s) {
			_, n := utf8.DecodeRuneInString(s[from:])
			return from + n, true
		}
	}
	return 0, false
}

func isDigitOf(verb, c byte) bool {
	switch verb {
	case 'x', 'X':
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
	case 'o':
		return c >= '0' && c <= '7'
	case 'b':
		return c == '0' || c == '1'
	}
	return c >= '0' && c <= '9'
}

// contextScore says how well an entry fits where its text was found; it
// decides between entries with the same constant text.
func (sc *scanner) contextScore(seg *segment, e *Entry) int {
	score := 0
	if seg.reason != "" && e.Reason == seg.reason {
		score += 4
	}
	switch seg.role {
	case roleMsg:
		if e.Form == FormStructured {
			score += 2
		} else if e.Kind == KindEvent || e.Kind == KindAdmit {
			score++
		}
	case roleErr:
		if e.Kind == KindError || e.Kind == KindFlag {
			score += 2
		}
	case roleEvent:
		if e.Kind == KindEvent || e.Kind == KindAdmit {
			score += 2
		}
	case roleText:
		if seg.sev != 0 && e.Kind == KindLog && e.Form == FormPrintf {
			score++
			if levelOf(seg.sev) == e.Level {
				score++
			}
		}
	}
	return score
}

func levelOf(sev byte) Level {
	switch sev {
	case 'W':
		return LevelWarning
	case 'E':
		return LevelError
	case 'F':
		return LevelFatal
	}
	return LevelInfo
}

// better orders candidates of one span: more constant text, then a better
// fit to where it was found, then a newer release, then the ID.
func better(a, b *cand) bool {
	if a.p.constLen != b.p.constLen {
		return a.p.constLen > b.p.constLen
	}
	if a.score != b.score {
		return a.score > b.score
	}
	if an, bn := a.p.entry.Newest(), b.p.entry.Newest(); an != bn {
		return an > bn
	}
	return a.p.entry.ID < b.p.entry.ID
}

// assemble turns a line's candidates into hits: one per span (the best,
// equals in Also), nested by span into the captures and fields of the
// hits around them, chained along error operands.
func (sc *scanner) assemble(out []Hit) []Hit {
	cs := sc.cands
	slices.SortFunc(cs, func(a, b *cand) int {
		if a.start != b.start {
			return cmp.Compare(a.start, b.start)
		}
		if a.end != b.end {
			return cmp.Compare(b.end, a.end)
		}
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	// one candidate per span
	uniq := cs[:0]
	for _, c := range cs {
		if n := len(uniq); n > 0 && uniq[n-1].start == c.start && uniq[n-1].end == c.end {
			best := uniq[n-1]
			if best.p == c.p {
				continue
			}
			if !containsEntry(best.also, c.p.entry) {
				best.also = append(best.also, c.p.entry)
			}
			continue
		}
		uniq = append(uniq, c)
	}
	// nesting: a candidate inside another goes to the capture or field
	// that holds it (its free ends cut to it); one over the other's
	// constant text is dropped.
	top, stack := sc.top[:0], sc.stack[:0]
	defer func() { sc.top, sc.stack = top[:0], stack[:0] }()
	var deep *cand // a candidate past MaxDepth: it and what it holds are dropped
	for _, c := range uniq {
		if deep != nil && deep.holds(c) {
			continue
		}
		deep = nil
		for len(stack) > 0 && !stack[len(stack)-1].holds(c) {
			stack = stack[:len(stack)-1]
		}
		if len(stack) >= MaxDepth {
			deep = c
			continue
		}
		if len(stack) == 0 {
			top = append(top, c)
			stack = append(stack, c)
			continue
		}
		parent := stack[len(stack)-1]
		slot := parent.slotOf(c)
		if slot < 0 {
			continue
		}
		if slot < len(parent.caps) {
			c.clip(parent.caps[slot].start, parent.caps[slot].end)
		} else {
			f := parent.fields[slot-len(parent.caps)]
			c.clip(f.start, f.end)
		}
		if parent.kids == nil {
			parent.kids = make([][]*cand, len(parent.caps)+len(parent.fields))
		}
		parent.kids[slot] = append(parent.kids[slot], c)
		stack = append(stack, c)
	}
	for _, c := range top {
		out = append(out, toHit(c))
	}
	return out
}

func containsEntry(es []*Entry, e *Entry) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}

// holds reports whether x lies inside c, x's free ends aside.
func (c *cand) holds(x *cand) bool { return c.start <= x.fixedStart && x.fixedEnd <= c.end }

// slotOf returns the capture (then field) of c whose span holds x (its
// free ends aside), -1 when none does.
func (c *cand) slotOf(x *cand) int {
	for i, cp := range c.caps {
		if cp.start <= x.fixedStart && x.fixedEnd <= cp.end && cp.start < cp.end {
			return i
		}
	}
	for i, f := range c.fields {
		if f.start <= x.fixedStart && x.fixedEnd <= f.end {
			return len(c.caps) + i
		}
	}
	return -1
}

// clip cuts a candidate's free ends to the span [lo, hi) that holds it.
func (c *cand) clip(lo, hi int) {
	if c.freeTail && c.end > hi && len(c.caps) > 0 {
		last := &c.caps[len(c.caps)-1]
		last.le = c.seg.local(hi)
		last.end = hi
		last.text = c.seg.text[last.ls:max(last.ls, last.le)]
		c.end = hi
	}
	if c.freeHead && c.start < lo && len(c.caps) > 0 {
		first := &c.caps[0]
		first.ls = c.seg.local(lo)
		first.start = lo
		first.text = c.seg.text[min(first.ls, first.le):first.le]
		c.start = lo
	}
}

// local returns the local offset of input offset r: the first byte at or
// after it.
func (s *segment) local(r int) int {
	if s.off == nil {
		return min(max(r-s.base, 0), len(s.text))
	}
	return sort.Search(len(s.text), func(i int) bool { return int(s.off[i]) >= r })
}

// toHit builds the hit tree of a candidate, without recursion: chains of
// wrapped errors can be as deep as the line is long.
func toHit(root *cand) Hit {
	type frame struct {
		c    *cand
		done bool
	}
	stack := []frame{{c: root}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !f.done {
			stack = append(stack, frame{c: f.c, done: true})
			for _, ks := range f.c.kids {
				for _, k := range ks {
					stack = append(stack, frame{c: k})
				}
			}
			continue
		}
		c := f.c
		h := &Hit{Entry: c.p.entry, Also: c.also, Start: c.start, End: c.end}
		h.Captures = make([]Capture, len(c.caps))
		for i, cp := range c.caps {
			h.Captures[i] = Capture{Verb: cp.g.verb, Index: cp.g.index, Text: cp.text, Start: cp.start, End: cp.end, Err: cp.g.err}
		}
		if len(c.fields) > 0 {
			h.Fields = make([]Field, len(c.fields))
			for i, fs := range c.fields {
				h.Fields[i] = Field{Key: fs.key, Value: fs.value, Start: fs.start, End: fs.end}
			}
		}
		for slot, ks := range c.kids {
			if len(ks) == 0 {
				continue
			}
			hits := make([]Hit, len(ks))
			for i, k := range ks {
				hits[i] = *k.built
				k.built = nil
			}
			if slot < len(h.Captures) {
				h.Captures[slot].Hits = hits
			} else {
				h.Fields[slot-len(h.Captures)].Hits = hits
			}
		}
		for i := range h.Captures {
			if h.Captures[i].Err && len(h.Captures[i].Hits) > 0 {
				h.Wrapped = &h.Captures[i].Hits[0]
				break
			}
		}
		if h.Wrapped == nil {
			for i := range h.Fields {
				if (h.Fields[i].Key == "err" || h.Fields[i].Key == "error") && len(h.Fields[i].Hits) > 0 {
					h.Wrapped = &h.Fields[i].Hits[0]
					break
				}
			}
		}
		c.built = h
	}
	h := *root.built
	root.built = nil
	return h
}
