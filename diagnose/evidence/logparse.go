package evidence

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/units"
)

// maxLogLine bounds one log line; kubelet lines with large hint maps stay far below.
const maxLogLine = 4 << 20

// maxJoined bounds the headerless lines joined to an F record (a stack dump
// follows a fatal line) and their bytes.
const (
	maxJoinedLines = 200
	maxJoinedBytes = 64 << 10
)

// ParseLog reads kubelet log output in any of the wrappers people paste:
// `journalctl -u kubelet` text (short, short-precise, short-iso, any
// identifier: kubelet, kubenswrapper, hyperkube, k3s, rke2; localised
// months), `journalctl -o json`, `<node>: ` prefixes (talosctl, oc adm
// node-logs --role), plain klog text or the JSON log format, gzip-compressed
// or not, from kubelet 1.16 on. name is used in error messages and evidence
// references. The input is bounded by input.MaxLog after decompression. It
// fails only when the input cannot be read or holds no kubelet record.
func ParseLog(name string, r io.Reader) (*Log, error) {
	return parseLog(name, r, input.MaxLog)
}

// ParseLogBytes is ParseLog over a byte slice.
func ParseLogBytes(name string, data []byte) (*Log, error) {
	return ParseLog(name, bytes.NewReader(data))
}

// errLogTooLarge is returned by limitReader past its limit.
var errLogTooLarge = fmt.Errorf("log over the size limit: %w", input.ErrTooLarge)

type limitReader struct {
	r io.Reader
	n int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		// One byte more tells a file of exactly the limit from a larger one.
		var one [1]byte
		n, err := l.r.Read(one[:])
		if n > 0 {
			return 0, errLogTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// lineSource yields lines with one line of look-ahead. A line longer than
// maxLogLine is skipped and counted (long, longFirst), so one oversized
// line does not stop the reading of a large log.
type lineSource struct {
	br     *bufio.Reader
	n      int // number of the last line returned
	peeked bool
	peek   string
	peekN  int // number of the peeked line
	ok     bool
	read   int   // lines read, skipped ones included
	err    error // the reader's error other than io.EOF
	buf    []byte

	long, longFirst int
}

func (s *lineSource) fill() {
	if !s.peeked {
		s.peek, s.ok = s.readLine()
		s.peek = strings.TrimRight(s.peek, "\r")
		s.peekN = s.read
		s.peeked = true
	}
}

// readLine reads the next line that is not too long, without its newline.
func (s *lineSource) readLine() (string, bool) {
	for s.err == nil {
		chunk, err := s.br.ReadSlice('\n')
		if err == nil {
			s.read++
			return string(chunk[:len(chunk)-1]), true
		}
		// A long line, the last line, or an error: gather what there is.
		tooLong := false
		s.buf = append(s.buf[:0], chunk...)
		for err == bufio.ErrBufferFull {
			chunk, err = s.br.ReadSlice('\n')
			if !tooLong && len(s.buf)+len(chunk) > maxLogLine+1 {
				tooLong, s.buf = true, s.buf[:0]
			}
			if !tooLong {
				s.buf = append(s.buf, chunk...)
			}
		}
		if err != nil && err != io.EOF {
			s.err = err
		}
		if tooLong {
			s.read++
			s.long++
			if s.longFirst == 0 {
				s.longFirst = s.read
			}
			if err != nil {
				return "", false
			}
			continue
		}
		if len(s.buf) == 0 {
			return "", false
		}
		s.read++
		return string(bytes.TrimSuffix(s.buf, []byte("\n"))), true
	}
	return "", false
}

func (s *lineSource) next() (string, bool) {
	s.fill()
	s.peeked = false
	if !s.ok {
		return "", false
	}
	s.n = s.peekN
	return s.peek, true
}

func (s *lineSource) lookahead() (string, bool) {
	s.fill()
	return s.peek, s.ok
}

// isBlank tells whether a line holds only spaces, tabs and carriage returns.
func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// logOptions are how parseLog reads a log.
type logOptions struct {
	// noMessages leaves the catalogue out (a benchmark's baseline).
	noMessages bool
	// limit bounds the bytes read (after decompression); 0 is no limit.
	limit int64
	// stream keeps only the records the findings read (see recordNeeded),
	// at most maxKeptRecords of them and maxKeptBytes of their lines, and
	// counts the others in Log.Dropped.
	stream bool
	// raise tells how to raise limit, for the error past it.
	raise string
	// maxKept overrides maxKeptRecords (for tests).
	maxKept int
}

// Bounds of what a log's reading keeps besides its records, whatever its
// size: a hostile log cannot grow them.
const (
	maxLogNodes    = 1000 // distinct hosts named by the wrapper
	maxLogMonths   = 32   // distinct localised month names
	maxCutWidths   = 4096 // distinct widths of the lines that look cut
	maxEraWarnings = 100  // warnings about renderings numascope does not know
	// A kept record costs its line, its values and, once interpreted, its
	// share of the admission attempts: about keptRecordBytes besides the
	// line. A generated 1 GiB journal of a busy node keeps about 140,000
	// records (about 60 MiB of this count); a log made only of hint lines
	// for new pods stops at about 150,000, with a warning.
	maxKeptRecords  = 300000
	maxKeptBytes    = 80 << 20
	keptRecordBytes = 256
)

// parseLog reads a whole log, every record kept, through limit.
func parseLog(name string, r io.Reader, limit int64) (*Log, error) {
	return parseLogWith(name, r, logOptions{limit: limit})
}

// parseLogWith reads a log as opt says: line by line, through the
// decompression of a gzip file.
func parseLogWith(name string, r io.Reader, opt logOptions) (*Log, error) {
	l := &Log{Name: name}
	br := bufio.NewReaderSize(r, 64<<10)
	var src io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, layers, err := gunzip(br)
		if err != nil {
			return nil, fmt.Errorf("%s: starts with the gzip magic bytes but is not gzip: %w (pass the log uncompressed)", name, err)
		}
		defer zr.Close()
		src = zr
		l.Compressed = "gzip"
		if layers > 1 {
			l.Warnings = append(l.Warnings, fmt.Sprintf("gzip inside gzip: %d layers decompressed", layers))
		}
	}
	if opt.limit > 0 {
		src = &limitReader{r: src, n: opt.limit}
	}
	p := &logReader{
		l:         l,
		lines:     &lineSource{br: bufio.NewReaderSize(src, 64<<10)},
		opt:       opt,
		wrappers:  map[string]bool{},
		nodes:     map[string]bool{},
		months:    map[string]bool{},
		cutWidths: map[int]int{},
		maxKept:   maxKeptRecords,
	}
	if opt.maxKept > 0 {
		p.maxKept = opt.maxKept
	}
	for {
		raw, ok := p.lines.next()
		if !ok {
			break
		}
		p.line(raw, p.lines.n)
	}
	if err := p.readError(name); err != nil {
		return nil, err
	}
	return p.finish(name)
}

// logReader is the state of one log's reading: the log being filled, its
// lines, and what the warnings and the release inference count as the
// lines go by.
type logReader struct {
	l     *Log
	lines *lineSource
	opt   logOptions

	text, js           int // records read from klog text and from JSON lines
	wrappers           map[string]bool
	nodes              map[string]bool
	moreNodes          bool
	months             map[string]bool
	cutCount, cutFirst int
	cutWidths          map[int]int
	release            releaseInference
	eraWarnings        int
	eraMore            int
	ambiguous          int
	ambiguousFirst     int
	keptBytes          int
	notKept            int
	notKeptFirst       int
	filter             recordFilter
	msgs               messageSet
	scratch            []logValue // the values of the streamed record being read
	maxKept            int
}

// cut counts a line that ends inside a quoted or bracketed value, and its
// width.
func (p *logReader) cut(lineNo int, raw string) {
	p.cutCount++
	if p.cutFirst == 0 {
		p.cutFirst = lineNo
	}
	w := utf8.RuneCountInString(raw)
	if _, ok := p.cutWidths[w]; ok || len(p.cutWidths) < maxCutWidths {
		p.cutWidths[w]++
	}
}

// line reads line lineNo, raw as read: a record is kept in the log, and
// anything else is counted as skipped.
func (p *logReader) line(raw string, lineNo int) {
	l := p.l
	if isBlank(raw) { // a blank line holds nothing: skipped before any reader looks at it
		l.Skipped++
		return
	}
	w := unwrapLine(raw)
	if w.meta {
		l.Skipped++
		return
	}
	if w.month != "" && (p.months[w.month] || len(p.months) < maxLogMonths) {
		p.months[w.month] = true
	}
	rec, found := p.record(w, raw, lineNo)
	if !found {
		l.Skipped++
		return
	}
	p.keep(rec, w, raw, lineNo)
}

// record finds the record of an unwrapped line: a JSON log object, a klog
// text line (with its continuation lines) or a headerless kubelet message.
func (p *logReader) record(w wrapped, raw string, lineNo int) (Record, bool) {
	lines, opt := p.lines, p.opt
	line := w.body
	var rec Record
	found := false
	if j := strings.IndexByte(line, '{'); j >= 0 && j < 256 && !jsonMayStart(line[j:]) {
		// Not a JSON object (a klog value such as patch="{\"...): the
		// same as a failed parse below, and cheaper than jsonLogStart's
		// search of the whole line.
		if js := line[j:]; strings.Count(js, "{") > strings.Count(js, "}") && jsonLogStart(js) {
			p.cut(lineNo, raw)
		}
	} else if j >= 0 && j < 256 && jsonLogStart(line[j:]) {
		if jr, err := parseJSONRecord(line[j:]); err == nil {
			rec, found = jr, true
			p.js++
			if _, hasCaller := jsonHasKey(line[j:], "caller"); hasCaller {
				p.release.add(versionMark{min: 22, line: lineNo, why: "JSON log format with a caller key (1.22 or later)"})
			} else {
				p.release.add(versionMark{min: 19, max: 21, line: lineNo, why: "JSON log format without a caller key (1.19 to 1.21)"})
			}
		} else if strings.Count(line[j:], "{") > strings.Count(line[j:], "}") {
			p.cut(lineNo, raw)
		}
	}
	if found {
		return rec, true
	}
	head := line
	if len(head) > 256 {
		head = head[:256]
	}
	h, ok := findKlogHeader(head)
	if !ok {
		h, ok = findCutKlogHeader(head)
	}
	if ok {
		rec = Record{Severity: h.severity, Time: h.time, Source: h.source}
		if streamed && opt.stream {
			rec.Values = p.scratch[:0] // copied when the record is kept
		}
		parseTextBody(&rec, line[h.end:], func() (string, bool) {
			next, ok := lines.lookahead()
			if !ok {
				return "", false
			}
			nw := unwrapLine(next)
			b := nw.body
			if strings.HasPrefix(b, "\t") || strings.TrimSpace(b) == ">" {
				lines.next()
				return b, true
			}
			return "", false
		})
		if streamed && opt.stream {
			p.scratch = rec.Values[:0]
		}
		p.text++
		if rec.Severity == "F" {
			joinFatal(&rec, lines)
		}
		return rec, true
	}
	if src, ok := headerless(w.ident, line); ok {
		rec = Record{Message: strings.TrimSpace(line), Source: src}
		if src == sourceRuntime {
			rec.Severity = "F"
			joinPanic(&rec, lines)
		}
		return rec, true
	}
	return rec, false
}

// keep completes a record found on line lineNo (its line, node and time),
// counts what the warnings and the release read from it, and adds it to
// the log unless the stream lets it go.
func (p *logReader) keep(rec Record, w wrapped, raw string, lineNo int) {
	l, opt := p.l, p.opt
	rec.Line = lineNo
	rec.Node = w.node
	if rec.Time == "" && w.time != "" {
		rec.Time = w.time // a message without a klog header: journald's own time
	}
	wr := w.wrapper
	if wr == "" {
		wr = "plain"
	}
	p.wrappers[wr] = true
	if w.node != "" {
		if p.nodes[w.node] || len(p.nodes) < maxLogNodes {
			p.nodes[w.node] = true
		} else {
			p.moreNodes = true
		}
	}
	if rec.cut || lineLooksCut(raw) {
		p.cut(lineNo, raw)
	}
	nw := len(l.Warnings)
	for _, m := range normalizeEra(&rec, l) {
		p.release.add(m)
	}
	if n := len(l.Warnings) - nw; n > 0 {
		if keep := maxEraWarnings - p.eraWarnings; n > keep {
			l.Warnings = l.Warnings[:nw+max(keep, 0)]
			p.eraMore += n - max(keep, 0)
		}
		p.eraWarnings += n
	}
	if !opt.noMessages {
		p.msgs.addRecord(&rec)
	}
	if n := ambiguousHints(&rec); n > 0 {
		p.ambiguous += n
		if p.ambiguousFirst == 0 {
			p.ambiguousFirst = rec.Line
		}
	}
	if streamed && opt.stream {
		if !p.filter.need(&rec) {
			l.Dropped++
			return
		}
		size := len(raw) + keptRecordBytes
		if len(l.Records) >= p.maxKept || p.keptBytes+size > maxKeptBytes {
			p.notKept++
			if p.notKeptFirst == 0 {
				p.notKeptFirst = rec.Line
			}
			return
		}
		p.keptBytes += size
		if len(rec.Values) == 0 {
			rec.Values = nil
		} else {
			rec.Values = slices.Clone(rec.Values)
		}
	}
	l.Records = append(l.Records, rec)
}

// readError returns the error that stopped the reading of the lines, if
// the log cannot be read past it; a cut gzip download with records read
// is a warning instead.
func (p *logReader) readError(name string) error {
	l, lines, opt := p.l, p.lines, p.opt
	if err := lines.err; err != nil {
		switch {
		case errors.Is(err, errGzipBomb):
			return fmt.Errorf("%s: stopped at line %d: %w", name, lines.n, err)
		case errors.Is(err, input.ErrTooLarge):
			what := "is larger than"
			if l.Compressed != "" {
				what = "inflates to more than"
			}
			how := "pass an excerpt around the failure, for example `journalctl -u kubelet --since=-1h` or `zcat FILE | grep -C 200 TopologyAffinityError`"
			if opt.raise != "" {
				how += ", or " + opt.raise
			}
			return fmt.Errorf("%s: the log %s %s (stopped at line %d): %s: %w",
				name, what, units.Bytes(opt.limit), lines.n, how, err)
		case l.Compressed != "" && len(l.Records) > 0 && truncatedGzip(err):
			// A cut download: keep what was read.
			l.Warnings = append(l.Warnings, fmt.Sprintf("the gzip stream ends early after line %d (%v): the rest of the log is missing", lines.n, err))
		default:
			return fmt.Errorf("%s: line %d: reading the log: %w (pass the log again, or a copy of it)", name, lines.read+1, err)
		}
	}
	return nil
}

// finish fills in what the log is as a whole (its messages, format,
// wrapper, nodes, warnings and release) and refuses a log with no kubelet
// line.
func (p *logReader) finish(name string) (*Log, error) {
	l, lines := p.l, p.lines
	l.Messages, l.MessagesMore = p.msgs.list, p.msgs.more
	l.Lines = lines.read
	if lines.long > 0 {
		l.Warnings = append(l.Warnings, fmt.Sprintf("%d lines longer than %s were skipped (first at line %d): no kubelet line is that long; the rest of the log was read",
			lines.long, units.Bytes(maxLogLine), lines.longFirst))
	}
	switch {
	case p.text > 0 && p.js > 0:
		l.Format = "mixed"
	case p.js > 0:
		l.Format = "json"
	default:
		l.Format = "text"
	}
	l.Wrapper = joinKeys(p.wrappers)
	for n := range p.nodes {
		l.Nodes = append(l.Nodes, n)
	}
	sort.Strings(l.Nodes)
	p.warnings()
	l.Release = p.release.result(l)
	if len(l.Records) == 0 && l.Dropped == 0 {
		return l, fmt.Errorf("%s: no kubelet log lines found in %d lines: no klog header (I1129 10:00:00.000000 1234 file.go:123] ...), JSON log object or known kubelet message; pass `journalctl -u kubelet` output, klog text lines or --logging-format=json lines", name, lines.read)
	}
	return l, nil
}

// warnings adds the warnings the reading counted: unknown renderings past
// the bound, several nodes, localised months, cut lines, ambiguous hints
// and records not kept.
func (p *logReader) warnings() {
	l := p.l
	if p.eraMore > 0 {
		l.Warnings = append(l.Warnings, fmt.Sprintf("%d more lines with renderings numascope does not know were ignored", p.eraMore))
	}
	if len(l.Nodes) > 1 {
		shown := l.Nodes
		if len(shown) > 5 {
			shown = shown[:5]
		}
		count := fmt.Sprint(len(l.Nodes))
		if p.moreNodes {
			count = "more than " + count
		}
		l.Warnings = append(l.Warnings, fmt.Sprintf("the lines come from %s nodes (%s): an `oc adm node-logs --role` or merged journal interleaves them; admissions are followed per node, and the order across nodes may be wrong",
			count, strings.Join(shown, ", ")))
	}
	if len(p.months) > 0 {
		l.Warnings = append(l.Warnings, fmt.Sprintf("localised month names in the journald prefix (%s): the timestamps were not interpreted; the klog time is used, and ordering assumes one year", joinKeys(p.months)))
	}
	if p.cutCount > 0 {
		l.Warnings = append(l.Warnings, p.cutWarning())
	}
	if p.ambiguous > 0 {
		l.Warnings = append(l.Warnings, fmt.Sprintf("%d hint lines (first at line %d) come from a kubelet before 1.28, which prints a nil and an empty hint map alike (map[]) and a nil and an empty hint list alike ([]): they are read as \"no preference\" and \"no placement\" and marked indistinct, unless a \"Hint Provider has no ...\" line settles it",
			p.ambiguous, p.ambiguousFirst))
	}
	if p.notKept > 0 {
		l.Warnings = append(l.Warnings, fmt.Sprintf("%d more records the findings read were not kept (first at line %d): numascope keeps at most %d records and %s of their lines; the findings cover the log up to that line: pass an excerpt from there on to see the rest",
			p.notKept, p.notKeptFirst, p.maxKept, units.Bytes(maxKeptBytes)))
	}
}

// cutWarning is the warning of the lines that end inside a value: the
// most common width of them tells a pager's cut.
func (p *logReader) cutWarning() string {
	width, n := 0, 0
	for w, c := range p.cutWidths {
		if c > n || c == n && w < width {
			width, n = w, c
		}
	}
	msg := fmt.Sprintf("%d lines end inside a quoted or bracketed value (first at line %d)", p.cutCount, p.cutFirst)
	if n >= 2 {
		msg += fmt.Sprintf(", %d of them at column %d: the log looks cut at a pager width; pass `journalctl --no-pager` output or use `less -S` without cutting", n, width)
	} else {
		msg += ": the values on those lines are incomplete"
	}
	return msg
}

// jsonMayStart tells whether s, which starts with "{", may start a JSON
// object: after the brace and JSON white space comes a key or the closing
// brace. parseJSONRecord fails on any other s.
func jsonMayStart(s string) bool {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\r', '\n':
			continue
		case '"', '}':
			return true
		}
		return false
	}
	return true // "{" and white space: let parseJSONRecord say
}

// ambiguousHints counts the hints values printed with Go's %v in which a
// nil and an empty map or list look alike (kubelets before 1.28).
func ambiguousHints(r *Record) int {
	n := 0
	for _, v := range r.Values {
		if v.Key == "hints" && v.goSyntax && v.JSON && (strings.Contains(v.Text, "{}") || strings.Contains(v.Text, "[]")) {
			n++
		}
	}
	return n
}

// joinFatal appends the headerless lines after an F record (the rest of a
// multi-line fatal message) to its message.
// joinPanic joins the goroutine dumps of a Go panic to its record: the
// "goroutine N [running]:" headers, their frames and file lines, and the
// blank lines between them, up to the next record.
func joinPanic(rec *Record, lines *lineSource) {
	n, size := 0, 0
	for {
		next, ok := lines.lookahead()
		if !ok {
			return
		}
		w := unwrapLine(next)
		b := w.body
		dump := isBlank(b) || strings.HasPrefix(b, "goroutine ") || strings.HasPrefix(b, "\t") || strings.HasPrefix(b, "[signal ") ||
			strings.HasPrefix(b, "created by ") || strings.HasSuffix(strings.TrimSpace(b), ")") || strings.Contains(b, ".go:")
		if w.meta || !dump {
			return
		}
		if _, ok := findKlogHeader(b); ok {
			return
		}
		lines.next()
		if n < maxJoinedLines && size < maxJoinedBytes && !isBlank(b) {
			rec.Message += "\n" + b
			size += len(b)
		}
		n++
	}
}

func joinFatal(rec *Record, lines *lineSource) {
	n, size := 0, 0
	for {
		next, ok := lines.lookahead()
		if !ok {
			return
		}
		w := unwrapLine(next)
		if w.meta || w.body == "" {
			return
		}
		if _, ok := findKlogHeader(w.body); ok {
			return
		}
		if _, ok := findCutKlogHeader(w.body); ok {
			return
		}
		if strings.HasPrefix(w.body, "{") && jsonLogStart(w.body) {
			return
		}
		lines.next()
		if n < maxJoinedLines && size < maxJoinedBytes {
			rec.Message += "\n" + w.body
			size += len(w.body)
		}
		n++
	}
}

// lineLooksCut reports a line that a pager cut: it ends with ">" or "…"
// while a quote or bracket is still open.
func lineLooksCut(raw string) bool {
	t := strings.TrimRight(raw, " ")
	if !strings.HasSuffix(t, ">") && !strings.HasSuffix(t, "…") {
		return false
	}
	if strings.HasSuffix(t, "=<") || strings.TrimSpace(t) == ">" {
		return false
	}
	return strings.Count(t, "{")+strings.Count(t, "[") > strings.Count(t, "}")+strings.Count(t, "]") || strings.Count(t, `"`)%2 == 1
}

func joinKeys(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, "+")
}

// jsonHasKey reports whether the top-level object s has key (cheap check on
// the records jsonLogStart accepted).
func jsonHasKey(s, key string) (int, bool) {
	i := strings.Index(s, `"`+key+`":`)
	return i, i >= 0
}
