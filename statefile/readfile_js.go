//go:build js

package statefile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotRegular is wrapped by ReadFile's error for a path that is not a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// ReadFile opens path read-only and decodes it (the browser build has no
// FIFOs or devices; it still reads only regular files, and at most
// Options.MaxSize bytes).
func ReadFile(path string, opts Options) (*File, error) {
	if opts.Name == "" {
		opts.Name = path
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the checkpoint: %w", opts.Name, err)
	}
	defer fh.Close()
	if st, err := fh.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: cannot read the checkpoint: %w; give a copy of the file", opts.Name, ErrNotRegular)
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxSize(opts)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the checkpoint: %w", opts.Name, err)
	}
	if limit := maxSize(opts); int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (more than %d bytes); kubelet checkpoints are far smaller, check that this is the right file or raise Options.MaxSize", opts.Name, ErrTooLarge, limit)
	}
	return Decode(data, opts)
}
