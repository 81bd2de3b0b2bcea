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
)

// TestKubeletVersionFlag runs inspect on a dra_manager_state written by
// kubelet v1.30.0's own code under several --kubelet-version values.
func TestKubeletVersionFlag(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "statefile", "testdata", "kubelet", "dra", "legacy-v1.30.0-dra-spew-handles-0.json"))
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "dra_manager_state")
	require.NoError(t, os.WriteFile(file, data, 0o644))
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		accepts bool
		reason  string
		stdout  string
		stderr  string
	}{
		{name: "newest", args: []string{"--json", file}, code: 1,
			reason: "create ResourceClaim cache: GetOrCreate() on checkpoint state: failed to get checkpoint dra_manager_state: checkpoint is corrupted"},
		{name: "the writer's release", args: []string{"--json", "--kubelet-version", "1.30", file}, accepts: true},
		{name: "a patch release", args: []string{"--kubelet-version=v1.30.7", "--json", file}, accepts: true},
		{name: "1.29 hashes resource handles otherwise", args: []string{"--json", "--kubelet-version", "v1.29.4", file}, code: 1,
			reason: "failed to create claimInfo cache: error calling GetOrCreate() on checkpoint state: failed to get checkpoint dra_manager_state: checkpoint is corrupted"},
		{name: "human output names the release", args: []string{"--kubelet-version", "1.30", file}, stdout: "(dra, spew-v1): kubelet v1.30 restores it"},
		{name: "human output, kubelet --version's form", args: []string{"--kubelet-version", "Kubernetes v1.30.4", file}, stdout: "(dra, spew-v1): kubelet v1.30.4 restores it"},
		{name: "human output, newest", args: []string{file}, code: 1, stdout: "(dra, spew-v1): kubelet v1.37.2 refuses to start — checkpoint is corrupted"},
		{name: "too old", args: []string{"--kubelet-version", "1.27", file}, code: 2,
			stderr: `inspect: --kubelet-version: kubelet version "1.27" is outside the supported range; numascope knows the restore code of kubelet 1.28 to 1.37`},
		{name: "not a version", args: []string{"--kubelet-version", "latest", file}, code: 2, stderr: `kubelet version "latest" is not a version`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tc.args, &out, &errb)
			require.Equal(t, tc.code, code, "exit code; stdout %s; stderr %s", out.String(), errb.String())
			if tc.stderr != "" {
				assert.Contains(t, errb.String(), tc.stderr)
				assert.Empty(t, out.String(), "nothing is inspected with a bad version")
				return
			}
			if tc.stdout != "" {
				assert.Contains(t, out.String(), tc.stdout)
				return
			}
			var line struct {
				KubeletAccepts bool   `json:"kubeletAccepts"`
				OnReject       string `json:"onReject"`
				Reason         string `json:"reason"`
			}
			require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(out.String())), &line))
			assert.Equal(t, tc.accepts, line.KubeletAccepts)
			assert.Equal(t, tc.reason, line.Reason)
			if !tc.accepts {
				assert.Equal(t, "refuses-to-start", line.OnReject)
			}
		})
	}
}
