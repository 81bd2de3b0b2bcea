package catalog

import (
	"strings"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
)

// FuzzClassRemedy matches any text, resolves each hit's class and renders
// its remedy and means: no placeholder is left, and the text stays within
// the template plus one bounded value per placeholder.
func FuzzClassRemedy(f *testing.F) {
	for _, s := range []string{
		`E1202 03:15:00.123456    2741 run.go:72] "command failed" err="failed to run Kubelet: failed to parse kubelet flag: unknown flag: --cpu-manager"`,
		"  Warning  UnexpectedAdmissionError  3m  kubelet  Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 1, Available: 0, which is unexpected",
		`could not restore state from checkpoint: checkpoint is corrupted, please drain this node and delete the CPU manager checkpoint file "` + strings.Repeat("/x", 300) + `" before restarting Kubelet`,
		"unknown flag: --{file}\x00\n\tDRA driver {driver|x} is not registered",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fuzzbudget.Run(t, func() {
			hs := Match(s)
			for i := range hs {
				c, _, ok := Resolve(&hs[i])
				if !ok {
					continue
				}
				for _, pair := range [][2]string{{c.RemedyTemplate, c.Remedy(hs[i])}, {c.Means, c.Explain(hs[i])}} {
					tmpl, out := pair[0], pair[1]
					if strings.ContainsRune(out, '\n') {
						t.Fatalf("%s: a line break in %q", c.ID, out)
					}
					if limit := len(tmpl) + len(placeholders(tmpl))*(maxValue+len("…")+64); len(out) > limit {
						t.Fatalf("%s: %d bytes rendered from a %d-byte template", c.ID, len(out), len(tmpl))
					}
					for _, p := range placeholders(tmpl) {
						if strings.Contains(tmpl, "{"+p.name+"}") && strings.Contains(out, "{"+p.name+"}") && !strings.Contains(s, "{"+p.name+"}") {
							t.Fatalf("%s: {%s} left in %q", c.ID, p.name, out)
						}
					}
				}
			}
		})
	})
}
