package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// runArgs runs the agent with args and returns its exit code, stdout and
// stderr.
func runArgs(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestOutputFormats: -o keeps JSON lines the default (a log pipeline reads
// them), YAML is the same document, and text and markdown open with the
// node's verdict and show the checkpoints, the CPUs and memory per NUMA
// node, and the findings.
func TestOutputFormats(t *testing.T) {
	base := []string{"--once", "--node", "node-a", "--state-dir", nodeDir, "--sysfs", sysDir, "--socket", "none"}
	code, jsonOut, errs := runArgs(base...)
	require.Equal(t, 0, code, "stderr: %s", errs)
	var fromJSON map[string]any
	require.NoError(t, json.Unmarshal([]byte(jsonOut), &fromJSON), "the default is JSON")

	for _, tt := range []struct {
		format string
		check  func(t *testing.T, out string)
	}{
		{"json", func(t *testing.T, out string) {
			var v map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &v))
			assert.Equal(t, 1, strings.Count(out, "\n"), "one line per round")
		}},
		{"yaml", func(t *testing.T, out string) {
			require.True(t, strings.HasPrefix(out, "---\n"), "a YAML document per round")
			var v map[string]any
			require.NoError(t, yaml.Unmarshal([]byte(out), &v))
			// the same report, but for the round's clock
			for _, m := range []map[string]any{v, fromJSON} {
				delete(m, "time")
				delete(m, "durationSeconds")
			}
			assert.Empty(t, cmp.Diff(fromJSON, v), "-o yaml is the JSON report")
		}},
		{"text", func(t *testing.T, out string) {
			lines := strings.Split(out, "\n")
			assert.True(t, strings.HasPrefix(lines[0], "node node-a: "), "the verdict first: %q", lines[0])
			for _, want := range []string{
				"    cpu_manager_state ", "✓ accepts it",
				"  CPUs per NUMA node:", "  memory per NUMA node:", "92 GiB",
				"PodResources: not read (--socket none)", "1. [WARNING] ",
			} {
				assert.Contains(t, out, want)
			}
			assert.Equal(t, 1, strings.Count(out, "— 2 warnings"), "diagnose's headline is not printed again below the verdict:\n%s", out)
		}},
		{"markdown", func(t *testing.T, out string) {
			assert.True(t, strings.HasPrefix(out, "# numascope agent, node node-a\n\nnode node-a: "), "heading and verdict: %q", out[:min(len(out), 80)])
			assert.Contains(t, out, "| cpu_manager_state | cpu | v4 | ✓ accepts it |")
			assert.Contains(t, out, "## memory per NUMA node")
			assert.Contains(t, out, "## findings\n")
			assert.Equal(t, 1, strings.Count(out, "— 2 warnings"), "diagnose's headline is not printed again below the verdict:\n%s", out)
		}},
	} {
		t.Run(tt.format, func(t *testing.T) {
			code, out, errs := runArgs(append(base, "-o", tt.format)...)
			require.Equal(t, 0, code, "stderr: %s", errs)
			tt.check(t, out)
		})
	}

	t.Run("summary in text", func(t *testing.T) {
		code, out, errs := runArgs(append(base, "-o", "text", "--report", "summary")...)
		require.Equal(t, 0, code, "stderr: %s", errs)
		assert.True(t, strings.HasPrefix(out, "node node-a: "), "verdict first")
		assert.NotContains(t, out, "Remedy:", "the summary has no explanations")
	})
	t.Run("a refused checkpoint", func(t *testing.T) {
		code, out, errs := runArgs("--once", "--node", "node-b", "--state-dir", badDir, "--sysfs", "none", "--socket", "none", "-o", "text")
		require.Equal(t, 1, code, "stderr: %s", errs)
		assert.True(t, strings.HasPrefix(out, "node node-b: ✗ CorruptCheckpoint"), "verdict first: %q", out[:min(len(out), 80)])
		assert.Contains(t, out, "✗ refuses-to-start")
	})
}

func TestOutputFlagRefused(t *testing.T) {
	for name, tt := range map[string]struct {
		args []string
		want string
	}{
		"unknown format":      {[]string{"--once", "-o", "wide"}, `"wide" is not an output format here: give json, text, yaml or markdown`},
		"npd has its form":    {[]string{"--once", "--report", "npd", "-o", "text"}, "-o text with --report npd"},
		"bundle has its form": {[]string{"--once", "--report", "bundle", "-o", "yaml"}, "-o yaml with --report bundle"},
		"two formats":         {[]string{"--once", "-o", "yaml", "--json"}, "give one output format"},
	} {
		t.Run(name, func(t *testing.T) {
			code, out, errs := runArgs(tt.args...)
			assert.Equal(t, 2, code, "a usage error")
			assert.Empty(t, out)
			assert.Contains(t, errs, tt.want)
		})
	}
}
