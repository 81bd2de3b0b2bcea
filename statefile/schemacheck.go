package statefile

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/numascope/numascope/internal/jsonptr"
)

// The schema check: the published schemas in statefile/schema, compiled into
// a small tree of the keywords they use, applied to the raw bytes of a file in
// one walk (no decoded tree of the document). It reports the problems
// santhosh-tekuri/jsonschema/v5 reports for the same schemas and document,
// with the same instance locations and message texts; FuzzSchemaProblems in
// the native build holds it to that validator.

// sNode is one compiled (sub)schema.
type sNode struct {
	types    []string // "type"; empty for any
	typeMsg  string   // "expected object or null"
	enum     []string // enum or const (all string values in the published schemas)
	enumMsg  string
	required []string
	props    map[string]*sNode
	addl     *sNode // additionalProperties as a schema
	noAddl   bool   // additionalProperties: false
	names    *sNode // propertyNames
	maxProps int    // -1 for none
	match    func(string) bool
	pattern  string
	min, max *bound
	minItems int // -1 for none
	unique   bool
	items    *sNode
	ref      *sNode
}

// bound is a minimum or maximum: its exact value and its text in messages.
type bound struct {
	v   decimal
	msg string // as the validator prints the bound (a float64)
}

// schemaPatterns are the patterns of the published schemas, matched by hand
// with Go regexp semantics ($ is the end of the text, . is anything but \n);
// a schema with another pattern does not load.
var schemaPatterns = map[string]func(string) bool{
	`^$|^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$`: matchCPUSet,
	`^(memory|hugepages-.+)$`:                   matchMemoryResource,
	`^(0|[1-9][0-9]*)$`:                         natural,
	`^(-1|0|[1-9][0-9]*)$`:                      func(s string) bool { return s == "-1" || natural(s) },
}

// matchCPUSet is the pattern of defs.json's cpuset.
func matchCPUSet(s string) bool {
	if s == "" {
		return true
	}
	for rest, more := s, true; more; {
		var r string
		r, rest, more = strings.Cut(rest, ",")
		a, b, dash := strings.Cut(r, "-")
		if !allDigits(a) || dash && !allDigits(b) {
			return false
		}
	}
	return true
}

// matchMemoryResource is the pattern of a memory resource name.
func matchMemoryResource(s string) bool {
	rest, ok := strings.CutPrefix(s, "hugepages-")
	return s == "memory" || ok && rest != "" && !strings.Contains(rest, "\n")
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func natural(s string) bool { return s == "0" || allDigits(s) && s[0] != '0' }

var (
	checkOnce  sync.Once
	checkRoots map[string]*sNode
	checkErr   error
)

// loadChecks compiles every published schema.
func loadChecks() {
	docs := map[string]map[string]any{}
	names, err := fs.Glob(schemaFS, "schema/*.json")
	if err != nil {
		checkErr = err
		return
	}
	for _, n := range names {
		b, err := schemaFS.ReadFile(n)
		if err != nil {
			checkErr = err
			return
		}
		var doc map[string]any
		d := json.NewDecoder(strings.NewReader(string(b)))
		d.UseNumber()
		if err := d.Decode(&doc); err != nil {
			checkErr = fmt.Errorf("%s: %w", n, err)
			return
		}
		docs[strings.TrimPrefix(n, "schema/")] = doc
	}
	c := schemaCompiler{docs: docs, done: map[string]*sNode{}}
	checkRoots = map[string]*sNode{}
	for file := range docs {
		if file == "defs.json" {
			continue
		}
		n := c.at(file, "")
		if c.err != nil {
			checkErr = fmt.Errorf("schema %s: %w", file, c.err)
			return
		}
		checkRoots[strings.TrimSuffix(file, ".json")] = n
	}
}

type schemaCompiler struct {
	docs map[string]map[string]any
	done map[string]*sNode
	err  error
}

// at compiles the subschema at the JSON pointer ptr of file.
func (c *schemaCompiler) at(file, ptr string) *sNode {
	key := file + "#" + ptr
	if n := c.done[key]; n != nil {
		return n
	}
	var v any = c.docs[file]
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if tok == "" {
			continue
		}
		m, _ := v.(map[string]any)
		v = m[tok]
	}
	m, ok := v.(map[string]any)
	if !ok {
		c.fail("%s#%s is not a schema object", file, ptr)
		return &sNode{}
	}
	n := &sNode{maxProps: -1, minItems: -1}
	c.done[key] = n
	c.fill(n, m, file, ptr)
	return n
}

func (c *schemaCompiler) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(format, args...)
	}
}

func (c *schemaCompiler) fill(n *sNode, m map[string]any, file, ptr string) {
	for k, v := range m {
		switch k {
		case "$schema", "$id", "$defs", "title", "description", "contentMediaType", "contentSchema", "contentEncoding":
			// annotations (the validator asserts no content by default)
		case "type":
			switch t := v.(type) {
			case string:
				n.types = []string{t}
			case []any:
				for _, x := range t {
					s, _ := x.(string)
					n.types = append(n.types, s)
				}
			}
			n.typeMsg = "expected " + strings.Join(n.types, " or ")
		case "enum", "const":
			list, ok := v.([]any)
			if k == "const" {
				list, ok = []any{v}, true
			}
			quoted := make([]string, len(list))
			for i, x := range list {
				s, isStr := x.(string)
				if !ok || !isStr {
					c.fail("%s#%s: only string %s values are supported", file, ptr, k)
					return
				}
				n.enum = append(n.enum, s)
				quoted[i] = fmt.Sprintf("%#v", s)
			}
			if len(quoted) == 1 {
				n.enumMsg = "value must be " + quoted[0]
			} else {
				n.enumMsg = "value must be one of " + strings.Join(quoted, ", ")
			}
		case "required":
			for _, x := range v.([]any) {
				n.required = append(n.required, x.(string))
			}
		case "properties":
			n.props = map[string]*sNode{}
			for name := range v.(map[string]any) {
				n.props[name] = c.at(file, ptr+"/properties/"+jsonptr.Escape(name))
			}
		case "additionalProperties":
			if b, ok := v.(bool); ok {
				n.noAddl = !b
			} else {
				n.addl = c.at(file, ptr+"/additionalProperties")
			}
		case "propertyNames":
			n.names = c.at(file, ptr+"/propertyNames")
		case "items":
			n.items = c.at(file, ptr+"/items")
		case "pattern":
			n.pattern = v.(string)
			if n.match = schemaPatterns[n.pattern]; n.match == nil {
				c.fail("%s#%s: pattern %q has no matcher", file, ptr, n.pattern)
			}
		case "minimum", "maximum":
			text := string(v.(json.Number))
			f, _ := strconv.ParseFloat(text, 64)
			d, ok := parseDecimal(text)
			if !ok {
				c.fail("%s#%s: bad %s", file, ptr, k)
			}
			b := &bound{v: d, msg: fmt.Sprint(f)}
			if k == "minimum" {
				n.min = b
			} else {
				n.max = b
			}
		case "minItems", "maxProperties":
			i, err := v.(json.Number).Int64()
			if err != nil {
				c.fail("%s#%s: bad %s", file, ptr, k)
			}
			if k == "minItems" {
				n.minItems = int(i)
			} else {
				n.maxProps = int(i)
			}
		case "uniqueItems":
			n.unique = v == true
		case "$ref":
			ref := v.(string)
			f, p, _ := strings.Cut(ref, "#")
			if f == "" {
				f = file
			}
			if c.docs[f] == nil {
				c.fail("%s#%s: unknown $ref %q", file, ptr, ref)
				return
			}
			n.ref = c.at(f, p)
		default:
			c.fail("%s#%s: keyword %q is not supported by the schema check", file, ptr, k)
		}
	}
}

// --- exact decimal numbers ---

// decimal is a JSON number as digits × 10^exp (digits without leading or
// trailing zeros; "" for zero).
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// parseDecimal reads a JSON number (already checked by the scanner).
func parseDecimal(s string) (decimal, bool) {
	// a plain integer, the common case
	if t, neg := strings.CutPrefix(s, "-"); allDigits(t) {
		t = strings.TrimLeft(t, "0")
		n := len(t)
		for n > 0 && t[n-1] == '0' {
			n--
		}
		if n == 0 {
			return decimal{}, true
		}
		return decimal{neg: neg, digits: t[:n], exp: int64(len(t) - n)}, true
	}
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	if hasExp {
		e, err := strconv.ParseInt(expText, 10, 64)
		if err != nil || e > 1<<40 || e < -(1<<40) {
			return d, false // far beyond what the validator's big.Rat reads
		}
		d.exp = e
	}
	digits := strings.TrimLeft(whole+frac, "0")
	d.exp -= int64(len(frac))
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		d.exp++
	}
	d.digits = digits
	if digits == "" {
		d = decimal{}
	}
	return d, true
}

func (d decimal) isInt() bool { return d.digits == "" || d.exp >= 0 }

// cmpDecimal compares two decimals.
func cmpDecimal(a, b decimal) int {
	sign := func(d decimal) int {
		switch {
		case d.digits == "":
			return 0
		case d.neg:
			return -1
		}
		return 1
	}
	if sa, sb := sign(a), sign(b); sa != sb || sa == 0 {
		return cmpInt(sa, sb)
	}
	// same sign, both non-zero: compare magnitudes
	m := 0
	if ma, mb := int64(len(a.digits))+a.exp, int64(len(b.digits))+b.exp; ma != mb {
		m = cmpInt64(ma, mb)
	} else {
		x, y := a.digits, b.digits
		for len(x) < len(y) {
			x += "0"
		}
		for len(y) < len(x) {
			y += "0"
		}
		m = strings.Compare(x, y)
	}
	if a.neg {
		return -m
	}
	return m
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// --- the walk ---

// schemaLeaf is one problem found: where, and what.
type schemaLeaf struct {
	loc, msg string
	dropped  bool // its member was repeated, and encoding/json keeps the last one
}

type schemaMember struct {
	key    string
	known  bool // named in properties
	lo, hi int  // the leaves of its value
}

// pathToken is one step of an instance location: a member name, or an
// array index (idx >= 0).
type pathToken struct {
	key string
	idx int
}

type schemaWalk struct {
	s       fastScanner
	path    []pathToken
	leaves  []schemaLeaf
	members []schemaMember
	skip    [][2]int // values passed over: start and end
}

func (w *schemaWalk) leaf(msg string) {
	// the location is only written out for a problem
	var loc []byte
	for _, t := range w.path {
		if t.key == "" && t.idx < 0 {
			continue // the validator leaves an empty name out
		}
		loc = append(loc, '/')
		switch {
		case t.idx >= 0:
			loc = strconv.AppendInt(loc, int64(t.idx), 10)
		case len(t.key) > maxNameBytes:
			// cut as every problem cuts a long name (nameToken)
			loc = appendPathToken(loc, prefixOf(t.key, cutNameBytes))
			loc = append(loc, cutSuffix(len(t.key), "bytes")...)
		default:
			loc = appendPathToken(loc, t.key)
		}
	}
	w.leaves = append(w.leaves, schemaLeaf{loc: string(loc), msg: msg})
}

// jsonKind names the JSON type of a value by its first byte, as the validator does.
func jsonKind(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// structural reports whether n has keywords for objects or arrays.
func (n *sNode) structural() bool {
	return n.props != nil || n.addl != nil || n.noAddl || n.names != nil || n.maxProps >= 0 || n.required != nil ||
		n.minItems >= 0 || n.unique || n.items != nil
}

// typeOK applies the type keyword; it records the problem when it fails.
func (w *schemaWalk) typeOK(n *sNode, kind string, num decimal) bool {
	if len(n.types) == 0 {
		return true
	}
	for _, t := range n.types {
		if t == kind || t == "integer" && kind == "number" && num.isInt() {
			return true
		}
	}
	w.leaf(n.typeMsg + ", but got " + kind)
	return false
}

// value checks the value at the scanner against n (nil: anything) and moves
// past it. The document has passed the syntax check.
func (w *schemaWalk) value(n *sNode) {
	s := &w.s
	s.peek()
	for _, sk := range w.skip {
		if s.i == sk[0] {
			s.i = sk[1]
			return
		}
	}
	kind := jsonKind(s.peek())
	switch kind {
	case "number":
		start, end, _, _ := s.number()
		text := unsafeString(s.b[start:end])
		num, _ := parseDecimal(text)
		w.prim(n, kind, num, text)
	case "string":
		start, end, esc, _ := s.str()
		raw := s.b[start:end]
		str := ""
		if needsText(n) { // the value itself is only read when a keyword needs it
			str = unsafeString(raw)
			if esc || !isASCII(raw) {
				str = string(unquoteInto(nil, raw))
			}
		}
		w.prim(n, kind, decimal{}, str)
	case "boolean", "null":
		s.skip()
		w.prim(n, kind, decimal{}, "")
	default:
		w.composite(n, kind)
	}
}

// needsText reports whether a string's text matters to n or the schemas it
// refers to.
func needsText(n *sNode) bool {
	for ; n != nil; n = n.ref {
		if n.enum != nil || n.match != nil {
			return true
		}
	}
	return false
}

// prim checks a number, string, boolean or null against n and the schemas
// it refers to.
func (w *schemaWalk) prim(n *sNode, kind string, num decimal, str string) {
	for ; n != nil; n = n.ref {
		if !w.typeOK(n, kind, num) {
			return
		}
		if n.enum != nil && (kind != "string" || !contains(n.enum, str)) {
			w.leaf(n.enumMsg)
		}
		switch {
		case kind == "string" && n.match != nil && !n.match(str):
			w.leaf("does not match pattern " + validatorQuote(n.pattern))
		case kind == "number":
			if n.min != nil && cmpDecimal(num, n.min.v) < 0 {
				w.leaf("must be >= " + n.min.msg + " but found " + str)
			}
			if n.max != nil && cmpDecimal(num, n.max.v) > 0 {
				w.leaf("must be <= " + n.max.msg + " but found " + str)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// composite checks an object or array against n and the schemas it refers
// to, reading it once per schema that has keywords for it.
func (w *schemaWalk) composite(n *sNode, kind string) {
	s := &w.s
	start, read := s.i, false
	for ; n != nil; n = n.ref {
		if !w.typeOK(n, kind, decimal{}) {
			break
		}
		if n.enum != nil {
			w.leaf(n.enumMsg)
		}
		if !n.structural() {
			continue
		}
		s.i = start
		if kind == "object" {
			w.object(n)
		} else {
			w.array(n)
		}
		read = true
	}
	if !read {
		s.i = start
		s.skipAny()
	}
}

func (w *schemaWalk) object(n *sNode) {
	s := &w.s
	s.objOpen()
	base := len(w.members)
	var index map[string]int // key → member, once the object is large
	for first := true; ; first = false {
		if s.peek() == '}' {
			s.i++
			s.depth--
			break
		}
		if !first {
			s.i++ // ','
			s.peek()
		}
		ks, ke, esc, _ := s.str()
		key := unsafeString(s.b[ks:ke])
		if esc || !isASCII(s.b[ks:ke]) {
			key = string(unquoteInto(nil, s.b[ks:ke]))
		}
		s.peek()
		s.i++ // ':'
		w.path = append(w.path, pathToken{key: key, idx: -1})
		dup := -1
		if index != nil {
			if j, ok := index[key]; ok {
				dup = j
			}
		} else {
			for j := base; j < len(w.members); j++ {
				if w.members[j].key == key {
					dup = j
					break
				}
			}
		}
		lo := len(w.leaves)
		if n.names != nil {
			w.prim(n.names, "string", decimal{}, key)
		}
		sub, known := n.props[key]
		if !known {
			sub = n.addl
		}
		w.value(sub)
		w.path = w.path[:len(w.path)-1]
		if dup >= 0 {
			// encoding/json keeps the last value of a repeated key
			m := &w.members[dup]
			for i := m.lo; i < m.hi; i++ {
				w.leaves[i].dropped = true
			}
			m.lo, m.hi = lo, len(w.leaves)
			continue
		}
		w.members = append(w.members, schemaMember{key: key, known: known, lo: lo, hi: len(w.leaves)})
		if index == nil && len(w.members)-base > 16 {
			index = make(map[string]int, 64)
			for j := base; j < len(w.members); j++ {
				index[w.members[j].key] = j
			}
		} else if index != nil {
			index[key] = len(w.members) - 1
		}
	}
	ms := w.members[base:]
	if n.maxProps >= 0 && len(ms) > n.maxProps {
		w.leaf(fmt.Sprintf("maximum %d properties allowed, but found %d properties", n.maxProps, len(ms)))
	}
	var missing []string
	for _, r := range n.required {
		found := false
		if index != nil {
			_, found = index[r]
		} else {
			for _, m := range ms {
				if m.key == r {
					found = true
					break
				}
			}
		}
		if !found {
			missing = append(missing, validatorQuote(r))
		}
	}
	if missing != nil {
		w.leaf(sortQuotedLists("missing properties: " + strings.Join(missing, ", ")))
	}
	if n.noAddl {
		var extra []string
		for _, m := range ms {
			if !m.known {
				extra = append(extra, validatorQuote(nameToken(m.key)))
			}
		}
		if extra != nil {
			w.leaf(sortQuotedLists("additionalProperties " + strings.Join(extra, ", ") + " not allowed"))
		}
	}
	w.members = w.members[:base]
}

func (w *schemaWalk) array(n *sNode) {
	s := &w.s
	s.arrOpen()
	// uniqueItems: where each item's canonical form first appeared, until
	// the first item equal to one before it (dupAt, and the first of
	// those before it, dupOf)
	var firstAt map[string]int
	dupOf, dupAt := -1, -1
	count := 0
	for first := true; ; first = false {
		if s.peek() == ']' {
			s.i++
			s.depth--
			break
		}
		if !first {
			s.i++ // ','
			s.peek()
		}
		w.path = append(w.path, pathToken{idx: count})
		start := s.i
		w.value(n.items)
		if n.unique && dupAt < 0 {
			c := canonical(s.b[start:s.i])
			if j, seen := firstAt[c]; seen {
				dupOf, dupAt = j, count
			} else {
				if firstAt == nil {
					firstAt = map[string]int{}
				}
				firstAt[c] = count
			}
		}
		w.path = w.path[:len(w.path)-1]
		count++
	}
	if n.minItems >= 0 && count < n.minItems {
		w.leaf(fmt.Sprintf("minimum %d items required, but found %d items", n.minItems, count))
	}
	if dupAt >= 0 {
		w.leaf(fmt.Sprintf("items at index %d and %d are equal", dupOf, dupAt))
	}
}

// canonical renders a JSON value so that two values the validator holds
// equal (numbers by value, objects whatever their key order, the last of a
// repeated key) render the same.
func canonical(b []byte) string {
	s := fastScanner{b: b}
	var out []byte
	var walk func()
	walk = func() {
		switch c := s.peek(); c {
		case '{':
			s.objOpen()
			m := map[string]string{}
			for first := true; ; first = false {
				if s.peek() == '}' {
					s.i++
					break
				}
				if !first {
					s.i++
					s.peek()
				}
				ks, ke, _, _ := s.str()
				key := string(unquoteInto(nil, s.b[ks:ke]))
				s.peek()
				s.i++
				saved := out
				out = nil
				walk()
				m[key] = string(out)
				out = saved
			}
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			out = append(out, '{')
			for _, k := range keys {
				out = strconv.AppendQuote(out, k)
				out = append(out, ':')
				out = append(out, m[k]...)
				out = append(out, ',')
			}
			out = append(out, '}')
		case '[':
			s.arrOpen()
			out = append(out, '[')
			for first := true; ; first = false {
				if s.peek() == ']' {
					s.i++
					break
				}
				if !first {
					s.i++
					s.peek()
				}
				walk()
				out = append(out, ',')
			}
			out = append(out, ']')
		case '"':
			ks, ke, _, _ := s.str()
			out = strconv.AppendQuote(out, string(unquoteInto(nil, s.b[ks:ke])))
		case 't', 'f', 'n':
			start := s.i
			s.skip()
			out = append(out, s.b[start:s.i]...)
		default:
			start, end, _, _ := s.number()
			d, _ := parseDecimal(string(s.b[start:end]))
			if d.neg {
				out = append(out, '-')
			}
			out = append(out, 'n')
			out = append(out, d.digits...)
			out = append(out, 'e')
			out = strconv.AppendInt(out, d.exp, 10)
		}
	}
	walk()
	return string(out)
}

// appendPathToken appends a member name as the validator writes it in an
// instance location: a JSON pointer token, then escaped as a URL path
// segment (url.PathEscape).
func appendPathToken(dst []byte, t string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '~':
			dst = append(dst, '~', '0')
		case c == '/':
			dst = append(dst, '~', '1')
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '_', c == '.', c == '$', c == '&', c == '+', c == ':', c == '=', c == '@':
			dst = append(dst, c)
		default:
			dst = append(dst, '%', hex[c>>4], hex[c&15])
		}
	}
	return dst
}

// validatorQuote quotes a name the way the validator does in its messages.
func validatorQuote(s string) string {
	s = strconv.Quote(s)
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s[1:len(s)-1] + "'"
}

// sortQuotedLists sorts the names in each quoted list of a message
// ('a', 'b', 'c': what the regular expression '[^']*'(?:, '[^']*')+ matches),
// so that the same file always gives the same text whatever the order the
// names were found in.
func sortQuotedLists(msg string) string {
	var b strings.Builder
	for i := 0; i < len(msg); {
		end, ok := quotedListAt(msg, i)
		if !ok {
			b.WriteByte(msg[i])
			i++
			continue
		}
		names := strings.Split(msg[i:end], ", ")
		sort.Strings(names)
		b.WriteString(strings.Join(names, ", "))
		i = end
	}
	return b.String()
}

// quotedListAt returns the end of the longest quoted list starting at msg[i].
func quotedListAt(msg string, i int) (int, bool) {
	quoted := func(i int) int { // the end of '[^']*' at i, or -1
		if i >= len(msg) || msg[i] != '\'' {
			return -1
		}
		j := strings.IndexByte(msg[i+1:], '\'')
		if j < 0 {
			return -1
		}
		return i + j + 2
	}
	end := quoted(i)
	if end < 0 {
		return 0, false
	}
	n := 0
	for strings.HasPrefix(msg[end:], ", ") {
		next := quoted(end + 2)
		if next < 0 {
			break
		}
		end = next
		n++
	}
	return end, n > 0
}

// addSchemaProblems reports where the file breaks its published schema (and,
// for cpu v4, memory v3 and dra crc32, where the data section breaks its own).
// hint, from Decode's fast path, may spare work; the problems are the same.
func (f *checker) addSchemaProblems(data []byte, hint *schemaHint) {
	checkOnce.Do(loadChecks)
	if checkErr != nil {
		f.problem(SeverityInfo, "", "please report it", "the embedded schemas do not load: %v", checkErr)
		return
	}
	name := string(f.Kind) + "-" + string(f.Format)
	root := checkRoots[name]
	if root == nil {
		return
	}
	if hint != nil && slices.Contains(hint.clean, f.Format) {
		return // the fast path read it and found it on the schema
	}
	var inner []byte
	var innerLeaves []schemaLeaf
	dataRoot := checkRoots[name+"-data"]
	key := "data"
	if f.Kind == KindDRA {
		key = "Data"
	}
	if dataRoot != nil {
		ok := false
		if hint != nil && hint.inner != nil {
			inner, ok = hint.inner, true
		} else {
			inner, ok = dataMember(data, key)
		}
		if ok && len(inner) > 0 {
			innerLeaves = schemaLeaves(dataRoot, inner, nil, hint != nil && hint.inner != nil)
		} else {
			inner = nil
		}
	}
	// an outer member that is the data section's byte for byte, checked
	// against the same schema, has the same problems: none when the data
	// section has none
	var skip [][2]int
	if hint != nil && inner != nil && len(innerLeaves) == 0 {
		names := cpuOuterFields
		if f.Kind == KindMemory {
			names = memOuterFields
		}
		for _, c := range hint.copies {
			n := names[c[0]]
			if a, b := root.props[n], dataRoot.props[n]; a != nil && b != nil && a.resolved() == b.resolved() {
				skip = append(skip, [2]int{c[1], c[2]})
			}
		}
	}
	count := 0
	f.addLeaves(schemaLeaves(root, data, skip, true), name, "", &count)
	if inner != nil {
		f.addLeaves(innerLeaves, name+"-data", "/"+key, &count)
	}
	if count > maxSchemaProblems {
		f.problem(SeverityWarning, "", "fix the first ones and check again",
			"%d more schema findings are not listed", count-maxSchemaProblems)
	}
}

// resolved follows the $ref of a schema that has nothing else.
func (n *sNode) resolved() *sNode {
	for n.ref != nil && len(n.types) == 0 && n.enum == nil && !n.structural() && n.match == nil && n.min == nil && n.max == nil {
		n = n.ref
	}
	return n
}

// dataMember returns the unescaped string value of the last top-level
// member named key of a JSON object (as encoding/json decodes it into a map).
func dataMember(data []byte, key string) ([]byte, bool) {
	s := fastScanner{b: data}
	var raw []byte
	var esc, found bool
	s.objOpen()
	for first := true; ; first = false {
		if c := s.peek(); c == '}' || c == 0 {
			break
		}
		if !first {
			s.i++ // ','
			s.peek()
		}
		ks, ke, kesc, ok := s.str()
		if !ok {
			return nil, false
		}
		k := unsafeString(s.b[ks:ke])
		if kesc || !isASCII(s.b[ks:ke]) {
			k = string(unquoteInto(nil, s.b[ks:ke]))
		}
		s.peek()
		s.i++ // ':'
		if k == key {
			found = false
			if s.peek() == '"' {
				start, end, e, _ := s.str()
				raw, esc, found = s.b[start:end], e, true
				continue
			}
		}
		if !s.skipAny() {
			return nil, false
		}
	}
	if !found {
		return nil, false
	}
	if !esc && isASCII(raw) {
		return raw, true
	}
	return unquoteInto(nil, raw), true
}

// schemaLeaves checks doc against root and returns its problems, sorted by
// place and text. The values starting at skip[i][0] are passed over.
//
// The document is one valid JSON value when valid; otherwise, like
// encoding/json's Decoder, only its first value counts, and nothing is
// checked when that is not valid JSON.
func schemaLeaves(root *sNode, doc []byte, skip [][2]int, valid bool) []schemaLeaf {
	w := schemaWalk{s: fastScanner{b: doc}, skip: skip}
	if probe := (fastScanner{b: doc}); !valid && (probe.peek() == 0 || !probe.skipAny()) {
		return nil
	}
	w.value(root)
	leaves := w.leaves[:0]
	for _, l := range w.leaves {
		if !l.dropped {
			leaves = append(leaves, l)
		}
	}
	sort.SliceStable(leaves, func(i, j int) bool {
		if leaves[i].loc != leaves[j].loc {
			return leaves[i].loc < leaves[j].loc
		}
		return leaves[i].msg < leaves[j].msg
	})
	return leaves
}

func (f *checker) addLeaves(leaves []schemaLeaf, name, prefix string, count *int) {
	for _, l := range leaves {
		*count++
		if *count > maxSchemaProblems {
			continue
		}
		f.problem(SeverityWarning, prefix+l.loc,
			"a kubelet never writes this: the file was edited or produced by another tool; fix the value or let the kubelet rewrite the file",
			"does not match schema %s.json: %s", name, l.msg)
	}
}

// skipAny is skip for any valid JSON value, escaped member names included.
func (s *fastScanner) skipAny() bool {
	switch s.peek() {
	case '{':
		if !s.objOpen() {
			return false
		}
		for first := true; ; first = false {
			c := s.peek()
			if c == '}' {
				s.i++
				s.depth--
				return true
			}
			if !first {
				if c != ',' {
					return false
				}
				s.i++
				s.peek()
			}
			if _, _, _, ok := s.str(); !ok || s.peek() != ':' {
				return false
			}
			s.i++
			if !s.skipAny() {
				return false
			}
		}
	case '[':
		if !s.arrOpen() {
			return false
		}
		for first := true; ; first = false {
			c := s.peek()
			if c == ']' {
				s.i++
				s.depth--
				return true
			}
			if !first {
				if c != ',' {
					return false
				}
				s.i++
			}
			if !s.skipAny() {
				return false
			}
		}
	}
	return s.skip()
}
