package diagnose

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/numascope/numascope/internal/input"
)

// A kubelet log of any size is read in one pass, line by line: the records
// a finding reads are kept (recordNeeded), the rest are counted and let go,
// so memory stays bounded by what the findings need (at most
// maxKeptRecords records and maxKeptBytes of their lines) and one line
// (maxLogLine), not by the log's size.

// streamAbove is the size from which a log is streamed rather than read
// into memory: smaller inputs go through Add (paste normalisation, content
// sniffing, every record kept), exactly as a pasted log does.
var streamAbove int64 = input.MaxDocument

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
func (e *Evidence) AddLogStream(name string, r io.Reader, limit int64) EvidenceItem {
	head, err := readHead(r, streamAbove)
	if err != nil {
		err = fmt.Errorf("%s: reading the log: %w", name, err)
		e.refuse(name, kindLog, kindLog, err)
		return e.items[len(e.items)-1]
	}
	if int64(len(head)) <= streamAbove {
		n := len(e.items)
		it, err := e.add(name, kindLog, head, true, true)
		if err == nil || !isGzip(head) || !errors.Is(err, input.ErrTooLarge) {
			return it
		}
		// A small gzip file that inflates past the in-memory limit: stream it.
		e.items = e.items[:n]
		r = bytes.NewReader(head)
	} else {
		r = io.MultiReader(bytes.NewReader(head), r)
	}
	it := e.streamLog(name, r, limit)
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
func (e *Evidence) streamLog(name string, r io.Reader, limit int64) EvidenceItem {
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
		return EvidenceItem{File: name, Kind: kindLog, Given: kindLog, Status: "refused", Error: err.Error(), Warnings: warns}
	}
	if l.Compressed != "" {
		warns = append(warns, "decompressed gzip data")
	}
	k := l.interpret()
	e.Logs = append(e.Logs, k)
	return EvidenceItem{File: name, Kind: kindLog, Format: l.Format, Status: "read",
		Note: fmt.Sprintf("%d lines streamed, %d records read, %d kept for the findings, %d admission attempts, %d signals",
			l.Lines, len(l.Records)+l.Dropped, len(l.Records), len(k.Attempts), len(k.Signals)),
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

// recordNeeded tells whether a finding may read the record: interpret
// (admission attempts and signals), the admission-error scan, the release
// inference and the restart check. Every other record can be dropped
// without changing a finding.
func recordNeeded(r *logRecord) bool {
	if interpretMessages[r.Message] || kubeletStartMessages[r.Message] {
		return true
	}
	switch r.Message {
	case "Event occurred":
		if reason, _ := r.Get("reason"); admissionReasons[reason] {
			return true
		}
	case "Patch status for pod":
		patch, _ := r.Get("patch")
		if strings.IndexByte(patch, '\\') >= 0 {
			return true // an escaped reason: decoded only by interpret
		}
		for reason := range admissionReasons {
			if strings.Contains(patch, reason) {
				return true
			}
		}
	}
	if strings.HasPrefix(r.Message, "Version: v1.") || strings.HasPrefix(r.Message, "[topologymanager]") || strings.HasPrefix(r.Message, "[cpumanager]") {
		return true
	}
	if recordMentionsAdmission(*r) {
		return true
	}
	var k KubeletLog
	k.signals(*r)
	return len(k.Signals) > 0
}

// loadLog streams the log file at path into the evidence (see
// AddLogStream); what names the input in errors ("--log").
func (e *Evidence) loadLog(path, what string, limit int64) {
	fh, err := input.Open(path, what)
	if err != nil {
		e.refuse(path, kindLog, kindLog, err)
		return
	}
	defer fh.Close()
	e.AddLogStream(path, fh, limit)
}

// largeLog tells whether the file at path is larger than streamAbove and
// starts like a kubelet log (or gzip data): Load streams it then.
func largeLog(path string) (bool, error) {
	fh, err := input.Open(path, "evidence file")
	if err != nil {
		return false, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil || st.Size() <= streamAbove {
		return false, nil
	}
	head, err := readHead(fh, sniffHead-1)
	if err != nil {
		return false, fmt.Errorf("evidence file %s: %w", path, err)
	}
	k, _ := primaryKind(head)
	return k == kindLog, nil
}
