package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostileInputs: each input of issue 12 that admit reads ends with exit
// status 2 and an error naming the flag or the file and the value.
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	writeNode(t, dir)
	cfg := filepath.Join(dir, "kubelet-config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ntopologyManagerPolicy: restricted\nreservedSystemCPUs: \"0-400000000\"\n"), 0o644))
	fifo := filepath.Join(dir, "hints.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	mi := filepath.Join(dir, "huge-thread.json")
	require.NoError(t, os.WriteFile(mi, []byte(`{"topology":[{"node_id":0,"cores":[{"core_id":0,"thread_ids":[9223372036854775807]}]}]}`), 0o644))
	node := func(extra ...string) []string {
		return append([]string{"--pod", filepath.Join(dir, "pod.yaml"), "--state-dir", filepath.Join(dir, "state")}, extra...)
	}
	for name, tc := range map[string]struct {
		args []string
		want []string
	}{
		"reservedSystemCPUs in the config": {node("--topology", filepath.Join(dir, "machine.json"), "--kubelet-config", cfg),
			[]string{cfg + `: reservedSystemCPUs "0-400000000"`, "above the largest CPU id 65535"}},
		"--reserved-cpus": {node("--topology", filepath.Join(dir, "machine.json"), "--policy", "restricted", "--reserved-cpus", "0-400000000"),
			[]string{`--reserved-cpus: reservedSystemCPUs "0-400000000"`, "above the largest CPU id 65535"}},
		"machine-info thread id 2^63-1": {node("--topology", mi, "--policy", "restricted"),
			[]string{mi, "9223372036854775807 is not in 0-65535"}},
		"--hints is a FIFO":    {[]string{"--hints", fifo}, []string{"--hints " + fifo, "a FIFO"}},
		"--pod is /dev/zero":   {[]string{"--pod", "/dev/zero", "--state-dir", dir, "--topology", mi, "--policy", "none"}, []string{"--pod /dev/zero", "a character device"}},
		"--topology is a FIFO": {node("--topology", fifo, "--policy", "none"), []string{"topology " + fifo, "a FIFO"}},
	} {
		t.Run(name, func(t *testing.T) {
			code, out, errs := runCmd(tc.args...)
			assert.Equal(t, 2, code, "stdout: %s", out)
			for _, w := range tc.want {
				assert.Contains(t, errs, w)
			}
		})
	}
}
