package topotext

import (
	"errors"
	"fmt"
)

// gv is a value of Go's %+v text: a struct ({Key:value ...}), a list or
// map ([a b], map[k:v]) or a scalar. Keys end at ':'; a scalar runs to the
// next " Key:" or the closing bracket, so values with spaces (a
// time.Time) are read whole.
type gv struct {
	fields []gfield // struct
	items  []*gv    // list or map; a struct's positional values (%v)
	scalar string
	kind   byte // 's' struct, 'l' list, 'v' scalar
}

type gfield struct {
	key string
	val *gv
}

func (v *gv) field(k string) *gv {
	if v == nil {
		return nil
	}
	for _, f := range v.fields {
		if f.key == k {
			return f.val
		}
	}
	return nil
}

// Bounds of the %+v parser.
const (
	maxGoDepth  = 64
	maxGoValues = 1 << 20
)

var errGoBudget = errors.New("more values or nesting than numascope reads")

type goParser struct {
	s      string
	i      int
	values int
	// cut is set when the text ended inside a value (a truncated line).
	cut bool
}

// parseGo parses one %+v value at s; it returns the value and how far it
// read. A text cut short gives what was read, with p.cut set.
func parseGo(s string) (*gv, *goParser, error) {
	p := &goParser{s: s}
	v, err := p.value(0, 0)
	return v, p, err
}

func (p *goParser) eof() bool { return p.i >= len(p.s) }

func (p *goParser) space() {
	for !p.eof() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *goParser) value(depth int, closer byte) (*gv, error) {
	if depth > maxGoDepth {
		return nil, errGoBudget
	}
	p.values++
	if p.values > maxGoValues {
		return nil, errGoBudget
	}
	if !p.eof() && p.s[p.i] == '&' {
		p.i++
	}
	switch {
	case p.eof():
		p.cut = true
		return &gv{kind: 'v'}, nil
	case p.s[p.i] == '{':
		p.i++
		return p.structBody(depth + 1)
	case p.s[p.i] == '[':
		p.i++
		return p.listBody(depth + 1)
	case len(p.s)-p.i >= 4 && p.s[p.i:p.i+4] == "map[":
		p.i += 4
		return p.listBody(depth + 1)
	}
	return &gv{kind: 'v', scalar: p.scalar(closer)}, nil
}

// scalar reads to the closer of the enclosing group (at bracket depth 0)
// or, inside a struct, to the next " Key:".
func (p *goParser) scalar(closer byte) string {
	start, depth := p.i, 0
	for !p.eof() {
		c := p.s[p.i]
		switch {
		case c == '{' || c == '[':
			depth++
		case (c == '}' || c == ']') && depth > 0:
			depth--
		case c == '}' || c == ']':
			return p.s[start:p.i]
		case c == ' ' && depth == 0:
			if closer == ']' || p.keyAhead(p.i+1) {
				return p.s[start:p.i]
			}
		}
		p.i++
	}
	p.cut = true
	return p.s[start:p.i]
}

// keyAhead reports whether an exported field name and ':' start at j.
func (p *goParser) keyAhead(j int) bool {
	if j >= len(p.s) || p.s[j] < 'A' || p.s[j] > 'Z' {
		return false
	}
	for k := j; k < len(p.s); k++ {
		c := p.s[k]
		switch {
		case c == ':':
			return true
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_':
		default:
			return false
		}
	}
	return false
}

func (p *goParser) structBody(depth int) (*gv, error) {
	v := &gv{kind: 's'}
	for {
		p.space()
		if p.eof() {
			p.cut = true
			return v, nil
		}
		if p.s[p.i] == '}' {
			p.i++
			return v, nil
		}
		if p.s[p.i] == ']' { // unbalanced: stop here
			return v, nil
		}
		start := p.i
		for !p.eof() && p.s[p.i] != ':' && p.s[p.i] != ' ' && p.s[p.i] != '}' && p.s[p.i] != '{' && p.s[p.i] != '[' {
			p.i++
		}
		if p.eof() {
			p.cut = true
			return v, nil
		}
		if p.s[p.i] != ':' { // a positional value (%v) or an elision ("...")
			p.i = start
			before := p.i
			val, err := p.value(depth, ']') // a positional scalar ends at a space
			if err != nil {
				return nil, err
			}
			if p.i == before {
				p.i++
			}
			v.items = append(v.items, val)
			continue
		}
		key := p.s[start:p.i]
		p.i++
		val, err := p.value(depth, '}')
		if err != nil {
			return nil, err
		}
		v.fields = append(v.fields, gfield{key: key, val: val})
	}
}

func (p *goParser) listBody(depth int) (*gv, error) {
	v := &gv{kind: 'l'}
	for {
		p.space()
		if p.eof() {
			p.cut = true
			return v, nil
		}
		switch p.s[p.i] {
		case ']':
			p.i++
			return v, nil
		case '}':
			return v, nil
		}
		// A map entry "k:{...}" or "k:[...]": the key is dropped, the value kept.
		j := p.i
		for j < len(p.s) && p.s[j] != ' ' && p.s[j] != ']' && p.s[j] != '{' && p.s[j] != '[' {
			j++
		}
		if j < len(p.s) && j > p.i && p.s[j-1] == ':' && (p.s[j] == '{' || p.s[j] == '[') {
			key := p.s[p.i : j-1]
			p.i = j
			val, err := p.value(depth, ']')
			if err != nil {
				return nil, err
			}
			v.items = append(v.items, &gv{kind: 's', fields: []gfield{{key: key, val: val}}})
			continue
		}
		before := p.i
		val, err := p.value(depth, ']')
		if err != nil {
			return nil, err
		}
		if p.i == before { // no progress
			p.i++
		}
		v.items = append(v.items, val)
	}
}

func (v *gv) String() string {
	if v == nil {
		return "<nil>"
	}
	switch v.kind {
	case 's':
		return fmt.Sprintf("struct(%d fields)", len(v.fields))
	case 'l':
		return fmt.Sprintf("list(%d)", len(v.items))
	}
	return v.scalar
}
