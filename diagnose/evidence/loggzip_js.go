//go:build js

package evidence

import (
	"errors"
	"io"
)

// The browser build leaves compress/gzip out to stay within the playground's
// size budget: a pasted log is text, and a compressed file gets this error.
func gunzip(io.Reader) (io.ReadCloser, int, error) {
	return nil, 0, errors.New("gzip-compressed logs are not read in the browser: decompress the file first (zcat FILE)")
}

func truncatedGzip(error) bool { return false }

// gunzipAll refuses compressed input in the browser (see gunzip).
func gunzipAll(_ []byte, _ string, _ int64) ([]byte, int, bool, error) {
	_, _, err := gunzip(nil)
	return nil, 0, false, err
}

// streamed is false in the browser: it reads pasted text and files the page
// was given (Set.Add), never a log streamed from disk (loadLog), so
// the streaming filter is left out of the build.
const streamed = false

// errGzipBomb is never returned in the browser, which reads no gzip.
var errGzipBomb = errors.New("gzip bomb")
