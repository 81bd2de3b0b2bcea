package catalog

import "sort"

// automaton is an Aho-Corasick automaton over a set of byte strings: one
// pass over a text reports every occurrence of every string, in time
// linear in the text and the number of occurrences.
type automaton struct {
	root  [256]int32 // the root's transitions, dense
	nodes []acNode
	edges []acEdge
	lens  []int32 // pattern lengths by id
	// The nodes near the root, where a scan spends most of its steps,
	// have every transition precomputed (failure links followed): rows of
	// nclass entries, indexed by the byte's class.
	class  [256]uint8
	nclass int
	dense  []int32 // node -> its row, -1 for none
	rows   []int32
	// emit is the first node of a node's output chain: itself when a
	// pattern ends there, else its outLink (-1: none).
	emit []int32
}

// denseDepth is how deep the precomputed rows go.
const denseDepth = 3

type acNode struct {
	fail    int32
	out     int32 // the pattern that ends here, -1 for none
	outLink int32 // the nearest node on the fail chain with an output, -1 for none
	edgeLo  int32 // edges[edgeLo:edgeHi] are the node's children, sorted by byte
	edgeHi  int32
}

type acEdge struct {
	b  byte
	to int32
}

// occurrence is pattern pat ending at end (exclusive).
type occurrence struct {
	pat int32
	end int32
}

// newAutomaton builds the automaton of the patterns; pattern i has id i.
// Empty patterns never occur.
func newAutomaton(patterns []string) *automaton {
	type buildNode struct {
		next map[byte]int32
		out  int32
	}
	bn := []buildNode{{next: map[byte]int32{}, out: -1}}
	for id, p := range patterns {
		if p == "" {
			continue
		}
		s := int32(0)
		for i := 0; i < len(p); i++ {
			n, ok := bn[s].next[p[i]]
			if !ok {
				n = int32(len(bn))
				bn = append(bn, buildNode{next: map[byte]int32{}, out: -1})
				bn[s].next[p[i]] = n
			}
			s = n
		}
		bn[s].out = int32(id)
	}
	a := &automaton{nodes: make([]acNode, len(bn)), lens: make([]int32, len(patterns))}
	for i, p := range patterns {
		a.lens[i] = int32(len(p))
	}
	// children in byte order, flattened
	for i := range bn {
		a.nodes[i].out = bn[i].out
		a.nodes[i].outLink = -1
		a.nodes[i].edgeLo = int32(len(a.edges))
		bs := make([]int, 0, len(bn[i].next))
		for b := range bn[i].next {
			bs = append(bs, int(b))
		}
		sort.Ints(bs)
		for _, b := range bs {
			a.edges = append(a.edges, acEdge{b: byte(b), to: bn[i].next[byte(b)]})
		}
		a.nodes[i].edgeHi = int32(len(a.edges))
	}
	queue := make([]int32, 0, len(bn))
	for _, e := range a.edges[a.nodes[0].edgeLo:a.nodes[0].edgeHi] {
		a.root[e.b] = e.to
		a.nodes[e.to].fail = 0
		queue = append(queue, e.to)
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, e := range a.edges[a.nodes[s].edgeLo:a.nodes[s].edgeHi] {
			f := a.step(a.nodes[s].fail, e.b)
			a.nodes[e.to].fail = f
			if a.nodes[f].out >= 0 {
				a.nodes[e.to].outLink = f
			} else {
				a.nodes[e.to].outLink = a.nodes[f].outLink
			}
			queue = append(queue, e.to)
		}
	}
	a.buildDense(patterns)
	a.emit = make([]int32, len(a.nodes))
	for i, n := range a.nodes {
		if n.out >= 0 {
			a.emit[i] = int32(i)
		} else {
			a.emit[i] = n.outLink
		}
	}
	return a
}

// buildDense precomputes the transitions of the nodes up to denseDepth.
func (a *automaton) buildDense(patterns []string) {
	var used [256]bool
	for _, p := range patterns {
		for i := 0; i < len(p); i++ {
			used[p[i]] = true
		}
	}
	a.nclass = 1 // class 0: bytes in no pattern, which lead to the root
	var rep []byte
	rep = append(rep, 0)
	for b := 0; b < 256; b++ {
		if used[b] {
			a.class[b] = uint8(a.nclass)
			rep = append(rep, byte(b))
			a.nclass++
		}
	}
	a.dense = make([]int32, len(a.nodes))
	for i := range a.dense {
		a.dense[i] = -1
	}
	// breadth first: a node's failure target is shallower, so its row is
	// ready when the node's is built
	type item struct {
		s     int32
		depth int
	}
	queue := []item{{0, 0}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		r := int32(len(a.rows) / a.nclass)
		a.dense[it.s] = r
		for c := 0; c < a.nclass; c++ {
			var to int32
			switch {
			case c == 0:
				to = 0
			case it.s == 0:
				to = a.root[rep[c]]
			default:
				if n := a.child(it.s, rep[c]); n >= 0 {
					to = n
				} else {
					f := a.nodes[it.s].fail
					to = a.rows[int(a.dense[f])*a.nclass+c]
				}
			}
			a.rows = append(a.rows, to)
		}
		if it.depth < denseDepth {
			for _, e := range a.edges[a.nodes[it.s].edgeLo:a.nodes[it.s].edgeHi] {
				queue = append(queue, item{e.to, it.depth + 1})
			}
		}
	}
}

// child returns s's child on b, or -1.
func (a *automaton) child(s int32, b byte) int32 {
	lo, hi := a.nodes[s].edgeLo, a.nodes[s].edgeHi
	if hi-lo <= 8 {
		for ; lo < hi; lo++ {
			if e := a.edges[lo]; e.b >= b {
				if e.b == b {
					return e.to
				}
				return -1
			}
		}
		return -1
	}
	for lo < hi { // the first edge with a byte >= b
		mid := (lo + hi) / 2
		if a.edges[mid].b < b {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < a.nodes[s].edgeHi && a.edges[lo].b == b {
		return a.edges[lo].to
	}
	return -1
}

// step is the automaton's transition.
func (a *automaton) step(s int32, b byte) int32 {
	for s != 0 {
		if n := a.child(s, b); n >= 0 {
			return n
		}
		s = a.nodes[s].fail
	}
	return a.root[b]
}

// next is step with the precomputed rows.
func (a *automaton) next(s int32, b byte) int32 {
	for {
		if r := a.dense[s]; r >= 0 {
			return a.rows[int(r)*a.nclass+int(a.class[b])]
		}
		if n := a.child(s, b); n >= 0 {
			return n
		}
		s = a.nodes[s].fail
	}
}

// scan appends every occurrence in text to occ and returns it.
func (a *automaton) scan(text string, occ []occurrence) []occurrence {
	s := int32(0)
	dense, rows, class, nc, emit := a.dense, a.rows, &a.class, a.nclass, a.emit
	for i := 0; i < len(text); i++ {
		b := text[i]
		if r := dense[s]; r >= 0 {
			s = rows[int(r)*nc+int(class[b])]
		} else {
			s = a.next(s, b)
		}
		for o := emit[s]; o >= 0; o = a.nodes[o].outLink {
			occ = append(occ, occurrence{pat: a.nodes[o].out, end: int32(i + 1)})
		}
	}
	return occ
}
