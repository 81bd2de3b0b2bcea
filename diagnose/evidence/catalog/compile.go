package catalog

import (
	"strings"
	"unicode"
)

// minLiteral is the shortest literal the automaton indexes. Shorter ones
// (": ", " ") only separate verbs and are searched for in place.
const minLiteral = 3

// shortLetters: an entry with fewer letters of constant text than this
// ("Error: %v", "Pod %v", "FLAG: --%s=%q") is recognised only when it is a
// whole message (a log line's message, a quoted string, a describe
// Message field, an event's message), never inside other text. So is
// every structured message, which klog prints whole ("Allocate" is a
// message of its own, not the start of "Allocate failed due to ...").
const shortLetters = 8

// pattern is an entry compiled for matching. The matched line of its
// format is lits[0] gaps[0] lits[1] ... gaps[n-1] lits[n]: literals
// between gaps, where a gap holds one verb or several adjacent ones.
// Only lits[0] and lits[n] may be empty.
type pattern struct {
	entry    *Entry
	lits     []string
	litIDs   []int32 // automaton pattern id of each literal, -1 when not indexed
	gaps     [][]gapVerb
	anchor   int  // the literal whose occurrences propose the entry
	constLen int  // bytes of constant text on the matched line
	whole    bool // matched only as a whole message
}

type gapVerb struct {
	verb  string
	char  byte
	index int // the verb's index in Entry.Format; -1 for text outside the matched line
	err   bool
}

// compile builds an entry's pattern; ok is false when the entry has no
// literal long enough to find it by (its text is all verbs and separators).
func compile(e *Entry) (*pattern, bool) {
	pieces := ParseFormat(e.Format)
	errs := map[int]bool{}
	for _, i := range e.Errs {
		errs[i] = true
	}
	// Split at newlines: the kubelet's multi-line formats print several
	// lines; the one with the most constant text is matched.
	type line struct {
		pieces []Piece
		verbs  []int
	}
	var lines []line
	cur := line{}
	vi := 0
	for _, p := range pieces {
		if p.Verb != "" {
			cur.pieces = append(cur.pieces, p)
			cur.verbs = append(cur.verbs, vi)
			vi++
			continue
		}
		parts := strings.Split(p.Lit, "\n")
		for i, s := range parts {
			if i > 0 {
				lines = append(lines, cur)
				cur = line{}
			}
			if s != "" {
				cur.pieces = append(cur.pieces, Piece{Lit: s})
				cur.verbs = append(cur.verbs, -1)
			}
		}
	}
	lines = append(lines, cur)
	best, bestLen := 0, -1
	for i, l := range lines {
		n := 0
		for _, p := range l.pieces {
			n += len(p.Lit)
		}
		if n > bestLen {
			best, bestLen = i, n
		}
	}
	ln := lines[best]
	pt := &pattern{entry: e, lits: []string{""}}
	if best > 0 {
		// text of the lines before this one
		pt.gaps = append(pt.gaps, []gapVerb{{verb: "", index: -1}})
		pt.lits = append(pt.lits, "")
	}
	for i, p := range ln.pieces {
		if p.Verb == "" {
			pt.lits[len(pt.lits)-1] += p.Lit
			continue
		}
		g := gapVerb{verb: p.Verb, char: p.Char, index: ln.verbs[i], err: p.Char == 'w' || errs[ln.verbs[i]]}
		if n := len(pt.lits); n > 1 && pt.lits[n-1] == "" {
			pt.gaps[len(pt.gaps)-1] = append(pt.gaps[len(pt.gaps)-1], g) // adjacent verbs
			continue
		}
		pt.gaps = append(pt.gaps, []gapVerb{g})
		pt.lits = append(pt.lits, "")
	}
	if best < len(lines)-1 {
		if n := len(pt.lits); pt.lits[n-1] == "" && n > 1 {
			pt.gaps[len(pt.gaps)-1] = append(pt.gaps[len(pt.gaps)-1], gapVerb{index: -1})
		} else {
			pt.gaps = append(pt.gaps, []gapVerb{{index: -1}})
			pt.lits = append(pt.lits, "")
		}
	}
	// the message's outer blanks do not survive pastes and headers
	pt.lits[0] = strings.TrimLeft(pt.lits[0], " \t")
	pt.lits[len(pt.lits)-1] = strings.TrimRight(pt.lits[len(pt.lits)-1], " \t")
	letters := 0
	pt.anchor = -1
	for i, l := range pt.lits {
		pt.constLen += len(l)
		for _, r := range l {
			if unicode.IsLetter(r) {
				letters++
			}
		}
		if len(l) >= minLiteral && (pt.anchor < 0 || anchorScore(l) > anchorScore(pt.lits[pt.anchor])) {
			pt.anchor = i
		}
	}
	pt.whole = letters < shortLetters || e.Form == FormStructured
	return pt, pt.anchor >= 0
}

// anchorScore prefers long literals with many letters: they are rare in
// other text.
func anchorScore(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n += 2
		} else {
			n++
		}
	}
	return n
}
