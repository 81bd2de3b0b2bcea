package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

func TestOutputFormats(t *testing.T) {
	dir := t.TempDir()
	writeNode(t, dir)
	node := []string{"--pod", filepath.Join(dir, "pod.yaml"), "--state-dir", filepath.Join(dir, "state"),
		"--topology", filepath.Join(dir, "machine.json"), "--allocatable", filepath.Join(dir, "allocatable.json"), "--policy", "restricted"}
	tests := []struct {
		name  string
		args  []string
		code  int
		first string // the first line of stdout, a prefix
		exact string // all of stdout, when set
	}{
		{name: "text admitted", args: []string{"--hints", "testdata/design.json"}, first: "✓ admitted: the restricted policy accepts the best hint, NUMA node 0, preferred"},
		{name: "text rejected", args: []string{"--hints", "testdata/needs-two-nodes.json", "-o", "text"}, code: 1, first: "✗ not admitted: TopologyAffinityError: the restricted policy rejects the best hint, NUMA nodes {0,1}, not preferred"},
		{name: "json", args: []string{"--hints", "testdata/design.json", "-o", "json"}, exact: `{"bestHint":{"numaAffinity":[0],"preferred":true},"admit":true}` + "\n"},
		{name: "--json", args: []string{"--hints", "testdata/design.json", "--json"}, exact: `{"bestHint":{"numaAffinity":[0],"preferred":true},"admit":true}` + "\n"},
		{name: "--output=json", args: []string{"--hints", "testdata/needs-two-nodes.json", "--output=json"}, code: 1, exact: `{"bestHint":{"numaAffinity":[0,1],"preferred":false},"admit":false}` + "\n"},
		{name: "yaml", args: []string{"--hints", "testdata/design.json", "-o", "yaml"}, exact: "admit: true\nbestHint:\n  numaAffinity:\n  - 0\n  preferred: true\n"},
		{name: "node text", args: node, first: "✓ pod ml/trainer: admitted under restricted/container"},
		{name: "node yaml", args: append(append([]string{}, node...), "-o", "yaml"), first: "account:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmd(tt.args...)
			require.Equal(t, tt.code, code, "exit code (stderr %s)", errs)
			if tt.exact != "" {
				assert.Equal(t, tt.exact, out)
			}
			first, _, _ := strings.Cut(out, "\n")
			assert.True(t, strings.HasPrefix(first, tt.first), "first line %q, want %q", first, tt.first)
			if strings.Contains(tt.name, "yaml") {
				var v map[string]any
				require.NoError(t, yaml.Unmarshal([]byte(out), &v))
				assert.Contains(t, v, "admit")
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, flag := range []string{"-h", "--help"} {
		t.Run(flag, func(t *testing.T) {
			code, out, errs := runCmd(flag)
			require.Equal(t, 0, code)
			assert.Contains(t, out, "usage: admit --hints FILE")
			assert.Contains(t, out, "Examples:")
			assert.GreaterOrEqual(t, strings.Count(out, "\n  admit "), 3, "at least three examples")
			assert.Contains(t, out, "-o FORMAT")
			assert.Empty(t, errs)
		})
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--hints", "testdata/design.json", "-o", "wide"}, []string{"-o", "text, json or yaml"}},
		{[]string{"--hints", "testdata/design.json", "-o", "markdown"}, []string{"-o", "text, json or yaml"}},
		{[]string{"--hints", "testdata/design.json", "--markdown"}, []string{"markdown", "admit -h"}},
		{[]string{"--hints", "testdata/design.json", "-o", "yaml", "--json"}, []string{"--json", "-o yaml", "one output format"}},
		{[]string{"--hints", "testdata/design.json", "--kubelet-version", "9.9"}, []string{"--kubelet-version"}},
		{[]string{"--option", "noequals"}, []string{"-option", "name=value"}},
		{[]string{"stray"}, []string{`unexpected argument "stray"`, "--hints FILE"}},
		{nil, []string{"give --hints FILE"}},
		{[]string{"--hints", "/nonexistent/h.json"}, []string{"--hints", "/nonexistent/h.json"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, errs := runCmd(tt.args...)
			require.Equal(t, 2, code, "exit code (stderr %s)", errs)
			for _, w := range tt.want {
				assert.Contains(t, errs, w)
			}
		})
	}
}
