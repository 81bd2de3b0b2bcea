package statefile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/numascope/numascope/internal/input"
)

// ErrNotRegular is wrapped by ReadFile's error for a path that is a FIFO, a
// device, a socket or a directory.
var ErrNotRegular = input.ErrNotRegular

// ReadFile opens path read-only and decodes it. It reads at most
// Options.MaxSize bytes. When opts.Name is "" the path is used as the name.
// It opens without blocking and reads only a regular file: a FIFO, a device
// (/dev/zero), a socket or a directory is refused at once with an error
// wrapping ErrNotRegular, so a named pipe never hangs it.
func ReadFile(path string, opts Options) (*File, error) {
	if opts.Name == "" {
		opts.Name = path
	}
	fh, err := input.Open(path, "")
	if st, serr := os.Stat(path); err != nil && serr == nil && st.Mode().Type()&fs.ModeSocket != 0 {
		// open(2) of a socket fails (ENXIO) before input can say what it is
		err = fmt.Errorf("%s: %w: it is a socket; give a copy of the file", path, ErrNotRegular)
	}
	if err != nil {
		// input names the path first; the name the caller gave leads here
		// and the error stays an *fs.PathError, as an open(2) error is
		return nil, &readError{msg: opts.Name + ": cannot read the checkpoint: " + strings.TrimPrefix(err.Error(), path+": "),
			err: &fs.PathError{Op: "open", Path: path, Err: err}}
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxSize(opts)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the checkpoint: %w", opts.Name, err)
	}
	if limit := maxSize(opts); int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (more than %d bytes); kubelet checkpoints are far smaller, check that this is the right file or raise Options.MaxSize", opts.Name, ErrTooLarge, limit)
	}
	return Decode(data, opts)
}

// readError is an error of internal/input, worded with the file's name.
type readError struct {
	msg string
	err error
}

func (e *readError) Error() string { return e.msg }
func (e *readError) Unwrap() error { return e.err }
