package catalog

import (
	"bytes"
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

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestMatchHostileStaysLinear matches lines of one fragment repeated, the
// fragments whose every occurrence is a candidate (a wrapping error, a
// quote, a field): each line costs at most a fixed number of bytes per byte
// read, and a line past MaxLine no more than one of MaxLine bytes. The
// matcher's buffers are emptied first (two collections clear its pool), so
// the figure is the worst case, not the luck of a warm pool.
func TestMatchHostileStaysLinear(t *testing.T) {
	const perByte = 128 // bytes allocated per byte read, buffers grown from empty
	m := Default()
	m.Match("warm up")
	for _, frag := range []string{"failed to run Kubelet: ", "unknown flag: --", `"`, `err="`, `\"`, "Error: ", "{\"msg\":", "  Message: "} {
		t.Run(frag, func(t *testing.T) {
			for _, n := range []int{16 << 10, MaxLine, 1 << 20, 8 << 20} {
				line := strings.Repeat(frag, n/len(frag)+1)[:n]
				runtime.GC()
				runtime.GC()
				got := allocated(func() { fuzzbudget.RunWith(t, fuzzbudget.Budget{Alloc: 512 << 20}, func() { m.Match(line) }) })
				read := min(n, MaxLine)
				t.Logf("%d-byte line: %d bytes allocated (%.1f per byte read)", n, got, float64(got)/float64(read))
				assert.LessOrEqual(t, got, uint64(perByte*read+64<<10), "a %d-byte line (%d read) allocated %d bytes", n, read, got)
			}
		})
	}
}
