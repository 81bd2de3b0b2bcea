package api

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExamplesAreTheDiagnoseScenarios keeps one source for the examples
// that are diagnose scenarios: every file under examples/scenarios/NAME is
// byte for byte diagnose/testdata/NAME's, and the whole-evidence example
// carries every input of its scenario, so the page gives the findings that
// `diagnose --dir diagnose/testdata/troubleshooting-page` gives. After a
// change of a scenario, copy its inputs here again.
func TestExamplesAreTheDiagnoseScenarios(t *testing.T) {
	root := filepath.Join("..", "..", "..", "diagnose", "testdata")
	list, err := Examples()
	require.NoError(t, err)
	checked := 0
	for _, ex := range list.Examples {
		byDir := map[string][]string{}
		for _, f := range indexFiles(t, ex.ID) {
			rel, ok := strings.CutPrefix(f, "scenarios/")
			if !ok {
				continue
			}
			dir, name := path.Split(rel)
			dir = strings.TrimSuffix(dir, "/")
			scenario := filepath.Join(root, dir)
			if _, err := os.Stat(scenario); err != nil {
				continue // a playground-only scenario
			}
			want, err := os.ReadFile(filepath.Join(scenario, name))
			require.NoError(t, err, "example %s has %s, which diagnose/testdata/%s lacks", ex.ID, f, dir)
			got, err := examplesFS.ReadFile("examples/" + f)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "example %s: %s differs from diagnose/testdata/%s/%s", ex.ID, f, dir, name)
			byDir[dir] = append(byDir[dir], name)
			checked++
		}
		if ex.ID != "troubleshooting-page" {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(root, "troubleshooting-page"))
		require.NoError(t, err)
		var inputs []string
		for _, e := range entries {
			if n := e.Name(); n != "README.md" && !strings.HasPrefix(n, "expected.") {
				inputs = append(inputs, n)
			}
		}
		got := byDir["troubleshooting-page"]
		sort.Strings(got)
		if d := cmp.Diff(inputs, got); d != "" {
			t.Errorf("the troubleshooting-page example's files differ from the scenario's inputs (-scenario +example):\n%s", d)
		}
	}
	assert.Greater(t, checked, 10, "files compared with the diagnose scenarios")
}

// indexFiles lists the index's file paths of one example.
func indexFiles(t *testing.T, id string) []string {
	t.Helper()
	var entries []exampleEntry
	b, err := examplesFS.ReadFile("examples/index.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &entries))
	for _, e := range entries {
		if e.ID == id {
			return e.Files
		}
	}
	return nil
}
