package statefile

import (
	"hash/crc32"
	"sort"
	"strconv"
)

// The kubelet checksums its checkpoints with FNV-32a over a go-spew "%#v"
// rendering (k8s.io/utils/dump.ForHash) of its own Go structs. printer
// reproduces that rendering byte for byte for the handful of types that
// appear in checkpoints and feeds it straight into the hash, so nothing is
// rendered into memory and no reflection is involved.

const (
	fnvOffset32 = 2166136261
	fnvPrime32  = 16777619
)

// printer is an FNV-32a hash that knows how to render spew values.
type printer struct {
	h uint32
	// text, when non-nil, receives a copy of everything hashed (tests only).
	text *[]byte
}

func newPrinter() printer { return printer{h: fnvOffset32, text: captureText} }

// captureText, when set by a test, receives the rendered text of every checksum.
var captureText *[]byte

func (p *printer) s(v string) {
	h := p.h
	for i := 0; i < len(v); i++ {
		h ^= uint32(v[i])
		h *= fnvPrime32
	}
	p.h = h
	if p.text != nil {
		*p.text = append(*p.text, v...)
	}
}

func (p *printer) b(v []byte) {
	h := p.h
	for _, c := range v {
		h ^= uint32(c)
		h *= fnvPrime32
	}
	p.h = h
	if p.text != nil {
		*p.text = append(*p.text, v...)
	}
}

func (p *printer) c(c byte) {
	p.h = (p.h ^ uint32(c)) * fnvPrime32
	if p.text != nil {
		*p.text = append(*p.text, c)
	}
}

// fnvJump hashes one constant string in a multiply and a table lookup
// instead of a multiply per byte. An FNV-32a step XORs a byte into the low
// 8 bits of h, which is adding δ = (h&0xff ^ c) - h&0xff, and multiplies by
// P; so n steps from h give h·Pⁿ + Σ δᵢ·Pⁿ⁻ⁱ (mod 2³²), and every δᵢ
// depends only on the low byte of the hash before step i, which in turn
// depends only on the low byte of h and the bytes before (the low byte of a
// product needs only the low bytes of its factors). The sum is therefore
// a function of h&0xff: add holds it for each of the 256 values, and
// hashing lit from h is h·mul + add[h&0xff], the same 32 bits as the loop.
type fnvJump struct {
	lit string
	mul uint32
	add [256]uint32
}

func newFNVJump(lit string) *fnvJump {
	j := &fnvJump{lit: lit, mul: 1}
	for range len(lit) {
		j.mul *= fnvPrime32
	}
	for l := range uint32(256) {
		j.add[l] = fnvAdd(l, lit) - l*j.mul
	}
	return j
}

// lit hashes j's string.
func (p *printer) lit(j *fnvJump) {
	p.h = p.h*j.mul + j.add[p.h&0xff]
	if p.text != nil {
		*p.text = append(*p.text, j.lit...)
	}
}

// fnvAdd continues the FNV-32a hash h with v.
func fnvAdd(h uint32, v string) uint32 {
	for i := 0; i < len(v); i++ {
		h = (h ^ uint32(v[i])) * fnvPrime32
	}
	return h
}

func (p *printer) i(v int64) {
	var buf [24]byte
	p.b(strconv.AppendInt(buf[:0], v, 10))
}

func (p *printer) u(v uint64) {
	var buf [24]byte
	p.b(strconv.AppendUint(buf[:0], v, 10))
}

func (p *printer) nilOr(isNil bool) bool {
	if isNil {
		p.s("<nil>")
		return true
	}
	return false
}

// intSlice renders []int as spew does: <nil> or [1 2 3].
func (p *printer) intSlice(v []int, isNil bool) {
	if p.nilOr(isNil) {
		return
	}
	p.c('[')
	for i, x := range v {
		if i > 0 {
			p.c(' ')
		}
		p.i(int64(x))
	}
	p.c(']')
}

// strSlice renders []string as spew does.
func (p *printer) strSlice(v []string) {
	if p.nilOr(v == nil) {
		return
	}
	p.c('[')
	for i, x := range v {
		if i > 0 {
			p.c(' ')
		}
		p.s(x)
	}
	p.c(']')
}

// byteSlice renders []byte ([]uint8) as spew does: decimal values.
func (p *printer) byteSlice(v []byte) {
	if p.nilOr(v == nil) {
		return
	}
	p.c('[')
	for i, x := range v {
		if i > 0 {
			p.c(' ')
		}
		p.u(uint64(x))
	}
	p.c(']')
}

// smallKeys is room for the keys of a small map (a pod's containers), so
// that walking it in order allocates nothing.
type smallKeys [8]string

// sortedKeysIn is sortedKeys, in buf when the keys fit.
func sortedKeysIn[V any](m map[string]V, buf *smallKeys) []string {
	if len(m) > len(buf) {
		return sortedKeys(m)
	}
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sortedKeys returns the keys of a string-keyed map in spew's order (Go
// string order).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedIntKeys[K int | int64, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

// stringMapOfStrings renders map[string]string.
func (p *printer) stringMap(m map[string]string) {
	spewMap(p, m, func(v string) { p.c(':'); p.s(v) })
}

// stringMapMap renders map[string]map[string]string.
func (p *printer) stringMapMap(m map[string]map[string]string) {
	spewMap(p, m, func(v map[string]string) { p.c(':'); p.stringMap(v) })
}

// stringListMap renders map[string][]string.
func (p *printer) stringListMap(m map[string][]string) {
	spewMap(p, m, func(v []string) { p.c(':'); p.strSlice(v) })
}

// spewMap renders a map with string keys as spew does with SortKeys: <nil>
// for a nil map, otherwise map[k1<val> k2<val>] in key order, where val
// writes what follows each key (the colon included).
func spewMap[V any](p *printer, m map[string]V, val func(V)) {
	if p.nilOr(m == nil) {
		return
	}
	p.s("map[")
	var buf smallKeys
	for i, k := range sortedKeysIn(m, &buf) {
		if i > 0 {
			p.c(' ')
		}
		p.s(k)
		val(m[k])
	}
	p.c(']')
}

// sum returns the checksum as the kubelet stores it.
func (p *printer) sum() uint64 { return uint64(p.h) }

// stringChecksum is checksum.New(s) for a string: the dataChecksum of the
// v3/v4 formats.
func stringChecksum(s string) uint64 {
	p := newPrinter()
	p.s("(string)")
	p.s(s)
	return p.sum()
}

func bytesStringChecksum(b []byte) uint64 {
	p := newPrinter()
	p.s("(string)")
	p.b(b)
	return p.sum()
}

func crc32Checksum(s string) uint32 { return crc32.ChecksumIEEE([]byte(s)) }
