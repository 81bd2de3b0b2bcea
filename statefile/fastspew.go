package statefile

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// The fast path of Verify for the spew-checksum formats (memory v1/v2, cpu
// v2/v3): one pass records the values into a flat, pooled arena of spans and
// numbers, map keys are sorted by index, and the go-spew text is rendered
// from the arena straight into FNV-32a. Like verifyFast it only answers
// "accepted" and gives up on anything unusual: escapes or invalid UTF-8 in
// hashed strings, null, repeated keys (encoding/json's last-one-wins and map
// merging), a zero checksum, a data section.

type span struct{ s, e int32 }
type rng struct{ lo, hi int32 }

type fTable struct {
	name span
	v    [5]uint64
}

type fNode struct {
	id, assignments int64
	memMap, cells   rng
	hasMap, hasCell bool
}

type fBlock struct {
	aff    rng
	hasAff bool
	typ    span
	size   uint64
}

type fCtr struct {
	name   span
	blocks rng
}

type fPod struct {
	uid  span
	ctrs rng
}

type fKV struct{ k, v span }

type fCPUPod struct {
	uid  span
	ctrs rng // into kvs
}

type fCPUPodEntry struct {
	uid  span
	cpus rng // into ints, sorted and unique
}

type spewArena struct {
	ints       []int64
	tables     []fTable
	nodes      []fNode
	blocks     []fBlock
	ctrs       []fCtr
	pods       []fPod
	podEntries []fCtr // uid in name, blocks
	kvs        []fKV
	cpuPods    []fCPUPod
	cpuEntries []fCPUPodEntry

	policy, defaultSet        span
	hasEntries, hasPodEntries bool
	entries, podEntriesR      rng
	checksum                  uint64
	hasChecksum               bool
	// cpus counts the CPUs of the cpusets read, held to MaxFileCPUs as
	// Decode holds a file
	cpus int64
}

var arenaPool = sync.Pool{New: func() any { return new(spewArena) }}

func (a *spewArena) reset() {
	*a = spewArena{ints: a.ints[:0], tables: a.tables[:0], nodes: a.nodes[:0], blocks: a.blocks[:0], ctrs: a.ctrs[:0],
		pods: a.pods[:0], podEntries: a.podEntries[:0], kvs: a.kvs[:0], cpuPods: a.cpuPods[:0], cpuEntries: a.cpuEntries[:0]}
}

// hashedString scans a string whose bytes are hashed: no escapes, valid UTF-8.
func (s *fastScanner) hashedString() (span, bool) {
	start, end, esc, ok := s.typedString()
	if !ok || esc || !isASCII(s.b[start:end]) && !utf8.Valid(s.b[start:end]) {
		return span{}, false
	}
	return span{int32(start), int32(end)}, true
}

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

func (s *fastScanner) parsedInt() (int64, bool) { return s.parsedIntFast() }

func (s *fastScanner) intList(a *spewArena) (rng, bool) {
	lo := int32(len(a.ints))
	ok := s.elements(func() bool {
		v, ok := s.parsedInt()
		a.ints = append(a.ints, v)
		return ok
	})
	return rng{lo, int32(len(a.ints))}, ok
}

func (s *fastScanner) spewMemTable(a *spewArena, name span) bool {
	t := fTable{name: name}
	ok := s.fields(memTableFields, func(i int) (ok bool) {
		t.v[i], ok = s.typedUint64()
		return ok
	})
	a.tables = append(a.tables, t)
	return ok
}

func (s *fastScanner) spewMemNode(a *spewArena, id int64) bool {
	n := fNode{id: id}
	ok := s.fields(memNodeFields, func(i int) (ok bool) {
		switch i {
		case 0:
			n.assignments, ok = s.parsedInt()
		case 1:
			n.hasMap = true
			lo := int32(len(a.tables))
			ok = s.members(func(ks, ke int) bool {
				return utf8.Valid(s.b[ks:ke]) && s.spewMemTable(a, span{int32(ks), int32(ke)})
			})
			n.memMap = rng{lo, int32(len(a.tables))}
		default:
			n.hasCell = true
			n.cells, ok = s.intList(a)
		}
		return ok
	})
	a.nodes = append(a.nodes, n)
	return ok
}

func (s *fastScanner) spewMachine(a *spewArena) bool {
	return s.members(func(ks, ke int) bool {
		id, err := strconv.ParseInt(unsafeString(s.b[ks:ke]), 10, strconv.IntSize)
		return err == nil && s.spewMemNode(a, id)
	})
}

func (s *fastScanner) spewBlocks(a *spewArena) (rng, bool) {
	// nested lists (numaAffinity) go to a.ints, so the blocks of one
	// container stay contiguous in a.blocks
	lo := int32(len(a.blocks))
	ok := s.elements(func() bool {
		if s.memBlockCompact(a) {
			return true
		}
		var b fBlock
		ok := s.fields(memBlockFields, func(i int) (ok bool) {
			switch i {
			case 0:
				b.hasAff = true
				b.aff, ok = s.intList(a)
			case 1:
				b.typ, ok = s.hashedString()
			default:
				b.size, ok = s.typedUint64()
			}
			return ok
		})
		a.blocks = append(a.blocks, b)
		return ok
	})
	return rng{lo, int32(len(a.blocks))}, ok
}

func (s *fastScanner) spewMemEntries(a *spewArena) bool {
	lo := int32(len(a.pods))
	ok := s.members(func(ks, ke int) bool {
		if !utf8.Valid(s.b[ks:ke]) {
			return false
		}
		clo := int32(len(a.ctrs))
		ok := s.members(func(ks2, ke2 int) bool {
			br, ok := s.spewBlocks(a)
			a.ctrs = append(a.ctrs, fCtr{name: span{int32(ks2), int32(ke2)}, blocks: br})
			return ok && utf8.Valid(s.b[ks2:ke2])
		})
		a.pods = append(a.pods, fPod{uid: span{int32(ks), int32(ke)}, ctrs: rng{clo, int32(len(a.ctrs))}})
		return ok
	})
	a.entries = rng{lo, int32(len(a.pods))}
	return ok
}

func (s *fastScanner) spewMemPodEntries(a *spewArena) bool {
	lo := int32(len(a.podEntries))
	ok := s.members(func(ks, ke int) bool {
		e := fCtr{name: span{int32(ks), int32(ke)}, blocks: rng{-1, -1}}
		ok := utf8.Valid(s.b[ks:ke]) && s.fields(memPodFields, func(int) (ok bool) {
			e.blocks, ok = s.spewBlocks(a)
			return ok
		})
		a.podEntries = append(a.podEntries, e)
		return ok
	})
	a.podEntriesR = rng{lo, int32(len(a.podEntries))}
	return ok
}

var memSpewFields = []string{"policyName", "machineState", "entries", "podEntries", "checksum", "data", "dataChecksum"}

func (s *fastScanner) spewMemFile(a *spewArena) bool {
	return s.fields(memSpewFields, func(i int) (ok bool) {
		switch i {
		case 5, 6: // a data section: not a spew layout
			return false
		case 0:
			a.policy, ok = s.hashedString()
		case 1:
			ok = s.spewMachine(a)
		case 2:
			a.hasEntries = true
			ok = s.spewMemEntries(a)
		case 3:
			a.hasPodEntries = true
			ok = s.spewMemPodEntries(a)
		default:
			a.hasChecksum = true
			a.checksum, ok = s.typedUint64()
		}
		return ok
	}) && s.atEnd()
}

// cmpSpan orders spans by their bytes (Go string order).
func cmpSpan(b []byte, x, y span) int { return bytes.Compare(b[x.s:x.e], b[y.s:y.e]) }

func eqSpan(b []byte, x, y span) bool { return bytes.Equal(b[x.s:x.e], b[y.s:y.e]) }

// sortMemory sorts every map of the arena by key and reports false on a
// repeated key.
func (a *spewArena) sortMemory(b []byte) bool {
	slices.SortFunc(a.nodes, func(x, y fNode) int {
		switch {
		case x.id < y.id:
			return -1
		case x.id > y.id:
			return 1
		}
		return 0
	})
	for i := range a.nodes {
		if i > 0 && a.nodes[i].id == a.nodes[i-1].id {
			return false
		}
		t := a.tables[a.nodes[i].memMap.lo:a.nodes[i].memMap.hi]
		if !sortedUnique(b, t, func(x fTable) span { return x.name }) {
			return false
		}
	}
	pods := a.pods[a.entries.lo:a.entries.hi]
	if !sortedUnique(b, pods, func(x fPod) span { return x.uid }) {
		return false
	}
	for i := range pods {
		if !sortedUnique(b, a.ctrs[pods[i].ctrs.lo:pods[i].ctrs.hi], ctrName) {
			return false
		}
	}
	return sortedUnique(b, a.podEntries[a.podEntriesR.lo:a.podEntriesR.hi], ctrName)
}

func ctrName(x fCtr) span { return x.name }

// sortedUnique sorts s by the bytes of each element's key and reports whether
// the keys are all distinct; the fast path leaves duplicate keys, which
// encoding/json merges, to the slow path.
func sortedUnique[T any](b []byte, s []T, key func(T) span) bool {
	slices.SortFunc(s, func(x, y T) int { return cmpSpan(b, key(x), key(y)) })
	for j := 1; j < len(s); j++ {
		if eqSpan(b, key(s[j]), key(s[j-1])) {
			return false
		}
	}
	return true
}

func (p *printer) span(b []byte, x span) { p.b(b[x.s:x.e]) }

func (p *printer) ints(a *spewArena, r rng, present bool) {
	if !present {
		p.s("<nil>")
		return
	}
	p.c('[')
	for i, v := range a.ints[r.lo:r.hi] {
		if i > 0 {
			p.c(' ')
		}
		p.i(v)
	}
	p.c(']')
}

// arenaBlocks renders []Block. Each block's text is put together on the
// stack and hashed in one call: the hash chain then runs on without the
// stops of a call per piece.
func (p *printer) arenaBlocks(a *spewArena, b []byte, r rng) {
	var buf [128]byte
	t := append(buf[:0], '[')
	for i, blk := range a.blocks[r.lo:r.hi] {
		if i > 0 {
			t = append(t, ' ')
		}
		t = append(t, "{NUMAAffinity:([]int)"...)
		if !blk.hasAff {
			t = append(t, "<nil>"...)
		} else {
			t = append(t, '[')
			for j, v := range a.ints[blk.aff.lo:blk.aff.hi] {
				if j > 0 {
					t = append(t, ' ')
				}
				if len(t) > len(buf)-24 {
					p.b(t)
					t = buf[:0]
				}
				t = strconv.AppendInt(t, v, 10)
			}
			t = append(t, ']')
		}
		t = append(t, " Type:(v1.ResourceName)"...)
		p.b(t)
		p.span(b, blk.typ)
		t = append(buf[:0], " Size:(uint64)"...)
		t = strconv.AppendUint(t, blk.size, 10)
		t = append(t, '}')
	}
	p.b(append(t, ']'))
}

// memSums renders the v1 and v2 (with podEntries) layouts from the arena
// and returns their checksums. The two texts are the same up to the end of
// the entries, so that part is rendered and hashed once. The maps are never
// nil: the kubelet's constructors make them and null is not accepted here.
func (a *spewArena) memSums(b []byte) (v1, v2 uint64) {
	p := newPrinter()
	p.s("(*state.MemoryManagerCheckpoint){PolicyName:(string)")
	p.span(b, a.policy)
	p.s(" MachineState:(state.NUMANodeMap)map[")
	for i, n := range a.nodes {
		if i > 0 {
			p.c(' ')
		}
		p.i(n.id)
		p.s(":<*>{NumberOfAssignments:(int)")
		p.i(n.assignments)
		p.s(" MemoryMap:(map[v1.ResourceName]*state.MemoryTable)")
		if !n.hasMap {
			p.s("<nil>")
		} else {
			p.s("map[")
			for j, t := range a.tables[n.memMap.lo:n.memMap.hi] {
				if j > 0 {
					p.c(' ')
				}
				p.span(b, t.name)
				p.s(":<*>{TotalMemSize:(uint64)")
				p.u(t.v[0])
				p.s(" SystemReserved:(uint64)")
				p.u(t.v[1])
				p.s(" Allocatable:(uint64)")
				p.u(t.v[2])
				p.s(" Reserved:(uint64)")
				p.u(t.v[3])
				p.s(" Free:(uint64)")
				p.u(t.v[4])
				p.c('}')
			}
			p.c(']')
		}
		p.s(" Cells:([]int)")
		p.ints(a, n.cells, n.hasCell)
		p.c('}')
	}
	p.s("] Entries:(state.ContainerMemoryAssignments)map[")
	for i, pod := range a.pods[a.entries.lo:a.entries.hi] {
		if i > 0 {
			p.c(' ')
		}
		p.span(b, pod.uid)
		p.s(":map[")
		for j, c := range a.ctrs[pod.ctrs.lo:pod.ctrs.hi] {
			if j > 0 {
				p.c(' ')
			}
			p.span(b, c.name)
			p.c(':')
			p.arenaBlocks(a, b, c.blocks)
		}
		p.c(']')
	}
	p.c(']')
	p1 := p
	p1.text = nil // a test's captured text follows the v2 layout
	p1.s(" Checksum:(checksum.Checksum)0}")
	p.s(" PodEntries:(state.PodMemoryAssignments)map[")
	for i, e := range a.podEntries[a.podEntriesR.lo:a.podEntriesR.hi] {
		if i > 0 {
			p.c(' ')
		}
		p.span(b, e.name)
		p.s(":{MemoryBlocks:([]state.Block)")
		if e.blocks.lo < 0 {
			p.s("<nil>")
		} else {
			p.arenaBlocks(a, b, e.blocks)
		}
		p.c('}')
	}
	p.c(']')
	p.s(" Checksum:(checksum.Checksum)0}")
	return p1.sum(), p.sum()
}

// verifyFastSpew answers for memory v1/v2 and cpu v2/v3 files the kubelet accepts.
func verifyFastSpew(data []byte, opts Options) (*Verdict, bool) {
	a := arenaPool.Get().(*spewArena)
	defer arenaPool.Put(a)
	a.reset()
	s := fastScanner{b: data}
	if opts.Kind == KindMemory {
		if !s.spewMemFile(a) || !a.hasChecksum || a.checksum == 0 || !a.sortMemory(data) {
			return nil, false
		}
		policy := string(data[a.policy.s:a.policy.e])
		if opts.Policy != "" && opts.Policy != policy {
			return nil, false
		}
		// the kubelet tries v2 first, then v1
		var layout, era string
		var format Format
		v1, v2 := a.memSums(data)
		if v2 == a.checksum {
			layout, era, format = layoutMemV2, eraMemV2, FormatV2
		} else if !a.hasPodEntries && v1 == a.checksum {
			layout, era, format = layoutMemV1, eraMemV1, FormatV1
		} else {
			return nil, false
		}
		return fastVerdict(opts.Kind, format, layout, era, a.checksum), true
	}
	return verifyFastSpewCPU(data, opts, a)
}

func fastVerdict(kind Kind, format Format, layout, era string, sum uint64) *Verdict {
	return &Verdict{Kind: kind, Format: format, KubeletAccepts: true,
		Checksum: ChecksumReport{Stored: sum, Valid: true, Matched: layout, Era: era,
			Layouts: []Layout{{Name: layout, Stored: sum, Computed: sum, Matched: true, Era: era}}}}
}

var cpuSpewFields = []string{"policyName", "defaultCpuSet", "entries", "podEntries", "checksum", "data", "dataChecksum"}

// chargeCPUs checks a cpuset and counts its CPUs; it fails when the file
// goes over MaxFileCPUs (Decode then tells why).
func (a *spewArena) chargeCPUs(set []byte) bool {
	n, ok := cpuSetCPUs(set)
	a.cpus += n
	return ok && a.cpus <= MaxFileCPUs
}

// cpusetElems appends the sorted, unique CPUs of a valid cpuset string.
func (a *spewArena) cpusetElems(str []byte) (rng, bool) {
	lo := int32(len(a.ints))
	for len(str) > 0 {
		comma := indexByte(str, ',')
		elem := str
		if comma >= 0 {
			elem = str[:comma]
		}
		from, to := int64(0), int64(0)
		if dash := indexByte(elem, '-'); dash < 0 {
			from, _ = atoi(elem)
			to = from
		} else {
			from, _ = atoi(elem[:dash])
			to, _ = atoi(elem[dash+1:])
		}
		if to-from > maxCPURange || int64(len(a.ints))-int64(lo)+to-from > maxCPURange {
			return rng{}, false
		}
		for c := from; c <= to; c++ {
			a.ints = append(a.ints, c)
		}
		if comma < 0 {
			break
		}
		str = str[comma+1:]
	}
	cpus := a.ints[lo:]
	slices.Sort(cpus)
	cpus = slices.Compact(cpus)
	a.ints = a.ints[:int(lo)+len(cpus)]
	return rng{lo, int32(len(a.ints))}, true
}

func (s *fastScanner) spewCPUFile(a *spewArena) bool {
	return s.fields(cpuSpewFields, func(i int) (ok bool) {
		switch i {
		case 5, 6: // a data section: not a spew layout
			return false
		case 0:
			a.policy, ok = s.hashedString()
		case 1:
			a.defaultSet, ok = s.hashedString()
			ok = ok && a.chargeCPUs(s.b[a.defaultSet.s:a.defaultSet.e])
		case 2:
			a.hasEntries = true
			ok = s.spewCPUEntries(a)
		case 3:
			a.hasPodEntries = true
			ok = s.spewCPUPodEntries(a)
		default:
			a.hasChecksum = true
			a.checksum, ok = s.typedUint64()
		}
		return ok
	}) && s.atEnd()
}

func (s *fastScanner) spewCPUEntries(a *spewArena) bool {
	lo := int32(len(a.cpuPods))
	ok := s.members(func(ks, ke int) bool {
		clo := int32(len(a.kvs))
		ok := utf8.Valid(s.b[ks:ke]) && s.members(func(ks2, ke2 int) bool {
			v, ok := s.hashedString()
			a.kvs = append(a.kvs, fKV{k: span{int32(ks2), int32(ke2)}, v: v})
			return ok && utf8.Valid(s.b[ks2:ke2]) && a.chargeCPUs(s.b[v.s:v.e])
		})
		a.cpuPods = append(a.cpuPods, fCPUPod{uid: span{int32(ks), int32(ke)}, ctrs: rng{clo, int32(len(a.kvs))}})
		return ok
	})
	a.entries = rng{lo, int32(len(a.cpuPods))}
	return ok
}

func (s *fastScanner) spewCPUPodEntries(a *spewArena) bool {
	lo := int32(len(a.cpuEntries))
	ok := s.members(func(ks, ke int) bool {
		var set span
		ok := utf8.Valid(s.b[ks:ke]) && s.fields(cpuPodEntryFields, func(int) (ok bool) {
			set, ok = s.hashedString()
			return ok && a.chargeCPUs(s.b[set.s:set.e])
		})
		if !ok {
			return false
		}
		cpus, ok := a.cpusetElems(s.b[set.s:set.e])
		a.cpuEntries = append(a.cpuEntries, fCPUPodEntry{uid: span{int32(ks), int32(ke)}, cpus: cpus})
		return ok
	})
	a.podEntriesR = rng{lo, int32(len(a.cpuEntries))}
	return ok
}

func (a *spewArena) sortCPU(b []byte) bool {
	pods := a.cpuPods[a.entries.lo:a.entries.hi]
	if !sortedUnique(b, pods, func(x fCPUPod) span { return x.uid }) {
		return false
	}
	for i := range pods {
		if !sortedUnique(b, a.kvs[pods[i].ctrs.lo:pods[i].ctrs.hi], func(x fKV) span { return x.k }) {
			return false
		}
	}
	return sortedUnique(b, a.cpuEntries[a.podEntriesR.lo:a.podEntriesR.hi], func(x fCPUPodEntry) span { return x.uid })
}

// cpuSums renders the four cpu spew layouts from the arena in one pass and
// returns their checksums: v3 and v2 (v3 with podEntries) under the type
// name the kubelet's restore uses now and under the one it had when it
// wrote them (CPUManagerCheckpointV3, CPUManagerCheckpointV2). The texts
// differ only in that name and in the podEntries member: the lanes of the
// printer start from the three names, and the hash is forked before
// podEntries.
func (a *spewArena) cpuSums(b []byte) (v3raw, v3, v2, v2raw uint64) {
	p := newPrinter()
	p.s("(*state.CPUManagerCheckpoint")
	named := p.h
	p.s("V3") // lane 1 (and the captured text): CPUManagerCheckpointV3
	p.h2, p.h3 = named, fnvAdd(named, "V2")
	p.ls("){PolicyName:(string)")
	p.lb(b[a.policy.s:a.policy.e])
	p.ls(" DefaultCPUSet:(string)")
	p.lb(b[a.defaultSet.s:a.defaultSet.e])
	p.ls(" Entries:(map[string]map[string]string)map[")
	for i, pod := range a.cpuPods[a.entries.lo:a.entries.hi] {
		if i > 0 {
			p.lc(' ')
		}
		p.lb(b[pod.uid.s:pod.uid.e])
		p.ls(":map[")
		for j, kv := range a.kvs[pod.ctrs.lo:pod.ctrs.hi] {
			if j > 0 {
				p.lc(' ')
			}
			p.lb(b[kv.k.s:kv.k.e])
			p.lc(':')
			p.lb(b[kv.v.s:kv.v.e])
		}
		p.lc(']')
	}
	p.lc(']')
	q := p
	q.text = nil // a test's captured text follows lane 1
	q.ls(" Checksum:(checksum.Checksum)0}")
	p.ls(" PodEntries:(state.PodCPUAssignments)map[")
	for i, e := range a.cpuEntries[a.podEntriesR.lo:a.podEntriesR.hi] {
		if i > 0 {
			p.lc(' ')
		}
		p.lb(b[e.uid.s:e.uid.e])
		p.ls(":{CPUSet:(cpuset.CPUSet){elems:(map[int]struct {})map[")
		for j, c := range a.ints[e.cpus.lo:e.cpus.hi] {
			if j > 0 {
				p.lc(' ')
			}
			p.li(c)
			p.ls(":{}")
		}
		p.ls("]}}")
	}
	p.lc(']')
	p.ls(" Checksum:(checksum.Checksum)0}")
	return uint64(p.h), uint64(p.h2), uint64(q.h2), uint64(q.h3)
}

func verifyFastSpewCPU(data []byte, opts Options, a *spewArena) (*Verdict, bool) {
	s := fastScanner{b: data}
	if !s.spewCPUFile(a) || !a.hasChecksum || a.checksum == 0 || !a.sortCPU(data) {
		return nil, false
	}
	policy := string(data[a.policy.s:a.policy.e])
	if opts.Policy != "" && opts.Policy != policy {
		return nil, false
	}
	// restore order: v3 (raw type name, then renamed), then v2 (raw, renamed)
	v3raw, v3, v2, v2raw := a.cpuSums(data)
	switch {
	case v3raw == a.checksum:
		return fastVerdict(KindCPU, FormatV3, layoutCPUV3Raw, eraCPUV3Raw, a.checksum), true
	case v3 == a.checksum:
		return fastVerdict(KindCPU, FormatV3, layoutCPUV3, eraCPUV3, a.checksum), true
	case a.hasPodEntries:
		return nil, false
	case v2 == a.checksum:
		return fastVerdict(KindCPU, FormatV2, layoutCPUV2, eraCPUV2, a.checksum), true
	case v2raw == a.checksum:
		return fastVerdict(KindCPU, FormatV2, layoutCPUV2Raw, eraCPUV2Raw, a.checksum), true
	}
	return nil, false
}

// spewComputed returns what the spew fast path computes for every layout of
// a file it can read (for the differential tests): memory v1, v2; cpu v2,
// v2 raw, v3, v3 raw.
func spewComputed(data []byte, kind Kind) (map[string]uint64, bool) {
	a := new(spewArena)
	s := fastScanner{b: data}
	if kind == KindMemory {
		if !s.spewMemFile(a) || !a.sortMemory(data) {
			return nil, false
		}
		v1, v2 := a.memSums(data)
		return map[string]uint64{layoutMemV1: v1, layoutMemV2: v2}, true
	}
	if !s.spewCPUFile(a) || !a.sortCPU(data) {
		return nil, false
	}
	v3raw, v3, v2, v2raw := a.cpuSums(data)
	return map[string]uint64{layoutCPUV2: v2, layoutCPUV2Raw: v2raw, layoutCPUV3: v3, layoutCPUV3Raw: v3raw}, true
}
