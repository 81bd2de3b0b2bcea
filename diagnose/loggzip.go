//go:build !js

package diagnose

import (
	"compress/gzip"
	"errors"
	"io"
)

// gunzip opens a gzip stream (several members are read as one, as zcat does).
func gunzip(r io.Reader) (io.ReadCloser, error) {
	return gzip.NewReader(r)
}

// truncatedGzip reports the errors of a gzip stream cut short.
func truncatedGzip(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum)
}
