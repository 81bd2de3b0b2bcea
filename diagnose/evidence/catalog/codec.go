package catalog

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Schema is the version of the data file's layout that this package reads.
const Schema = 1

// Header describes a catalogue: what generated it and from which sources.
type Header struct {
	Catalogue string `json:"catalogue"` // "kubelet"
	Schema    int    `json:"schema"`
	Generator string `json:"generator"` // the generator and its version
	Entries   int    `json:"entries"`
	// Releases are the sources read, one per kubelet minor release, in
	// order. They are written one per line after the header line.
	Releases []Release `json:"-"`
}

// Release is one kubelet release read for the catalogue, with the module
// versions its sources come from.
type Release struct {
	Release string   `json:"release"` // "1.16"
	Modules []Module `json:"modules"`
}

// Module is one module version and its go.sum hash (h1:), verified
// against the Go checksum database when it was downloaded.
type Module struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	Sum     string `json:"sum"`
}

// ID returns the stable identifier of an entry: a hash of what it prints
// and how (kind, level, form, format, keys, reason), not of where.
func ID(e *Entry) string {
	h := sha256.New()
	for _, s := range []string{string(e.Kind), string(e.Level), string(e.Form), e.Format, strings.Join(e.Keys, "\x1f"), e.Reason} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// Encode writes a catalogue as JSON lines: the header, one line per
// release, then the entries sorted by ID. The output depends only on the
// values given.
func Encode(w io.Writer, h Header, entries []Entry) error {
	sorted := append([]Entry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	h.Entries = len(sorted)
	if h.Schema == 0 {
		h.Schema = Schema
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(h); err != nil {
		return err
	}
	for _, r := range h.Releases {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	for i := range sorted {
		if err := enc.Encode(&sorted[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// maxLine bounds one line of a data file.
const maxLine = 1 << 20

// Decode reads a catalogue written by Encode. It checks what the matcher
// relies on: the header and schema, known kinds, levels and forms, ranges,
// and IDs that are unique, sorted and equal to ID of their entry.
func Decode(r io.Reader) (Header, []Entry, error) {
	var h Header
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	line := 0
	var entries []Entry
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if line == 1 {
			if err := strictUnmarshal(b, &h); err != nil {
				return h, nil, fmt.Errorf("catalogue line 1: the header: %w", err)
			}
			if h.Schema != Schema {
				return h, nil, fmt.Errorf("catalogue line 1: schema %d, this reader knows %d: regenerate the catalogue", h.Schema, Schema)
			}
			continue
		}
		if bytes.HasPrefix(b, []byte(`{"release":`)) {
			if len(entries) > 0 {
				return h, nil, fmt.Errorf("catalogue line %d: a release line after the entries", line)
			}
			var rel Release
			if err := strictUnmarshal(b, &rel); err != nil {
				return h, nil, fmt.Errorf("catalogue line %d: %w", line, err)
			}
			h.Releases = append(h.Releases, rel)
			continue
		}
		var e Entry
		if err := strictUnmarshal(b, &e); err != nil {
			return h, nil, fmt.Errorf("catalogue line %d: %w", line, err)
		}
		if err := e.check(); err != nil {
			return h, nil, fmt.Errorf("catalogue line %d: entry %s: %w", line, e.ID, err)
		}
		if n := len(entries); n > 0 && entries[n-1].ID >= e.ID {
			return h, nil, fmt.Errorf("catalogue line %d: entry %s is out of order or repeated (after %s)", line, e.ID, entries[n-1].ID)
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return h, nil, fmt.Errorf("catalogue line %d: %w", line+1, err)
	}
	if line == 0 {
		return h, nil, fmt.Errorf("catalogue: empty")
	}
	if h.Entries != len(entries) {
		return h, nil, fmt.Errorf("catalogue: the header counts %d entries, the file has %d", h.Entries, len(entries))
	}
	return h, entries, nil
}

func strictUnmarshal(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

func (e *Entry) check() error {
	switch e.Kind {
	case KindLog, KindError, KindEvent, KindAdmit, KindFlag:
	default:
		return fmt.Errorf("unknown kind %q", e.Kind)
	}
	switch e.Level {
	case LevelInfo, LevelWarning, LevelError, LevelFatal:
	default:
		return fmt.Errorf("unknown level %q", e.Level)
	}
	switch e.Form {
	case FormPrintf, FormStructured:
	default:
		return fmt.Errorf("unknown form %q", e.Form)
	}
	if id := ID(e); id != e.ID {
		return fmt.Errorf("the id of what it records is %s", id)
	}
	if len(e.Releases) == 0 {
		return fmt.Errorf("no releases")
	}
	n := len(Verbs(e.Format))
	for _, i := range e.Errs {
		if i < 0 || i >= n {
			return fmt.Errorf("errs names verb %d of %d", i, n)
		}
	}
	return nil
}
