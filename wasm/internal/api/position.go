package api

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/numascope/numascope/internal/jsonptr"
)

// Position is a place in an input: Line is 1-based, Column is 1-based and
// counted in UTF-16 code units, as a browser's text area and editors count
// them, so that the page can select it without converting.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Location is where a JSON pointer of one input file is: the member's key
// for an object member, the value for an array element.
type Location struct {
	File string `json:"file"`
	Path string `json:"path"`
	Position
}

// maxPointerTokens bounds the JSON scan of one input (a few tokens per byte
// at most, and inputs are at most MaxFileBytes).
const maxPointerTokens = 4 * MaxFileBytes

// positionAt is the line and column of byte offset off in content.
func positionAt(content string, off int) Position {
	off = max(0, min(off, len(content)))
	head := content[:off]
	line := strings.Count(head, "\n") + 1
	start := strings.LastIndexByte(head, '\n') + 1
	col := 1
	for _, r := range head[start:] {
		col++
		if r > 0xFFFF {
			col++ // a surrogate pair
		}
	}
	return Position{Line: line, Column: col}
}

// syntaxPosition is the position of a JSON syntax error in content, when
// err carries one.
func syntaxPosition(content string, err error) (Position, bool) {
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset <= 0 {
		return Position{}, false
	}
	// Offset counts the bytes read up to and including the bad one.
	off := int(se.Offset) - 1
	// statefile reads the content without a leading byte order mark.
	if strings.HasPrefix(content, "\ufeff") {
		off += len("\ufeff")
	}
	return positionAt(content, off), true
}

// locate resolves JSON pointers in one input, JSON or YAML, to positions;
// pointers it cannot find are left out. It reads JSON once for all
// pointers, YAML line by line per pointer.
func locate(content string, pointers []string) map[string]Position {
	out := map[string]Position{}
	if len(pointers) == 0 {
		return out
	}
	trimmed := strings.TrimLeft(strings.TrimPrefix(content, "\ufeff"), " \t\r\n")
	if strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[") {
		for p, off := range jsonOffsets(content, pointers) {
			out[p] = positionAt(content, off)
		}
		return out
	}
	lines := strings.Split(content, "\n")
	for _, p := range pointers {
		if pos, ok := yamlPosition(lines, p); ok {
			out[p] = pos
		}
	}
	return out
}

// jsonOffsets scans a JSON document once and returns the byte offset of
// each wanted pointer: of the key of an object member, of the value of an
// array element or of the root.
func jsonOffsets(content string, pointers []string) map[string]int {
	return jsonOffsetsRead(content, pointers, true)
}

// valueMayStart reports whether encoding/json's token reader takes a
// value at content[start]: at the root, after the opening or a comma in an
// array, after the colon in an object (next skips commas and colons
// without checking them).
func valueMayStart(content string, start int, root, inObject bool) bool {
	i := start
	for i > 0 {
		switch content[i-1] {
		case ' ', '\t', '\r', '\n':
			i--
			continue
		}
		if strings.HasSuffix(content[:i], "\ufeff") {
			i -= len("\ufeff")
			continue
		}
		break
	}
	switch {
	case root:
		return i == 0
	case i == 0:
		return false
	case inObject:
		return content[i-1] == ':'
	default:
		return content[i-1] == '[' || content[i-1] == ','
	}
}

// jsonOffsetsRead is jsonOffsets; with whole false it reads every token,
// as it did before values no wanted pointer is in were read whole (the
// reference of FuzzJSONOffsets).
func jsonOffsetsRead(content string, pointers []string, whole bool) map[string]int {
	want := map[string]bool{}
	for _, p := range pointers {
		if _, ok := jsonptr.Split(p); ok {
			want[p] = true
		}
	}
	found := map[string]int{}
	type frame struct {
		object  bool
		index   int
		wantKey bool
	}
	var stack []frame
	var path []string // the pointer of each open container, "" for the root
	dec := json.NewDecoder(strings.NewReader(content))
	// next is the offset where the next token starts.
	next := func() int {
		off := int(dec.InputOffset())
		for off < len(content) {
			switch content[off] {
			case ' ', '\t', '\r', '\n', ':', ',':
				off++
				continue
			}
			if strings.HasPrefix(content[off:], "\ufeff") {
				off += len("\ufeff")
				continue
			}
			break
		}
		return off
	}
	// inside are the pointers of the containers a wanted pointer is in: any
	// other value is read whole (dec.Decode), not token by token, and so is
	// every string value (a v3 checkpoint's data is one string of
	// megabytes, which took seconds in tokens in the browser).
	inside := map[string]bool{}
	for p := range want {
		for i := range p {
			if p[i] == '/' {
				inside[p[:i]] = true
			}
		}
	}
	cur := ""
	for n := 0; n < maxPointerTokens && len(found) < len(want); n++ {
		start := next()
		var tok json.Token
		var err error
		if c := byte(0); whole && start < len(content) && !(len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].wantKey) {
			c = content[start]
			skip := c == '"'
			if c == '{' || c == '[' {
				at := cur // the pointer of this value
				if len(stack) == 0 {
					at = ""
				} else if top := stack[len(stack)-1]; !top.object {
					at = path[len(path)-1] + "/" + strconv.Itoa(top.index)
				}
				skip = !inside[at]
			}
			if skip {
				var raw json.RawMessage
				err = dec.Decode(&raw)
				tok = raw // a value like any scalar below
				if err != nil && c != '"' {
					if !valueMayStart(content, start, len(stack) == 0, len(stack) > 0 && stack[len(stack)-1].object) {
						break // a missing comma or colon: tokens stop before the value too
					}
					// Tokens would have read the container's opening
					// and stopped inside it: its pointer counts.
					tok, err, n = json.Delim(c), nil, maxPointerTokens
				}
			}
		}
		if tok == nil && err == nil {
			tok, err = dec.Token()
		}
		if err == io.EOF || err != nil {
			break
		}
		if len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].wantKey {
			// A key: the member's pointer starts here.
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack, path = stack[:len(stack)-1], path[:len(path)-1]
				continue
			}
			k, _ := tok.(string)
			cur = path[len(path)-1] + "/" + jsonptr.Escape(k)
			if want[cur] {
				if _, dup := found[cur]; !dup {
					found[cur] = start
				}
			}
			stack[len(stack)-1].wantKey = false
			continue
		}
		// A value (or the end of an array).
		if d, ok := tok.(json.Delim); ok && (d == ']' || d == '}') {
			stack, path = stack[:len(stack)-1], path[:len(path)-1]
			continue
		}
		here := cur
		if len(stack) == 0 {
			here = ""
			if want[here] {
				found[here] = start
			}
		} else if top := &stack[len(stack)-1]; top.object {
			top.wantKey = true
		} else {
			here = path[len(path)-1] + "/" + strconv.Itoa(top.index)
			top.index++
			if want[here] {
				if _, dup := found[here]; !dup {
					found[here] = start
				}
			}
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, frame{object: d == '{', wantKey: d == '{'})
			path = append(path, here)
		}
	}
	return found
}

// yamlPosition finds a JSON pointer in a block-style YAML document (a pod,
// a kubelet configuration) line by line: each token is a key at the
// indentation of its mapping or the n-th "- " item of a sequence. A key
// inside a flow mapping ("systemReserved: {memory: 5120Mi}") is found on its
// line. It gives up (ok false) on anything else rather than guess.
func yamlPosition(lines []string, pointer string) (Position, bool) {
	tokens, ok := jsonptr.Split(pointer)
	if !ok {
		return Position{}, false
	}
	lo, hi := 0, len(lines)
	// first is the column where the node's content starts on line lo when
	// the node is a sequence item ("- key: v"), or -1.
	first := -1
	line, col := -1, -1
	for lo < len(lines) && yamlBlank(lines[lo]) {
		lo++
	}
	if lo < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[lo]), "---") {
		lo++
	}
	for _, tok := range tokens {
		// The node's first content line and its indentation.
		start := lo
		for start < hi && yamlBlank(lines[start]) && !(start == lo && first >= 0) {
			start++
		}
		if start >= hi {
			// A flow mapping on the parent's line.
			if line >= 0 {
				if c := flowKey(lines[line], tok); c >= 0 {
					return Position{Line: line + 1, Column: utf16Col(lines[line], c)}, true
				}
			}
			return Position{}, false
		}
		indent := yamlIndent(lines[start])
		if start == lo && first >= 0 {
			indent = first
		}
		text := func(i int) string {
			if i == lo && first >= 0 {
				return lines[i][first:]
			}
			return lines[i][min(len(lines[i]), indent):]
		}
		found := -1
		valueCol := -1
		if idx, err := strconv.Atoi(tok); err == nil && strings.HasPrefix(text(start), "-") {
			n := -1
			for i := start; i < hi; i++ {
				if yamlBlank(lines[i]) {
					continue
				}
				ind := yamlIndent(lines[i])
				if i == lo && first >= 0 {
					ind = first
				}
				if ind < indent {
					break
				}
				if ind == indent && strings.HasPrefix(text(i), "-") {
					n++
					if n == idx {
						found = i
						rest := text(i)[1:]
						valueCol = indent + 1 + len(rest) - len(strings.TrimLeft(rest, " "))
						if i == lo && first >= 0 {
							valueCol = first + 1 + len(rest) - len(strings.TrimLeft(rest, " "))
						}
						break
					}
				}
			}
		} else {
			for i := start; i < hi; i++ {
				if yamlBlank(lines[i]) {
					continue
				}
				ind := yamlIndent(lines[i])
				if i == lo && first >= 0 {
					ind = first
				}
				if ind < indent {
					break
				}
				if ind == indent && yamlKeyIs(text(i), tok) {
					found = i
					valueCol = indent
					break
				}
			}
			if found < 0 && line >= 0 {
				// A flow mapping on the parent's line.
				if c := flowKey(lines[line], tok); c >= 0 {
					return Position{Line: line + 1, Column: utf16Col(lines[line], c)}, true
				}
			}
		}
		if found < 0 {
			return Position{}, false
		}
		line, col = found, valueCol
		// The child node: the rest of an item's line, then the deeper lines.
		isItem := strings.HasPrefix(text(found), "-")
		lo, hi = found, yamlBlockEnd(lines, found, hi, indent)
		if isItem && strings.TrimSpace(lines[found][valueCol:]) != "" {
			first = valueCol
		} else {
			lo, first = found+1, -1
		}
	}
	if line < 0 {
		return Position{Line: 1, Column: 1}, true
	}
	return Position{Line: line + 1, Column: utf16Col(lines[line], col)}, true
}

func yamlBlank(s string) bool {
	t := strings.TrimSpace(s)
	return t == "" || strings.HasPrefix(t, "#")
}

func yamlIndent(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// yamlBlockEnd is the end of the node that starts on line at: the first
// later line indented no deeper than indent.
func yamlBlockEnd(lines []string, at, hi, indent int) int {
	for i := at + 1; i < hi; i++ {
		if !yamlBlank(lines[i]) && yamlIndent(lines[i]) <= indent {
			// A sequence may sit at its key's indentation ("key:\n- a").
			if yamlIndent(lines[i]) == indent && strings.HasPrefix(strings.TrimLeft(lines[i], " "), "- ") && !strings.HasPrefix(strings.TrimLeft(lines[at], " "), "-") {
				continue
			}
			return i
		}
	}
	return hi
}

// yamlKeyIs reports whether a line (from its indentation on) is the key
// tok of a mapping, plain or quoted.
func yamlKeyIs(s, tok string) bool {
	for _, k := range []string{tok, `"` + tok + `"`, `'` + tok + `'`} {
		if strings.HasPrefix(s, k) {
			rest := strings.TrimLeft(s[len(k):], " ")
			if strings.HasPrefix(rest, ":") && (len(rest) == 1 || rest[1] == ' ' || rest[1] == '\t' || rest[1] == '\r') {
				return true
			}
		}
	}
	return false
}

// flowKey is the byte column of "tok:" inside a flow mapping on the line, or -1.
func flowKey(line, tok string) int {
	open := strings.IndexAny(line, "{")
	if open < 0 || tok == "" {
		// an empty key ("/a/" ends in one) is never written in a flow
		// mapping by the tools whose YAML this reads, and would match
		// everywhere
		return -1
	}
	for i := open; i < len(line); {
		j := strings.Index(line[i:], tok)
		if j < 0 {
			return -1
		}
		at := i + j
		prev := strings.TrimRight(line[:at], " \"'")
		rest := strings.TrimLeft(line[at+len(tok):], "\"' ")
		if (strings.HasSuffix(prev, "{") || strings.HasSuffix(prev, ",")) && strings.HasPrefix(rest, ":") {
			return at
		}
		i = at + len(tok)
	}
	return -1
}

// utf16Col is the 1-based UTF-16 column of byte offset b of line.
func utf16Col(line string, b int) int {
	b = max(0, min(b, len(line)))
	col := 1
	for s := line[:b]; s != ""; {
		r, n := utf8.DecodeRuneInString(s)
		col++
		if r > 0xFFFF {
			col++
		}
		s = s[n:]
	}
	return col
}

// placeProblems sets the line and column of every problem with a JSON
// pointer that the content has, in one read of the content.
func placeProblems(content string, ps []Problem) {
	var ptrs []string
	for _, p := range ps {
		if p.Path != "" && p.Line == 0 {
			ptrs = append(ptrs, p.Path)
		}
	}
	if len(ptrs) == 0 {
		return
	}
	at := locate(content, ptrs)
	for i := range ps {
		if pos, ok := at[ps[i].Path]; ok && ps[i].Line == 0 {
			ps[i].Line, ps[i].Column = pos.Line, pos.Column
		}
	}
}
