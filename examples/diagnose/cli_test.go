package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// TestOutputFormats runs every -o value (and the aliases) on one scenario.
func TestOutputFormats(t *testing.T) {
	tests := []struct {
		args  []string
		first string // the first line of stdout
		check func(t *testing.T, out []byte)
	}{
		{args: nil, first: "✗ TopologyAffinityError: Pod default/guaranteed was rejected with TopologyAffinityError"},
		{args: []string{"-o", "text"}, first: "✗ TopologyAffinityError: "},
		{args: []string{"-o", "json"}, first: "{", check: isReport(json.Unmarshal)},
		{args: []string{"--json"}, first: "{", check: isReport(json.Unmarshal)},
		{args: []string{"--output=json"}, first: "{", check: isReport(json.Unmarshal)},
		{args: []string{"-o", "yaml"}, first: "evidence:", check: isReport(func(b []byte, v any) error { return yaml.Unmarshal(b, v) })},
		{args: []string{"-o", "markdown"}, first: "## numascope diagnosis", check: func(t *testing.T, out []byte) {
			assert.Contains(t, string(out), "\n**✗ TopologyAffinityError: Pod default/guaranteed was rejected", "the headline under the heading")
			assert.NotContains(t, string(out), "error(s)", "the count line is replaced by the headline")
		}},
		{args: []string{"--markdown"}, first: "## numascope diagnosis"},
		{args: []string{"-o", "JSON"}, first: "{"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(append([]string{"--dir", scenario}, tt.args...), &out, &errOut)
			require.Equal(t, 1, code, "exit code: the scenario has an error finding (stderr %s)", errOut.String())
			first, _, _ := strings.Cut(out.String(), "\n")
			assert.True(t, strings.HasPrefix(first, tt.first), "first line %q, want it to start with %q", first, tt.first)
			if tt.check != nil {
				tt.check(t, out.Bytes())
			}
		})
	}
}

func isReport(unmarshal func([]byte, any) error) func(t *testing.T, out []byte) {
	return func(t *testing.T, out []byte) {
		var rep struct {
			Schema   string `json:"schema"`
			Findings []struct {
				Code string `json:"code"`
			} `json:"findings"`
			Summary struct {
				Errors int `json:"errors"`
			} `json:"summary"`
		}
		require.NoError(t, unmarshal(out, &rep))
		assert.Equal(t, "numascope.diagnose/v1", rep.Schema)
		require.NotEmpty(t, rep.Findings)
		assert.Equal(t, "TopologyAffinityError", rep.Findings[0].Code)
		assert.Equal(t, 1, rep.Summary.Errors)
	}
}

func TestHeadline(t *testing.T) {
	tests := []struct {
		dir  string
		want string
	}{
		{"../../diagnose/testdata/state-cpu-two-owners", "✗ StateFileProblem: "},
		{"../../diagnose/testdata/state-memory-totals-disagree", "✗ MemoryStateReplayFailed: "},
		{"../../diagnose/testdata/finding-control-clean", "✓ "},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			var out, errOut bytes.Buffer
			run([]string{"--dir", tt.dir}, &out, &errOut)
			first, _, _ := strings.Cut(out.String(), "\n")
			assert.True(t, strings.HasPrefix(first, tt.want), "headline %q, want %q", first, tt.want)
			assert.NotContains(t, out.String(), "numascope diagnose:", "the old summary line is replaced by the headline")
			assert.NotRegexp(t, `\b1 (errors|warnings|notes)\b|\(s\)`, first, "plurals")
		})
	}
}

func TestHelp(t *testing.T) {
	for _, flag := range []string{"-h", "--help", "-help"} {
		t.Run(flag, func(t *testing.T) {
			var out, errOut bytes.Buffer
			require.Equal(t, 0, run([]string{flag}, &out, &errOut), "exit code")
			assert.Contains(t, out.String(), "usage: diagnose")
			assert.Contains(t, out.String(), "Examples:")
			assert.GreaterOrEqual(t, strings.Count(out.String(), "\n  diagnose ")+strings.Count(out.String(), "\n  sudo diagnose "), 3, "at least three examples")
			assert.Contains(t, out.String(), "-o FORMAT", "the flags follow")
			assert.Empty(t, errOut.String())
		})
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want []string // in stderr
	}{
		{[]string{"-o", "wide"}, []string{"-o", "text, json, yaml or markdown"}},
		{[]string{"-o", "bogus"}, []string{"-o", "text, json, yaml or markdown"}},
		{[]string{"--json", "--markdown"}, []string{"--markdown", "--json", "one output format"}},
		{[]string{"-o", "yaml", "--json"}, []string{"--json", "-o yaml"}},
		{[]string{"--log-limit", "5x"}, []string{"flag -log-limit", "512MiB"}},
		{[]string{"--log-limit", "0"}, []string{"--log-limit"}},
		{[]string{"--kubelet-version", "2.1"}, []string{"--kubelet-version", "1.28 to 1.37"}},
		{[]string{"--dir", "/nonexistent"}, []string{"--dir /nonexistent", "give a directory"}},
		{[]string{"--no-such-flag"}, []string{"no-such-flag", "diagnose -h"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			require.Equal(t, 2, run(tt.args, &out, &errOut), "exit code (stderr %s)", errOut.String())
			for _, w := range tt.want {
				assert.Contains(t, errOut.String(), w)
			}
		})
	}
}

// TestErrorsInCLITerms: an input error names the flag and the file and says
// what to do with this command, not with an SDK option.
func TestErrorsInCLITerms(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "odd.json")
	require.NoError(t, os.WriteFile(odd, []byte(`{"foo":1}`), 0o644))
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--state", odd}, []string{odd, "inspect --kind KIND FILE"}},
		{[]string{"--pod", filepath.Join(dir, "missing.yaml")}, []string{"--pod", "missing.yaml"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			require.Equal(t, 2, run(tt.args, &out, &errOut), "exit code: no input could be read")
			for _, w := range tt.want {
				assert.Contains(t, errOut.String(), w)
				assert.Contains(t, out.String(), w, "the report lists the input too")
			}
			assert.NotContains(t, errOut.String()+out.String(), "Options.")
		})
	}
}
