//go:build !js

package diagnose

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/numascope/numascope/internal/input"
)

// gunzip opens a gzip stream (several members are read as one, as zcat does).
func gunzip(r io.Reader) (io.ReadCloser, error) {
	return gzip.NewReader(r)
}

// truncatedGzip reports the errors of a gzip stream cut short.
func truncatedGzip(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum)
}

// gunzipAll decompresses a whole gzip input through input.MaxLog, the one
// decompressor of both the log reader and Evidence.Add; cut reports a stream
// cut short, whose data up to the cut is returned.
func gunzipAll(data []byte, name string) (plain []byte, cut bool, err error) {
	zr, err := gunzip(bytes.NewReader(data))
	if err != nil {
		return nil, false, err
	}
	defer zr.Close()
	plain, err = io.ReadAll(io.LimitReader(zr, input.MaxLog+1))
	if int64(len(plain)) > input.MaxLog {
		return nil, false, fmt.Errorf("%s (gzip): %w: more than %s decompressed; cut it to the part that matters", name, input.ErrTooLarge, input.HumanBytes(input.MaxLog))
	}
	if err != nil {
		if truncatedGzip(err) && len(plain) > 0 {
			return plain, true, nil
		}
		return nil, false, err
	}
	return plain, false, nil
}

// streamed tells whether this build reads logs streamed from disk (see
// loggzip_js.go).
const streamed = true
