package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

const offlineDir = "../../podresources/testdata/offline/numascope"

func TestOutputFormats(t *testing.T) {
	tests := []struct {
		args  []string
		first string   // the first line of stdout, a prefix
		has   []string // in stdout
		not   []string // not in stdout
		doc   func([]byte, any) error
	}{
		{args: nil, first: "3 pods from ", has: []string{"NUMA node 0", "held by"}, not: []string{"CONTAINER"}},
		{args: []string{"-o", "text"}, first: "3 pods from "},
		{args: []string{"-o", "wide"}, first: "3 pods from ", has: []string{"NUMA node 0",
			"NUMA  RESOURCE", "0     memory            30 GiB         1 GiB (+4 GiB in multi-node blocks)  25 GiB to 29 GiB",
			"POD", "CONTAINER", "default/web", "1 GiB memory, 2 GiB hugepages-1Gi", "example.com/gpu gpu0"}},
		{args: []string{"-o", "markdown"}, first: "## PodResources: 3 pods from ", has: []string{"| NUMA | RESOURCE | ALLOCATABLE | TAKEN | FREE |",
			"| 0 | default/web | app | 2-3 | 1 GiB memory, 2 GiB hugepages-1Gi | example.com/gpu gpu0 |"}},
		{args: []string{"--markdown"}, first: "## PodResources: "},
		{args: []string{"-o", "json"}, first: "{", doc: json.Unmarshal},
		{args: []string{"--json"}, first: "{", doc: json.Unmarshal},
		{args: []string{"-o", "yaml"}, doc: func(b []byte, v any) error { return yaml.Unmarshal(b, v) }},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errs := runArgs(t, append([]string{"--from", offlineDir}, tt.args...)...)
			require.Equal(t, 0, code, "exit code (stderr %s)", errs)
			first, _, _ := strings.Cut(out, "\n")
			assert.True(t, strings.HasPrefix(first, tt.first), "first line %q, want %q", first, tt.first)
			for _, h := range tt.has {
				assert.Contains(t, out, h)
			}
			for _, n := range tt.not {
				assert.NotContains(t, out, n)
			}
			assert.NotRegexp(t, `\b1 pods\b|\b1 CPUs\b`, out, "plurals")
			if tt.doc != nil {
				var snap struct {
					Pods []struct {
						Name string `json:"name"`
					} `json:"pods"`
				}
				require.NoError(t, tt.doc([]byte(out), &snap))
				assert.Len(t, snap.Pods, 3)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, flag := range []string{"-h", "--help"} {
		t.Run(flag, func(t *testing.T) {
			code, out, errs := runArgs(t, flag)
			require.Equal(t, 0, code)
			assert.Contains(t, out, "usage: podresources")
			assert.Contains(t, out, "Examples:")
			assert.GreaterOrEqual(t, strings.Count(out, "\n  sudo podresources")+strings.Count(out, "\n  podresources "), 3, "at least three examples")
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
		{[]string{"-o", "table"}, []string{"-o", "text, json, yaml, markdown or wide"}},
		{[]string{"--json", "-o", "wide"}, []string{"-o wide", "--json", "one output format"}},
		{[]string{"--from", offlineDir, "--socket", "/run/x.sock"}, []string{"--from and --socket exclude each other"}},
		{[]string{"--from", ""}, []string{`--from ""`, "snapshot directory"}},
		{[]string{"--from", offlineDir, "--timeout", "5s"}, []string{"--timeout goes with the socket"}},
		{[]string{"--pod", "web"}, []string{"--pod", "NAMESPACE/NAME"}},
		{[]string{"--timeout", "0s"}, []string{"--timeout", "positive duration"}},
		{[]string{offlineDir}, []string{"unexpected argument", "--from DIR"}},
		{[]string{"--bogus"}, []string{"bogus", "podresources -h"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, errs := runArgs(t, tt.args...)
			require.Equal(t, 2, code, "exit code (stderr %s)", errs)
			for _, w := range tt.want {
				assert.Contains(t, errs, w)
			}
		})
	}
}
