package catalog

import (
	"strings"
	"unicode/utf8"
)

// role is what a piece of text is in the line it came from; it decides
// between entries that print the same text.
type role uint8

const (
	roleText  role = iota // a message, a bare line, prose
	roleMsg               // the quoted message of a structured klog line, a JSON log's msg
	roleErr               // an err="..." value, a JSON log's err
	roleField             // another key's value
	roleEvent             // an event's message (event table row, describe Message field)
)

// segment is a piece of one line that is matched on its own: the line's
// message after its headers, or the unquoted content of a quoted string
// or JSON string in it. Its text maps back to offsets of the whole input.
type segment struct {
	text   string
	off    []int32 // off[i] is the input offset of text[i] (len(text)+1 entries); nil: base+i
	base   int
	start  int // the segment's span in the input, quotes included
	end    int
	role   role
	sev    byte // the klog severity of the line: I, W, E, F; 0 when none
	reason string
	depth  int
	// fields are the key/value pairs after a structured message (roleMsg),
	// ending at fieldsEnd, read on demand: from fieldsParent.text[fieldsFrom:]
	// (klog text) or the members of jsonParent.
	fields       []fieldSpan
	fieldsDone   bool
	fieldsEnd    int
	fieldsParent *segment
	fieldsFrom   int
	jsonParent   *segment
	members      []jsonMember
	// quoted are the spans of text (local offsets) of the quoted strings
	// inside the segment, which are matched as segments of their own.
	quoted [][2]int
}

type fieldSpan struct {
	key        string
	value      string // unquoted when it was quoted
	start, end int    // the value's span in the input
}

func (s *segment) raw(i int) int {
	if s.off == nil {
		return s.base + i
	}
	return int(s.off[i])
}

// maxDepth bounds how deep quoted strings inside quoted strings are followed.
const maxDepth = 4

// klogHeader finds a klog header "Lmmdd hh:mm:ss.uuuuuu pid file:line] "
// within the first bytes of a line (after a journald, node or container
// prefix) and returns its severity and where the message starts.
func klogHeader(line string) (sev byte, msg int, ok bool) {
	limit := min(len(line), 256)
	for i := 0; i+21 < limit; i++ {
		c := line[i]
		if c != 'I' && c != 'W' && c != 'E' && c != 'F' {
			continue
		}
		if i > 0 && line[i-1] != ' ' && line[i-1] != '\t' && line[i-1] != ':' && line[i-1] != '"' && line[i-1] != ']' {
			continue
		}
		if end, ok := klogHeaderAt(line, i); ok {
			return c, end, true
		}
	}
	return 0, 0, false
}

func klogHeaderAt(s string, i int) (int, bool) {
	// L mmdd ' ' hh:mm:ss.uuuuuu
	d := func(j int) bool { return j < len(s) && s[j] >= '0' && s[j] <= '9' }
	j := i + 1
	for k := 0; k < 4; k++ {
		if !d(j + k) {
			return 0, false
		}
	}
	j += 4
	if j >= len(s) || s[j] != ' ' {
		return 0, false
	}
	j++
	if !(d(j) && d(j+1) && j+2 < len(s) && s[j+2] == ':' && d(j+3) && d(j+4) && j+5 < len(s) && s[j+5] == ':' && d(j+6) && d(j+7)) {
		return 0, false
	}
	j += 8
	if j < len(s) && s[j] == '.' {
		j++
		for d(j) {
			j++
		}
	}
	for j < len(s) && s[j] == ' ' {
		j++
	}
	if !d(j) { // pid or thread id
		return 0, false
	}
	for d(j) {
		j++
	}
	if j >= len(s) || s[j] != ' ' {
		return 0, false
	}
	j++
	// file:line]
	k := j
	for k < len(s) && s[k] != ']' && s[k] != ' ' {
		k++
	}
	if k >= len(s) || s[k] != ']' || k == j {
		return 0, false
	}
	c := strings.LastIndexByte(s[j:k], ':')
	if c < 0 || !d(j+c+1) {
		return 0, false
	}
	k++
	if k < len(s) && s[k] == ' ' {
		k++
	}
	return k, true
}

// journaldPrefix returns the length of a journald prefix ("Mar 05 09:14:02
// node kubelet[2741]: ", the short-precise and short-iso forms, any
// identifier), 0 when the line has none.
func journaldPrefix(line string) int {
	limit := min(len(line), 256)
	// the time: hh:mm:ss within the first 40 bytes
	t := -1
	for i := 0; i+8 <= limit && i < 40; i++ {
		if isClock(line[i:]) {
			t = i
			break
		}
	}
	if t < 0 {
		return 0
	}
	j := t + 8
	for j < limit && line[j] != ' ' {
		j++ // fractions, a zone
	}
	// host, then identifier ending in ":" (with [pid] before it)
	fields := 0
	for j < limit && fields < 2 {
		for j < limit && line[j] == ' ' {
			j++
		}
		k := j
		for k < limit && line[k] != ' ' {
			k++
		}
		if k == j {
			return 0
		}
		fields++
		if fields == 2 {
			if line[k-1] != ':' {
				return 0
			}
			if k < len(line) && line[k] == ' ' {
				k++
			}
			return k
		}
		j = k
	}
	return 0
}

func isClock(s string) bool {
	d := func(i int) bool { return s[i] >= '0' && s[i] <= '9' }
	return len(s) >= 8 && d(0) && d(1) && s[2] == ':' && d(3) && d(4) && s[5] == ':' && d(6) && d(7)
}

// eventRow recognises an event table row (kubectl describe's
// "Type Reason Age From Message", kubectl get events' "LastSeen Type Reason
// Object Message"): columns apart by two spaces or more. It returns the
// reason and where the message starts.
func eventRow(s string) (reason string, msg int, ok bool) {
	var cols [5][2]int
	n := 0
	i := 0
	for i < len(s) && s[i] == ' ' {
		i++
	}
	for n < 5 && i < len(s) {
		j := i
		for j < len(s) && !(s[j] == ' ' && (j+1 >= len(s) || s[j+1] == ' ')) && s[j] != '\t' {
			j++
		}
		cols[n] = [2]int{i, j}
		n++
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		i = j
	}
	if n < 5 {
		return "", 0, false
	}
	col := func(k int) string { return s[cols[k][0]:cols[k][1]] }
	switch {
	case col(0) == "Normal" || col(0) == "Warning":
		return col(1), cols[4][0], true
	case col(1) == "Normal" || col(1) == "Warning":
		return col(2), cols[4][0], true
	}
	return "", 0, false
}

// quoteEnd returns the index just past the closing quote of the string
// starting at s[i] == '"', or -1 when it does not close.
func quoteEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		case '\n':
			return -1
		}
	}
	return -1
}

// unquote decodes the Go or JSON string s[i:j] (quotes included) into buf,
// with the input offset of each byte (through parent's map) in offs.
func unquote(parent *segment, i, j int, buf []byte, offs []int32) ([]byte, []int32) {
	s := parent.text
	buf, offs = buf[:0], offs[:0]
	k := i + 1
	end := j - 1
	for k < end {
		c := s[k]
		if c != '\\' || k+1 >= end {
			buf = append(buf, c)
			offs = append(offs, int32(parent.raw(k)))
			k++
			continue
		}
		at := int32(parent.raw(k))
		e := s[k+1]
		simple := byte(0)
		switch e {
		case '"', '\\', '/', '\'':
			simple = e
		case 'n':
			simple = '\n'
		case 't':
			simple = '\t'
		case 'r':
			simple = '\r'
		case 'b':
			simple = '\b'
		case 'f':
			simple = '\f'
		case 'a':
			simple = '\a'
		case 'v':
			simple = '\v'
		}
		if simple != 0 {
			buf = append(buf, simple)
			offs = append(offs, at)
			k += 2
			continue
		}
		width := 0
		switch e {
		case 'x':
			width = 2
		case 'u':
			width = 4
		case 'U':
			width = 8
		}
		if width > 0 && k+2+width <= end {
			if v, ok := hexValue(s[k+2 : k+2+width]); ok {
				n := k + 2 + width
				if e == 'x' {
					buf = append(buf, byte(v))
					offs = append(offs, at)
					k = n
					continue
				}
				r := rune(v)
				// a JSON surrogate pair
				if r >= 0xD800 && r < 0xDC00 && n+6 <= end && s[n] == '\\' && s[n+1] == 'u' {
					if lo, ok := hexValue(s[n+2 : n+6]); ok && lo >= 0xDC00 && lo < 0xE000 {
						r = 0x10000 + (r-0xD800)<<10 + rune(lo-0xDC00)
						n += 6
					}
				}
				if !utf8.ValidRune(r) {
					r = utf8.RuneError
				}
				var tmp [4]byte
				m := utf8.EncodeRune(tmp[:], r)
				for x := 0; x < m; x++ {
					buf = append(buf, tmp[x])
					offs = append(offs, at)
				}
				k = n
				continue
			}
		}
		// an unknown escape stays as it is
		buf = append(buf, c)
		offs = append(offs, at)
		k++
	}
	offs = append(offs, int32(parent.raw(end)))
	return buf, offs
}

func hexValue(s string) (uint32, bool) {
	var v uint32
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint32(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint32(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | uint32(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// klogFields reads the key=value pairs of a structured klog line from s[i:]
// (local offsets of seg): values quoted, bracketed or bare.
func klogFields(seg *segment, i int, out []fieldSpan) ([]fieldSpan, int) {
	s := seg.text
	for i < len(s) {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		k := i
		for k < len(s) && s[k] != '=' && s[k] != ' ' && s[k] != '"' {
			k++
		}
		if k == i || k >= len(s) || s[k] != '=' {
			break
		}
		key := s[i:k]
		v := k + 1
		e := v
		value := ""
		switch {
		case v < len(s) && s[v] == '"':
			e = quoteEnd(s, v)
			if e < 0 {
				e = len(s)
				value = s[v:e]
			} else {
				b, _ := unquote(seg, v, e, nil, nil)
				value = string(b)
			}
		default:
			// bare, with brackets (map[cpu:[{01 true}]], &{NumCPUs:4 ...})
			// holding spaces
			e = bracketEnd(s, v)
			value = s[v:e]
		}
		out = append(out, fieldSpan{key: key, value: value, start: seg.raw(v), end: seg.raw(e)})
		i = e
	}
	return out, i
}

// bracketEnd returns the end of a bare value starting at s[i]: the first
// space outside brackets and quoted strings, or the end of s.
func bracketEnd(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '[', '{', '(':
			depth++
		case ']', '}', ')':
			if depth > 0 {
				depth--
			}
		case '"':
			if e := quoteEnd(s, j); e > 0 {
				j = e - 1
			}
		case ' ':
			if depth == 0 {
				return j
			}
		}
	}
	return len(s)
}

// jsonMember is one member of a JSON object: its key and value spans
// (local offsets), the value a string when str is set.
type jsonMember struct {
	key    string
	vs, ve int
	str    bool
}

// jsonObject reads the members of the JSON object s[i:] (one level; nested
// values are skipped whole). ok is false when s[i:] is not an object that
// closes on the line.
func jsonObject(s string, i int, out []jsonMember) ([]jsonMember, int, bool) {
	ws := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
			i++
		}
	}
	if i >= len(s) || s[i] != '{' {
		return out, 0, false
	}
	i++
	ws()
	if i < len(s) && s[i] == '}' {
		return out, i + 1, true
	}
	for i < len(s) {
		ws()
		if i >= len(s) || s[i] != '"' {
			return out, 0, false
		}
		ke := quoteEnd(s, i)
		if ke < 0 {
			return out, 0, false
		}
		key := s[i+1 : ke-1]
		if strings.IndexByte(key, '\\') >= 0 {
			key = "" // an escaped key is nothing this reader looks for
		}
		i = ke
		ws()
		if i >= len(s) || s[i] != ':' {
			return out, 0, false
		}
		i++
		ws()
		if i >= len(s) {
			return out, 0, false
		}
		m := jsonMember{key: key, vs: i}
		switch s[i] {
		case '"':
			e := quoteEnd(s, i)
			if e < 0 {
				return out, 0, false
			}
			m.str, i = true, e
		case '{', '[':
			e := jsonSkip(s, i)
			if e < 0 {
				return out, 0, false
			}
			i = e
		default:
			for i < len(s) && s[i] != ',' && s[i] != '}' && s[i] != ' ' {
				i++
			}
		}
		m.ve = i
		out = append(out, m)
		ws()
		if i < len(s) && s[i] == ',' {
			i++
			continue
		}
		if i < len(s) && s[i] == '}' {
			return out, i + 1, true
		}
		return out, 0, false
	}
	return out, 0, false
}

// jsonSkip returns the end of the JSON object or array starting at s[i],
// -1 when it does not close.
func jsonSkip(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		case '"':
			e := quoteEnd(s, j)
			if e < 0 {
				return -1
			}
			j = e - 1
		}
	}
	return -1
}
