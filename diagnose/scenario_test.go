package diagnose

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the expected reports of the scenarios under testdata/")

// scenarioDirs lists testdata/<scenario> directories: those holding expected.json
// (or, with -update, a README.md describing the scenario).
func scenarioDirs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("testdata")
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join("testdata", e.Name())
		if _, err := os.Stat(filepath.Join(dir, "README.md")); err == nil {
			out = append(out, dir)
		}
	}
	return out
}

func runScenario(t *testing.T, dir string) Report {
	t.Helper()
	return runScenarioStreaming(t, dir, 0)
}

// runScenarioStreaming is runScenario with the evidence's StreamFrom.
func runScenarioStreaming(t *testing.T, dir string, streamFrom int64) Report {
	t.Helper()
	t.Chdir(dir)
	src, err := evidence.SourcesFromDir(".")
	require.NoError(t, err)
	src.Files = scenarioFiles(src.Files)
	src.StreamFrom = streamFrom
	ev, err := evidence.Load(src)
	require.NoError(t, err)
	rep, err := Run(context.Background(), ev)
	require.NoError(t, err)
	return rep
}

// scenarioFiles drops the scenario's own files (its README and expected
// reports) from the files whose kind evidence.Load detects.
func scenarioFiles(files []string) []string {
	var out []string
	for _, f := range files {
		switch filepath.Base(f) {
		case "README.md", "expected.json", "expected.txt":
			continue
		}
		out = append(out, f)
	}
	return out
}

// TestScenarios runs every scenario and compares the JSON report with
// expected.json; `go test ./diagnose -run TestScenarios -update` rewrites them.
// Each README.md names the finding codes the scenario must prove
// ("codes: A, B" on one line) and, for a rejected pod, the cause ("cause: X").
func TestScenarios(t *testing.T) {
	dirs := scenarioDirs(t)
	if len(dirs) == 0 {
		t.Fatal("no scenarios under testdata/")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
			require.NoError(t, err)
			abs, err := filepath.Abs(dir)
			require.NoError(t, err)
			rep := runScenario(t, dir)
			var got bytes.Buffer
			require.NoError(t, rep.WriteJSON(&got))
			// Every rendering must work on every scenario.
			var text, md bytes.Buffer
			require.NoError(t, rep.WriteText(&text), "text rendering")
			require.NotZero(t, text.Len(), "length of the text rendering")
			require.NoError(t, rep.WriteMarkdown(&md), "markdown rendering")
			require.True(t, strings.HasPrefix(md.String(), "## numascope diagnosis"), "markdown heading: %q", md.String())
			checkReadmeClaims(t, string(readme), rep)
			checkCodes(t, rep)
			want := filepath.Join(abs, "expected.json")
			if *update {
				require.NoError(t, os.WriteFile(want, got.Bytes(), 0o644))
				require.NoError(t, os.WriteFile(filepath.Join(abs, "expected.txt"), text.Bytes(), 0o644))
				return
			}
			exp, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run `go test ./diagnose -run TestScenarios -update` to create it)", err)
			}
			if !bytes.Equal(exp, got.Bytes()) {
				t.Errorf("report differs from %s (rerun with -update if the change is intended):\n%s", want, lineDiff(string(exp), got.String()))
			}
		})
	}
}

// checkReadmeClaims holds the scenario to what its README promises, so a
// golden file can never silently stop proving a finding.
func checkReadmeClaims(t *testing.T, readme string, rep Report) {
	t.Helper()
	for _, line := range strings.Split(readme, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "codes":
			for _, code := range strings.Split(v, ",") {
				code = strings.TrimSpace(code)
				if code == "none" {
					if len(rep.Findings) != 0 {
						t.Errorf("README says no findings; got %d", len(rep.Findings))
					}
					continue
				}
				found := false
				for _, f := range rep.Findings {
					found = found || f.Code == code
				}
				if !found {
					t.Errorf("README promises finding %s; report has %v", code, codes(rep))
				}
			}
		case "cause":
			want := strings.TrimSpace(v)
			found := false
			for _, f := range rep.Findings {
				if f.TopologyAffinityError != nil && f.TopologyAffinityError.Cause == want {
					found = true
				}
			}
			if !found {
				t.Errorf("README promises cause %s", want)
			}
		}
	}
}

func codes(r Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Code)
	}
	return out
}

func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out strings.Builder
	n := max(len(al), len(bl))
	shown := 0
	for i := 0; i < n && shown < 20; i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out.WriteString("- " + x + "\n+ " + y + "\n")
			shown++
		}
	}
	return out.String()
}
