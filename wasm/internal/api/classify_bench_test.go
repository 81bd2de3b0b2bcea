package api

import (
	"fmt"
	"strings"
	"testing"

	"github.com/numascope/numascope/diagnose/evidence"
)

// largeTexts are pastes the engine must learn the kind of: a 50,000-line
// kubelet log (4.9 MB), pasted into a tab (no name) or dropped as a file,
// and 23 MiB of filler in two tabs (text that is no evidence).
func largeTexts() []struct {
	name  string
	files []InputFile
} {
	var log strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&log, "I1201 12:%02d:%02d.%06d    1234 kubelet.go:%d] \"SyncLoop (PLEG): event for pod\" pod=\"ml/trainer-%d\" event={\"ID\":\"%08x\",\"Type\":\"Started\"}\n", i/60%60, i%60, i%1000000, i%3000, i, i)
	}
	half := 23 << 20 / 2
	return []struct {
		name  string
		files []InputFile
	}{
		{"log-50000-lines-pasted", []InputFile{{Content: log.String()}}},
		{"log-50000-lines-named", []InputFile{{Name: "kubelet.log", Content: log.String()}}},
		{"filler-23MiB-2-tabs", []InputFile{{Content: strings.Repeat("x", half)}, {Content: strings.Repeat("y", half)}}},
	}
}

// BenchmarkClassify measures what inspect pays to say what large pastes
// are (engine), side by side with what the door pays to sniff and read
// the same inputs once (door: evidence.Set.Add, what diagnose pays for
// them). The engine's cost should be the door's, plus its views.
//
//	go test -run '^$' -bench Classify -benchtime 3x ./wasm/internal/api
func BenchmarkClassify(b *testing.B) {
	for _, tc := range largeTexts() {
		b.Run(tc.name+"/engine", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Inspect(&InspectRequest{Files: tc.files})
			}
		})
		b.Run(tc.name+"/door", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, f := range tc.files {
					var ev evidence.Set
					ev.Add(f.Name, "", []byte(f.Content))
				}
			}
		})
	}
}
