//go:build !js

package diagnose

import (
	"bytes"
	"compress/gzip"
	"io"
)

// gzipReader decompresses a gzip stream (a rotated kubelet log,
// must-gather's *_logs_kubelet.gz).
func gzipReader(data []byte) io.Reader {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return errReader{err}
	}
	return zr
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
