package evidence

import (
	"bytes"
	"testing"

	"github.com/numascope/numascope/internal/journalgen"
)

func BenchmarkParseMessages(b *testing.B) {
	var gen bytes.Buffer
	if _, _, err := journalgen.Write(&gen, 64<<20, 1); err != nil {
		b.Fatal(err)
	}
	for _, all := range []bool{false, true} {
		name := "warn+"
		if all {
			name = "all"
		}
		b.Run(name, func(b *testing.B) {
			matchAll = all
			b.SetBytes(int64(gen.Len()))
			for b.Loop() {
				l, err := parseLogWith("x", bytes.NewReader(gen.Bytes()), logOptions{stream: true})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(l.Messages)), "messages")
			}
		})
	}
	b.Run("none", func(b *testing.B) {
		matchAll = false
		b.SetBytes(int64(gen.Len()))
		for b.Loop() {
			if _, err := parseLogWith("x", bytes.NewReader(gen.Bytes()), logOptions{stream: true, noMessages: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
