package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/units"
)

// entry is one file of an archive: a path relative to the archive's top
// directory, its mode and its bytes, or the regular file they are read from
// (src, at most maxArtifact bytes) while the archive is written.
type entry struct {
	name string
	mode fs.FileMode // 0o755 for programs, 0o644 for the rest
	data []byte
	src  string
}

// content calls fn with the entry's size and a reader of its bytes.
func (e entry) content(fn func(size int64, r io.Reader) error) error {
	if e.src == "" {
		return fn(int64(len(e.data)), bytes.NewReader(e.data))
	}
	f, err := input.Open(e.src, e.name)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() > maxArtifact {
		return fmt.Errorf("%s: %s is larger than %s: %w", e.name, e.src, units.Bytes(maxArtifact), input.ErrTooLarge)
	}
	// Exactly the size the header announced: a file that changes while it
	// is archived is an error, not a damaged archive.
	return fn(st.Size(), io.LimitReader(f, st.Size()))
}

// archive is what goes into one release archive: every entry under one top
// directory (prefix), each with the same modification time.
type archive struct {
	prefix  string // the top directory, e.g. numascope-v0.3.0-linux-amd64
	mtime   time.Time
	entries []entry
}

// sorted returns the entries in name order, so the bytes of an archive do not
// depend on the order in which its files were added. Two entries with one
// name, an absolute name or one that leaves the top directory are errors.
func (a *archive) sorted() ([]entry, error) {
	out := append([]entry(nil), a.entries...)
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	for i, e := range out {
		if e.name == "" || path.IsAbs(e.name) || path.Clean(e.name) != e.name || e.name == ".." || strings.HasPrefix(e.name, "../") {
			return nil, fmt.Errorf("archive %s: entry %q is not a clean relative path", a.prefix, e.name)
		}
		if i > 0 && out[i-1].name == e.name {
			return nil, fmt.Errorf("archive %s: two entries named %s", a.prefix, e.name)
		}
	}
	return out, nil
}

// dirs lists the directories the entries need, parents first, the top
// directory included.
func dirs(prefix string, entries []entry) []string {
	seen := map[string]bool{prefix: true}
	out := []string{prefix}
	for _, e := range entries {
		var chain []string
		for d := path.Dir(e.name); d != "."; d = path.Dir(d) {
			chain = append(chain, path.Join(prefix, d))
		}
		for i := len(chain) - 1; i >= 0; i-- {
			if !seen[chain[i]] {
				seen[chain[i]] = true
				out = append(out, chain[i])
			}
		}
	}
	sort.Strings(out)
	return out
}

// writeTarGz writes a as a gzip-compressed tar: directories first, then the
// files in name order, owned by uid and gid 0 with no user or group names,
// every one with a's modification time. The gzip header carries no name and
// no time. Writing the same archive twice gives the same bytes.
func writeTarGz(w io.Writer, a *archive) error {
	entries, err := a.sorted()
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	mtime := a.mtime.UTC().Truncate(time.Second)
	for _, d := range dirs(a.prefix, entries) {
		if err := tw.WriteHeader(&tar.Header{
			Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: mtime, Format: tar.FormatPAX,
		}); err != nil {
			return err
		}
	}
	for _, e := range entries {
		err := e.content(func(size int64, r io.Reader) error {
			if err := tw.WriteHeader(&tar.Header{
				Typeflag: tar.TypeReg, Name: path.Join(a.prefix, e.name), Mode: int64(e.mode.Perm()),
				Size: size, ModTime: mtime, Format: tar.FormatPAX,
			}); err != nil {
				return err
			}
			_, err := io.Copy(tw, r)
			return err // a short file: tar's "missed writing" error
		})
		if err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// writeZip writes a as a zip archive (for Windows): the same layout and
// times as writeTarGz, deflated, with Unix modes recorded for unzip.
func writeZip(w io.Writer, a *archive) error {
	entries, err := a.sorted()
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	mtime := a.mtime.UTC().Truncate(time.Second)
	for _, d := range dirs(a.prefix, entries) {
		h := &zip.FileHeader{Name: d + "/", Method: zip.Store, Modified: mtime}
		h.SetMode(fs.ModeDir | 0o755)
		if _, err := zw.CreateHeader(h); err != nil {
			return err
		}
	}
	for _, e := range entries {
		h := &zip.FileHeader{Name: path.Join(a.prefix, e.name), Method: zip.Deflate, Modified: mtime}
		h.SetMode(e.mode.Perm())
		err := e.content(func(size int64, r io.Reader) error {
			f, err := zw.CreateHeader(h)
			if err != nil {
				return err
			}
			n, err := io.Copy(f, r)
			if err == nil && n != size {
				err = fmt.Errorf("%s changed while it was archived (%d of %d bytes)", e.name, n, size)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return zw.Close()
}

// sha256sums renders the SHA256SUMS file for sums (file name → hex SHA-256)
// in the format `sha256sum -c` reads: one "HEX  NAME" line per file, in name
// order.
func sha256sums(sums map[string]string) []byte {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n)
	}
	return []byte(b.String())
}
