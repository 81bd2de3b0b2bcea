package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPastedEvidence runs every case under testdata/pastes: evidence in the
// forms people paste it, passed with the flags a node engineer would use,
// and checks the finding each case must lead to (see its README).
func TestPastedEvidence(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("testdata", "pastes"))
	require.NoError(t, err)
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	cases := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		cases++
		dir := filepath.Join(root, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			cmd, err := os.ReadFile(filepath.Join(dir, "cmd"))
			require.NoError(t, err)
			expect, err := os.ReadFile(filepath.Join(dir, "expect"))
			require.NoError(t, err)
			want := strings.TrimSpace(string(expect))
			args := strings.Fields(string(cmd))
			t.Chdir(dir)
			var stdout, stderr bytes.Buffer
			code := run(append(args, "--json"), &stdout, &stderr)

			var rep struct {
				Evidence []struct {
					File, Kind, Status string
				}
				Findings []struct {
					Code, Severity string
				}
			}
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), "--json always prints the report; stderr: %s", stderr.String())
			var errors []string
			for _, f := range rep.Findings {
				if f.Severity == "error" {
					errors = append(errors, f.Code)
				}
			}
			switch want {
			case "refused":
				assert.Equal(t, 2, code, "exit code when nothing can be read")
			case "no-error":
				assert.Empty(t, errors, "error findings")
				assert.NotEqual(t, 2, code, "exit code: the input was read")
			default:
				assert.Equal(t, 1, code, "exit code with an error finding; stderr: %s", stderr.String())
				assert.True(t, slices.ContainsFunc(strings.Split(want, "|"), func(c string) bool { return slices.Contains(errors, c) }),
					"an error finding %s among %v", want, errors)
			}
			// Every file the case names is listed in the evidence.
			var listed []string
			for _, it := range rep.Evidence {
				listed = append(listed, filepath.ToSlash(it.File))
			}
			for i, a := range args {
				if strings.HasPrefix(a, "--") && a != "--dir" && i+1 < len(args) {
					assert.Contains(t, listed, args[i+1], "evidence lists %s", args[i+1])
				}
			}
		})
	}
	assert.GreaterOrEqual(t, cases, 28, "cases under testdata/pastes")
}
