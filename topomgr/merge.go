package topomgr

import (
	"math/bits"
	"slices"
)

// Why the fast merge returns exactly the kubelet's answer.
//
// The kubelet walks the cartesian product of the hint lists, merges each
// combination into a candidate (AND of the default mask and every non-nil
// mask; preferred when every hint is preferred and all non-nil masks are
// equal) and folds the candidates with compare(current, candidate). With
// B = BestNonPreferredAffinityCount fixed for the whole merge, compare
// always returns the better of its two arguments under one strict total
// order on distinct (mask, preferred) pairs:
//
//  1. candidates with an empty mask never win (they are skipped);
//  2. preferred beats non-preferred;
//  3. between preferred masks: fewer nodes, then (prefer-closest) the
//     smaller average distance, then the smaller integer;
//  4. between non-preferred masks, by node count c: c == B first, then
//     c < B with the larger c first, then c > B with the smaller c first;
//     equal counts as in 3.
//
// Each branch of compare agrees with this order (case 1, c > B, moves to
// any narrower candidate; case 2, c == B, moves only to another c == B;
// cases 3a-3cc rank c < B by closeness to B and above all c > B), and
// CompareMasks on equal masks keeps the current one, which is the same
// (mask, preferred) value. A fold with "better of two" under a total order
// returns the maximum whatever the order of the candidates, so the outcome
// depends only on the set of reachable (mask, preferred) pairs. That also
// makes the kubelet's random map order irrelevant.
//
// The preferred pairs are found directly: mask X (as given by a provider) is
// reachable preferred iff every list holds {X, preferred} or {nil,
// preferred}; and the all-nil combination gives the default mask. If any
// preferred pair has a non-empty mask it wins. Otherwise the answer is the
// best non-empty mask among all reachable ANDs, built list by list as a
// frontier of distinct masks (AND is associative and commutative), either
// pairwise or, when the product is large and the machine has at most 20
// NUMA nodes, by an exact superset-sum (zeta/Moebius) AND-convolution whose
// counts stay below 2^40 and therefore never overflow.

type mergeResult struct {
	hint                    TopologyHint
	rule                    Rule
	preferred, nonPreferred int
}

type merger struct {
	numa    *NUMAInfo
	lists   [][]TopologyHint
	def     BitMask
	b       int
	closest bool
	avg     map[BitMask]float64
	// sparse forces the map-based frontier (tests only).
	sparse bool
}

func newMerger(numa *NUMAInfo, lists [][]TopologyHint, closest bool) *merger {
	return &merger{numa: numa, lists: lists, def: numa.DefaultAffinityMask(), b: bestNonPreferredAffinityCount(lists), closest: closest}
}

// maskBetter reports whether a beats b (distinct masks of any width) under
// the kubelet's CompareNUMAAffinityMasks.
func (m *merger) maskBetter(a, b BitMask) bool {
	if ca, cb := a.Count(), b.Count(); ca != cb {
		return ca < cb
	}
	if m.closest {
		da, db := m.average(a), m.average(b)
		if da != db {
			return da < db
		}
	}
	return a < b
}

func (m *merger) average(x BitMask) float64 {
	if m.avg == nil {
		m.avg = map[BitMask]float64{}
	}
	if v, ok := m.avg[x]; ok {
		return v
	}
	v := m.numa.Distances.AverageFor(x)
	m.avg[x] = v
	return v
}

// tier ranks a non-preferred mask's width against B: lower is better.
func (m *merger) tier(c int) (int, int) {
	switch {
	case c == m.b:
		return 0, 0
	case c < m.b:
		return 1, m.b - c
	default:
		return 2, c - m.b
	}
}

// nonPreferredBetter reports whether non-preferred a beats non-preferred b.
func (m *merger) nonPreferredBetter(a, b BitMask) bool {
	ta, da := m.tier(a.Count())
	tb, db := m.tier(b.Count())
	if ta != tb {
		return ta < tb
	}
	if da != db {
		return da < db
	}
	return m.maskBetter(a, b)
}

func (m *merger) merge() mergeResult {
	for _, l := range m.lists {
		if len(l) == 0 {
			return mergeResult{hint: NewHint(m.def, false), rule: RuleNoCandidate}
		}
	}
	if res, ok := m.bestPreferred(); ok {
		return res
	}
	reach := m.reachable()
	if len(reach) == 0 {
		return mergeResult{hint: NewHint(m.def, false), rule: RuleNoCandidate}
	}
	best := reach[0]
	for _, x := range reach[1:] {
		if m.nonPreferredBetter(x, best) {
			best = x
		}
	}
	res := mergeResult{hint: NewHint(best, false), nonPreferred: len(reach)}
	switch t, _ := m.tier(best.Count()); t {
	case 0:
		res.rule = RuleNonPreferredAtCount
	case 1:
		res.rule = RuleNonPreferredBelowCount
	default:
		res.rule = RuleNonPreferredAboveCount
	}
	return res
}

func (m *merger) bestPreferred() (mergeResult, bool) {
	k := len(m.lists)
	anyPref := make([]bool, k)
	prefSets := make([]map[BitMask]struct{}, k)
	var cands []BitMask
	seen := map[BitMask]struct{}{}
	allAny := true
	for i, l := range m.lists {
		for _, h := range l {
			if !h.Preferred {
				continue
			}
			if !h.HasAffinity {
				anyPref[i] = true
				continue
			}
			if prefSets[i] == nil {
				prefSets[i] = map[BitMask]struct{}{}
			}
			prefSets[i][h.NUMANodeAffinity] = struct{}{}
			if _, ok := seen[h.NUMANodeAffinity]; !ok {
				seen[h.NUMANodeAffinity] = struct{}{}
				cands = append(cands, h.NUMANodeAffinity)
			}
		}
		allAny = allAny && anyPref[i]
	}
	merged := map[BitMask]struct{}{}
	if allAny && m.def != 0 {
		merged[m.def] = struct{}{}
	}
	for _, x := range cands {
		ok := true
		for i := range m.lists {
			if anyPref[i] {
				continue
			}
			if _, has := prefSets[i][x]; !has {
				ok = false
				break
			}
		}
		if ok && x&m.def != 0 {
			merged[x&m.def] = struct{}{}
		}
	}
	if len(merged) == 0 {
		return mergeResult{}, false
	}
	first := true
	var best BitMask
	for x := range merged {
		if first || m.maskBetter(x, best) {
			best, first = x, false
		}
	}
	rule := RulePreferredNarrowest
	if m.closest {
		rule = RulePreferredClosest
	}
	return mergeResult{hint: NewHint(best, true), rule: rule, preferred: len(merged)}, true
}

// reachable returns every distinct non-empty AND of the default mask with
// one hint from each list (hints without affinity count as the default).
func (m *merger) reachable() []BitMask {
	if m.def == 0 {
		return nil
	}
	n := m.def.Count()
	if n <= maxConvolutionNodes && !m.sparse {
		return m.reachableDense(n)
	}
	sets := make([][]BitMask, len(m.lists))
	for i, l := range m.lists {
		seen := map[BitMask]struct{}{}
		for _, h := range l {
			x := m.def
			if h.HasAffinity {
				x &= h.NUMANodeAffinity
			}
			if x == 0 {
				continue
			}
			if _, ok := seen[x]; !ok {
				seen[x] = struct{}{}
				sets[i] = append(sets[i], x)
			}
		}
		if len(sets[i]) == 0 {
			return nil
		}
	}
	slices.SortFunc(sets, func(a, b []BitMask) int { return len(a) - len(b) })
	frontier := []BitMask{m.def}
	for _, set := range sets {
		seen := newMaskSet(len(frontier) + len(set))
		var next []BitMask
		for _, a := range frontier {
			for _, b := range set {
				if x := a & b; x != 0 && seen.add(x) {
					next = append(next, x)
				}
			}
		}
		if len(next) == 0 {
			return nil
		}
		frontier = next
	}
	return frontier
}

// maskSet is an open-addressing set of non-zero masks.
type maskSet struct {
	slots []BitMask
	n     int
}

func newMaskSet(hint int) *maskSet {
	size := 16
	for size < 2*hint {
		size <<= 1
	}
	return &maskSet{slots: make([]BitMask, size)}
}

// add inserts x (non-zero) and reports whether it was new.
func (s *maskSet) add(x BitMask) bool {
	if 2*(s.n+1) > len(s.slots) {
		old := s.slots
		s.slots = make([]BitMask, 2*len(old))
		s.n = 0
		for _, y := range old {
			if y != 0 {
				s.add(y)
			}
		}
	}
	mask := uint64(len(s.slots) - 1)
	for i := (uint64(x) * 0x9E3779B97F4A7C15) >> 32 & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = x
			s.n++
			return true
		case x:
			return false
		}
	}
}

// maxConvolutionNodes bounds the dense tables (2^n entries) used on
// machines with up to this many NUMA nodes.
const maxConvolutionNodes = 20

// reachableDense is reachable on dense indexes: the machine's n NUMA nodes
// renumbered 0..n-1, with tables of 2^n entries instead of maps.
func (m *merger) reachableDense(n int) []BitMask {
	pos := m.def.Bits()
	size := 1 << uint(n)
	full := uint32(size - 1)
	seen := make([]bool, size)
	sets := make([][]uint32, len(m.lists))
	for i, l := range m.lists {
		clear(seen)
		for _, h := range l {
			x := full
			if h.HasAffinity {
				x = compress(h.NUMANodeAffinity&m.def, pos)
			}
			if x == 0 || seen[x] {
				continue
			}
			seen[x] = true
			sets[i] = append(sets[i], x)
		}
		if len(sets[i]) == 0 {
			return nil
		}
	}
	slices.SortFunc(sets, func(a, b []uint32) int { return len(a) - len(b) })
	frontier := []uint32{full}
	var fa, fb []uint64
	for _, set := range sets {
		product := float64(len(frontier)) * float64(len(set))
		if product > float64(3*n)*float64(size) {
			if fa == nil {
				fa, fb = make([]uint64, size), make([]uint64, size)
			}
			frontier = andConvolution(n, frontier, set, fa, fb)
		} else {
			clear(seen)
			var next []uint32
			for _, a := range frontier {
				for _, b := range set {
					x := a & b
					if x != 0 && !seen[x] {
						seen[x] = true
						next = append(next, x)
					}
				}
			}
			frontier = next
		}
		if len(frontier) == 0 {
			return nil
		}
	}
	out := make([]BitMask, len(frontier))
	for i, x := range frontier {
		out[i] = expand(uint64(x), pos)
	}
	return out
}

// andConvolution returns the distinct non-empty a&b over a in as, b in bs
// (dense masks of n <= 20 bits). It counts, for every mask S, the pairs with
// a&b == S by superset sums and Moebius inversion; the counts are at most
// 2^20 * 2^20, so uint64 arithmetic (exact modulo 2^64) gives them exactly.
// fa and fb are scratch tables of 2^n entries.
func andConvolution(n int, as, bs []uint32, fa, fb []uint64) []uint32 {
	size := 1 << uint(n)
	clear(fa)
	clear(fb)
	for _, a := range as {
		fa[a]++
	}
	for _, b := range bs {
		fb[b]++
	}
	supersetSum(fa, n)
	supersetSum(fb, n)
	for i := range fa {
		fa[i] *= fb[i]
	}
	for bit := 0; bit < n; bit++ {
		step := 1 << uint(bit)
		for i := 0; i < size; i++ {
			if i&step == 0 {
				fa[i] -= fa[i|step]
			}
		}
	}
	var out []uint32
	for i := 1; i < size; i++ {
		if fa[i] != 0 {
			out = append(out, uint32(i))
		}
	}
	return out
}

func supersetSum(f []uint64, n int) {
	size := len(f)
	for bit := 0; bit < n; bit++ {
		step := 1 << uint(bit)
		for i := 0; i < size; i++ {
			if i&step == 0 {
				f[i] += f[i|step]
			}
		}
	}
}

// compress maps a subset of the nodes pos onto dense bit positions.
func compress(x BitMask, pos []int) uint32 {
	if len(pos) > 0 && pos[len(pos)-1] == len(pos)-1 {
		return uint32(x) // nodes 0..n-1: already dense
	}
	var out uint32
	for i, p := range pos {
		if x&(1<<uint(p)) != 0 {
			out |= 1 << uint(i)
		}
	}
	return out
}

// expand is the inverse of compress.
func expand(x uint64, pos []int) BitMask {
	if len(pos) > 0 && pos[len(pos)-1] == len(pos)-1 {
		return BitMask(x)
	}
	var out BitMask
	for v := x; v != 0; v &= v - 1 {
		out |= 1 << uint(pos[bits.TrailingZeros64(v)])
	}
	return out
}
