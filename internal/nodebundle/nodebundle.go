// Package nodebundle is the on-node evidence bundle: the kubelet's files as
// they are on a node (checkpoints, configuration, a PodResources snapshot,
// the NUMA part of sysfs), written by the agent as one JSON line
// (`agent --once --report bundle`) and read back from that pod's log by
// kubectl-numascope. Paths inside the bundle follow the layout that
// evidence.SourcesFromDir reads, so a bundle written out as a directory is
// what `examples/diagnose --dir` and the playground take.
package nodebundle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/numascope/numascope/internal/input"
)

// Schema identifies the bundle line.
const Schema = "numascope.bundle/v1"

// Bounds of a bundle read back.
const (
	// MaxFiles caps the files of one bundle (sysfs of a 1024-CPU machine
	// takes about 4,200).
	MaxFiles = 20000
	// MaxBytes caps the bundle line (base64 included): checkpoints of a
	// 10,000-pod node are under 4 MiB, their base64 under 6.
	MaxBytes = 64 << 20
)

// ErrNoBundle is returned when a log holds no bundle line.
var ErrNoBundle = errors.New("no " + Schema + " line")

// Bundle is one node's evidence.
type Bundle struct {
	Schema string    `json:"schema"`
	Node   string    `json:"node"`
	Time   time.Time `json:"time"`
	Files  []File    `json:"files"`
	// Errors are the sources that could not be read, and why.
	Errors []Error `json:"errors,omitempty"`
}

// File is one file of the bundle; Data is base64 in JSON.
type File struct {
	Path string `json:"path"`
	Data []byte `json:"data"`
}

// Error says why a source is missing from the bundle.
type Error struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Write writes b as one JSON line.
func Write(w io.Writer, b *Bundle) error {
	b.Schema = Schema
	data, err := json.Marshal(b)
	if err != nil {
		return fmt.Errorf("encoding the bundle: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// Read finds the bundle line in a log (the agent's pod log: its own log
// lines on stderr may be mixed in) and checks it: at most MaxBytes read,
// at most MaxFiles files, every path relative, clean and unique. name names
// the log in errors.
func Read(r io.Reader, name string) (*Bundle, error) {
	sc := bufio.NewScanner(io.LimitReader(r, MaxBytes+1))
	sc.Buffer(make([]byte, 0, 64<<10), MaxBytes)
	marker := []byte(`"schema":"` + Schema + `"`)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, marker) {
			continue
		}
		if err := input.CheckValues(line, name, input.ValueBudget{MaxValues: 4*MaxFiles + 1000, MaxDepth: 10}); err != nil {
			return nil, err
		}
		var b Bundle
		if err := json.Unmarshal(line, &b); err != nil {
			return nil, fmt.Errorf("%s: the bundle line is not valid JSON: %w", name, err)
		}
		if b.Schema != Schema {
			continue
		}
		if err := b.check(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return &b, nil
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s: a line is longer than %d MiB: %w", name, MaxBytes>>20, err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return nil, fmt.Errorf("%s: %w (is the agent image recent enough to know --report bundle?)", name, ErrNoBundle)
}

func (b *Bundle) check() error {
	if len(b.Files) > MaxFiles {
		return fmt.Errorf("the bundle has %d files, more than %d", len(b.Files), MaxFiles)
	}
	seen := make(map[string]bool, len(b.Files))
	for _, f := range b.Files {
		if err := CheckPath(f.Path); err != nil {
			return err
		}
		if seen[f.Path] {
			return fmt.Errorf("bundle file %q appears twice", f.Path)
		}
		seen[f.Path] = true
	}
	return nil
}

// CheckPath refuses a path that is not relative, clean and inside the bundle.
func CheckPath(p string) error {
	if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == "." || strings.HasPrefix(p, "../") || p == ".." ||
		strings.ContainsAny(p, "\\\x00") {
		return fmt.Errorf("bundle file path %q is not a clean relative path", p)
	}
	return nil
}

// Get returns the data of the file at p.
func (b *Bundle) Get(p string) ([]byte, bool) {
	for _, f := range b.Files {
		if f.Path == p {
			return f.Data, true
		}
	}
	return nil, false
}

// WriteDir writes the files under dir (created if needed); it refuses to
// overwrite a file that exists.
func (b *Bundle) WriteDir(dir string) error {
	for _, f := range b.Files {
		if err := CheckPath(f.Path); err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		fh, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("writing %s: %w", p, err)
		}
		_, err = fh.Write(f.Data)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", p, err)
		}
	}
	return nil
}
