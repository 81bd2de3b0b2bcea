//go:build !js

package evidence

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/units"
)

// maxGzipLayers bounds how many gzip layers one input may have: a gzip of
// a gzip'd log (a rotated .gz compressed again for a ticket) is read, a
// deeper nesting is refused rather than peeled without end.
const maxGzipLayers = 3

// A gzip bomb is refused by its compression ratio: once more than
// bombFrom bytes are inflated, a stream that has inflated more than
// maxRatio bytes per compressed byte and per gzip layer is not a log (a
// gzip of a gzip'd log compresses again a little where the inner one was
// made at a fast level: 3:1 over a 28:1 inner layer). gzip's deflate reaches
// about 1000:1 on a run of one byte, and two layers of it a million to
// one; kubelet logs, whose lines carry timestamps and names, stay far
// below 50:1 (a 300 MB journal of admissions: 28:1), and deflate at its fastest
// level still packs a run of newlines 229:1.
const (
	bombFrom = 8 << 20
	maxRatio = 100
)

// errGzipBomb is the error of a stream that inflates like a bomb; it
// wraps input.ErrTooLarge.
var errGzipBomb = fmt.Errorf("%w: the gzip data inflates more than %d times its size per gzip layer, as a decompression bomb does, not a log: if it is a real log, decompress it yourself (zcat FILE > kubelet.log) and pass that", input.ErrTooLarge, maxRatio)

// gunzip opens a gzip stream and every gzip layer under it, up to
// maxGzipLayers (several members are read as one, as zcat does). layers
// is how many were peeled off. The data is inflated as it is read, never
// held whole, and a stream inflating as a bomb does stops with
// errGzipBomb.
func gunzip(r io.Reader) (plain io.ReadCloser, layers int, err error) {
	var closers multiCloser
	in := &countReader{r: r}
	var src io.Reader = in
	for {
		br := bufio.NewReaderSize(src, 32<<10)
		if magic, _ := br.Peek(2); !(len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
			if layers == 0 {
				return nil, 0, gzip.ErrHeader
			}
			return readCloser{&ratioReader{r: br, in: in, ratio: maxRatio * int64(layers)}, closers}, layers, nil
		}
		if layers == maxGzipLayers {
			closers.Close()
			return nil, layers, fmt.Errorf("more than %d gzip layers, one inside the other: decompress it yourself (zcat) and pass the log", maxGzipLayers)
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			closers.Close()
			if layers > 0 {
				err = fmt.Errorf("gzip layer %d: %w", layers+1, err)
			}
			return nil, layers, err
		}
		closers = append(closers, zr)
		layers++
		src = zr
	}
}

// countReader counts the bytes read from r.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// ratioReader stops with errGzipBomb when what it has read outgrows the
// compressed bytes read (in) by more than ratio, past bombFrom.
type ratioReader struct {
	r     io.Reader
	in    *countReader
	ratio int64
	out   int64
}

func (z *ratioReader) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	z.out += int64(n)
	if z.out > bombFrom && z.out > z.ratio*z.in.n {
		return n, errGzipBomb
	}
	return n, err
}

type multiCloser []io.Closer

func (m multiCloser) Close() error {
	var errs []error
	for i := len(m) - 1; i >= 0; i-- {
		errs = append(errs, m[i].Close())
	}
	return errors.Join(errs...)
}

type readCloser struct {
	io.Reader
	io.Closer
}

// truncatedGzip reports the errors of a gzip stream cut short.
func truncatedGzip(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum)
}

// gunzipAll decompresses a gzip input held in memory, every layer of it,
// through limit bytes of inflated data: the one decompressor of both the
// log reader and Set.Add. Past limit it stops with input.ErrTooLarge
// and returns nothing, having held at most limit bytes (a larger log is
// streamed: see Set.add). cut reports a stream cut short, whose data
// up to the cut is returned.
func gunzipAll(data []byte, name string, limit int64) (plain []byte, layers int, cut bool, err error) {
	zr, layers, err := gunzip(bytes.NewReader(data))
	if err != nil {
		return nil, layers, false, err
	}
	defer zr.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(io.LimitReader(zr, limit+1))
	if int64(b.Len()) > limit {
		return nil, layers, false, fmt.Errorf("%s (gzip): %w: more than %s decompressed; cut it to the part that matters", name, input.ErrTooLarge, units.Bytes(limit))
	}
	plain = b.Bytes()
	if err != nil {
		if truncatedGzip(err) && len(plain) > 0 {
			return plain, layers, true, nil
		}
		return nil, layers, false, err
	}
	return plain, layers, false, nil
}

// streamed tells whether this build reads logs streamed from disk (see
// loggzip_js.go).
const streamed = true
