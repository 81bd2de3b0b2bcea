package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubeletVersionFlag runs diagnose on a dra_manager_state written by
// kubelet v1.30.0's own code, with and without --kubelet-version.
func TestKubeletVersionFlag(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "statefile", "testdata", "kubelet", "dra", "legacy-v1.30.0-dra-spew-handles-0.json"))
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "dra_manager_state")
	require.NoError(t, os.WriteFile(file, data, 0o644))
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		corrupt bool
		note    string
		stderr  string
	}{
		{name: "newest", args: []string{"--json", "--state", file}, code: 1, corrupt: true, note: "kubelet refuses-to-start"},
		{name: "1.30", args: []string{"--json", "--kubelet-version", "1.30", "--state", file}, note: "kubelet 1.30 accepts it (the release given)"},
		{name: "1.31", args: []string{"--json", "--kubelet-version", "v1.31.0", "--state", file}, code: 1, corrupt: true, note: "kubelet v1.31.0 refuses-to-start (the release given)"},
		{name: "unknown", args: []string{"--json", "--kubelet-version", "1.40", "--state", file}, code: 2,
			stderr: `diagnose: --kubelet-version: kubelet version "1.40" is outside the supported range; numascope knows the restore code of kubelet 1.28 to 1.37`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tc.args, &out, &errb)
			require.Equal(t, tc.code, code, "exit code; stderr %s", errb.String())
			if tc.stderr != "" {
				assert.Contains(t, errb.String(), tc.stderr)
				return
			}
			var rep struct {
				Findings []struct{ Code string }
				Evidence []struct{ File, Note string }
			}
			require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
			var codes, notes []string
			for _, f := range rep.Findings {
				codes = append(codes, f.Code)
			}
			for _, e := range rep.Evidence {
				notes = append(notes, e.Note)
			}
			if tc.corrupt {
				assert.Contains(t, codes, "CorruptCheckpoint")
			} else {
				assert.NotContains(t, codes, "CorruptCheckpoint")
			}
			assert.Equal(t, []string{tc.note}, notes)
		})
	}
}
