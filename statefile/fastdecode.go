package statefile

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Decode's fast path for the formats the kubelet writes today (cpu v4,
// memory v3): the scan of fastverify.go checks the file against the
// kubelet's Go types and hashes the data section; the builders below then
// read the state out of the unescaped data section into the kubelet's
// structs, with its strings cut from one copy of the section and its
// slices cut from shared arenas. Whatever they are not sure of (a member
// no kubelet struct has, escapes in names, a repeated map key, an outer
// copy that is not the data section's) sends Decode down the exact path,
// which reads the file with encoding/json; the differential tests hold the
// two to the same File.

// dataHas reports whether the data section has member j (1 or 2).
func (p *preread) dataHas(j int) bool { return p.copies[j][1] > p.copies[j][0] }

// fastScan runs the verified scan of a cpu v4 or memory v3 file and returns
// the unescaped data section, or false when the file needs the exact path.
//
// With detect, the file must also be one that Decode's detection takes for
// kind: it has the member (defaultCpuSet, machineState) detection looks for.
//
// inner, when set, reads the data section as it is unescaped (see
// readDataFirst); buf is room for the unescaped section (it grows when
// short).
func fastScan(data []byte, kind Kind, detect bool, buf []byte, inner innerReader) (*fastCapture, bool) {
	k := -1
	if bytes.Contains(data[max(0, len(data)-64):], []byte(`"dataChecksum":`)) {
		k = findData(data)
	}
	if k < 0 {
		return nil, false
	}
	c := &fastCapture{}
	c.pre, c.buf = readDataFirst(data, kind, k, buf, inner)
	if c.pre == nil {
		return nil, false
	}
	s := fastScanner{b: data}
	if !s.outer(kind, c) || !c.hasData || c.pre == nil || c.dataEnd-c.dataStart <= 2 || c.sum != c.dataChecksum {
		return nil, false
	}
	o := &c.outer
	if o.unknown || o.policyEsc || detect && !o.defaultOrMachine {
		return nil, false
	}
	for j := 1; j <= 2; j++ {
		if o.present[j] && !o.copied[j] || !o.present[j] && c.pre.dataHas(j) {
			return nil, false
		}
	}
	c.buf = c.pre.buf
	return c, true
}

// sectionPool holds the buffers data sections are unescaped into. A File
// keeps nothing that points into one (the builder copies the strings it
// reads; TestDecodeKeepsNothingOfItsBuffers), so once Decode is done with
// it the next Decode reuses it instead of allocating and clearing as
// much again.
var sectionPool = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledSection bounds what the pool keeps.
const maxPooledSection = 16 << 20

// section is a pooled buffer lent to one Decode.
type section struct{ p *[]byte }

func lendSection() section { return section{sectionPool.Get().(*[]byte)} }

// buf is the room lent.
func (s section) buf() []byte { return *s.p }

// giveBack returns the buffer, as grown to buf, to the pool; nothing may
// read buf afterwards.
func (s section) giveBack(buf []byte) {
	if s.p == nil || cap(buf) > maxPooledSection {
		return
	}
	*s.p = buf[:0]
	sectionPool.Put(s.p)
}

// findData returns where the data member of a file starts: the kubelet
// writes the outer copy without escapes and the data section as "{\"...,
// so the first backslash is found far quicker than a pattern that starts
// with a quote, of which JSON is full. Anything else takes the first
// `"data":"`. Either way it is a guess: the scan reads the member where it
// is, and uses what readDataFirst read only if it read from there.
func findData(data []byte) int {
	const head = `"data":"{`
	if i := bytes.IndexByte(data, '\\'); i >= len(head) && string(data[i-len(head):i]) == head {
		return i - len(head)
	}
	return bytes.Index(data, dataKey)
}

// builder reads typed values out of a data section (or a whole file of
// the spew era): s scans it, and the strings read are copied into arena.
type builder struct {
	s fastScanner
	// offSchema is set when a value read may break the published schema
	// (a member named in another case, a required member missing, a value
	// outside the schema's enum, pattern or bounds): only a file read with
	// offSchema false skips the schema walk (see schemaClean)
	offSchema bool
	// arena holds the strings read (see cut); a new one is started when
	// it is full
	arena  []byte
	size   int // of what s reads, all of it (over a feed, s holds part)
	recent [4]string
	next   int
	ints   []int
	blocks []Block
	nodes  []NUMANodeState
	tables []MemoryTable
	named  []cpuNamed
	conts  []memContainer
	// entries lists the memory entries read (memEntries)
	entries []memPodBlocks
	// textAt is where the contents of the string text last read lie
	textAt [2]int
}

// newBuilder reads what the scanner s holds, size bytes in all (over a
// feed they come in parts).
func newBuilder(s fastScanner, size int) *builder {
	return &builder{s: s, size: size}
}

// newMemBuilder is a builder with its arenas sized for a memory file.
func newMemBuilder(buf []byte) *builder {
	b := newBuilder(fastScanner{b: buf}, len(buf))
	b.sizeMem(buf)
	return b
}

// cut returns b.s.b[st:en] as a string of the builder's own: the File
// keeps no reference to the bytes it was read from (the caller's input, or
// a data section's unescaped copy, which Decode reuses). Short strings
// read again soon after (container names, resource types, the cpusets of
// a pod's containers and their baselines) are kept once.
func (b *builder) cut(st, en int) string {
	v := b.s.b[st:en]
	short := len(v) <= 24
	if short {
		for _, r := range b.recent {
			if r == string(v) {
				return r
			}
		}
	}
	if cap(b.arena)-len(b.arena) < len(v) {
		// names, ids and cpusets are some of a file: an eighth of it
		// per arena takes one or two
		b.arena = make([]byte, 0, max(len(v), min(max(b.size/8, 1<<10), 256<<10)))
	}
	n := len(b.arena)
	b.arena = append(b.arena, v...)
	t := unsafeString(b.arena[n:len(b.arena):len(b.arena)])
	if short {
		b.recent[b.next%len(b.recent)] = t
		b.next++
	}
	return t
}

// sizeMem sizes the arenas for the memory file (or data section) raw.
func (b *builder) sizeMem(raw []byte) {
	// every block names "numaAffinity", and few other bytes of a memory
	// file are a capital A: counting that one byte is far quicker than
	// counting the name
	n := bytes.Count(raw, []byte{'A'})
	b.ints, b.blocks = make([]int, 0, n+64), make([]Block, 0, n+1)
}

// key reads a map key or field name without escapes (and valid UTF-8:
// encoding/json would replace the rest).
func (b *builder) key(first bool) (k string, done, ok bool) {
	ks, ke, done, ok := b.s.objKey(first)
	if !ok || done {
		return "", done, ok
	}
	if !isASCII(b.s.b[ks:ke]) && !utf8.Valid(b.s.b[ks:ke]) {
		return "", false, false
	}
	return b.cut(ks, ke), false, true
}

// text reads a string value without escapes, in valid UTF-8.
func (b *builder) text() (string, bool) {
	st, en, esc, ok := b.s.typedString()
	if !ok || esc {
		return "", false
	}
	b.textAt = [2]int{st, en}
	if !isASCII(b.s.b[st:en]) && !utf8.Valid(b.s.b[st:en]) {
		return "", false
	}
	return b.cut(st, en), true
}

func (b *builder) intList() ([]int, bool) {
	s := &b.s
	if !s.arrOpen() {
		return nil, false
	}
	lo := len(b.ints)
	for first := true; ; first = false {
		done, ok := s.arrNext(first)
		if !ok {
			return nil, false
		}
		if done {
			break
		}
		v, ok := s.parsedIntFast()
		if !ok {
			return nil, false
		}
		b.ints = append(b.ints, int(v))
	}
	return b.ints[lo:len(b.ints):len(b.ints)], true
}

// object reads the members of an object, calling fn with each field index
// of names; an unknown or repeated field gives up. req has bit i set for
// each field the schema requires.
func (b *builder) object(names []string, req uint32, fn func(i int) bool) bool {
	var seen uint32
	ok := b.s.members(func(ks, ke int) bool {
		key := b.s.b[ks:ke]
		i := field(key, names, &seen)
		if i < 0 {
			return false
		}
		if string(key) != names[i] {
			b.offSchema = true // encoding/json folds the case, the schema does not
		}
		return fn(i)
	})
	if seen&req != req {
		b.offSchema = true
	}
	return ok
}

// cpuset reads a cpuset string, noting one off the schema's pattern.
func (b *builder) cpuset() (string, bool) {
	t, ok := b.text()
	if ok && !matchCPUSet(t) {
		b.offSchema = true
	}
	return t, ok
}

// numaIDs reads a list of NUMA node ids (numaId: at least 0), at least one
// when the schema says minItems 1, each once when it says uniqueItems.
func (b *builder) numaIDs(unique bool) ([]int, bool) {
	l, ok := b.intList()
	if !ok {
		return nil, false
	}
	if len(l) == 0 {
		b.offSchema = true
	}
	for _, v := range l {
		if v < 0 {
			b.offSchema = true
		}
	}
	if unique && !b.offSchema && hasRepeat(l) {
		b.offSchema = true
	}
	return l, true
}

// hasRepeat reports whether a list holds a value twice: a short list is
// compared pair by pair, a long one sorted (a hostile group of a million
// ids took minutes pair by pair).
func hasRepeat(l []int) bool {
	if len(l) <= 32 {
		for i, v := range l {
			if slices.Contains(l[:i], v) {
				return true
			}
		}
		return false
	}
	s := slices.Clone(l)
	slices.Sort(s)
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			return true
		}
	}
	return false
}

// stringMap reads map[string]V, giving up on a repeated key; keyOK, when
// set, is the schema's propertyNames pattern.
func stringMap[V any](b *builder, m map[string]V, val func() (V, bool), keyOK func(string) bool) bool {
	s := &b.s
	if !s.objOpen() {
		return false
	}
	for first := true; ; first = false {
		k, done, ok := b.key(first)
		if !ok || done {
			return ok
		}
		if keyOK != nil && !keyOK(k) {
			b.offSchema = true
		}
		v, ok := val()
		if !ok {
			return false
		}
		// a repeated key does not grow the map (one lookup, not two)
		n := len(m)
		m[k] = v
		if len(m) == n {
			return false
		}
	}
}

// --- memory v3 ---

func (b *builder) memTable() (*MemoryTable, bool) {
	// a later append may move the arena; t keeps the element it points at
	b.tables = append(b.tables, MemoryTable{})
	t := &b.tables[len(b.tables)-1]
	ok := b.object(memTableFields, 1<<5-1, func(i int) bool {
		v, ok := b.s.typedUint64()
		switch i {
		case 0:
			t.TotalMemSize = v
		case 1:
			t.SystemReserved = v
		case 2:
			t.Allocatable = v
		case 3:
			t.Reserved = v
		default:
			t.Free = v
		}
		return ok
	})
	return t, ok
}

func (b *builder) memNode() (*NUMANodeState, bool) {
	b.nodes = append(b.nodes, NUMANodeState{})
	n := &b.nodes[len(b.nodes)-1]
	ok := b.object(memNodeFields, 1<<3-1, func(i int) bool {
		switch i {
		case 0:
			v, ok := b.s.parsedIntFast()
			n.NumberOfAssignments = int(v)
			if v < 0 {
				b.offSchema = true
			}
			return ok
		case 1:
			n.MemoryMap = map[string]*MemoryTable{}
			return stringMap(b, n.MemoryMap, b.memTable, matchMemoryResource)
		default:
			var ok bool
			n.Cells, ok = b.numaIDs(true)
			return ok
		}
	})
	return n, ok
}

func (b *builder) machineState(m map[int]*NUMANodeState) bool {
	s := &b.s
	if !s.objOpen() {
		return false
	}
	for first := true; ; first = false {
		k, done, ok := b.key(first)
		if !ok || done {
			return ok
		}
		id, err := strconv.ParseInt(k, 10, strconv.IntSize)
		if err != nil {
			return false
		}
		if !natural(k) {
			b.offSchema = true // "+1", "01": the schema wants the plain number
		}
		if _, dup := m[int(id)]; dup {
			return false
		}
		n, ok := b.memNode()
		if !ok {
			return false
		}
		m[int(id)] = n
	}
}

func (b *builder) memBlocks() ([]Block, bool) {
	s := &b.s
	if !s.arrOpen() {
		return nil, false
	}
	lo := len(b.blocks)
	for first := true; ; first = false {
		s.refill() // read over a feed, a block is within its window
		done, ok := s.arrNext(first)
		if !ok {
			return nil, false
		}
		if done {
			break
		}
		var blk Block
		if b.memBlockCompact(&blk) {
			b.blocks = append(b.blocks, blk)
			continue
		}
		if !b.object(memBlockFields, 1<<3-1, func(i int) bool {
			var ok bool
			switch i {
			case 0:
				blk.NUMAAffinity, ok = b.numaIDs(false)
			case 1:
				blk.Type, ok = b.text()
				if ok && !matchMemoryResource(blk.Type) {
					b.offSchema = true
				}
			default:
				blk.Size, ok = b.s.typedUint64()
			}
			return ok
		}) {
			return nil, false
		}
		b.blocks = append(b.blocks, blk)
	}
	return b.blocks[lo:len(b.blocks):len(b.blocks)], true
}

// memBlockCompact reads a block written the way the kubelet writes it,
// {"numaAffinity":[0,1],"type":"memory","size":1024} (see
// fastScanner.memBlockCompact), into blk with the same values and schema
// notes as the general reader. It leaves the scan where it was and
// returns false on anything else.
func (b *builder) memBlockCompact(blk *Block) bool {
	s := &b.s
	buf, i := s.b, s.i
	// {"numaAffinity":[ compared as two words and a byte
	if len(buf)-i < 17 || le64(buf[i:]) != blockHead0 || le64(buf[i+8:]) != blockHead1 || buf[i+16] != '[' || s.depth+2 > MaxDepth {
		return false
	}
	i += 17
	lo := len(b.ints)
	if i < len(buf) && buf[i] != ']' {
		for {
			v, j, ok := scanInt(buf, i)
			if !ok || j >= len(buf) {
				b.ints = b.ints[:lo]
				return false
			}
			b.ints = append(b.ints, int(v))
			if i = j; buf[i] != ',' {
				break
			}
			i++
		}
	}
	// ],"type":" and ","size":
	if len(buf)-i < 10 || le64(buf[i:]) != blockType0 || buf[i+8] != ':' || buf[i+9] != '"' {
		b.ints = b.ints[:lo]
		return false
	}
	ts := i + 10
	te := skipPlain(buf, ts)
	if len(buf)-te < 9 || le64(buf[te:]) != blockSize0 || buf[te+8] != ':' {
		b.ints = b.ints[:lo]
		return false
	}
	typ, known := knownResource(buf[ts:te])
	if !known && !isASCII(buf[ts:te]) && !utf8.Valid(buf[ts:te]) {
		b.ints = b.ints[:lo]
		return false
	}
	sz, i, ok := scanUint64(buf, te+9)
	if !ok || i >= len(buf) || buf[i] != '}' {
		b.ints = b.ints[:lo]
		return false
	}
	s.i = i + 1
	blk.NUMAAffinity = b.ints[lo:len(b.ints):len(b.ints)]
	if !known {
		typ = b.cut(ts, te)
	}
	blk.Type = typ
	blk.Size = sz
	if len(blk.NUMAAffinity) == 0 || !known && !matchMemoryResource(typ) {
		b.offSchema = true
	}
	for _, v := range blk.NUMAAffinity {
		if v < 0 {
			b.offSchema = true
		}
	}
	return true
}

// The words of a block as the kubelet writes it, {"numaAffinity":[ and
// ],"type":" and ","size":, for memBlockCompact.
var (
	blockHead0 = le64([]byte(`{"numaAf`))
	blockHead1 = le64([]byte(`finity":`))
	blockType0 = le64([]byte(`],"type"`))
	blockSize0 = le64([]byte(`","size"`))
)

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// knownResource returns the constant for the resource names kubelets write
// (memory and the x86 huge page sizes), which match the schema's pattern.
func knownResource(v []byte) (string, bool) {
	switch string(v) {
	case "memory":
		return "memory", true
	case "hugepages-1Gi":
		return "hugepages-1Gi", true
	case "hugepages-2Mi":
		return "hugepages-2Mi", true
	}
	return "", false
}

// memEntries reads pod → container → blocks into m, and lists them in Go
// string order as memEntryList does.
//
// The map is made here, sized for a pod per four blocks (a file whose pods
// hold fewer grows it a few times instead of once per doubling from 8).
func (b *builder) memEntries() (map[string]map[string][]Block, []memPodBlocks, bool) {
	s := &b.s
	if !s.objOpen() {
		return nil, nil, false
	}
	m := make(map[string]map[string][]Block, cap(b.blocks)/4)
	pods := make([]memPodBlocks, 0, cap(b.blocks)/4+1)
	sorted := true
	for first := true; ; first = false {
		k, done, ok := b.key(first)
		if !ok {
			return nil, nil, false
		}
		if done {
			break
		}
		cs, conts, ok := b.memContainers()
		if !ok {
			return nil, nil, false
		}
		n := len(m)
		m[k] = cs
		if len(m) == n {
			return nil, nil, false // a repeated pod
		}
		if n := len(pods); n > 0 && pods[n-1].pod >= k {
			sorted = false
		}
		pods = append(pods, memPodBlocks{pod: k, conts: conts})
	}
	if !sorted {
		sort.Slice(pods, func(i, j int) bool { return pods[i].pod < pods[j].pod })
	}
	return m, pods, true
}

// contsChunk is how many containers the builder's list of them takes at a
// time (the count of blocks overstates them where containers have several).
const contsChunk = 2048

// memContainers reads one pod's container → blocks, and lists them in Go
// string order, cut from the builder's arena.
func (b *builder) memContainers() (map[string][]Block, []memContainer, bool) {
	s := &b.s
	if !s.objOpen() {
		return nil, nil, false
	}
	if b.conts == nil {
		b.conts = make([]memContainer, 0, min(cap(b.blocks)+8, contsChunk))
	}
	m := make(map[string][]Block, 4)
	lo := len(b.conts)
	sorted := true
	for first := true; ; first = false {
		k, done, ok := b.key(first)
		if !ok {
			return nil, nil, false
		}
		if done {
			break
		}
		bs, ok := b.memBlocks()
		if !ok {
			return nil, nil, false
		}
		n := len(m)
		m[k] = bs
		if len(m) == n {
			return nil, nil, false // a repeated container
		}
		if n := len(b.conts); n > lo && b.conts[n-1].name >= k {
			sorted = false
		}
		if len(b.conts) == cap(b.conts) {
			// a new chunk, with this pod's containers so far: each
			// pod's list stays in one piece
			c := make([]memContainer, 0, max(contsChunk, 2*(len(b.conts)-lo)))
			b.conts, lo = append(c, b.conts[lo:]...), 0
		}
		b.conts = append(b.conts, memContainer{k, bs})
	}
	list := b.conts[lo:len(b.conts):len(b.conts)]
	if !sorted {
		sort.Slice(list, func(i, j int) bool { return list[i].name < list[j].name })
	}
	return m, list, true
}

func (b *builder) memPodEntry() (PodMemoryEntry, bool) {
	var e PodMemoryEntry
	ok := b.object(memPodFields, 0, func(int) bool {
		var ok bool
		e.MemoryBlocks, ok = b.memBlocks()
		return ok
	})
	return e, ok
}

// memoryData reads the data section of a memory v3 file into the state
// encoding/json builds from it, noting in p what innerSpans notes.
func (b *builder) memoryData(p *preread) (MemoryState, bool) {
	st := MemoryState{MachineState: map[int]*NUMANodeState{}, Entries: map[string]map[string][]Block{}, PodEntries: map[string]PodMemoryEntry{}}
	b.s.refill() // over a feed, the scan starts with nothing read
	ok := b.object(memDataFields, 1<<2-1, func(i int) bool {
		var ok bool
		start := b.s.i
		switch i {
		case 0:
			st.PolicyName, ok = b.memPolicy()
			p.policyStart, p.policyEnd = b.textAt[0], b.textAt[1]
		case 1:
			ok = b.machineState(st.MachineState)
		case 2:
			st.Entries, b.entries, ok = b.memEntries()
		default:
			ok = stringMap(b, st.PodEntries, b.memPodEntry, nil)
		}
		if ok && (i == 1 || i == 2) {
			p.copies[i] = [2]int{start, b.s.i}
		}
		return ok
	})
	b.readAll()
	return st, ok && b.s.atEnd()
}

// memStateReader reads the state of a memory v3 file's data section into
// *st as the section is unescaped, on the scan that notes what the outer
// copy must repeat; *b is the builder that read it (its strings are cut
// from the section's buffer).
func memStateReader(data []byte, b **builder, st *MemoryState) innerReader {
	return func(s *fastScanner, p *preread) bool {
		*b = newBuilder(*s, len(data)-p.start)
		(*b).sizeMem(data[p.start:])
		var ok bool
		*st, ok = (*b).memoryData(p)
		return ok
	}
}

// fastRestoreMemory is restoreMemory for a memory v3 file the fast scan
// reads; false sends Decode down the exact path.
func fastRestoreMemory(data []byte, detect bool) (memRestore, bool) {
	var b *builder
	var st MemoryState
	sec := lendSection()
	c, ok := fastScan(data, KindMemory, detect, sec.buf(), memStateReader(data, &b, &st))
	if !ok {
		sec.giveBack(sec.buf()) // nothing reads it after a failed scan
		return memRestore{}, false
	}
	o := &c.outer
	policy := string(data[o.policy.s:o.policy.e])
	hint := c.schemaHint(KindMemory)
	if !b.offSchema && c.outerOnSchema() && (policy == "None" || policy == "Static") {
		hint.clean = []Format{FormatV3}
	}
	// the outer copy as the older readers hold it: the data section's
	// machine state and entries, byte for byte
	// v1 and v2 render the same head: it is hashed once
	p := newPrinter()
	p.memHead(policy, st.MachineState, b.entries, false)
	q := p
	if p.text != nil { // a test captures the texts: render them apart
		q = newPrinter()
		q.memHead(policy, st.MachineState, b.entries, false)
	}
	p.s(" Checksum:(checksum.Checksum)0}")
	v1sum := p.sum()
	q.s(" PodEntries:(state.PodMemoryAssignments)")
	q.memPodEntries(map[string]PodMemoryEntry{})
	q.s(" Checksum:(checksum.Checksum)0}")
	v2sum := q.sum()
	ls := []Layout{
		{Name: layoutMemV3, Stored: c.dataChecksum, Computed: c.sum, Era: eraMemV3},
		{Name: layoutMemOuter, Stored: o.checksum, Computed: v1sum, Era: eraMemOuter},
		{Name: layoutMemV1, Stored: o.checksum, Computed: v1sum, Era: eraMemV1},
		{Name: layoutMemV2, Stored: o.checksum, Computed: v2sum, Era: eraMemV2},
	}
	for i := range ls {
		ls[i].Matched = ls[i].Stored == ls[i].Computed
	}
	r := memRestore{data: st, format: FormatV3, hint: hint, entries: b.entries, done: func() { sec.giveBack(c.buf) }}
	r.checksum = ChecksumReport{Stored: c.dataChecksum, Valid: true, Layouts: ls}
	r.checksum.finish()
	return r, true
}

// --- cpu v4 ---

// podSets reads pod → container → cpuset (val reads each cpuset) into a
// list in Go string order, giving up on a repeated pod or container.
func (b *builder) podSets(val func() (string, bool)) ([]cpuPodSets, bool) {
	s := &b.s
	if !s.objOpen() {
		return nil, false
	}
	pods := make([]cpuPodSets, 0, 8)
	sorted := true
	for first := true; ; first = false {
		k, done, ok := b.key(first)
		if !ok {
			return nil, false
		}
		if done {
			break
		}
		sets, ok := b.namedSets(val)
		if !ok {
			return nil, false
		}
		if n := len(pods); n > 0 && pods[n-1].pod >= k {
			sorted = false
		}
		pods = append(pods, cpuPodSets{k, sets})
	}
	if !sorted && !sortUnique(pods, func(p cpuPodSets) string { return p.pod }) {
		return nil, false
	}
	return pods, true
}

// sortUnique sorts a list read out of order by key (Go string order) and
// reports whether no key repeats.
func sortUnique[T any](l []T, key func(T) string) bool {
	sort.Slice(l, func(i, j int) bool { return key(l[i]) < key(l[j]) })
	for i := 1; i < len(l); i++ {
		if key(l[i]) == key(l[i-1]) {
			return false
		}
	}
	return true
}

// namedSets reads one pod's container → cpuset, in Go string order, cut
// from the builder's arena.
func (b *builder) namedSets(val func() (string, bool)) ([]cpuNamed, bool) {
	s := &b.s
	if !s.objOpen() {
		return nil, false
	}
	if b.named == nil {
		// a kubelet's entry takes some 40 bytes; append grows it past that
		b.named = make([]cpuNamed, 0, b.size/40+8)
	}
	lo := len(b.named)
	sorted := true
	for first := true; ; first = false {
		k, done, ok := b.key(first)
		if !ok {
			return nil, false
		}
		if done {
			break
		}
		t, ok := val()
		if !ok {
			return nil, false
		}
		if n := len(b.named); n > lo && b.named[n-1].name >= k {
			sorted = false
		}
		b.named = append(b.named, cpuNamed{k, t})
	}
	sets := b.named[lo:len(b.named):len(b.named)]
	if !sorted && !sortUnique(sets, func(c cpuNamed) string { return c.name }) {
		return nil, false
	}
	return sets, true
}

func (b *builder) cpuPodEntry() (cpuPodEntry, bool) {
	var e cpuPodEntry
	ok := b.object(cpuPodEntryFields, 0, func(int) bool {
		var ok bool
		e.text, ok = b.chargedCPUSet()
		return ok
	})
	e.decoded = true
	return e, ok
}

// baseline reads a container's baseline ({"baseline": cpuset}).
func (b *builder) baseline() (string, bool) {
	var t string
	ok := b.object(cpuBaselineFields, 1, func(int) bool {
		var ok bool
		t, ok = b.cpuset()
		return ok
	})
	return t, ok
}

// cpuPolicy and memPolicy read a policy name, noting one outside the
// schema's enum.
func (b *builder) cpuPolicy() (string, bool) {
	t, ok := b.text()
	if ok && t != "none" && t != "static" {
		b.offSchema = true
	}
	return t, ok
}

func (b *builder) memPolicy() (string, bool) {
	t, ok := b.text()
	if ok && t != "None" && t != "Static" {
		b.offSchema = true
	}
	return t, ok
}

// cpuData reads the data section of a cpu v4 file into the struct
// encoding/json builds from it.
//
// It notes in p what innerSpans notes (see memoryData), and checks what
// that scan checks: the cpusets cpuset.Parse must accept (the default set,
// the entries' and the pod entries'; baselines are any string) and the
// CPUs they count against MaxFileCPUs.
func (b *builder) cpuData(p *preread) (cpuCheckpointData, bool) {
	d := cpuCheckpointData{PodEntries: map[string]cpuPodEntry{}, listed: true}
	b.s.refill() // over a feed, the scan starts with nothing read
	ok := b.object(cpuDataFields, 1<<2-1, func(i int) bool {
		var ok bool
		start := b.s.i
		switch i {
		case 0:
			d.PolicyName, ok = b.cpuPolicy()
			p.policyStart, p.policyEnd = b.textAt[0], b.textAt[1]
		case 1:
			d.DefaultCPUSet, ok = b.chargedCPUSet()
		case 2:
			d.entryList, ok = b.podSets(b.chargedCPUSet)
		case 3:
			ok = stringMap(b, d.PodEntries, b.cpuPodEntry, nil)
		default:
			d.baseList, ok = b.podSets(b.baseline)
		}
		if ok && (i == 1 || i == 2) {
			p.copies[i] = [2]int{start, b.s.i}
		}
		return ok
	})
	b.readAll()
	return d, ok && b.s.atEnd()
}

// chargedCPUSet is cpuset for a set the kubelet parses when it reads the
// file: it must parse, and its CPUs count against MaxFileCPUs.
func (b *builder) chargedCPUSet() (string, bool) {
	t, ok := b.cpuset()
	return t, ok && b.s.chargeCPUs(b.s.b[b.textAt[0]:b.textAt[1]])
}

// readAll waits, over a feed, for the whole section, so that the check for
// its end sees the end.
func (b *builder) readAll() {
	if s := &b.s; s.feed != nil && !s.final {
		s.b, s.final = s.feed.upTo(math.MaxInt)
	}
}

// cpuStateReader is memStateReader for a cpu v4 file.
func cpuStateReader(data []byte, b **builder, d *cpuCheckpointData) innerReader {
	return func(s *fastScanner, p *preread) bool {
		*b = newBuilder(*s, len(data)-p.start)
		var ok bool
		*d, ok = (*b).cpuData(p)
		return ok
	}
}

// fastRestoreCPU is restoreCPU for a cpu v4 file the fast scan reads;
// false sends Decode down the exact path.
func fastRestoreCPU(data []byte, detect bool) (cpuRestore, bool) {
	var b *builder
	var d cpuCheckpointData
	sec := lendSection()
	c, ok := fastScan(data, KindCPU, detect, sec.buf(), cpuStateReader(data, &b, &d))
	if !ok {
		sec.giveBack(sec.buf()) // nothing reads it after a failed scan
		return cpuRestore{}, false
	}
	o := &c.outer
	policy := string(data[o.policy.s:o.policy.e])
	hint := c.schemaHint(KindCPU)
	if !b.offSchema && c.outerOnSchema() && (policy == "none" || policy == "static") {
		hint.clean = []Format{FormatV4}
	}
	// the outer copy: the data section's default set and entries, byte
	// for byte, and no podEntries
	v2sum, v2raw, v3sum, v3raw := cpuOuterSums(policy, d.DefaultCPUSet, d.entryList)
	ls := []Layout{
		{Name: layoutCPUV4, Stored: c.dataChecksum, Computed: c.sum, Era: eraCPUV4},
		{Name: layoutCPUOut, Stored: o.checksum, Computed: v2sum, Era: eraCPUV4Out},
		{Name: layoutCPUV2, Stored: o.checksum, Computed: v2sum, Era: eraCPUV2},
		{Name: layoutCPUV2Raw, Stored: o.checksum, Computed: v2raw, Era: eraCPUV2Raw},
		{Name: layoutCPUV3, Stored: o.checksum, Computed: v3sum, Era: eraCPUV3},
		{Name: layoutCPUV3Raw, Stored: o.checksum, Computed: v3raw, Era: eraCPUV3Raw},
	}
	if len(d.entryList) == 0 {
		// the v1 reader (entries of strings) reads an outer copy without pods
		ls = append(ls, Layout{Name: layoutCPUV1, Stored: o.checksum, Computed: cpuV1Sum(policy, d.DefaultCPUSet, map[string]string{}), Era: eraCPUV1})
	}
	for i := range ls {
		ls[i].Matched = ls[i].Stored == ls[i].Computed
	}
	r := cpuRestore{data: d, format: FormatV4, outerPolicy: policy, outerDefault: d.DefaultCPUSet, outerRead: true, hint: hint, done: func() { sec.giveBack(c.buf) }}
	r.checksum = ChecksumReport{Stored: c.dataChecksum, Valid: true, Layouts: ls}
	r.checksum.finish()
	return r, true
}

// schemaHint is what the fast path knows that spares the schema check work:
// the unescaped data section, and the members of the outer copy that are
// the data section's byte for byte.
type schemaHint struct {
	inner  []byte
	copies [][3]int // name index into copyNames, start and end in the file
	// clean lists the formats whose schemas the file was proven to meet
	// as it was read: the schema walk would find nothing (see
	// builder.offSchema; TestSchemaCleanMeansNoProblems holds the two
	// together)
	clean []Format
}

// outerOnSchema reports whether the members of the outer copy of a cpu v4
// or memory v3 file meet its schema (cpu-v4.json, memory-v3.json), given a
// data section that meets its own: every required member is there, each
// spelled as the schema spells it, with the value type the scan checked;
// the members it repeats are the data section's byte for byte, checked
// there against the same definitions. The policy's enum is left to the
// caller.
func (c *fastCapture) outerOnSchema() bool {
	const required = 1<<0 | 1<<1 | 1<<3 | 1<<4 | 1<<5 // all but entries
	o := &c.outer
	if o.folded || o.unknown || o.policyEsc || o.seen&required != required {
		return false
	}
	for j := 1; j <= 2; j++ {
		if o.present[j] && !o.copied[j] {
			return false
		}
	}
	return true
}

func (c *fastCapture) schemaHint(kind Kind) *schemaHint {
	h := &schemaHint{inner: c.buf}
	for j := 1; j <= 2; j++ {
		if c.outer.copied[j] {
			h.copies = append(h.copies, [3]int{j, c.outer.spans[j][0], c.outer.spans[j][1]})
		}
	}
	return h
}

// --- the spew-era layouts (memory v1/v2, cpu v2) ---

// The builders read these files whole: they check each value against the
// kubelet's Go types as they go (strictly: anything else gives up), so a
// file they read is one encoding/json reads into the same values.

var (
	memFileFields = []string{"policyName", "machineState", "entries", "podEntries", "checksum"}
	cpuFileFields = []string{"policyName", "defaultCpuSet", "entries", "checksum"}
)

// fastRestoreMemorySpew is restoreMemory for a memory v1 or v2 file.
func fastRestoreMemorySpew(data []byte, detect bool) (memRestore, bool) {
	b := newMemBuilder(data)
	st := MemoryState{MachineState: map[int]*NUMANodeState{}, Entries: map[string]map[string][]Block{}, PodEntries: map[string]PodMemoryEntry{}}
	var checksum uint64
	var hasMachine, hasPods bool
	ok := b.object(memFileFields, 1<<0|1<<1|1<<4, func(i int) bool {
		var ok bool
		switch i {
		case 0:
			st.PolicyName, ok = b.memPolicy()
		case 1:
			hasMachine, ok = true, b.machineState(st.MachineState)
		case 2:
			st.Entries, b.entries, ok = b.memEntries()
		case 3:
			hasPods, ok = true, stringMap(b, st.PodEntries, b.memPodEntry, nil)
		default:
			checksum, ok = b.s.typedUint64()
		}
		return ok
	})
	if !ok || !b.s.atEnd() || detect && !hasMachine {
		return memRestore{}, false
	}
	var hint *schemaHint
	if !b.offSchema {
		// memory-v1.json has no podEntries, memory-v2.json has them
		hint = &schemaHint{clean: []Format{FormatV2}}
		if !hasPods {
			hint.clean = append(hint.clean, FormatV1)
		}
	}
	p := newPrinter()
	p.memHead(st.PolicyName, st.MachineState, b.entries, false)
	q := p
	if p.text != nil {
		q = newPrinter()
		q.memHead(st.PolicyName, st.MachineState, b.entries, false)
	}
	p.s(" Checksum:(checksum.Checksum)0}")
	v1sum := p.sum()
	q.s(" PodEntries:(state.PodMemoryAssignments)")
	q.memPodEntries(st.PodEntries)
	q.s(" Checksum:(checksum.Checksum)0}")
	v2sum := q.sum()
	r := memRestore{format: FormatV1, hint: hint, entries: b.entries}
	if hasPods {
		r.format = FormatV2
	}
	r.checksum.Layouts = []Layout{
		{Name: layoutMemV1, Stored: checksum, Computed: v1sum, Matched: checksum == v1sum, Era: eraMemV1},
		{Name: layoutMemV2, Stored: checksum, Computed: v2sum, Matched: checksum == v2sum, Era: eraMemV2},
	}
	r.checksum.Stored = checksum
	if checksum == v2sum {
		r.data, r.format = st, FormatV2
		r.checksum.Valid = true
		r.checksum.finish()
		return r, true
	}
	// the v1 reader: no podEntries
	r.data = MemoryState{PolicyName: st.PolicyName, MachineState: st.MachineState, Entries: st.Entries}
	zero := checksum == 0
	if !zero && checksum != v1sum {
		r.err = errCorrupt
		r.checksum.finish()
		return r, true
	}
	r.checksum.Valid, r.checksum.ZeroSkipped = true, zero
	r.checksum.finish()
	if zero {
		r.checksum.Era = eraMemZero
		if r.format == FormatV2 {
			r.checksum.Valid, r.checksum.Era = false, eraMemZeroV2
			r.zeroFallback = len(st.PodEntries)
		}
	}
	return r, true
}

// fastRestoreCPUSpew is restoreCPU for a cpu v2 file (entries of pods, no
// podEntries).
func fastRestoreCPUSpew(data []byte, detect bool) (cpuRestore, bool) {
	b := newBuilder(fastScanner{b: data}, len(data))
	var policy, def string
	var entries []cpuPodSets
	var checksum uint64
	var hasDefault bool
	ok := b.object(cpuFileFields, 1<<0|1<<1|1<<3, func(i int) bool {
		var ok bool
		switch i {
		case 0:
			policy, ok = b.cpuPolicy()
		case 1:
			def, ok = b.cpuset()
			hasDefault = true
		case 2:
			entries, ok = b.podSets(b.cpuset)
		default:
			checksum, ok = b.s.typedUint64()
		}
		return ok
	})
	if !ok || !b.s.atEnd() || detect && !hasDefault {
		return cpuRestore{}, false
	}
	var hint *schemaHint
	if !b.offSchema {
		// cpu-v2.json, and cpu-v3.json (v2 and optional podEntries)
		hint = &schemaHint{clean: []Format{FormatV2, FormatV3}}
	}
	v2sum, v2raw, v3sum, v3raw := cpuOuterSums(policy, def, entries)
	ls := []Layout{
		{Name: layoutCPUV2, Stored: checksum, Computed: v2sum, Era: eraCPUV2},
		{Name: layoutCPUV2Raw, Stored: checksum, Computed: v2raw, Era: eraCPUV2Raw},
		{Name: layoutCPUV3, Stored: checksum, Computed: v3sum, Era: eraCPUV3},
		{Name: layoutCPUV3Raw, Stored: checksum, Computed: v3raw, Era: eraCPUV3Raw},
	}
	if len(entries) == 0 {
		ls = append(ls, Layout{Name: layoutCPUV1, Stored: checksum, Computed: cpuV1Sum(policy, def, map[string]string{}), Era: eraCPUV1})
	}
	for i := range ls {
		ls[i].Matched = ls[i].Stored == ls[i].Computed
	}
	r := cpuRestore{hint: hint}
	r.checksum.Layouts = ls
	r.checksum.Stored = checksum
	data2 := cpuCheckpointData{PolicyName: policy, DefaultCPUSet: def, entryList: entries, PodEntries: map[string]cpuPodEntry{}, listed: true}
	if checksum == v3raw || checksum == v3sum {
		r.format, r.data = FormatV3, data2
		r.checksum.Valid = true
		r.checksum.finish()
		return r, true
	}
	r.format = FormatV2
	if checksum != 0 && checksum != v2raw && checksum != v2sum {
		// the kubelet loads nothing; the state shows what the file records
		r.err, r.data = errCorrupt, data2
		r.checksum.finish()
		return r, true
	}
	r.checksum.Valid = true
	r.checksum.ZeroSkipped = checksum == 0
	r.data = data2
	r.checksum.finish()
	if r.checksum.ZeroSkipped {
		r.checksum.Era = eraCPUZero
	}
	return r, true
}

// cpuOuterSums computes the v2 and v3 layouts (each under both type names)
// of a cpu checkpoint without podEntries, rendering its entries once into
// the three hashes of the type names.
func cpuOuterSums(policy, def string, entries []cpuPodSets) (v2, v2raw, v3, v3raw uint64) {
	if captureText != nil { // a test captures the texts: render each apart
		m := map[string]map[string]string{}
		for _, p := range entries {
			cs := map[string]string{}
			for _, c := range p.sets {
				cs[c.name] = c.text
			}
			m[p.pod] = cs
		}
		v3c := &cpuCheckpointV3{PolicyName: policy, DefaultCPUSet: def, Entries: m, PodEntries: map[string]cpuPodEntry{}}
		return cpuV2Sum("CPUManagerCheckpoint", policy, def, m), cpuV2Sum("CPUManagerCheckpointV2", policy, def, m),
			cpuV3Sum("CPUManagerCheckpoint", v3c), cpuV3Sum("CPUManagerCheckpointV3", v3c)
	}
	// the heads differ in the type name only
	var h fnv3
	for i, name := range [3]string{"CPUManagerCheckpoint", "CPUManagerCheckpointV2", "CPUManagerCheckpointV3"} {
		h[i] = fnvAdd(fnvAdd(fnvOffset32, "(*state."), name)
	}
	h.s("){PolicyName:(string)")
	h.s(policy)
	h.s(" DefaultCPUSet:(string)")
	h.s(def)
	h.s(" Entries:(map[string]map[string]string)map[")
	for i, p := range entries {
		if i > 0 {
			h.c(' ')
		}
		h.s(p.pod)
		h.s(":map[")
		for j, c := range p.sets {
			if j > 0 {
				h.c(' ')
			}
			h.s(c.name)
			h.c(':')
			h.s(c.text)
		}
		h.c(']')
	}
	h.c(']')
	const v2tail, v3tail = " Checksum:(checksum.Checksum)0}", " PodEntries:(state.PodCPUAssignments)map[] Checksum:(checksum.Checksum)0}"
	return uint64(fnvAdd(h[0], v2tail)), uint64(fnvAdd(h[1], v2tail)), uint64(fnvAdd(h[0], v3tail)), uint64(fnvAdd(h[2], v3tail))
}

// fnv3 is three FNV-32a hashes fed the same bytes (their heads differ):
// one pass over the text, the three chains side by side.
type fnv3 [3]uint32

func (h *fnv3) s(v string) {
	a, b, c := h[0], h[1], h[2]
	for i := 0; i < len(v); i++ {
		x := uint32(v[i])
		a = (a ^ x) * fnvPrime32
		b = (b ^ x) * fnvPrime32
		c = (c ^ x) * fnvPrime32
	}
	h[0], h[1], h[2] = a, b, c
}

func (h *fnv3) c(x byte) {
	for i := range h {
		h[i] = (h[i] ^ uint32(x)) * fnvPrime32
	}
}
