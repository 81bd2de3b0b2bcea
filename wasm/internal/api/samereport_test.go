package api

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlaygroundReportIsTheCLIReport runs the same evidence through the
// CLI's path (evidence.SourcesFromDir, Load and Run, as examples/diagnose
// does) and through the playground's API, and compares the reports: the
// browser simulates admission exactly where the CLI does.
func TestPlaygroundReportIsTheCLIReport(t *testing.T) {
	for _, scenario := range []string{"tae-state-only", "troubleshooting-page", "tae-cpu-memory-split"} {
		t.Run(scenario, func(t *testing.T) {
			dir := filepath.Join("..", "..", "..", "diagnose", "testdata", scenario)
			src, err := evidence.SourcesFromDir(dir)
			require.NoError(t, err)
			src.Files = nil // the scenario's README and expected reports
			ev, err := evidence.Load(src)
			require.NoError(t, err)
			cli, err := diagnose.Run(context.Background(), ev)
			require.NoError(t, err)

			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			var req DiagnoseRequest
			for _, e := range entries {
				if e.IsDir() || strings.HasSuffix(e.Name(), ".md") || strings.HasPrefix(e.Name(), "expected") {
					continue
				}
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				require.NoError(t, err)
				req.Files = append(req.Files, InputFile{Name: e.Name(), Content: string(b)})
			}
			web, err := Diagnose(&req)
			require.NoError(t, err)
			assert.Empty(t, web.Skipped)

			assert.Empty(t, cmp.Diff(normalized(t, cli, dir), normalized(t, web.Report, dir)))
			assert.NotEmpty(t, cli.Findings)
		})
	}
}

// normalized is a report with file names as the playground names them (no
// directory) and the evidence in a fixed order, as JSON values.
func normalized(t *testing.T, r diagnose.Report, dir string) any {
	b, err := json.Marshal(r)
	require.NoError(t, err)
	s := strings.ReplaceAll(string(b), dir+string(filepath.Separator), "")
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &v))
	if items, ok := v["evidence"].([]any); ok {
		sort.Slice(items, func(i, j int) bool {
			a, b := items[i].(map[string]any), items[j].(map[string]any)
			return a["file"].(string) < b["file"].(string)
		})
	}
	return v
}
