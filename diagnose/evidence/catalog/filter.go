package catalog

import "math"

// filter finds the occurrences of the anchor literals fast: each anchor is
// known by one key, a 4-byte window of it chosen to be rare in the
// catalogue's own texts (3 bytes for an anchor that short). A scan tests
// each window of the text against a bitmap of the keys' hashes and checks
// the few anchors behind a set bit. A line without an anchor costs about
// one table test per byte, which the full automaton (needed only to find
// the other literals of a proposed entry) does not.
type filter struct {
	bits4 [1 << 10]uint64 // 2^16 hash buckets of 4-byte keys
	bits3 [1 << 10]uint64
	head4 []int32 // bucket -> first key, -1 for none
	head3 []int32
	keys  []anchorKey
	short bool // some anchor has 3 bytes
}

type anchorKey struct {
	g    uint32 // the key
	lit  int32  // the anchor's automaton pattern id
	off  int32  // where the key starts in the anchor
	next int32  // the next key of the bucket, -1 for none
}

func hash16(g uint32) uint32 { return (g * 0x9E3779B1) >> 16 }

func load4(s string, i int) uint32 {
	_ = s[i+3]
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// newFilter keys the anchors (automaton pattern ids) among lits; texts are
// the catalogue's texts whose 4-byte windows say which keys are rare.
func newFilter(lits []string, anchors []int32, texts []string) *filter {
	f := &filter{head4: make([]int32, 1<<16), head3: make([]int32, 1<<16)}
	for i := range f.head4 {
		f.head4[i], f.head3[i] = -1, -1
	}
	add := func(head []int32, bits *[1 << 10]uint64, k anchorKey) {
		h := hash16(k.g)
		k.next = head[h]
		head[h] = int32(len(f.keys))
		f.keys = append(f.keys, k)
		bits[h>>6] |= 1 << (h & 63)
	}
	freq := map[uint32]int{}
	for _, t := range texts {
		for i := 0; i+4 <= len(t); i++ {
			freq[load4(t, i)]++
		}
	}
	for _, id := range anchors {
		a := lits[id]
		switch {
		case len(a) >= 4:
			best, bestN := 0, math.MaxInt
			for i := 0; i+4 <= len(a); i++ {
				if n := freq[load4(a, i)]; n < bestN {
					best, bestN = i, n
				}
			}
			add(f.head4, &f.bits4, anchorKey{g: load4(a, best), lit: id, off: int32(best)})
		case len(a) == 3:
			add(f.head3, &f.bits3, anchorKey{g: uint32(a[0]) | uint32(a[1])<<8 | uint32(a[2])<<16, lit: id})
			f.short = true
		}
	}
	return f
}

// scan appends the occurrences of the anchors in text (unordered).
func (f *filter) scan(text string, lits []string, out []occurrence) []occurrence {
	n := len(text)
	for i := 0; i+4 <= n; i++ {
		g := load4(text, i)
		if h := hash16(g); f.bits4[h>>6]&(1<<(h&63)) != 0 {
			for e := f.head4[h]; e >= 0; e = f.keys[e].next {
				k := &f.keys[e]
				if k.g != g {
					continue
				}
				a := lits[k.lit]
				st := i - int(k.off)
				if st >= 0 && st+len(a) <= n && text[st:st+len(a)] == a {
					out = append(out, occurrence{pat: k.lit, end: int32(st + len(a))})
				}
			}
		}
	}
	if f.short {
		for i := 0; i+3 <= n; i++ {
			g := uint32(text[i]) | uint32(text[i+1])<<8 | uint32(text[i+2])<<16
			if h := hash16(g); f.bits3[h>>6]&(1<<(h&63)) != 0 {
				for e := f.head3[h]; e >= 0; e = f.keys[e].next {
					if k := &f.keys[e]; k.g == g {
						out = append(out, occurrence{pat: k.lit, end: int32(i + 3)})
					}
				}
			}
		}
	}
	return out
}
