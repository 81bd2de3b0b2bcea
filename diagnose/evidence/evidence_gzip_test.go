package evidence

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAddGzipCutStream: Evidence.Add decompresses with the log reader's
// decompressor, so a stream cut after some data keeps what came before the
// cut, with a warning, as ParseLog does; data that is not gzip after the
// magic bytes is refused.
func TestAddGzipCutStream(t *testing.T) {
	var text strings.Builder
	for i := range 400 {
		fmt.Fprintf(&text, "I0305 09:20:11.%06d    2741 kubelet.go:2380] \"Pod admission denied\" podUID=\"u%d\" pod=\"telco/p-%d\" reason=\"TopologyAffinityError\" message=\"Resources cannot be allocated with Topology locality\"\n", i, i, i)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, err := zw.Write([]byte(text.String()))
	require.NoError(t, err)
	require.NoError(t, zw.Close())

	cut := (&Set{}).Add("kubelet.log.gz", "", z.Bytes()[:z.Len()*3/4])
	assert.Equal(t, KindLog, cut.Kind, "cut stream: kind")
	assert.NotEqual(t, "refused", cut.Status, "cut stream: read as far as it goes")
	assert.Contains(t, cut.Warnings, "the gzip stream is cut short: read what came before the cut")

	bad := (&Set{}).Add("kubelet.log.gz", "", []byte("\x1f\x8bnot gzip at all"))
	assert.Equal(t, "refused", bad.Status, "magic bytes without a gzip stream")
	assert.Contains(t, bad.Error, "decompressing gzip data")
}

// layered gzips s layers times over, each at level.
func layered(t *testing.T, s []byte, layers, level int) []byte {
	t.Helper()
	for range layers {
		var b bytes.Buffer
		zw, err := gzip.NewWriterLevel(&b, level)
		require.NoError(t, err)
		_, err = zw.Write(s)
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		s = b.Bytes()
	}
	return s
}

// admissionLog is a kubelet log of about size bytes whose lines differ
// as a node's do (times, pod names), so it compresses as a real log.
func admissionLog(size int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "I0305 09:%02d:%02d.%06d    2741 kubelet.go:2380] \"Pod admission denied\" podUID=\"%08x-1c2d\" pod=\"telco/p-%d\" reason=\"TopologyAffinityError\" message=\"Resources cannot be allocated with Topology locality\"\n", i/60000%60, i/1000%60, i*7919%1000000, i*2654435761, i)
	}
	return b.Bytes()
}

// TestGzipLayersAndBombs: every way a compressed log reaches diagnose
// (Evidence.Add, AddLogStream, ParseLog) peels up to three gzip layers,
// streams a log that inflates past the in-memory limit instead of holding
// it, and refuses a stream that inflates like a bomb by its ratio.
func TestGzipLayersAndBombs(t *testing.T) {
	plain := admissionLog(64 << 10)
	big := admissionLog(int((&Set{}).streamAbove()) + 4<<20) // inflates past the in-memory limit
	bomb := bytes.Repeat([]byte("\n"), 64<<20)
	for _, c := range []struct {
		name    string
		data    []byte
		status  string
		warning string // one of the item's warnings contains it
		note    string // the item's note contains it
		err     string // the item's error contains it
	}{
		{name: "one layer", data: layered(t, plain, 1, gzip.DefaultCompression), status: "read", warning: "decompressed gzip data"},
		{name: "two layers", data: layered(t, plain, 2, gzip.BestSpeed), status: "read", warning: "gzip inside gzip: 2 layers decompressed"},
		{name: "three layers", data: layered(t, plain, 3, gzip.BestSpeed), status: "read", warning: "gzip inside gzip: 3 layers decompressed"},
		{name: "four layers", data: layered(t, plain, 4, gzip.BestSpeed), status: "refused", err: "more than 3 gzip layers"},
		{name: "larger than the in-memory limit: streamed", data: layered(t, big, 1, gzip.BestSpeed), status: "read", note: "lines streamed"},
		{name: "the same, two layers", data: layered(t, big, 2, gzip.BestSpeed), status: "read", note: "lines streamed"},
		{name: "bomb at the best level", data: layered(t, bomb, 1, gzip.BestCompression), status: "refused", err: "decompression bomb"},
		{name: "bomb at the fastest level", data: layered(t, bomb, 1, gzip.BestSpeed), status: "refused", err: "decompression bomb"},
		{name: "bomb in two layers", data: layered(t, bomb, 2, gzip.BestCompression), status: "refused", err: "decompression bomb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			check := func(how string, it Item) {
				assert.Equal(t, c.status, it.Status, "%s: status (error %q)", how, it.Error)
				assert.Equal(t, KindLog, it.Kind, "%s: kind", how)
				if c.warning != "" {
					assert.True(t, slices.ContainsFunc(it.Warnings, func(w string) bool { return strings.Contains(w, c.warning) }), "%s: warnings %q lack %q", how, it.Warnings, c.warning)
				}
				assert.Contains(t, it.Note, c.note, "%s: note", how)
				assert.Contains(t, it.Error, c.err, "%s: error", how)
				if c.status == "refused" {
					assert.Contains(t, it.Error, "kubelet.log.gz", "%s: the error names the input", how)
				}
			}
			check("Add", (&Set{}).Add("kubelet.log.gz", "", c.data))
			check("AddLogStream", (&Set{}).AddLogStream("kubelet.log.gz", bytes.NewReader(c.data), 0))
			l, err := ParseLog("kubelet.log.gz", bytes.NewReader(c.data))
			if c.status == "refused" {
				require.Error(t, err, "ParseLog")
				assert.Contains(t, err.Error(), c.err, "ParseLog: error")
			} else {
				require.NoError(t, err, "ParseLog")
				assert.Equal(t, "gzip", l.Compressed, "ParseLog: compressed")
				assert.NotEmpty(t, l.Records, "ParseLog: records")
			}
		})
	}
}

// TestBlankLinesAreSkipped: blank lines (spaces, tabs, CR) are skipped as
// before, between records or on their own.
func TestBlankLinesAreSkipped(t *testing.T) {
	l, err := ParseLog("x.log", strings.NewReader("\n \t\r\nI0305 09:14:02.118201 1 kubelet.go:1] hello\n\n\nI0305 09:14:03.118201 1 kubelet.go:1] again\n"))
	require.NoError(t, err)
	assert.Equal(t, 4, l.Skipped, "skipped lines")
	if assert.Len(t, l.Records, 2, "records") {
		assert.Equal(t, "hello", l.Records[0].Message)
		assert.Equal(t, "again", l.Records[1].Message)
	}
}
