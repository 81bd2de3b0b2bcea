package evidence

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/words"

	"github.com/numascope/numascope/internal/input"
)

// A kubelet log of any size is read in one pass, line by line: the records
// a finding reads are kept (recordNeeded), the rest are counted and let go,
// so memory stays bounded by what the findings need (at most
// maxKeptRecords records and maxKeptBytes of their lines) and one line
// (maxLogLine), not by the log's size.

// streamAbove is the size from which a log is streamed rather than read
// into memory (Set.StreamFrom): smaller inputs go through Add (paste
// normalisation, content sniffing, every record kept), exactly as a
// pasted log does.
func (e *Set) streamAbove() int64 {
	switch {
	case e.StreamFrom == 0:
		return input.MaxDocument
	case e.StreamFrom < 0:
		return -1
	}
	return e.StreamFrom
}

// defaultStreamLimit bounds a streamed log (after decompression) when no
// limit is given.
const defaultStreamLimit int64 = 64 << 30

// AddLogStream reads a kubelet log (journalctl -u kubelet text, klog text
// or JSON, gzip-compressed or not) from r and records it in the evidence,
// as Add does. An input of up to 16 MiB is read into memory and goes
// through Add; a larger one is streamed: read line by line without the
// paste normaliser (CRLF and journalctl's colour codes are still undone),
// keeping only the records the findings read. limit bounds the bytes
// streamed after decompression: 0 is 64 GiB, a negative limit reads
// without a bound (the item's warnings say so).
func (e *Set) AddLogStream(name string, r io.Reader, limit int64) Item {
	head, err := readHead(r, e.streamAbove())
	if err != nil {
		err = fmt.Errorf("%s: reading the log: %w", name, err)
		e.refuse(name, KindLog, KindLog, err)
		return e.items[len(e.items)-1]
	}
	if int64(len(head)) <= e.streamAbove() {
		// add streams a gzip file that inflates past streamAbove itself.
		it, _ := e.add(name, KindLog, head, true, true, limit)
		return it
	}
	it := e.streamLog(name, io.MultiReader(bytes.NewReader(head), r), limit)
	e.items = append(e.items, it)
	return it
}

// readHead reads up to limit+1 bytes of r: all of r when it is at most
// limit bytes long.
func readHead(r io.Reader, limit int64) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(io.LimitReader(r, limit+1))
	return b.Bytes(), err
}

// streamLog reads a log in one pass and adds it to the evidence.
func (e *Set) streamLog(name string, r io.Reader, limit int64) Item {
	var warns []string
	switch {
	case limit == 0:
		limit = defaultStreamLimit
	case limit < 0:
		limit = 0
		warns = append(warns, "read without a size limit, as asked")
	}
	opt := logOptions{limit: limit, stream: true,
		raise: "raise the limit (diagnose --log-limit SIZE, Sources.LogLimit)"}
	l, err := parseLogWith(name, r, opt)
	if err != nil {
		return Item{File: name, Kind: KindLog, Given: KindLog, Status: "refused", Error: err.Error(), Warnings: warns}
	}
	if l.Compressed != "" {
		warns = append(warns, "decompressed gzip data")
	}
	k := l.interpret()
	e.Logs = append(e.Logs, k)
	return Item{File: name, Kind: KindLog, Format: l.Format, Status: "read",
		Note: words.Count(int(l.Lines), "line") + " streamed, " + words.Count(len(l.Records)+l.Dropped, "record") + " read, " +
			strconv.Itoa(len(l.Records)) + " kept for the findings, " + words.Count(len(k.Attempts), "admission attempt") + ", " + words.Count(len(k.Signals), "signal") + e.machineFromLog(name, k),
		Warnings: append(warns, l.Warnings...)}
}

// interpretMessages are the messages of the records interpret and the
// findings read by message (the records of an admission, the start-up
// lines that date the kubelet or show a restart).
var interpretMessages = map[string]bool{
	"Topology Admit Handler":           true,
	"Topology manager admission check": true,
	"TopologyHints":                    true,
	"TopologyHints generated":          true,
	"Hint Provider has no preference for NUMA affinity with resource": true,
	"Hint Provider has no possible NUMA affinities for resource":      true,
	"Topology Affinity for Pod":                                       true,
	"ContainerTopologyHint":                                           true,
	"PodTopologyHint":                                                 true,
	"Best TopologyHint":                                               true,
	"Topology Affinity":                                               true,
	"Pod admission denied":                                            true,
}

// recordFilter tells whether a finding may read a record (need); it keeps
// a buffer between records.
type recordFilter struct {
	text []byte
}

// need tells whether a finding may read the record: interpret (admission
// attempts and signals), the admission-error scan, the release inference
// and the restart check. Every other record can be dropped without
// changing a finding.
func (f *recordFilter) need(r *Record) bool {
	if interpretMessages[r.Message] || kubeletStartMessages[r.Message] || signalMessages[r.Message] {
		return true
	}
	if r.Source == sourceRuntime || r.Source == sourceSystemd || r.Severity == "F" ||
		strings.Contains(r.Message, "etected CPU topology") || strings.HasPrefix(r.Message, "Machine: {") {
		return true // a crash or an exit of the kubelet (signals, fatal records)
	}
	switch r.Message {
	case "Event occurred":
		if reason, _ := r.Get("reason"); admissionReasons[reason] {
			return true
		}
	case "Patch status for pod":
		if patch, _ := r.Get("patch"); mayHoldReason(patch) {
			return true
		}
	}
	if strings.HasPrefix(r.Message, "Version: v1.") || strings.HasPrefix(r.Message, "[topologymanager]") || strings.HasPrefix(r.Message, "[cpumanager]") {
		return true
	}
	// What is left looks for texts in the record's text: the admission
	// errors and the signals. One pass over it for all of them lets most
	// records go without running each check.
	f.text = r.appendText(f.text[:0])
	if !literalsIn(neededTexts, f.text) {
		return false
	}
	if MentionsAdmission(*r) {
		return true
	}
	var k KubeletLog
	k.signals(*r)
	return len(k.Signals) > 0
}

// neededTexts are the texts recordMentionsAdmission and signals look for.
var neededTexts = newLiteralSet(append(append([]string{}, admissionLiterals...), signalLiterals...), signalFoldLiteral)

// literalSet finds whether any of a set of texts occurs in a string, in one
// pass that looks at every step-th byte only: an occurrence of a text of at
// least step+1 bytes holds a checked offset i and the byte after it, so a
// table of every two-byte pair of every text (with its offset in the text)
// gives the few places to compare.
type literalSet struct {
	step int
	// groups[first[b0<<8|b1]-1] are the texts holding b0 b1, with where.
	first  [1 << 16]uint16
	groups [][]literalAt
	folds  bool // some texts are compared ASCII case-insensitively
}

type literalAt struct {
	text string
	at   int  // offset of the pair in text
	fold bool // compared ASCII case-insensitively (text is lower case)
}

func newLiteralSet(exact []string, fold ...string) *literalSet {
	s := &literalSet{step: 1 << 30, folds: len(fold) > 0}
	add := func(k uint16, l literalAt) {
		if s.first[k] == 0 {
			s.groups = append(s.groups, nil)
			s.first[k] = uint16(len(s.groups))
		}
		g := int(s.first[k]) - 1
		s.groups[g] = append(s.groups[g], l)
	}
	addText := func(t string, isFold bool) {
		if len(t) < 2 {
			panic("literalSet: a text of fewer than 2 bytes: " + t)
		}
		s.step = min(s.step, len(t)-1)
		for at := 0; at+1 < len(t); at++ {
			if !isFold {
				add(uint16(t[at])<<8|uint16(t[at+1]), literalAt{text: t, at: at})
				continue
			}
			seen := map[uint16]bool{}
			for _, a := range []byte{lower(t[at]), upper(t[at])} {
				for _, b := range []byte{lower(t[at+1]), upper(t[at+1])} {
					if k := uint16(a)<<8 | uint16(b); !seen[k] {
						seen[k] = true
						add(k, literalAt{text: t, at: at, fold: true})
					}
				}
			}
		}
	}
	for _, t := range exact {
		addText(t, false)
	}
	for _, t := range fold {
		addText(t, true)
	}
	return s
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// literalsIn reports whether t holds one of the texts of s. A t that is
// not ASCII is reported as holding one when the set has case-insensitive
// texts: the lower-casing of a non-ASCII rune can give an ASCII letter (the
// Kelvin sign gives k), which a byte table cannot see.
func literalsIn[T string | []byte](s *literalSet, t T) bool {
	for i := 0; i+1 < len(t); i += s.step {
		g := s.first[uint16(t[i])<<8|uint16(t[i+1])]
		if g == 0 {
			continue
		}
		for _, l := range s.groups[g-1] {
			start := i - l.at
			if start < 0 || start+len(l.text) > len(t) {
				continue
			}
			w := t[start : start+len(l.text)]
			if l.fold && asciiEqualFold(w, l.text) || !l.fold && string(w) == l.text {
				return true
			}
		}
	}
	return s.folds && !isASCII(t)
}

func isASCII[T string | []byte](t T) bool {
	i := 0
	for ; i+8 <= len(t); i += 8 {
		if (t[i]|t[i+1]|t[i+2]|t[i+3]|t[i+4]|t[i+5]|t[i+6]|t[i+7])&0x80 != 0 {
			return false
		}
	}
	for ; i < len(t); i++ {
		if t[i]&0x80 != 0 {
			return false
		}
	}
	return true
}

func asciiEqualFold[T string | []byte](a T, lowerB string) bool {
	for i := 0; i < len(a); i++ {
		if lower(a[i]) != lowerB[i] {
			return false
		}
	}
	return true
}

// loadLog streams the log file at path into the evidence (see
// AddLogStream); what names the input in errors ("--log").
func (e *Set) loadLog(path, what string, limit int64) {
	fh, err := input.Open(path, what)
	if err != nil {
		e.refuse(path, KindLog, KindLog, err)
		return
	}
	defer fh.Close()
	e.AddLogStream(path, fh, limit)
}

// largeLog tells whether the file at path is larger than streamAbove and
// starts like a kubelet log (or gzip data): Load streams it then.
func (e *Set) largeLog(path string) (bool, error) {
	fh, err := input.Open(path, "evidence file")
	if err != nil {
		return false, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil || st.Size() <= e.streamAbove() {
		return false, nil
	}
	head, err := readHead(fh, sniffHead-1)
	if err != nil {
		return false, fmt.Errorf("evidence file %s: %w", path, err)
	}
	k, _ := primaryKind(head)
	return k == KindLog, nil
}
