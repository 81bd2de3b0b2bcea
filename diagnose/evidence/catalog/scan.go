package catalog

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"unsafe"
)

// scanner holds one Match call's buffers, reused from line to line: a line
// without a catalogue literal costs one pass of the automaton and no
// allocation.
type scanner struct {
	m      *Matcher
	anch   []occurrence // the current segment's anchor occurrences, by start
	occ    []occurrence // its occurrences of every literal, found on demand
	occGen int
	cands  []*cand
	segs   segArena
	candAr candArena
	capAr  []capSpan
	quoted [][2]int
	marks  []bool
	stack  []*cand
	top    []*cand
	// the current segment's occurrences by pattern, built on demand
	gen      int
	byPat    map[int32]patList
	fwdMemo  map[string]memo
	backMemo map[string]memo
	buf      []byte
	offs     []int32
	members  []jsonMember
}

type patList struct {
	gen int
	pos []int32 // start offsets, ascending
}

// memo is the last search for a short literal in a segment: from (or to)
// where it searched, and where it found it (-1: nowhere).
type memo struct{ gen, at, found int }

// segArena and candArena hand out values that stay put while a line is
// matched, and are reused by the next line.
type segArena struct {
	chunks [][]segment
	n      int
}

func (a *segArena) get() *segment {
	c, i := a.n/64, a.n%64
	if c == len(a.chunks) {
		a.chunks = append(a.chunks, make([]segment, 64))
	}
	a.n++
	s := &a.chunks[c][i]
	*s = segment{}
	return s
}

type candArena struct {
	chunks [][]cand
	n      int
}

func (a *candArena) get() *cand {
	c, i := a.n/64, a.n%64
	if c == len(a.chunks) {
		a.chunks = append(a.chunks, make([]cand, 64))
	}
	a.n++
	x := &a.chunks[c][i]
	*x = cand{}
	return x
}

// cand is a verified match before the hits of a line are put together.
type cand struct {
	p          *pattern
	seg        *segment
	start, end int // input offsets
	// fixed is the span without a leading or trailing free verb, which
	// runs to the segment's end and is cut to a capture that holds the
	// candidate.
	fixedStart, fixedEnd int
	freeHead, freeTail   bool
	caps                 []capSpan
	fields               []fieldSpan
	kids                 [][]*cand // per capture, then per field
	also                 []*Entry
	score                int
	built                *Hit // its hit, once toHit has made it
}

type capSpan struct {
	g          gapVerb
	ls, le     int // local offsets in seg
	start, end int // input offsets
	text       string
}

// line matches one line.
func (sc *scanner) line(text string, at int, out []Hit) []Hit {
	sc.cands = sc.cands[:0]
	sc.segs.n, sc.candAr.n = 0, 0
	sc.capAr = sc.capAr[:0]
	sc.quoted = sc.quoted[:0]
	sc.marks = sc.marks[:0]
	line := sc.segs.get()
	*line = segment{text: text, base: at, start: at, end: at + len(text)}
	sc.lineSegments(line)
	if len(sc.cands) == 0 {
		return out
	}
	return sc.assemble(out)
}

// lineSegments finds the envelopes of a line (journald prefix, klog
// header, JSON object, describe Message field, event row) and matches its
// message, its quoted strings and its fields.
func (sc *scanner) lineSegments(line *segment) {
	text := line.text
	pos := 0
	sev := byte(0)
	if s, msg, ok := klogHeader(text); ok {
		sev, pos = s, msg
	} else if j := journaldPrefix(text); j > 0 {
		pos = j
	}
	for pos < len(text) && (text[pos] == ' ' || text[pos] == '\t') {
		pos++
	}
	seg := sc.sub(line, pos, len(text))
	seg.sev = sev
	if strings.HasPrefix(seg.text, "{") && sc.json(seg) {
		return
	}
	if sev != 0 {
		// a klog line's message
	} else if rest, ok := strings.CutPrefix(seg.text, "Message:"); ok {
		seg = sc.sub(seg, len(seg.text)-len(strings.TrimLeft(rest, " \t")), len(seg.text))
		seg.role = roleEvent
	} else if reason, msg, ok := eventRow(seg.text); ok {
		seg = sc.sub(seg, msg, len(seg.text))
		seg.role, seg.reason = roleEvent, reason
	}
	sc.segment(seg)
}

// sub is the segment of s.text[i:j], with s's offsets, role and severity.
func (sc *scanner) sub(s *segment, i, j int) *segment {
	n := sc.segs.get()
	*n = segment{text: s.text[i:j], start: s.raw(i), end: s.raw(j), role: s.role, sev: s.sev, reason: s.reason, depth: s.depth}
	if s.off == nil {
		n.base = s.base + i
	} else {
		n.off = s.off[i : j+1]
	}
	return n
}

// quotedSegment makes the segment of the quoted string parent.text[i:j]:
// its content, unquoted when it has escapes.
func (sc *scanner) quotedSegment(parent *segment, i, j int) *segment {
	var seg *segment
	if strings.IndexByte(parent.text[i+1:j-1], '\\') < 0 {
		seg = sc.sub(parent, i+1, j-1)
	} else {
		b, offs := unquote(parent, i, j, sc.buf, sc.offs)
		sc.buf, sc.offs = b[:0], offs[:0]
		seg = sc.segs.get()
		*seg = segment{text: string(b), off: append([]int32(nil), offs...), sev: parent.sev}
	}
	seg.start, seg.end = parent.raw(i), parent.raw(j)
	seg.role, seg.reason, seg.depth = roleField, "", parent.depth+1
	return seg
}

// json matches a JSON log line: the automaton runs over the whole line,
// and the string members with a catalogue literal (or escapes) are matched
// as segments: msg (the other members its fields), err, the others, and a
// journal export's MESSAGE as a log line of its own.
func (sc *scanner) json(seg *segment) bool {
	members, end, ok := jsonObject(seg.text, 0, sc.members[:0])
	sc.members = members
	if !ok || strings.TrimSpace(seg.text[end:]) != "" {
		return false
	}
	q0 := len(sc.quoted)
	for _, mb := range members {
		if mb.str {
			sc.quoted = append(sc.quoted, [2]int{mb.vs, mb.ve})
		}
	}
	spans := sc.quoted[q0:len(sc.quoted):len(sc.quoted)]
	marks := sc.anchorsIn(seg, spans, true)
	var ms []jsonMember
	reason := ""
	for _, mb := range members {
		if mb.key == "reason" && mb.str {
			reason = seg.text[mb.vs+1 : mb.ve-1]
		}
	}
	k := 0
	for _, mb := range members {
		if !mb.str {
			continue
		}
		hit := marks[k] || sc.hidesAnchor(seg, mb.vs, mb.ve)
		k++
		if !hit || seg.depth >= maxDepth {
			continue
		}
		child := sc.quotedSegment(seg, mb.vs, mb.ve)
		switch mb.key {
		case "MESSAGE":
			sc.lineSegments(child) // a journal export: the value is a log line
			continue
		case "msg", "message":
			if ms == nil {
				ms = append([]jsonMember(nil), members...)
			}
			child.role, child.reason = roleMsg, reason
			child.jsonParent, child.members = seg, ms
			child.fieldsEnd = seg.raw(end)
			child.start = seg.start
		case "err", "error":
			child.role = roleErr
		}
		sc.segment(child)
	}
	return true
}

// anchorsIn finds the anchors in seg (into sc.anch, by start; scan is
// false when they are there already) and reports, for each span, whether
// one occurs inside it.
func (sc *scanner) anchorsIn(seg *segment, spans [][2]int, scan bool) []bool {
	if scan {
		sc.anch = sc.m.filter.scan(seg.text, sc.m.lits, sc.anch[:0])
	}
	if len(sc.anch) > 1 {
		lens := sc.m.ac.lens
		slices.SortFunc(sc.anch, func(a, b occurrence) int {
			if d := cmp.Compare(a.end-lens[a.pat], b.end-lens[b.pat]); d != 0 {
				return d
			}
			return cmp.Compare(a.pat, b.pat)
		})
	}
	sc.gen++
	m0 := len(sc.marks)
	for range spans {
		sc.marks = append(sc.marks, false)
	}
	marks := sc.marks[m0:len(sc.marks):len(sc.marks)]
	for _, o := range sc.anch {
		a := int(o.end) - int(sc.m.ac.lens[o.pat])
		if q := inSpan(spans, a, int(o.end)); q >= 0 {
			marks[q] = true
		}
	}
	return marks
}

// segment matches one segment, then the quoted strings inside it that hold
// a catalogue literal or escapes.
func (sc *scanner) segment(seg *segment) {
	sc.anch = sc.m.filter.scan(seg.text, sc.m.lits, sc.anch[:0])
	if len(sc.anch) == 0 && strings.IndexByte(seg.text, '\\') < 0 {
		return // no anchor, and no escaped string that could unquote to one
	}
	if seg.depth < maxDepth {
		q0 := len(sc.quoted)
		for i := 0; i < len(seg.text); i++ {
			if seg.text[i] != '"' {
				continue
			}
			e := quoteEnd(seg.text, i)
			if e < 0 {
				break
			}
			sc.quoted = append(sc.quoted, [2]int{i, e})
			i = e - 1
		}
		seg.quoted = sc.quoted[q0:len(sc.quoted):len(sc.quoted)]
	}
	marks := sc.anchorsIn(seg, seg.quoted, false)
	// candidates whose anchor lies inside a quoted string are found again in
	// its own segment
	for _, o := range sc.anch {
		anchored := sc.m.anchorOf[o.pat]
		a := int(o.end) - int(sc.m.ac.lens[o.pat])
		if inSpan(seg.quoted, a, int(o.end)) >= 0 {
			continue
		}
		for _, pi := range anchored {
			if c := sc.verify(seg, sc.m.pats[pi], a); c != nil {
				sc.cands = append(sc.cands, c)
			}
		}
	}
	if len(seg.quoted) == 0 {
		return
	}
	// a structured klog line: its message is the first quoted string, its
	// fields follow
	structured := seg.role == roleText && seg.sev != 0 && seg.quoted[0][0] == 0
	for i, q := range seg.quoted {
		if !marks[i] && !sc.hidesAnchor(seg, q[0], q[1]) {
			continue
		}
		child := sc.quotedSegment(seg, q[0], q[1])
		if structured && i == 0 {
			child.role, child.fieldsParent, child.fieldsFrom, child.fieldsEnd = roleMsg, seg, q[1], seg.end
		} else {
			child.role = fieldRole(seg.text, q[0])
			child.reason = seg.reason
		}
		sc.segment(child)
	}
}

// hidesAnchor reports whether the quoted string seg.text[i:j] has escapes
// whose unquoting makes an anchor appear (a literal with quotes in it,
// printed inside another string). It unquotes into a scratch buffer.
func (sc *scanner) hidesAnchor(seg *segment, i, j int) bool {
	if strings.IndexByte(seg.text[i:j], '\\') < 0 {
		return false
	}
	b, offs := unquote(seg, i, j, sc.buf, sc.offs)
	sc.buf, sc.offs = b[:0], offs[:0]
	if len(b) == 0 {
		return false
	}
	n := len(sc.anch)
	found := len(sc.m.filter.scan(unsafe.String(&b[0], len(b)), sc.m.lits, sc.anch)) > n
	sc.anch = sc.anch[:n]
	return found
}

// fieldRole is the role of a quoted string at s[i]: the err value, another
// key's value, or a string in running text.
func fieldRole(s string, i int) role {
	if i > 0 && s[i-1] == '=' {
		k := i - 1
		for k > 0 && s[k-1] != ' ' && s[k-1] != '"' {
			k--
		}
		if key := s[k : i-1]; key == "err" || key == "error" {
			return roleErr
		}
		return roleField
	}
	return roleText
}

// inSpan returns the index of the span that strictly holds [a, b), -1 if none.
func inSpan(q [][2]int, a, b int) int {
	i := sort.Search(len(q), func(i int) bool { return q[i][1] > a })
	if i < len(q) && q[i][0] < a && b < q[i][1] {
		return i
	}
	return -1
}

// positions returns the start offsets of pattern id's occurrences in the
// current segment, running the automaton over it the first time.
func (sc *scanner) positions(seg *segment, id int32) []int32 {
	l := sc.byPat[id]
	if l.gen == sc.gen {
		return l.pos
	}
	if sc.occGen != sc.gen {
		sc.occ = sc.m.ac.scan(seg.text, sc.occ[:0])
		sc.occGen = sc.gen
	}
	l.gen, l.pos = sc.gen, l.pos[:0]
	n := sc.m.ac.lens[id]
	for _, o := range sc.occ {
		if o.pat == id {
			l.pos = append(l.pos, o.end-n)
		}
	}
	sc.byPat[id] = l
	return l.pos
}

// next returns the first occurrence of literal j of p starting at or after
// from, -1 when there is none.
func (sc *scanner) next(seg *segment, p *pattern, j, from int) int {
	lit := p.lits[j]
	if id := p.litIDs[j]; id >= 0 {
		l := sc.positions(seg, id)
		i := sort.Search(len(l), func(i int) bool { return int(l[i]) >= from })
		if i == len(l) {
			return -1
		}
		return int(l[i])
	}
	if m, ok := sc.fwdMemo[lit]; ok && m.gen == sc.gen && from >= m.at && (m.found < 0 || from <= m.found) {
		return m.found
	}
	r := strings.Index(seg.text[from:], lit)
	if r >= 0 {
		r += from
	}
	sc.fwdMemo[lit] = memo{sc.gen, from, r}
	return r
}

// prev returns the start of the last occurrence of literal j of p ending at
// or before to, -1 when there is none.
func (sc *scanner) prev(seg *segment, p *pattern, j, to int) int {
	lit := p.lits[j]
	if id := p.litIDs[j]; id >= 0 {
		l := sc.positions(seg, id)
		n := int(sc.m.ac.lens[id])
		i := sort.Search(len(l), func(i int) bool { return int(l[i])+n > to })
		if i == 0 {
			return -1
		}
		return int(l[i-1])
	}
	// the last occurrence ending at or before m.at >= to is also the last
	// ending at or before to, when it does.
	if m, ok := sc.backMemo[lit]; ok && m.gen == sc.gen && to <= m.at && (m.found < 0 || m.found+len(lit) <= to) {
		return m.found
	}
	r := strings.LastIndex(seg.text[:to], lit)
	sc.backMemo[lit] = memo{sc.gen, to, r}
	return r
}

// fieldsOf returns the key/value pairs that follow a structured message,
// read when a hit needs them.
func (sc *scanner) fieldsOf(seg *segment) []fieldSpan {
	if seg.fieldsDone {
		return seg.fields
	}
	seg.fieldsDone = true
	switch {
	case seg.fieldsParent != nil:
		seg.fields, _ = klogFields(seg.fieldsParent, seg.fieldsFrom, nil)
	case seg.jsonParent != nil:
		p := seg.jsonParent
		for _, mb := range seg.members {
			switch mb.key {
			case "ts", "caller", "msg", "v", "logger":
				continue
			}
			v := p.text[mb.vs:mb.ve]
			if mb.str {
				b, _ := unquote(p, mb.vs, mb.ve, nil, nil)
				v = string(b)
			}
			seg.fields = append(seg.fields, fieldSpan{key: mb.key, value: v, start: p.raw(mb.vs), end: p.raw(mb.ve)})
		}
	}
	return seg.fields
}
