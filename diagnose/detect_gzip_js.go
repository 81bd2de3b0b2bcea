//go:build js

package diagnose

import (
	"errors"
	"io"
)

// gzipReader refuses gzip data in the browser: a paste is text, and the
// playground's engine stays small without a decompressor.
func gzipReader([]byte) io.Reader { return errReader{errGzipInBrowser} }

var errGzipInBrowser = errors.New("compressed data cannot be read in the browser: decompress it first (zcat FILE) and paste the text")

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
