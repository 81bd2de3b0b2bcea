package statefile

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"
)

// The fast path of Verify for the formats the kubelet writes today (cpu v4,
// memory v3). It walks the raw bytes once, checks them against the kubelet's
// Go types the way encoding/json would, hashes the unescaped data section
// straight into FNV-32a and validates cpusets, all without building the state.
// It only ever answers "the kubelet accepts this file": on anything it is not
// sure about (an error, null, duplicate or non-ASCII field names, escapes where
// they would matter) it gives up and Verify takes the exact, slower path. The
// differential fuzz tests in fastverify_test.go hold it to encoding/json.

// strPlain marks the bytes that may appear unescaped in a JSON string and
// need no attention: everything from 0x20 up except '"' and '\\'.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()

type fastScanner struct {
	b     []byte
	i     int
	depth int
	// feed, when set, is the data section being read on another
	// goroutine: b is the part read so far, and final says it is all
	feed  *dataFeed
	final bool
	// cpus counts the CPUs of the cpusets scanned, held to MaxFileCPUs
	// as Decode holds a file
	cpus int64
}

// refill makes sure that a scan over a feed sees feedWindow bytes past
// s.i, or the whole section. (The check is inlined; the rest is not.)
func (s *fastScanner) refill() {
	if s.feed != nil {
		s.refillFeed()
	}
}

func (s *fastScanner) refillFeed() {
	if !s.final && len(s.b)-s.i < feedWindow {
		s.b, s.final = s.feed.upTo(s.i + feedWindow)
	}
}

func (s *fastScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte (0 at the end).
func (s *fastScanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skipPlain returns the index of the first byte at or after i that is not
// strPlain ('"', '\\' or a control character), or len(b). It tests eight
// bytes at a time: keys and values are mostly longer than that.
func skipPlain(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		v := binary.LittleEndian.Uint64(b[i:])
		q := v ^ (ones * '"')
		e := v ^ (ones * '\\')
		// a byte is flagged when it is below 0x20 or is '"' or '\\'; the
		// lowest flagged byte is exact (a borrow only runs upwards)
		m := ((v-ones*0x20)&^v | (q-ones)&^q | (e-ones)&^e) & highs
		if m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(b) && strPlain[b[i]] {
		i++
	}
	return i
}

// str scans a JSON string at s.i and returns the span of its contents and
// whether it holds escapes.
func (s *fastScanner) str() (start, end int, esc, ok bool) {
	b := s.b
	if s.i >= len(b) || b[s.i] != '"' {
		return
	}
	i := s.i + 1
	start = i
	for {
		i = skipPlain(b, i)
		if i >= len(b) {
			return
		}
		switch b[i] {
		case '"':
			s.i = i + 1
			return start, i, esc, true
		case '\\':
			esc = true
			if i+1 >= len(b) {
				return
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return
				}
				i += 6
			default:
				return
			}
		default: // a control character
			return
		}
	}
}

// number scans a JSON number and reports whether it is a plain integer
// (no fraction, no exponent).
func (s *fastScanner) number() (start, end int, isInt, ok bool) {
	b := s.b
	i := s.i
	start = i
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return
	}
	switch {
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return
	}
	isInt = true
	if i < len(b) && b[i] == '.' {
		isInt = false
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		isInt = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	s.i = i
	return start, i, isInt, true
}

func (s *fastScanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// objOpen consumes the '{' of an object.
func (s *fastScanner) objOpen() bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	s.depth++
	return s.depth <= MaxDepth
}

// objKey reads the next key of an object (escapes in keys make it give up)
// and the ':' after it; at the end of the object it consumes '}' and
// returns done.
func (s *fastScanner) objKey(first bool) (ks, ke int, done, ok bool) {
	s.refill()
	// the kubelet's compact spelling: "key": or ,"key":
	if b, i := s.b, s.i; i+1 < len(b) && (first && b[i] == '"' || !first && b[i] == ',' && b[i+1] == '"') {
		if !first {
			i++
		}
		if j := skipPlain(b, i+1); j+1 < len(b) && b[j] == '"' && b[j+1] == ':' {
			s.i = j + 2
			s.ws()
			return i + 1, j, false, true
		}
	}
	c := s.peek()
	if c == '}' {
		s.i++
		s.depth--
		return 0, 0, true, true
	}
	if !first {
		if c != ',' {
			return
		}
		s.i++
		c = s.peek()
	}
	if c != '"' {
		return
	}
	ks, ke, esc, ok := s.str()
	if !ok || esc || s.peek() != ':' {
		return 0, 0, false, false
	}
	s.i++
	s.ws()
	return ks, ke, false, true
}

func (s *fastScanner) arrOpen() bool {
	if s.peek() != '[' {
		return false
	}
	s.i++
	s.depth++
	return s.depth <= MaxDepth
}

// arrNext moves to the next element of an array; at the end it consumes ']'
// and returns done.
func (s *fastScanner) arrNext(first bool) (done, ok bool) {
	c := s.peek()
	if c == ']' {
		s.i++
		s.depth--
		return true, true
	}
	if !first {
		if c != ',' {
			return false, false
		}
		s.i++
		s.ws()
	}
	return false, true
}

// members scans an object, calling fn with the span of each key and s.i at
// its value; fn must consume the value.
func (s *fastScanner) members(fn func(ks, ke int) bool) bool {
	if !s.objOpen() {
		return false
	}
	for first := true; ; first = false {
		ks, ke, done, ok := s.objKey(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		if !fn(ks, ke) {
			return false
		}
	}
}

// fields scans an object into a struct with the given JSON field names,
// calling fn(i) for field i; unknown fields are skipped (see field).
func (s *fastScanner) fields(names []string, fn func(i int) bool) bool {
	var seen uint32
	return s.members(func(ks, ke int) bool {
		switch i := field(s.b[ks:ke], names, &seen); i {
		case -2:
			return false
		case -1:
			return s.skip()
		default:
			return fn(i)
		}
	})
}

// elements scans an array, calling fn for each element.
func (s *fastScanner) elements(fn func() bool) bool {
	if !s.arrOpen() {
		return false
	}
	for first := true; ; first = false {
		done, ok := s.arrNext(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		if !fn() {
			return false
		}
	}
}

// skip scans any JSON value with encoding/json's syntax rules.
func (s *fastScanner) skip() bool {
	switch s.peek() {
	case '{':
		return s.members(func(int, int) bool { return s.skip() })
	case '[':
		return s.elements(s.skip)
	case '"':
		_, _, _, ok := s.str()
		return ok
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		_, _, _, ok := s.number()
		return ok
	}
}

// validJSON reports whether b is one valid JSON value (encoding/json's Valid).
func validJSON(b []byte) bool {
	s := fastScanner{b: b}
	return s.peek() != 0 && s.skip() && s.atEnd()
}

// --- typed values: each returns false on anything encoding/json would not
// store without error into the kubelet's type, and on null ---

func (s *fastScanner) typedString() (start, end int, esc, ok bool) {
	if s.peek() != '"' {
		return
	}
	return s.str()
}

func (s *fastScanner) anyString() bool {
	_, _, _, ok := s.typedString()
	return ok
}

func (s *fastScanner) typedUint64() (uint64, bool) {
	c := s.peek()
	if c < '0' || c > '9' {
		return 0, false
	}
	v, i, ok := scanUint64(s.b, s.i)
	if ok {
		s.i = i
	}
	return v, ok
}

// scanUint64 reads the JSON number at b[i] that encoding/json stores in a
// uint64 and returns it with the index after it.
func scanUint64(b []byte, i int) (uint64, int, bool) {
	if i >= len(b) || b[i] < '0' || b[i] > '9' {
		return 0, i, false
	}
	if b[i] == '0' {
		i++
		if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E' || '0' <= b[i] && b[i] <= '9') {
			return 0, i, false // a fraction, an exponent, or a leading zero (invalid JSON)
		}
		return 0, i, true
	}
	// up to 19 digits cannot overflow; a 20th is checked
	var v uint64
	start := i
	for i < len(b) && '0' <= b[i] && b[i] <= '9' && i-start < 19 {
		v = v*10 + uint64(b[i]-'0')
		i++
	}
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		d := uint64(b[i] - '0')
		if v > (1<<64-1)/10 || v == (1<<64-1)/10 && d > (1<<64-1)%10 {
			return 0, i, false
		}
		v = v*10 + d
		i++
	}
	if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
		return 0, i, false
	}
	return v, i, true
}

func (s *fastScanner) typedInt() bool {
	_, ok := s.parsedIntFast()
	return ok
}

// parsedIntFast scans a JSON integer that fits a Go int (strconv.IntSize bits).
func (s *fastScanner) parsedIntFast() (int64, bool) {
	s.peek()
	v, i, ok := scanInt(s.b, s.i)
	if ok {
		s.i = i
	}
	return v, ok
}

// scanInt reads the JSON number at b[i] that encoding/json stores in an int
// and returns it with the index after it.
func scanInt(b []byte, i int) (int64, int, bool) {
	neg := false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	if i >= len(b) || b[i] < '0' || b[i] > '9' {
		return 0, i, false
	}
	if b[i] == '0' {
		i++
		if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E' || '0' <= b[i] && b[i] <= '9') {
			return 0, i, false
		}
		return 0, i, true
	}
	const limit = uint64(1) << (strconv.IntSize - 1) // |min int|
	var v uint64
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		if v > limit/10 {
			return 0, i, false // v*10 would pass the limit (and could wrap)
		}
		v = v*10 + uint64(b[i]-'0')
		if v > limit {
			return 0, i, false
		}
		i++
	}
	if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
		return 0, i, false
	}
	if !neg && v == limit {
		return 0, i, false
	}
	if neg {
		return -int64(v), i, true
	}
	return int64(v), i, true
}

func (s *fastScanner) typedIntSlice() bool { return s.elements(s.typedInt) }

// field matches an object key against a struct's JSON field names the way
// encoding/json does for ASCII keys (exact or case-insensitive). It returns
// the field index, -1 for an unknown field, or -2 to give up: non-ASCII keys
// could match by Unicode folding, and a repeated field would need the
// last-one-wins rule.
func field(key []byte, names []string, seen *uint32) int {
	for i, n := range names {
		if string(key) == n {
			if *seen&(1<<uint(i)) != 0 {
				return -2
			}
			*seen |= 1 << uint(i)
			return i
		}
	}
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return -2
		}
	}
	for i, n := range names {
		if len(n) == len(key) && eqFoldASCII(key, n) {
			if *seen&(1<<uint(i)) != 0 {
				return -2
			}
			*seen |= 1 << uint(i)
			return i
		}
	}
	return -1
}

func eqFoldASCII(key []byte, name string) bool {
	for i := 0; i < len(key); i++ {
		a, b := key[i], name[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// --- memory_manager_state ---

var (
	memTableFields = []string{"total", "systemReserved", "allocatable", "reserved", "free"}
	memNodeFields  = []string{"numberOfAssignments", "memoryMap", "cells"}
	memBlockFields = []string{"numaAffinity", "type", "size"}
	memPodFields   = []string{"memoryBlocks"}
	memOuterFields = []string{"policyName", "machineState", "entries", "checksum", "data", "dataChecksum"}
	memDataFields  = []string{"policyName", "machineState", "entries", "podEntries"}
)

func (s *fastScanner) memTable() bool {
	return s.fields(memTableFields, func(int) bool { _, ok := s.typedUint64(); return ok })
}

func (s *fastScanner) memNode() bool {
	return s.fields(memNodeFields, func(i int) bool {
		switch i {
		case 0:
			return s.typedInt()
		case 1:
			return s.members(func(int, int) bool { return s.memTable() })
		default:
			return s.typedIntSlice()
		}
	})
}

func (s *fastScanner) machineState() bool {
	return s.members(func(ks, ke int) bool {
		// encoding/json parses int map keys with strconv.ParseInt(key, 10, 64)
		if _, err := strconv.ParseInt(unsafeString(s.b[ks:ke]), 10, strconv.IntSize); err != nil {
			return false
		}
		return s.memNode()
	})
}

func (s *fastScanner) memBlock() bool {
	if s.memBlockCompact() {
		return true
	}
	return s.fields(memBlockFields, func(i int) bool {
		switch i {
		case 0:
			return s.typedIntSlice()
		case 1:
			return s.anyString()
		default:
			_, ok := s.typedUint64()
			return ok
		}
	})
}

// hasLit reports whether b[i:] starts with w.
func hasLit(b []byte, i int, w string) bool {
	return len(b)-i >= len(w) && string(b[i:i+len(w)]) == w
}

// memBlockCompact reads a block written the way the kubelet writes it,
// {"numaAffinity":[0,1],"type":"memory","size":1024}: no spaces, the
// fields in order, no escapes. It leaves s alone and returns false on
// anything else (the general reader then reads it), so it accepts only
// blocks the general reader accepts too.
func (s *fastScanner) memBlockCompact() bool {
	// the head is compared in two parts: literals of up to 16 bytes are
	// compared inline
	const head, typ, size = `{"numaAffinity":`, `],"type":"`, `","size":`
	b, i := s.b, s.i
	if !hasLit(b, i, head) || i+len(head) >= len(b) || b[i+len(head)] != '[' || s.depth+2 > MaxDepth {
		return false
	}
	i += len(head) + 1
	if i < len(b) && b[i] != ']' {
		for {
			_, j, ok := scanInt(b, i)
			if !ok || j >= len(b) {
				return false
			}
			if i = j; b[i] != ',' {
				break
			}
			i++
		}
	}
	if !hasLit(b, i, typ) {
		return false
	}
	i = skipPlain(b, i+len(typ))
	if !hasLit(b, i, size) {
		return false
	}
	_, i, ok := scanUint64(b, i+len(size))
	if !ok || i >= len(b) || b[i] != '}' {
		return false
	}
	s.i = i + 1
	return true
}

// memBlocks scans []Block.
func (s *fastScanner) memBlocks() bool {
	if !s.arrOpen() {
		return false
	}
	for first := true; ; first = false {
		s.refill()
		done, ok := s.arrNext(first)
		if !ok || done {
			return ok
		}
		if !s.memBlock() {
			return false
		}
	}
}

// memEntries scans map[string]map[string][]Block.
func (s *fastScanner) memEntries() bool { return s.stringMap(leafMemBlocks, true) }

// memPodEntries scans map[string]PodEntry{memoryBlocks}.
func (s *fastScanner) memPodEntries() bool {
	return s.members(func(int, int) bool { return s.fields(memPodFields, func(int) bool { return s.memBlocks() }) })
}

// --- cpu_manager_state ---

var (
	cpuOuterFields    = []string{"policyName", "defaultCpuSet", "entries", "checksum", "data", "dataChecksum"}
	cpuDataFields     = []string{"policyName", "defaultCpuSet", "entries", "podEntries", "baselines"}
	cpuPodEntryFields = []string{"cpuSet"}
	cpuBaselineFields = []string{"baseline"}
)

// cpusetString scans a string that cpuset.Parse must accept.
func (s *fastScanner) cpusetString() bool {
	start, end, esc, ok := s.typedString()
	return ok && !esc && s.chargeCPUs(s.b[start:end])
}

// chargeCPUs checks a cpuset and counts its CPUs; it fails when the file
// goes over MaxFileCPUs (Decode then tells why).
func (s *fastScanner) chargeCPUs(set []byte) bool {
	n, ok := cpuSetCPUs(set)
	s.cpus += n
	return ok && s.cpus <= MaxFileCPUs
}

// leafKind names the values at the bottom of the CPU manager's maps.
type leafKind uint8

const (
	leafString    leafKind = iota // any string
	leafCPUSet                    // a string cpuset.Parse accepts
	leafBaseline                  // ContainerCPUs{baseline: string}
	leafPodEntry                  // PodEntry{cpuSet: cpuset}
	leafMemBlocks                 // []Block of the memory manager
)

func (s *fastScanner) leaf(k leafKind) bool {
	switch k {
	case leafString:
		return s.anyString()
	case leafCPUSet:
		return s.cpusetString()
	case leafBaseline:
		return s.oneStringField(`{"baseline":"`, cpuBaselineFields, false)
	case leafMemBlocks:
		return s.memBlocks()
	default:
		return s.oneStringField(`{"cpuSet":"`, cpuPodEntryFields, true)
	}
}

// oneStringField scans a struct with one string field. head is the way the
// kubelet writes its start ({"name":"); other spellings take the general
// reader.
func (s *fastScanner) oneStringField(head string, names []string, cpus bool) bool {
	b := s.b
	if i := s.i + len(head); hasLit(b, s.i, head) && s.depth < MaxDepth {
		if j := skipPlain(b, i); j+1 < len(b) && b[j] == '"' && b[j+1] == '}' {
			if cpus && !s.chargeCPUs(b[i:j]) {
				return false
			}
			s.i = j + 2
			return true
		}
	}
	return s.fields(names, func(int) bool {
		if cpus {
			return s.cpusetString()
		}
		return s.anyString()
	})
}

// stringMap scans map[string]V, or map[string]map[string]V when nested.
func (s *fastScanner) stringMap(k leafKind, nested bool) bool {
	if !s.objOpen() {
		return false
	}
	for first := true; ; first = false {
		_, _, done, ok := s.objKey(first)
		if !ok || done {
			return ok
		}
		if nested {
			ok = s.stringMap(k, false)
		} else {
			ok = s.leaf(k)
		}
		if !ok {
			return false
		}
	}
}

// --- the two entry points ---

// fastCapture holds what the outer scan found.
type fastCapture struct {
	dataStart, dataEnd int
	hasData            bool
	dataChecksum       uint64
	// buf receives the unescaped data section; sum is its checksum
	buf []byte
	sum uint64
	// pre is the data section when it was read before the scan
	pre *preread
	// what Decode needs of the outer (rollback) copy
	outer outerCopy
}

// outerCopy is what the scan of a cpu v4 or memory v3 file notes about its
// outer copy, for Decode's checksum layouts and problems.
type outerCopy struct {
	policy           span   // policyName's value (no escapes)
	hasPolicy        bool   // policyName is there
	policyEsc        bool   // its value holds escapes
	checksum         uint64 // checksum's value (0 when absent)
	present, copied  [3]bool
	spans            [3][2]int // where the copied members' values lie in the file
	unknown          bool      // a member no kubelet struct of the format has
	members          int
	defaultOrMachine bool   // defaultCpuSet or machineState is there (kind detection)
	seen             uint32 // the members there, by field index
	folded           bool   // a member named in another case than the field's
}

// preread is a data section read before the rest of the file, as found by
// readDataFirst.
type preread struct {
	start, end             int // the string's span in the file
	sum                    uint64
	policyStart, policyEnd int
	// copies holds the spans in buf of the data section's members that
	// the outer (rollback) copy repeats, by data field index (1 and 2:
	// defaultCpuSet or machineState, and entries)
	copies [3][2]int
	buf    []byte
}

type span struct{ s, e int32 }

// isASCII reports whether b is all ASCII (and so valid UTF-8), eight bytes
// at a time.
func isASCII(b []byte) bool {
	for ; len(b) >= 8; b = b[8:] {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// dataKey starts the data member as the kubelet writes it.
var dataKey = []byte(`"data":"`)

// readDataFirst reads, unescapes, hashes and scans the data section before
// the rest of the file. The kubelet writes the outer copy of the state
// first and the data section after it, and the two copies mostly hold the
// same entries; read in this order, the outer copy's members can be checked
// by comparing their bytes with the data section's, which the scan already
// checked for the same Go types (a JSON object or string is a complete
// value wherever it stands). k is where findData guessed the data member
// starts; the scan of the file confirms that the member is there.
//
// inner reads the section and notes the spans of its policy name and of
// the members the outer copy repeats in p; nil is innerSpans, the scan
// Verify needs (Decode reads the state there instead of scanning twice).
func readDataFirst(data []byte, kind Kind, k int, buf []byte, inner innerReader) (*preread, []byte) {
	if inner == nil {
		inner = spansReader(kind)
	}
	if start := k + len(`"data":`); len(data)-start >= feedMin && runtime.GOMAXPROCS(0) > 1 {
		var p *preread
		if p, buf = readDataAlongside(data, start, buf, inner); p != nil {
			return p, buf
		}
		// the section cannot be read that way: read it here
	}
	ds := fastScanner{b: data, i: k + len(`"data":`)}
	buf, sum, ok := ds.dataString(buf[:0])
	if !ok {
		return nil, buf
	}
	p := &preread{start: k + len(`"data":`), end: ds.i, sum: sum, buf: buf}
	in := fastScanner{b: buf}
	if !inner(&in, p) {
		return nil, buf
	}
	return p, buf
}

// innerReader reads a data section on s (over a feed, or the whole
// section) and notes in p where its policy name and the members the
// outer copy repeats lie (see innerSpans); false sends the file down the
// exact path.
type innerReader func(s *fastScanner, p *preread) bool

// spansReader is the innerReader that only scans (innerSpans).
func spansReader(kind Kind) innerReader {
	return func(s *fastScanner, p *preread) bool {
		var ok bool
		p.policyStart, p.policyEnd, ok = s.innerSpans(kind, &p.copies)
		return ok
	}
}

// Reading a large data section alongside its scan: feedChunk is how much of
// the section the reading goroutine unescapes between two reports of its
// progress; feedWindow is how far ahead of the scan the section must be
// read before the scan goes on past a key (a single key or value longer
// than that makes the scan fail, and the section is then read the plain
// way; kubelet keys and values are far shorter); feedMin is the size of
// file from which a second goroutine reads the section. They are variables
// only so that tests can make them tiny.
var (
	feedChunk  = 4 << 10
	feedWindow = 16 << 10
	feedMin    = 64 << 10
)

// feedSpins is how many times a scan that caught up with the reading
// yields before it blocks: the next chunk is microseconds away, and waking
// from a blocked receive takes longer.
const feedSpins = 1000

// dataFeed hands a data section from the goroutine that unescapes and
// hashes it to the scan that reads it at the same time. The copy loop runs
// at the speed of the hash's multiply chain, which leaves most of a CPU
// core idle; on a second CPU (or hardware thread) the scan follows it.
type dataFeed struct {
	buf      []byte       // the section's room: never grown while read
	progress atomic.Int64 // bytes of buf written so far
	more     chan struct{}
	done     chan struct{}
	// after done
	n, end int
	sum    uint64
	ok     bool
}

func (f *dataFeed) publish(n int) {
	f.progress.Store(int64(n))
	select {
	case f.more <- struct{}{}:
	default:
	}
}

// upTo waits until need bytes of the section are read, or all of it, and
// returns what is read and whether that is all.
func (f *dataFeed) upTo(need int) ([]byte, bool) {
	for spins := 0; ; spins++ {
		if p := int(f.progress.Load()); p >= need {
			return f.buf[:p], false
		}
		if spins < feedSpins {
			select {
			case <-f.done:
				return f.buf[:f.n], true
			default:
				runtime.Gosched()
				continue
			}
		}
		select {
		case <-f.more:
		case <-f.done:
			return f.buf[:f.n], true
		}
	}
}

// readDataAlongside is readDataFirst with the section unescaped and hashed
// on a second goroutine while this one scans it. It returns nil when that
// fails for any reason, and readDataFirst then reads the section itself.
func readDataAlongside(data []byte, start int, buf []byte, inner innerReader) (*preread, []byte) {
	if cap(buf) < len(data)-start {
		buf = make([]byte, 0, len(data)-start)
	}
	f := &dataFeed{buf: buf[:cap(buf)], more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer func() {
			// a panic here would end the program, not just Verify
			if recover() != nil {
				f.ok = false
			}
			close(f.done)
		}()
		ds := fastScanner{b: data, i: start}
		out, sum, ok := ds.dataStringFeed(buf[:0], f)
		f.n, f.end, f.sum, f.ok = len(out), ds.i, sum, ok
	}()
	in := fastScanner{b: f.buf[:0], feed: f}
	p := &preread{start: start}
	ok := inner(&in, p)
	<-f.done
	if !ok || !f.ok {
		return nil, buf
	}
	p.end, p.sum, p.buf = f.end, f.sum, f.buf[:f.n]
	return p, p.buf
}

// copied reports whether the value at s.i is the data section's member j
// byte for byte, and moves past it.
func (s *fastScanner) copied(p *preread, j int) bool {
	if p == nil {
		return false
	}
	v := p.buf[p.copies[j][0]:p.copies[j][1]]
	if len(v) == 0 || !bytes.HasPrefix(s.b[s.i:], v) {
		return false
	}
	s.i += len(v)
	return true
}

// outer scans the top-level object of a cpu v4 or memory v3 file.
func (s *fastScanner) outer(kind Kind, c *fastCapture) bool {
	names := cpuOuterFields
	if kind == KindMemory {
		names = memOuterFields
	}
	var seen uint32
	o := &c.outer
	ok := s.members(func(ks, ke int) bool {
		i := field(s.b[ks:ke], names, &seen)
		switch i {
		case -2:
			return false
		case -1:
			o.unknown = true
			return s.skip()
		}
		if string(s.b[ks:ke]) != names[i] {
			o.folded = true
		}
		o.members++
		return s.outerField(kind, names, i, c)
	})
	o.seen = seen
	return ok && s.atEnd()
}

// outerField scans the value of the outer member names[i].
func (s *fastScanner) outerField(kind Kind, names []string, i int, c *fastCapture) (ok bool) {
	o := &c.outer
	{
		switch {
		case names[i] == "data":
			c.dataStart = s.i
			ok = true
			if c.pre != nil && c.pre.start == s.i {
				s.i = c.pre.end
				c.sum = c.pre.sum
			} else {
				// not where readDataFirst read it: read it here, and
				// compare no more members with what it read
				c.pre = nil
				c.buf, c.sum, ok = s.dataString(c.buf[:0])
			}
			c.dataEnd = s.i
			c.hasData = true
		case names[i] == "dataChecksum":
			c.dataChecksum, ok = s.typedUint64()
		case names[i] == "checksum":
			o.checksum, ok = s.typedUint64()
		case names[i] == "policyName":
			var st, en int
			st, en, o.policyEsc, ok = s.typedString()
			o.policy, o.hasPolicy = span{int32(st), int32(en)}, true
		default: // defaultCpuSet or machineState (1), entries (2)
			j := 1
			if names[i] == "entries" {
				j = 2
			} else {
				o.defaultOrMachine = true
			}
			o.present[j] = true
			if start := s.i; s.copied(c.pre, j) {
				o.copied[j], o.spans[j] = true, [2]int{start, s.i}
				return true
			}
			switch {
			case names[i] == "defaultCpuSet":
				ok = s.anyString()
			case names[i] == "machineState":
				ok = s.machineState()
			case kind == KindMemory: // entries
				ok = s.memEntries()
			default: // cpu entries
				ok = s.stringMap(leafString, true)
			}
		}
		return ok
	}
}

// atEnd reports whether only white space is left after the top-level value.
func (s *fastScanner) atEnd() bool {
	s.ws()
	return s.i == len(s.b)
}

// inner scans the data section and returns the policy name span.
func (s *fastScanner) inner(kind Kind) (policyStart, policyEnd int, ok bool) {
	return s.innerSpans(kind, nil)
}

// innerSpans is inner, also noting in spans where the values of the data
// fields 1 and 2 lie.
func (s *fastScanner) innerSpans(kind Kind, spans *[3][2]int) (policyStart, policyEnd int, ok bool) {
	names := cpuDataFields
	if kind == KindMemory {
		names = memDataFields
	}
	s.refill()
	ok = s.fields(names, func(i int) (ok bool) {
		start := s.i
		switch {
		case i == 0: // policyName
			var esc bool
			policyStart, policyEnd, esc, ok = s.typedString()
			ok = ok && !esc
		case kind == KindCPU && i == 1:
			ok = s.cpusetString()
		case kind == KindCPU && i == 2:
			ok = s.stringMap(leafCPUSet, true)
		case kind == KindCPU && i == 3:
			ok = s.stringMap(leafPodEntry, false)
		case kind == KindCPU:
			ok = s.stringMap(leafBaseline, true)
		case i == 1:
			ok = s.machineState()
		case i == 2:
			ok = s.memEntries()
		default:
			ok = s.memPodEntries()
		}
		if ok && spans != nil && (i == 1 || i == 2) {
			spans[i] = [2]int{start, s.i}
		}
		return ok
	})
	if !ok {
		return 0, 0, false
	}
	if s.feed != nil && !s.final {
		s.b, s.final = s.feed.upTo(math.MaxInt)
	}
	return policyStart, policyEnd, s.atEnd()
}

var unquotePool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// verifyFast answers for cpu v4 and memory v3 files the kubelet accepts.
func verifyFast(data []byte, opts Options) (*Verdict, bool) {
	return verifyFastAt(data, opts, findData(data))
}

// verifyFastAt is verifyFast for a file whose first `"data":"` is at k
// (-1 for none).
func verifyFastAt(data []byte, opts Options, k int) (*Verdict, bool) {
	if opts.Kind != KindCPU && opts.Kind != KindMemory {
		return nil, false
	}
	limit := opts.MaxSize
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	if int64(len(data)) > limit {
		return nil, false
	}
	bufp := unquotePool.Get().(*[]byte)
	defer func() { unquotePool.Put(bufp) }()
	c := fastCapture{buf: *bufp}
	if k >= 0 {
		c.pre, c.buf = readDataFirst(data, opts.Kind, k, c.buf, nil)
	}
	s := fastScanner{b: data}
	ok := s.outer(opts.Kind, &c)
	*bufp = c.buf[:0]
	if !ok || !c.hasData || c.dataEnd-c.dataStart <= 2 || c.sum != c.dataChecksum {
		return nil, false
	}
	inner := c.buf
	var ps, pe int
	if c.pre != nil {
		ps, pe = c.pre.policyStart, c.pre.policyEnd
	} else {
		in := fastScanner{b: inner}
		if ps, pe, ok = in.inner(opts.Kind); !ok {
			return nil, false
		}
	}
	if opts.Policy != "" && opts.Policy != string(inner[ps:pe]) {
		return nil, false
	}
	v := &Verdict{Kind: opts.Kind, KubeletAccepts: true}
	layout, era := layoutCPUV4, eraCPUV4
	v.Format = FormatV4
	if opts.Kind == KindMemory {
		layout, era, v.Format = layoutMemV3, eraMemV3, FormatV3
	}
	v.Checksum = ChecksumReport{Stored: c.dataChecksum, Valid: true, Matched: layout, Era: era,
		Layouts: []Layout{{Name: layout, Stored: c.dataChecksum, Computed: c.dataChecksum, Matched: true, Era: era}}}
	return v, true
}

// unquoteInto appends the unescaped contents of a valid JSON string (without
// its quotes) to dst, with encoding/json's rules: invalid UTF-8 and unpaired
// surrogates become U+FFFD.
func unquoteInto(dst, s []byte) []byte {
	for r := 0; r < len(s); {
		// copy a run of plain ASCII in one go
		j := r
		for j < len(s) && s[j] != '\\' && s[j] < utf8.RuneSelf {
			j++
		}
		dst = append(dst, s[r:j]...)
		if r = j; r >= len(s) {
			break
		}
		c := s[r]
		switch {
		case c == '\\':
			r++
			switch s[r] {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				rr := hex4(s[r+1:])
				r += 5
				if utf16.IsSurrogate(rr) {
					if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' {
						if dec := utf16.DecodeRune(rr, hex4(s[r+2:])); dec != utf8.RuneError {
							dst = utf8.AppendRune(dst, dec)
							r += 6
							continue
						}
					}
					rr = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, rr)
				continue
			default: // '"', '\\', '/'
				dst = append(dst, s[r])
			}
			r++
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			dst = utf8.AppendRune(dst, rr)
			r += size
		}
	}
	return dst
}

// hex4 decodes four hex digits (validated by the scanner); -1 when they are not.
func hex4(s []byte) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// validCPUSet reports whether cpuset.Parse accepts s, without allocating.
// Ranges wider than maxCPURange are refused here (Parse would build them
// one CPU at a time).
func validCPUSet(s []byte) bool {
	_, ok := cpuSetCPUs(s)
	return ok
}

// cpuSetCPUs is validCPUSet that also counts the CPUs cpuset.Parse adds
// (a CPU named twice counts twice).
func cpuSetCPUs(s []byte) (int64, bool) {
	// the common spelling: unsigned decimal N or N-M, joined by commas
	var n int64
	for i := 0; ; {
		a, j := digits(s, i)
		if j == i {
			break
		}
		b := a
		if j < len(s) && s[j] == '-' {
			var k int
			b, k = digits(s, j+1)
			if k == j+1 || b < a || b-a > maxCPURange {
				break
			}
			j = k
		}
		n += b - a + 1
		if j == len(s) {
			return n, true
		}
		if s[j] != ',' {
			break
		}
		i = j + 1
	}
	return validCPUSetSlow(s)
}

// digits reads up to 18 decimal digits at s[i:] and returns their value
// and the index after them (i when there are none, or too many).
func digits(s []byte, i int) (int64, int) {
	var v int64
	j := i
	for j < len(s) && '0' <= s[j] && s[j] <= '9' {
		if j-i == 18 {
			return 0, i
		}
		v = v*10 + int64(s[j]-'0')
		j++
	}
	return v, j
}

// validCPUSetSlow is cpuSetCPUs for every spelling strconv.Atoi accepts.
// A range that ends at the largest int is refused: cpuset.Parse's loop over
// it never ends.
func validCPUSetSlow(s []byte) (int64, bool) {
	if len(s) == 0 {
		return 0, true
	}
	var n int64
	for {
		comma := indexByte(s, ',')
		elem := s
		if comma >= 0 {
			elem = s[:comma]
		}
		dash := indexByte(elem, '-')
		if dash < 0 {
			if _, ok := atoi(elem); !ok {
				return 0, false
			}
			n++
		} else {
			a, ok1 := atoi(elem[:dash])
			b, ok2 := atoi(elem[dash+1:])
			if !ok1 || !ok2 || a > b || b-a > maxCPURange || b == math.MaxInt {
				return 0, false
			}
			n += b - a + 1
		}
		if comma < 0 {
			return n, true
		}
		s = s[comma+1:]
	}
}

const maxCPURange = 1 << 16

func indexByte(s []byte, c byte) int {
	for i, x := range s {
		if x == c {
			return i
		}
	}
	return -1
}

// atoi is strconv.Atoi's acceptance for base-10 ints (optional sign).
func atoi(s []byte) (int64, bool) {
	v, err := strconv.ParseInt(unsafeString(s), 10, strconv.IntSize)
	return v, err == nil
}

// dataComputed runs the v4/v3 fast scan whatever the stored checksum and
// returns the data checksum it computes (for the differential tests).
func dataComputed(data []byte, kind Kind) (uint64, bool) {
	var c fastCapture
	s := fastScanner{b: data}
	if !s.outer(kind, &c) || !c.hasData || c.dataEnd-c.dataStart <= 2 {
		return 0, false
	}
	raw := data[c.dataStart+1 : c.dataEnd-1]
	if u := unquoteInto(nil, raw); !bytes.Equal(u, c.buf) || bytesStringChecksum(u) != c.sum {
		panic("dataString and unquoteInto disagree")
	}
	in := fastScanner{b: c.buf}
	if _, _, ok := in.inner(kind); !ok {
		return 0, false
	}
	return c.sum, true
}

// plainASCII marks bytes that are copied as they are from a JSON string:
// 0x20 to 0x7f except '"' and '\\'.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()

// dataString scans the JSON string at s.i, appends its unescaped contents
// (encoding/json's rules, as unquoteInto) to dst and returns them with the
// FNV-32a checksum of "(string)" + contents: one pass for what the kubelet
// does with json.Unmarshal and checksum.New.
//
// The loop copies and hashes one byte at a time so that the scan overlaps
// the hash's multiply chain, which bounds the speed; escapes and non-ASCII
// bytes leave the loop.
func (s *fastScanner) dataString(dst []byte) ([]byte, uint64, bool) {
	return s.dataStringFeed(dst, nil)
}

// dataStringFeed is dataString; with a feed it publishes its progress
// through the feed a chunk at a time and writes only into dst's capacity
// (it fails rather than grow it: see dataFeed).
func (s *fastScanner) dataStringFeed(dst []byte, feed *dataFeed) ([]byte, uint64, bool) {
	b := s.b
	if s.i >= len(b) || b[s.i] != '"' {
		return dst, 0, false
	}
	h := fnvAdd(fnvOffset32, "(string)")
	i := s.i + 1
	// Every byte of b[i:] yields at most one output byte except in the
	// rare paths below, which make room for themselves.
	n := len(dst)
	if cap(dst)-n < len(b)-i {
		dst = append(dst[:n], make([]byte, len(b)-i)...)
	}
	d := dst[:cap(dst)]
	for i < len(b) {
		if feed == nil {
			i, n, h = unescapeRun(b, d, i, n, h)
		} else {
			lim := min(i+feedChunk, len(b))
			i, n, h = unescapeRun(b[:lim], d, i, n, h)
			feed.publish(n)
			if i >= lim-1 && lim < len(b) {
				continue // the chunk ended (perhaps inside an escape)
			}
		}
		if i >= len(b) {
			break
		}
		// unescapeRun takes every plain ASCII byte (there is always room),
		// so c is something else
		c := b[i]
		switch {
		case c == '"':
			s.i = i + 1
			return d[:n], uint64(h), true
		case c < 0x20:
			return d[:n], 0, false
		case c == '\\':
			if i+1 >= len(b) {
				return d[:n], 0, false
			}
			e := b[i+1]
			switch e {
			case '"', '\\', '/':
			case 'b':
				e = '\b'
			case 'f':
				e = '\f'
			case 'n':
				e = '\n'
			case 'r':
				e = '\r'
			case 't':
				e = '\t'
			case 'u':
				var ok bool
				if d, n, i, h, ok = unicodeEscape(b, i, d, n, h); !ok {
					return d[:n], 0, false
				}
				continue
			default:
				return d[:n], 0, false
			}
			if n >= len(d) {
				return d[:n], 0, false // unreachable: two input bytes, one output
			}
			d[n] = e
			n++
			i += 2
			h = (h ^ uint32(e)) * fnvPrime32
		default: // a multi-byte sequence, or invalid UTF-8 (U+FFFD)
			rr, size := utf8.DecodeRune(b[i:])
			if feed != nil && size < utf8.RuneLen(rr) {
				return d[:n], 0, false // it could need more room than there is
			}
			i += size
			d, n, h = appendRuneHashed(d, n, h, rr, len(b)-i)
		}
	}
	return d[:n], 0, false
}

// unescapeRun is dataString's main loop, kept small so that its values
// stay in registers: it copies and hashes plain ASCII and the escapes \",
// \\ and \/ from b[i:] to d[n:] and returns where it stopped.
func unescapeRun(b, d []byte, i, n int, h uint32) (int, int, uint32) {
	for i < len(b) && n < len(d) {
		c := b[i]
		if plainASCII[c] {
			d[n] = c
			n++
			i++
			h = (h ^ uint32(c)) * fnvPrime32
			continue
		}
		if c != '\\' || i+1 >= len(b) {
			break
		}
		if c = b[i+1]; c != '"' && c != '\\' && c != '/' {
			break
		}
		d[n] = c
		n++
		i += 2
		h = (h ^ uint32(c)) * fnvPrime32
		if c == '"' && i < len(b) && (b[i] == 'n' || b[i] == 't') {
			i, n, h = dataLit(b, d, i, n, h)
		}
	}
	return i, n, h
}

// dataLitJump is a run of a data section that follows an escaped quote in
// every memory block the kubelet writes: esc as it stands in the file, its
// unescaped text and hash in j.
type dataLitJump struct {
	esc string
	j   *fnvJump
}

// dataLits is built when the package loads (9,472 hash steps), so that the
// unescape loop reads it without a check.
var dataLits = [2]dataLitJump{
	{`numaAffinity\":[`, newFNVJump(`numaAffinity":[`)},
	{`type\":\"memory\",\"size\":`, newFNVJump(`type":"memory","size":`)},
}

// dataLit copies and hashes the run of dataLits at b[i:] in one step, if
// there is one (unescaped it is shorter, so it fits where b[i:] would).
//
//go:noinline
func dataLit(b, d []byte, i, n int, h uint32) (int, int, uint32) {
	l := &dataLits[0]
	if b[i] == 't' {
		l = &dataLits[1]
	}
	if !hasLit(b, i, l.esc) || len(d)-n < len(l.j.lit) {
		return i, n, h
	}
	n += copy(d[n:], l.j.lit)
	return i + len(l.esc), n, h*l.j.mul + l.j.add[h&0xff]
}

// unicodeEscape decodes the \uXXXX escape (or surrogate pair) at b[i],
// appends its UTF-8 to d[:n] and hashes it.
func unicodeEscape(b []byte, i int, d []byte, n int, h uint32) ([]byte, int, int, uint32, bool) {
	if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
		return d, n, i, h, false
	}
	rr := hex4(b[i+2:])
	i += 6
	if utf16.IsSurrogate(rr) {
		if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
			if dec := utf16.DecodeRune(rr, hex4(b[i+2:])); dec != utf8.RuneError {
				// the second escape must itself be valid JSON
				if !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return d, n, i, h, false
				}
				d, n, h = appendRuneHashed(d, n, h, dec, len(b)-i-6)
				return d, n, i + 6, h, true
			}
		}
		rr = utf8.RuneError
	}
	d, n, h = appendRuneHashed(d, n, h, rr, len(b)-i)
	return d, n, i, h, true
}

// appendRuneHashed writes r's UTF-8 at d[n:] and hashes it, growing d so
// that rest more bytes still fit after it.
func appendRuneHashed(d []byte, n int, h uint32, r rune, rest int) ([]byte, int, uint32) {
	if need := utf8.UTFMax + rest; len(d)-n < need {
		d = append(d[:n], make([]byte, need+len(d)/2)...)
		d = d[:cap(d)]
	}
	w := utf8.EncodeRune(d[n:], r)
	for _, c := range d[n : n+w] {
		h = (h ^ uint32(c)) * fnvPrime32
	}
	return d, n + w, h
}
