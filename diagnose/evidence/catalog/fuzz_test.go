package catalog

import (
	"bytes"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/numascope/numascope/internal/fuzzbudget"
)

// checkHits fails t when a hit or a capture lies outside the text, or a
// nested hit outside the capture or field that holds it.
func checkHits(t *testing.T, text string, hs []Hit, lo, hi int) {
	t.Helper()
	for i := range hs {
		h := &hs[i]
		if h.Start < lo || h.End > hi || h.Start > h.End || h.Entry == nil {
			t.Fatalf("hit %q at [%d,%d) outside [%d,%d)", h.Entry.Format, h.Start, h.End, lo, hi)
		}
		for _, c := range h.Captures {
			if c.Start < 0 || c.End > len(text) || c.Start > c.End {
				t.Fatalf("capture %s of %q at [%d,%d) outside the text", c.Verb, h.Entry.Format, c.Start, c.End)
			}
			checkHits(t, text, c.Hits, c.Start, c.End)
		}
		for _, f := range h.Fields {
			checkHits(t, text, f.Hits, f.Start, f.End)
		}
		if w := h.Wrapped; w != nil && (w.Start < h.Start || w.End > h.End) {
			t.Fatalf("wrapped hit outside its hit")
		}
	}
}

func FuzzMatch(f *testing.F) {
	for _, s := range []string{
		`E1202 03:15:00.123456    2741 run.go:72] "command failed" err="failed to run Kubelet: failed to parse kubelet flag: unknown flag: --foo"`,
		`{"ts":1.5,"msg":"Failed to start ContainerManager","err":"start cpu manager error: checkpoint is corrupted","MESSAGE":"x"}`,
		"  Warning  UnexpectedAdmissionError  3m  kubelet  Allocate failed due to no healthy devices present; cannot allocate unhealthy devices nvidia.com/gpu, which is unexpected",
		`Dec 02 03:15:00 worker-1 kubelet[2741]: "\"\\\"failed to run Kubelet: \\\\\"" err="\u00e9\uD83D\uDE00"`,
		"  Message:  Pod was rejected: Resources cannot be allocated with Topology locality",
		strings.Repeat("failed to run Kubelet: ", 50),
	} {
		f.Add(s)
	}
	m := Default()
	f.Fuzz(func(t *testing.T, s string) {
		fuzzbudget.Run(t, func() {
			checkHits(t, s, m.Match(s), 0, len(s))
		})
	})
}

func FuzzDecode(f *testing.F) {
	e := Entry{Kind: KindLog, Level: LevelInfo, Form: FormPrintf, Format: "x %d", Releases: Ranges{{16, 16}}}
	e.ID = ID(&e)
	var b bytes.Buffer
	if err := Encode(&b, Header{Catalogue: "kubelet"}, []Entry{e}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.String())
	f.Add(string(kubeletData[:min(len(kubeletData), 4096)]))
	f.Fuzz(func(t *testing.T, s string) {
		fuzzbudget.Run(t, func() {
			_, es, err := Decode(strings.NewReader(s))
			if err == nil {
				NewMatcher(es).Match(s)
			}
		})
	})
}

// allocated returns the bytes fn allocates: the least of three runs, since
// a collection during a run empties the matcher's pool of buffers and the
// run allocates them again.
func allocated(fn func()) uint64 {
	least := uint64(math.MaxUint64)
	for range 3 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		fn()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// TestMatchHostileStaysLinear matches lines of one fragment repeated: the
// memory grows with the line (twice the line, at most about twice the
// bytes), and each stays within a budget far above what it needs.
func TestMatchHostileStaysLinear(t *testing.T) {
	m := Default()
	m.Match("warm up")
	for _, frag := range []string{"failed to run Kubelet: ", "unknown flag: --", `"`, `err="`, `\"`, "Error: ", "{\"msg\":", "  Message: "} {
		t.Run(frag, func(t *testing.T) {
			line := func(n int) string { return strings.Repeat(frag, n/len(frag)) }
			var one, two uint64
			one = allocated(func() { fuzzbudget.RunWith(t, fuzzbudget.Budget{Alloc: 512 << 20}, func() { m.Match(line(1 << 20)) }) })
			two = allocated(func() { fuzzbudget.RunWith(t, fuzzbudget.Budget{Alloc: 512 << 20}, func() { m.Match(line(2 << 20)) }) })
			assert.LessOrEqual(t, two, 3*one+1<<20, "2 MiB allocated %d bytes, 1 MiB %d", two, one)
		})
	}
}
