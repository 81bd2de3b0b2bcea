package evidence

import (
	"bytes"
	"testing"

	"github.com/numascope/numascope/internal/journalgen"
)

// BenchmarkParseMessages reads a generated 64 MiB journal with and
// without the catalogue's matching of every record.
func BenchmarkParseMessages(b *testing.B) {
	var gen bytes.Buffer
	if _, _, err := journalgen.Write(&gen, 64<<20, 1); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opt  logOptions
	}{{"catalogue", logOptions{stream: true}}, {"without", logOptions{stream: true, noMessages: true}}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(gen.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parseLogWith("kubelet.log", bytes.NewReader(gen.Bytes()), c.opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
