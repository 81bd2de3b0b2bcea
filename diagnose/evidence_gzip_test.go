package diagnose

import (
	"bytes"
	"compress/gzip"
	"fmt"
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

	cut := (&Evidence{}).Add("kubelet.log.gz", "", z.Bytes()[:z.Len()*3/4])
	assert.Equal(t, kindLog, cut.Kind, "cut stream: kind")
	assert.NotEqual(t, "refused", cut.Status, "cut stream: read as far as it goes")
	assert.Contains(t, cut.Warnings, "the gzip stream is cut short: read what came before the cut")

	bad := (&Evidence{}).Add("kubelet.log.gz", "", []byte("\x1f\x8bnot gzip at all"))
	assert.Equal(t, "refused", bad.Status, "magic bytes without a gzip stream")
	assert.Contains(t, bad.Error, "decompressing gzip data")
}
