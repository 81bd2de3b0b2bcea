// Package input reads numascope's untrusted inputs with bounds: it never
// blocks on a FIFO, never reads a device or a socket, and never reads more
// than a limit that fits the kind of input.
package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/numascope/numascope/internal/units"
)

// Limits for the kinds of input numascope reads. A kubelet checkpoint is a
// few KB to a few MB; logs are the largest thing people paste.
const (
	MaxCheckpoint   = 64 << 20  // state files (a 10,000-container memory v3 file is 2.3 MB)
	MaxDocument     = 16 << 20  // one YAML/JSON document: a pod, a config, machine-info, hints
	MaxLog          = 256 << 20 // a kubelet log or journal
	MaxSysfsFile    = 64 << 10  // one sysfs attribute file
	MaxPodResources = 64 << 20  // a PodResources snapshot
)

// ErrTooLarge is wrapped when an input is larger than its limit.
var ErrTooLarge = errors.New("input larger than its limit")

// ErrNotRegular is wrapped when a path names a FIFO, a device, a socket or a directory.
var ErrNotRegular = errors.New("not a regular file")

// ReadFile reads a regular file of at most limit bytes. what names the input
// for errors (a flag such as "--log", or a field); the path is named too. It
// opens the file without blocking, so a FIFO neither hangs nor is read.
func ReadFile(path, what string, limit int64) ([]byte, error) {
	fh, err := Open(path, what)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	label := labelOf(path, what)
	// A regular file's size is known: read it into one buffer of that size
	// (growing by doubling would take up to three times the file).
	if st, err := fh.Stat(); err == nil && st.Size() > 0 && st.Size() <= limit {
		buf := make([]byte, 0, st.Size()+1)
		for {
			n, err := fh.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				return buf, nil
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", label, unwrapPathError(err))
			}
			if len(buf) == cap(buf) { // the file grew while it was read
				rest, err := ReadAll(fh, label, limit-int64(len(buf)))
				if err != nil {
					return nil, err
				}
				return append(buf, rest...), nil
			}
		}
	}
	return ReadAll(fh, label, limit)
}

// Open opens a regular file without blocking and returns it for reading; the
// caller closes it and should read it through ReadAll. It refuses what
// ReadFile refuses.
func Open(path, what string) (*os.File, error) {
	label := labelOf(path, what)
	fh, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, unwrapPathError(err))
	}
	st, err := fh.Stat()
	if err == nil {
		err = checkRegular(st, label)
	}
	if err != nil {
		fh.Close()
		return nil, err
	}
	return fh, nil
}

func labelOf(path, what string) string {
	if what == "" {
		return path
	}
	return what + " " + path
}

// CheckRegular refuses a file that is not a regular file, naming label.
func checkRegular(st fs.FileInfo, label string) error {
	if st.Mode().IsRegular() {
		return nil
	}
	kind := "not a regular file"
	switch m := st.Mode(); {
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeCharDevice != 0:
		kind = "a character device"
	case m&fs.ModeDevice != 0:
		kind = "a block device"
	}
	return fmt.Errorf("%s: %w: it is %s; give a copy of the file (cat it into a file first)", label, ErrNotRegular, kind)
}

// ReadAll reads r to its end, refusing more than limit bytes. label names
// the input in the error.
func ReadAll(r io.Reader, label string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, unwrapPathError(err))
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w: more than %s; this is not what the input should be, or cut it to the part that matters", label, ErrTooLarge, units.Bytes(limit))
	}
	return data, nil
}

// ReadFS reads a regular file of at most limit bytes from fsys. It checks the
// file's type with fs.Stat before opening it, so that a FIFO in a directory
// tree is refused instead of blocking the open.
func ReadFS(fsys fs.FS, name, label string, limit int64) ([]byte, error) {
	if label == "" {
		label = name
	}
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, unwrapPathError(err))
	}
	if err := checkRegular(st, label); err != nil {
		return nil, err
	}
	fh, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, unwrapPathError(err))
	}
	defer fh.Close()
	return ReadAll(fh, label, limit)
}

// unwrapPathError drops the *PathError wrapper, whose text repeats the path
// that the label already names.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%w", pe.Err)
	}
	return err
}

// Stdin returns standard input when it carries data for the command: a
// pipe or a redirected regular file, not a terminal or a device (stdin
// from /dev/null, or a terminal, is "nothing given"). Reading it is the
// caller's, through ReadAll with the limit of its kind.
func Stdin() (io.Reader, bool) {
	st, err := os.Stdin.Stat()
	if err != nil {
		return nil, false
	}
	m := st.Mode()
	if m&os.ModeNamedPipe != 0 || m.IsRegular() {
		return os.Stdin, true
	}
	return nil, false
}

// StdinName names standard input in reports and errors.
const StdinName = "standard input"

// Piped reads what from gives (Stdin in a command, a stub in its tests),
// at most limit bytes: nil when nothing is piped or the pipe holds only
// blanks, which a command takes as nothing given.
func Piped(from func() (io.Reader, bool), limit int64) ([]byte, error) {
	r, ok := from()
	if !ok {
		return nil, nil
	}
	data, err := ReadAll(r, StdinName, limit)
	if err != nil || len(bytes.TrimSpace(data)) == 0 {
		return nil, err
	}
	return data, nil
}
