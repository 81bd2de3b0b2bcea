package podresources

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/jsonptr"
)

// DecodeError is one problem found in JSON input.
type DecodeError struct {
	// File names the file when the input came from LoadDir or LoadFS.
	File string
	// Pointer is the JSON pointer (RFC 6901) of the offending value; "" is the
	// whole document.
	Pointer string
	// Msg says what is wrong and what to do.
	Msg string

	err error
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Pointer == "" {
		b.WriteString("(document)")
	} else {
		b.WriteString(e.Pointer)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the error behind the problem: ErrTooLarge for an answer
// over the limits, input.ErrTooManyValues for a document over the value
// budget, nil otherwise.
func (e *DecodeError) Unwrap() error { return e.err }

// Limits on one answer. A node runs at most a few hundred pods (the
// kubelet's maxPods defaults to 110); a List answer that names more than
// MaxPods is not a node's answer, and decoding it would only exhaust memory.
const (
	// MaxPods is the most pods one answer may name.
	MaxPods = 20_000
	// MaxContainersPerPod is the most containers one pod may have.
	MaxContainersPerPod = 1_000
	// MaxContainers is the most containers one answer may name in all.
	MaxContainers = 200_000
	// MaxValues is the most JSON values (objects, arrays, strings, numbers,
	// literals, as input.CheckValues counts them) one answer may hold: a
	// 10,000-pod answer in numascope's indented form holds about 2 million.
	MaxValues = 8 << 20
	// maxDepth bounds nesting: the deepest answer nests 11 levels.
	maxDepth = 32
)

// ErrTooLarge is wrapped by the errors about an answer over MaxPods,
// MaxContainersPerPod or MaxContainers.
var ErrTooLarge = errors.New("PodResources answer over numascope's limits")

// maxProblems bounds how many problems one decode reports, so that a broken
// 10,000-pod file gives a readable error.
const maxProblems = 20

// maxID bounds CPU and NUMA ids: the bound of every CPU list numascope reads.
const maxID = cpulist.MaxCPUID

// The decoder reads the document as a stream of tokens straight into the
// model: nothing is built but the answer itself, so memory is bounded by the
// limits above, not by the bytes (a generic tree of a 13 MB answer with 1M
// empty pods took 554 MB).
type decoder struct {
	file  string
	probs []error
	more  int
	dec   *lexer
	// stop is set after a limit is hit: nothing more is read.
	stop       bool
	pods       int
	containers int
	// seen marks the ids of the list being read, for finding repeats.
	seen [(maxID + 64) / 64]uint64
}

func (d *decoder) errf(ptr, format string, args ...any) {
	if len(d.probs) >= maxProblems {
		d.more++
		return
	}
	d.probs = append(d.probs, &DecodeError{File: d.file, Pointer: ptr, Msg: fmt.Sprintf(format, args...)})
}

// limit reports an answer over a limit and stops the decoding.
func (d *decoder) limit(ptr, format string, args ...any) {
	d.probs = append(d.probs, &DecodeError{File: d.file, Pointer: ptr, Msg: fmt.Sprintf(format, args...), err: ErrTooLarge})
	d.stop = true
}

func (d *decoder) err() error {
	if len(d.probs) == 0 {
		return nil
	}
	errs := d.probs
	if d.more > 0 {
		errs = append(errs[:len(errs):len(errs)], fmt.Errorf("... and %d more problems", d.more))
	}
	return errors.Join(errs...)
}

// Decode reads a List answer or a whole snapshot: numascope's JSON form
// ({"pods":[…],"allocatable":{…}}) or protobuf-JSON of a
// ListPodResourcesResponse ({"podResources":[…]} or {"pod_resources":[…]}).
// Errors name the JSON pointer of every problem (at most 20). An answer
// over MaxValues, MaxPods or the container limits is refused.
func Decode(data []byte) (*Snapshot, error) { return decodeSnapshot(data, "") }

// DecodeAllocatable reads a GetAllocatableResources answer in numascope's JSON
// form or protobuf-JSON, bare or wrapped as {"allocatable":{…}}.
func DecodeAllocatable(data []byte) (*Allocatable, error) { return decodeAllocatable(data, "") }

// DecodePod reads a Get answer: protobuf-JSON of a GetPodResourcesResponse
// ({"podResources":{…}}) or one pod in either JSON form.
func DecodePod(data []byte) (*PodResources, error) { return decodePod(data, "") }

// start checks the document's size in values and its syntax, and readies
// the token stream over it.
func (d *decoder) start(data []byte) bool {
	if len(bytes.TrimSpace(data)) == 0 {
		d.errf("", "the file is empty: expected a JSON object")
		return false
	}
	if err := input.CheckValues(data, "JSON", input.ValueBudget{MaxValues: MaxValues, MaxDepth: maxDepth}); err != nil {
		msg := strings.TrimPrefix(err.Error(), "JSON: ")
		if head, _, cut := strings.Cut(msg, "; give only"); cut {
			msg = head + fmt.Sprintf("; one node's answer names at most %d pods: give the answer of one node", MaxPods)
		}
		d.probs = append(d.probs, &DecodeError{File: d.file, Msg: msg, err: err})
		return false
	}
	if !json.Valid(data) {
		d.syntax(data)
		return false
	}
	d.dec = &lexer{data: data}
	return true
}

// lexer reads the tokens of a document already checked to be valid JSON,
// as json.Decoder.Token does with UseNumber, several times faster: the
// checked syntax leaves only the tokens' ends to find.
type lexer struct {
	data []byte
	pos  int
}

// skip passes white space and the separators, which valid JSON puts only
// where they belong.
func (l *lexer) skip() {
	for l.pos < len(l.data) {
		switch l.data[l.pos] {
		case ' ', '\t', '\n', '\r', ',', ':':
			l.pos++
		default:
			return
		}
	}
}

// More reports whether the current array or object has another element.
func (l *lexer) More() bool {
	l.skip()
	return l.pos < len(l.data) && l.data[l.pos] != ']' && l.data[l.pos] != '}'
}

// Token returns the next token: a json.Delim, a string, a json.Number, a
// bool or nil.
func (l *lexer) Token() (json.Token, error) {
	l.skip()
	if l.pos >= len(l.data) {
		return nil, io.EOF
	}
	start := l.pos
	switch c := l.data[start]; c {
	case '{', '}', '[', ']':
		l.pos++
		return json.Delim(c), nil
	case '"':
		plain := true
		i := start + 1
		for ; i < len(l.data); i++ {
			c := l.data[i]
			if c == '"' {
				break
			}
			if c == '\\' {
				plain = false
				i++
			} else if c >= utf8.RuneSelf {
				plain = false
			}
		}
		l.pos = i + 1
		raw := l.data[start:min(l.pos, len(l.data))]
		if plain || utf8.Valid(raw) && !bytes.Contains(raw, []byte{'\\'}) {
			return string(raw[1 : len(raw)-1]), nil
		}
		// Escapes and invalid UTF-8 are read as encoding/json reads them.
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return s, nil
	case 't':
		l.pos += 4
		return true, nil
	case 'f':
		l.pos += 5
		return false, nil
	case 'n':
		l.pos += 4
		return nil, nil
	}
	i := start
	for i < len(l.data) {
		switch l.data[i] {
		case '-', '+', '.', 'e', 'E', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			i++
			continue
		}
		break
	}
	if i == start {
		return nil, fmt.Errorf("unexpected byte %q at offset %d", l.data[start], start)
	}
	l.pos = i
	return json.Number(l.data[start:i]), nil
}

// skipValue is a decoding target that keeps nothing.
type skipValue struct{}

func (*skipValue) UnmarshalJSON([]byte) error { return nil }

// syntax reports where data, which is not valid JSON, goes wrong.
func (d *decoder) syntax(data []byte) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v skipValue
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the offending byte itself.
			line, col := position(data, se.Offset-1)
			d.errf("", "not valid JSON at line %d, column %d: %v", line, col, se)
			return
		}
		d.errf("", "not valid JSON: %v", err)
		return
	}
	line, col := position(data, dec.InputOffset())
	d.errf("", "unexpected data after the JSON value at line %d, column %d: save one answer per file", line, col)
}

func position(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	line, col = 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// next reads the next token; it returns nil, false once decoding stopped.
func (d *decoder) next() (json.Token, bool) {
	if d.stop {
		return nil, false
	}
	t, err := d.dec.Token()
	if err != nil {
		// The document was checked to be valid JSON; this is the stream
		// ending early, which is a bug.
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		d.errf("", "not valid JSON: %v", err)
		d.stop = true
		return nil, false
	}
	return t, true
}

// value reads the first token of a value.
func (d *decoder) value() json.Token {
	t, _ := d.next()
	return t
}

// skipRest consumes the rest of the value that t starts.
func (d *decoder) skipRest(t json.Token) {
	if t != json.Delim('{') && t != json.Delim('[') {
		return
	}
	for depth := 1; depth > 0; {
		t, ok := d.next()
		if !ok {
			return
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

func (d *decoder) skip() { d.skipRest(d.value()) }

// describe names the value that t starts for a message and consumes it.
func (d *decoder) describe(t json.Token) string {
	d.skipRest(t)
	return kind(t)
}

func kind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return "an object"
	case string:
		return fmt.Sprintf("the string %q", clip(v))
	case json.Number:
		return "the number " + clip(v.String())
	case bool:
		return fmt.Sprintf("%t", v)
	}
	return fmt.Sprintf("%T", v)
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// normKey makes "cpu_ids", "cpuIds" and "CpuIds" the same key: protojson
// writes camelCase, encoding/json of the generated types writes the proto
// names, and encoding/json reads keys case-insensitively.
func normKey(k string) string {
	return strings.ToLower(strings.ReplaceAll(k, "_", ""))
}

// member is one member of a JSON object being read; its JSON pointer is
// built only when a message needs it.
type member struct {
	key    string // as written
	norm   string // normalized
	parent string
}

// P returns the member's JSON pointer.
func (m member) P() string { return m.parent + "/" + jsonptr.Escape(m.key) }

func elem(ptr string, i int) string { return ptr + "/" + strconv.Itoa(i) }

// object reads the object that t starts, calling fn for each member whose
// normalized key is in known; fn reads exactly the member's value. Unknown
// and repeated keys are reported and their values skipped. It reports a
// value that is not an object and returns false.
func (d *decoder) object(ptr string, t json.Token, known map[string]string, fn func(m member)) bool {
	if t != json.Delim('{') {
		if !d.stop {
			d.errf(ptr, "expected an object, found %s", d.describe(t))
		}
		return false
	}
	var buf [8]member
	seen := buf[:0]
	for !d.stop && d.dec.More() {
		kt, ok := d.next()
		if !ok {
			return false
		}
		k, _ := kt.(string)
		m := member{key: k, parent: ptr}
		n, isKnown := lookupKey(k, known)
		if !isKnown {
			d.errf(m.P(), "unknown field %q: expected %s", k, expected(known))
			d.skip()
			continue
		}
		m.norm = n
		if prev, dup := find(seen, n); dup {
			d.errf(m.P(), "field %q repeats %q: keep one", k, prev.key)
			d.skip()
			continue
		}
		seen = append(seen, m)
		fn(m)
	}
	d.next() // the closing brace
	return !d.stop
}

func find(ms []member, norm string) (member, bool) {
	for _, m := range ms {
		if m.norm == norm {
			return m, true
		}
	}
	return member{}, false
}

// array reads the array that t starts, calling fn with each element's index
// and first token; null is an empty array.
func (d *decoder) array(ptr string, t json.Token, fn func(i int, t json.Token)) {
	switch t {
	case nil:
		return
	case json.Delim('['):
	default:
		if !d.stop {
			d.errf(ptr, "expected an array, found %s", d.describe(t))
		}
		return
	}
	for i := 0; !d.stop && d.dec.More(); i++ {
		et, ok := d.next()
		if !ok {
			return
		}
		fn(i, et)
	}
	d.next() // the closing bracket
}

// lookupKey returns the normalized spelling of k as it is stored in known,
// without allocating for the usual short keys.
func lookupKey(k string, known map[string]string) (string, bool) {
	var buf [32]byte
	if len(k) > len(buf) {
		n := normKey(k)
		_, ok := known[n]
		return n, ok
	}
	b := buf[:0]
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '_':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c >= 0x80:
			n := normKey(k)
			_, ok := known[n]
			return n, ok
		}
		b = append(b, c)
	}
	for n := range known {
		if n == string(b) {
			return n, true
		}
	}
	return "", false
}

func expected(known map[string]string) string {
	names := make([]string, 0, len(known))
	seen := map[string]bool{}
	for _, v := range known {
		if !seen[v] && v != "" {
			seen[v] = true
			names = append(names, v)
		}
	}
	sortStrings(names)
	return strings.Join(names, ", ")
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// conflict reports when both a and b (alternative spellings of one value)
// are present.
func (d *decoder) conflict(a, b member) {
	if a.key != "" && b.key != "" {
		d.errf(b.P(), "%q and %q give the same value twice: keep one", a.key, b.key)
	}
}

// str reads a string value; null is "".
func (d *decoder) str(ptr string, t json.Token) string {
	switch v := t.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	if !d.stop {
		d.errf(ptr, "expected a string, found %s", d.describe(t))
	}
	return ""
}

func (d *decoder) member(m member) string { return d.str(m.P(), d.value()) }

// integer reads a JSON number or a decimal string (protojson writes int64 and
// uint64 as strings).
func (d *decoder) integer(ptr string, t json.Token, what string, max uint64) (uint64, bool) {
	if t == json.Delim('{') || t == json.Delim('[') {
		d.errf(ptr, "%s: expected a non-negative integer, found %s", what, d.describe(t))
		return 0, false
	}
	n, problem := parseUint(t, what, max)
	if problem != "" {
		d.errf(ptr, "%s", problem)
		return 0, false
	}
	return n, true
}

func parseUint(v any, what string, max uint64) (uint64, string) {
	var s string
	switch v := v.(type) {
	case json.Number:
		s = v.String()
	case string:
		s = v
	default:
		return 0, fmt.Sprintf("%s: expected a non-negative integer, found %s", what, kind(v))
	}
	if strings.HasPrefix(s, "-") {
		return 0, fmt.Sprintf("%s %s is negative", what, clip(s))
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Sprintf("%s: %q is not a non-negative integer", what, clip(s))
	}
	if n > max {
		return 0, fmt.Sprintf("%s %d is out of range (at most %d)", what, n, max)
	}
	return n, ""
}

// mark records id in the list being read and reports whether it was
// already there.
func (d *decoder) mark(id int) bool {
	w, bit := id/64, uint64(1)<<(id%64)
	dup := d.seen[w]&bit != 0
	d.seen[w] |= bit
	return dup
}

func (d *decoder) unmark(ids []int) {
	for _, id := range ids {
		d.seen[id/64] = 0
	}
}

// ids reads a list of CPU or NUMA ids: unique, each at most maxID.
func (d *decoder) ids(m member, what string) []int {
	var out []int
	ptr := m.P()
	d.array(ptr, d.value(), func(i int, t json.Token) {
		n, ok := d.integer(elem(ptr, i), t, what, maxID)
		if !ok {
			return
		}
		if d.mark(int(n)) {
			d.errf(elem(ptr, i), "%s %d is listed twice", what, n)
			return
		}
		out = append(out, int(n))
	})
	d.unmark(out)
	return out
}

var snapshotKeys = map[string]string{"pods": "pods", "podresources": "podResources", "allocatable": "allocatable", "notes": "notes",
	// Keys of an allocatable answer, read only to say what the file is.
	"cpuids": "", "memory": "", "devices": ""}

func decodeSnapshot(data []byte, file string) (*Snapshot, error) {
	d := &decoder{file: file}
	if !d.start(data) {
		return nil, d.err()
	}
	s := d.snapshot()
	if err := d.err(); err != nil {
		return nil, err
	}
	return s, nil
}

func (d *decoder) snapshot() *Snapshot {
	s := &Snapshot{}
	var pods member
	var allocLike []member
	ok := d.object("", d.value(), snapshotKeys, func(m member) {
		switch m.norm {
		case "pods", "podresources":
			if pods.key != "" {
				d.conflict(pods, m)
				d.skip()
				return
			}
			pods = m
			t := d.value()
			if m.norm == "podresources" && t == json.Delim('{') {
				d.errf(m.P(), "this looks like a Get answer (podResources is one object): load it with DecodePod or name it get-<namespace>-<name>.json")
				d.skipRest(t)
				return
			}
			d.podList(m.P(), t, s)
		case "allocatable":
			if t := d.value(); t != nil {
				s.Allocatable = d.allocatable(m.P(), t, false)
			}
		case "notes":
			ptr := m.P()
			d.array(ptr, d.value(), func(i int, t json.Token) {
				s.Notes = append(s.Notes, d.str(elem(ptr, i), t))
			})
		default:
			allocLike = append(allocLike, m)
			d.skip()
		}
	})
	if !ok {
		return nil
	}
	if len(allocLike) > 0 {
		if pods.key == "" {
			d.errf("", "this looks like a GetAllocatableResources answer, not a List answer: load it with DecodeAllocatable or name it allocatable.json")
			return nil
		}
		for _, m := range allocLike {
			d.errf(m.P(), "unknown field %q: expected %s", m.key, expected(snapshotKeys))
		}
	}
	return s
}

func (d *decoder) podList(ptr string, t json.Token, s *Snapshot) {
	var where map[string]int
	d.array(ptr, t, func(i int, t json.Token) {
		p := elem(ptr, i)
		if d.pods++; d.pods > MaxPods {
			d.limit(p, "more than %d pods: a node's PodResources answer names at most a few hundred; this is not one node's answer, or save one namespace's pods", MaxPods)
			return
		}
		pod, _ := d.pod(p, t, false)
		ref := pod.Ref()
		if where == nil {
			where = map[string]int{}
		}
		if j, dup := where[ref]; dup && pod.Name != "" {
			d.errf(p, "pod %s is listed twice (also at index %d)", ref, j)
			return
		}
		where[ref] = i
		s.Pods = append(s.Pods, pod)
	})
}

var podKeys = map[string]string{
	"name": "name", "namespace": "namespace", "containers": "containers",
	"cpuids": "cpuIds", "memory": "memory", "qosclass": "qosClass", "qosclassinferred": "qosClassInferred",
}

var getKeys = func() map[string]string {
	m := map[string]string{"podresources": "podResources"}
	for k, v := range podKeys {
		m[k] = v
	}
	return m
}()

func decodePod(data []byte, file string) (*PodResources, error) {
	d := &decoder{file: file}
	if !d.start(data) {
		return nil, d.err()
	}
	p, _ := d.pod("", d.value(), true)
	if err := d.err(); err != nil {
		return nil, err
	}
	return &p, nil
}

type dupContainer struct {
	ptr, name string
	first     int
}

// pod reads one pod. With wrapper, the object may instead be a Get answer
// that wraps the pod as {"podResources":{…}}.
func (d *decoder) pod(ptr string, t json.Token, wrapper bool) (p PodResources, wrapped bool) {
	known := podKeys
	if wrapper {
		known = getKeys
	}
	var inferred bool
	var dups []dupContainer
	var outer []member
	var inner PodResources
	ok := d.object(ptr, t, known, func(m member) {
		if m.norm == "podresources" {
			wrapped = true
			switch t := d.value(); t {
			case json.Delim('['):
				d.errf(m.P(), "this is a List answer (podResources is an array): load it with Decode or name it list.json")
				d.skipRest(t)
			case nil:
				d.errf(m.P(), "podResources is null: the Get answer holds no pod")
			default:
				inner, _ = d.pod(m.P(), t, false)
			}
			return
		}
		if wrapper {
			outer = append(outer, m)
		}
		switch m.norm {
		case "name":
			p.Name = d.member(m)
		case "namespace":
			p.Namespace = d.member(m)
		case "qosclass":
			q := QOSClass(d.member(m))
			if !q.Valid() {
				d.errf(m.P(), "qosClass %q is not Guaranteed, Burstable or BestEffort", clip(string(q)))
			}
			p.QOSClass = q
		case "qosclassinferred":
			switch v := d.value().(type) {
			case bool:
				inferred = v
			case nil:
			default:
				d.errf(m.P(), "expected true or false, found %s", d.describe(v))
			}
		case "containers":
			cptr := m.P()
			var seen map[string]int
			d.array(cptr, d.value(), func(i int, t json.Token) {
				ep := elem(cptr, i)
				if len(p.Containers) >= MaxContainersPerPod {
					d.limit(ep, "more than %d containers in one pod: this is not a kubelet's answer", MaxContainersPerPod)
					return
				}
				if d.containers++; d.containers > MaxContainers {
					d.limit(ep, "more than %d containers in the answer: this is not one node's answer", MaxContainers)
					return
				}
				c := d.container(ep, t)
				if seen == nil {
					seen = map[string]int{}
				}
				if j, dup := seen[c.Name]; dup && c.Name != "" {
					dups = append(dups, dupContainer{ep, c.Name, j})
				}
				seen[c.Name] = i
				p.Containers = append(p.Containers, c)
			})
		case "cpuids":
			p.CPUIDs = d.ids(m, "CPU id")
		case "memory":
			p.Memory = d.memories(m)
		}
	})
	if !ok {
		return p, wrapped
	}
	if wrapped {
		for _, m := range outer {
			d.errf(m.P(), "unknown field %q next to %q: a Get answer holds only podResources", m.key, "podResources")
		}
		return inner, true
	}
	if p.Name == "" {
		d.errf(ptr, "the pod has no name: every PodResources answer names its pods")
	}
	if p.Namespace == "" {
		d.errf(ptr, "pod %q has no namespace: every PodResources answer gives the namespace", clip(p.Name))
	}
	for _, c := range dups {
		d.errf(c.ptr, "container %q is listed twice in pod %s (also at index %d)", clip(c.name), clip(p.Ref()), c.first)
	}
	if inferred {
		// numascope wrote the class it inferred; leave it to be inferred
		// again so that the pod reads back as it was.
		p.QOSClass = ""
	}
	return p, false
}

var containerKeys = map[string]string{
	"name": "name", "cpuids": "cpuIds", "memory": "memory", "devices": "devices",
	"dynamicresources": "dynamicResources", "cpuidsstatus": "cpuIdsStatus", "memorystatus": "memoryStatus",
}

func (d *decoder) container(ptr string, t json.Token) ContainerResources {
	var c ContainerResources
	ok := d.object(ptr, t, containerKeys, func(m member) {
		switch m.norm {
		case "name":
			c.Name = d.member(m)
		case "cpuids":
			c.CPUIDs = d.ids(m, "CPU id")
		case "memory":
			c.Memory = d.memories(m)
		case "devices":
			c.Devices = d.devices(m)
		case "dynamicresources":
			rptr := m.P()
			d.array(rptr, d.value(), func(i int, t json.Token) {
				c.DynamicResources = append(c.DynamicResources, d.dynamic(elem(rptr, i), t))
			})
		default:
			// cpuIdsStatus and memoryStatus are derived from the lists and
			// the QoS class; they are checked for type only.
			d.member(m)
		}
	})
	if ok && c.Name == "" {
		d.errf(ptr, "the container has no name")
	}
	return c
}

var memoryKeys = map[string]string{"type": "type", "memorytype": "memoryType", "size": "size", "numanodes": "numaNodes", "topology": "topology"}

func (d *decoder) memories(m member) []ContainerMemory {
	var out []ContainerMemory
	mptr := m.P()
	d.array(mptr, d.value(), func(i int, t json.Token) {
		ptr := elem(mptr, i)
		var mem ContainerMemory
		var typ, memType member
		var numa numaReader
		ok := d.object(ptr, t, memoryKeys, func(m member) {
			switch m.norm {
			case "type", "memorytype":
				if m.norm == "type" {
					typ = m
				} else {
					memType = m
				}
				mem.Type = d.member(m)
			case "size":
				if t := d.value(); t != nil {
					mem.Size, _ = d.integer(m.P(), t, "size", math.MaxUint64)
				}
			default:
				numa.read(d, m)
			}
		})
		if !ok {
			return
		}
		d.conflict(typ, memType)
		if mem.Type == "" {
			d.errf(ptr, "the memory block has no type: expected \"memory\" or \"hugepages-<size>\"")
		}
		mem.NUMANodes = numa.done(d)
		out = append(out, mem)
	})
	return out
}

var deviceKeys = map[string]string{"resourcename": "resourceName", "deviceids": "deviceIds", "numanodes": "numaNodes", "topology": "topology"}

func (d *decoder) devices(m member) []ContainerDevices {
	var out []ContainerDevices
	dptr := m.P()
	d.array(dptr, d.value(), func(i int, t json.Token) {
		ptr := elem(dptr, i)
		var dev ContainerDevices
		var numa numaReader
		ok := d.object(ptr, t, deviceKeys, func(m member) {
			switch m.norm {
			case "resourcename":
				dev.ResourceName = d.member(m)
			case "deviceids":
				iptr := m.P()
				d.array(iptr, d.value(), func(j int, t json.Token) {
					dev.DeviceIDs = append(dev.DeviceIDs, d.str(elem(iptr, j), t))
				})
			default:
				numa.read(d, m)
			}
		})
		if !ok {
			return
		}
		if dev.ResourceName == "" {
			d.errf(ptr, "the device has no resourceName")
		}
		dev.NUMANodes = numa.done(d)
		out = append(out, dev)
	})
	return out
}

var topologyKeys = map[string]string{"nodes": "nodes"}
var nodeKeys = map[string]string{"id": "ID"}

// numaReader reads numascope's numaNodes list or the API's topology object.
// In the topology form a node object without "ID" is node 0: encoding/json
// with omitempty drops a zero ID and leaves {}.
type numaReader struct {
	list, topology member
	ids            []int
}

func (r *numaReader) read(d *decoder, m member) {
	if m.norm == "numanodes" {
		r.list = m
		r.ids = d.ids(m, "NUMA node")
		return
	}
	r.topology = m
	t := d.value()
	if t == nil {
		return
	}
	var out []int
	d.object(m.P(), t, topologyKeys, func(m member) {
		nptr := m.P()
		d.array(nptr, d.value(), func(i int, t json.Token) {
			p := elem(nptr, i)
			id, good := uint64(0), true
			d.object(p, t, nodeKeys, func(m member) {
				if t := d.value(); t != nil {
					id, good = d.integer(m.P(), t, "NUMA node", maxID)
				}
			})
			if !good {
				return
			}
			if d.mark(int(id)) {
				d.errf(p, "NUMA node %d is listed twice", id)
				return
			}
			out = append(out, int(id))
		})
	})
	d.unmark(out)
	if r.list.key == "" {
		r.ids = out
	}
}

func (r *numaReader) done(d *decoder) []int {
	d.conflict(r.list, r.topology)
	return r.ids
}

var dynamicKeys = map[string]string{"claimname": "claimName", "claimnamespace": "claimNamespace", "claimresources": "claimResources"}
var claimKeys = map[string]string{
	"drivername": "driverName", "poolname": "poolName", "devicename": "deviceName",
	"shareid": "shareId", "cdidevices": "cdiDevices",
}
var cdiKeys = map[string]string{"name": "name"}

func (d *decoder) dynamic(ptr string, t json.Token) DynamicResource {
	var r DynamicResource
	ok := d.object(ptr, t, dynamicKeys, func(m member) {
		switch m.norm {
		case "claimname":
			r.ClaimName = d.member(m)
		case "claimnamespace":
			r.ClaimNamespace = d.member(m)
		case "claimresources":
			cptr := m.P()
			d.array(cptr, d.value(), func(i int, t json.Token) {
				var c ClaimResource
				if d.object(elem(cptr, i), t, claimKeys, func(m member) {
					switch m.norm {
					case "drivername":
						c.DriverName = d.member(m)
					case "poolname":
						c.PoolName = d.member(m)
					case "devicename":
						c.DeviceName = d.member(m)
					case "shareid":
						c.ShareID = d.member(m)
					case "cdidevices":
						dptr := m.P()
						d.array(dptr, d.value(), func(j int, t json.Token) {
							// numascope writes CDI names as strings, the API
							// as {"name": …} objects.
							if t == json.Delim('{') {
								var name string
								d.object(elem(dptr, j), t, cdiKeys, func(m member) { name = d.member(m) })
								c.CDIDevices = append(c.CDIDevices, name)
								return
							}
							c.CDIDevices = append(c.CDIDevices, d.str(elem(dptr, j), t))
						})
					}
				}) {
					r.ClaimResources = append(r.ClaimResources, c)
				}
			})
		}
	})
	if ok && r.ClaimName == "" {
		d.errf(ptr, "the dynamic resource has no claimName")
	}
	return r
}

// allocatableKeys are the keys of a GetAllocatableResources answer, with
// those of a List or Get answer, read only to say what the file is.
var allocatableKeys = map[string]string{"cpuids": "cpuIds", "memory": "memory", "devices": "devices", "podresources": "", "pods": ""}

// wrappedAllocatableKeys adds the {"allocatable":{…}} wrapper.
var wrappedAllocatableKeys = map[string]string{"cpuids": "cpuIds", "memory": "memory", "devices": "devices", "allocatable": "allocatable",
	"podresources": "", "pods": ""}

func decodeAllocatable(data []byte, file string) (*Allocatable, error) {
	d := &decoder{file: file}
	if !d.start(data) {
		return nil, d.err()
	}
	a := d.allocatable("", d.value(), true)
	if err := d.err(); err != nil {
		return nil, err
	}
	return a, nil
}

// allocatable reads a GetAllocatableResources answer; at the top of a file
// (top) it may be wrapped as {"allocatable":{…}}.
func (d *decoder) allocatable(ptr string, t json.Token, top bool) *Allocatable {
	known := allocatableKeys
	if top {
		known = wrappedAllocatableKeys
	}
	a := &Allocatable{}
	var wrapped bool
	var inner *Allocatable
	var outer []member
	var listLike bool
	ok := d.object(ptr, t, known, func(m member) {
		switch m.norm {
		case "allocatable":
			wrapped = true
			t := d.value()
			if t == nil {
				d.errf(m.P(), "allocatable is null: expected an object")
				return
			}
			inner = d.allocatable(m.P(), t, false)
			return
		case "podresources", "pods":
			listLike = true
			d.skip()
			return
		}
		outer = append(outer, m)
		switch m.norm {
		case "cpuids":
			a.CPUIDs = d.ids(m, "CPU id")
		case "memory":
			a.Memory = d.memories(m)
		case "devices":
			a.Devices = d.devices(m)
		}
	})
	if !ok {
		return nil
	}
	if listLike {
		d.errf(ptr, "this looks like a List or Get answer, not a GetAllocatableResources answer: name it list.json")
		return nil
	}
	if wrapped {
		for _, m := range outer {
			d.errf(m.P(), "unknown field %q next to %q: give the answer alone inside it", m.key, "allocatable")
		}
		return inner
	}
	return a
}
