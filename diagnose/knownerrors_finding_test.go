package diagnose

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/fuzzbudget"
)

// FuzzFindingMessage runs the message templates, the inner-error reader,
// the kubelet-range clues and the whole diagnosis on one kubelet message:
// never a panic, and a finding only for a message a template matches.
func FuzzFindingMessage(f *testing.F) {
	for _, m := range []string{msgTAE, msgSMTPhys1, msgSMTWrong, msgUpdatePlug,
		uae("no healthy devices present; cannot allocate unhealthy devices a/b"), uae("rpc error: code = Unknown desc = x")} {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		fuzzbudget.Run(t, func() {
			reason := evidence.ReasonOf(msg)
			in := evidence.ParseAllocationError(msg)
			assert.LessOrEqual(t, len(in.Text), len(msg))
			var r kubeletRange
			messageRange(&r, "", msg, true, "events.txt")
			if r.min > 0 && r.max > 0 {
				assert.LessOrEqual(t, r.min, r.max, "range %s", r)
			}
			ev := &evidence.Events{Source: "events.txt", Format: "table", Events: []evidence.Event{{Line: 1, Type: "Warning", Object: "pod/p", Message: msg}}}
			rep, err := Run(context.Background(), &evidence.Set{Events: []*evidence.Events{ev}})
			if err != nil {
				t.Fatal(err)
			}
			if reason == "" {
				assert.Empty(t, rep.Findings, "no template matched %q", msg)
				return
			}
			for _, fd := range rep.Findings {
				assert.NotEmpty(t, fd.Code)
				assert.False(t, strings.Contains(fd.Title, "%!"), "format error in %q", fd.Title)
			}
		})
	})
}

// BenchmarkRunLargeLog measures the diagnosis (not the parse) of a large
// kubelet log whose records mostly carry no admission error: the record
// scans for admission errors and release clues must stay cheap.
func BenchmarkRunLargeLog(b *testing.B) {
	lines := []string{
		`I1130 09:00:00.101000     812 scope_container.go:75] "TopologyHints" hints={"cpu":[{"NUMANodeAffinity":1,"Preferred":true}]} pod="db/pg-%d" containerName="pg"`,
		`E1130 09:00:00.101500     812 remote_runtime.go:400] "ContainerStatus from runtime service failed" err="rpc error: code = NotFound desc = container %d not found"`,
		`I1130 09:00:00.101600     812 topology_hints.go:71] "Unable to generate topology hints: requested number of devices unavailable" resourceName="nvidia.com/gpu" pod="other/x%d" request=2 available=1`,
		`I1130 09:00:00.101700     812 manager.go:250] "Device plugin connected" resourceName="example.com/dev%d"`,
	}
	var sb strings.Builder
	for i := 0; i < 200000; i++ {
		fmt.Fprintf(&sb, lines[i%len(lines)]+"\n", i)
	}
	ev := &evidence.Set{}
	if err := ev.AddLog("kubelet.log", []byte(sb.String())); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(context.Background(), ev); err != nil {
			b.Fatal(err)
		}
	}
}
