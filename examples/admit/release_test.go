package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHintsKubeletVersion: --kubelet-version answers as that release's
// Topology Manager: max-allowable-numa-nodes is unknown before 1.31.
func TestHintsKubeletVersion(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "ten.json")
	require.NoError(t, os.WriteFile(f, []byte(`{"numaNodes":[0,1,2,3,4,5,6,7,8,9],"policy":"restricted","options":{"max-allowable-numa-nodes":"10"},"providers":[{"cpu":[{"numaAffinity":[0],"preferred":true}]}]}`), 0o644))
	cases := []struct {
		version string
		code    int
		stdout  string
		stderr  string
	}{
		{"", 0, `{"bestHint":{"numaAffinity":[0],"preferred":true},"admit":true}`, ""},
		{"1.31", 0, `{"bestHint":{"numaAffinity":[0],"preferred":true},"admit":true}`, ""},
		{"v1.30.4", 2, "", `unknown Topology Manager Policy option: "max-allowable-numa-nodes"`},
		{"1.27", 2, "", "--kubelet-version: kubelet version \"1.27\" is outside the supported range"},
	}
	for _, tc := range cases {
		t.Run(tc.version, func(t *testing.T) {
			args := []string{"--hints", f, "--json"}
			if tc.version != "" {
				args = append(args, "--kubelet-version", tc.version)
			}
			code, out, errs := runCmd(args...)
			assert.Equal(t, tc.code, code, "exit code (stderr %q)", errs)
			if tc.stdout != "" {
				assert.JSONEq(t, tc.stdout, out)
			}
			assert.Contains(t, errs, tc.stderr)
		})
	}
}
