package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bigArray writes a JSON array of n bytes of empty objects: inside no
// byte limit that fits a real pod list, far over a value budget.
func bigArray(t *testing.T, dir, name string, n int) string {
	t.Helper()
	var b bytes.Buffer
	b.Grow(n + 2)
	b.WriteByte('[')
	for b.Len() < n-3 {
		b.WriteString("{},")
	}
	b.WriteString("{}]")
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))
	return p
}

// TestHostileInputs runs each hostile input of issue 12 through the CLI: each
// ends with exit status 2 and an error that names the flag or the file and
// what is wrong.
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "kubelet.log")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	cfg := filepath.Join(dir, "kubelet-config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\nreservedSystemCPUs: \"0-400000000\"\n"), 0o644))
	mi := filepath.Join(dir, "machine-info.json")
	require.NoError(t, os.WriteFile(mi, []byte(`{"topology":[{"node_id":0,"cores":[{"core_id":0,"thread_ids":[9223372036854775807]}]}]}`), 0o644))
	small := bigArray(t, dir, "pods-4m.json", 4<<20)
	longQuantity := filepath.Join(dir, "pod-long-quantity.json")
	require.NoError(t, os.WriteFile(longQuantity, []byte(`{"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1`+strings.Repeat("0", 10<<20)+`"}}}]}}`), 0o644))
	big := bigArray(t, dir, "pods-20m.json", 20<<20)
	for name, tc := range map[string]struct {
		args []string
		want []string
	}{
		"log is /dev/zero":              {[]string{"--log", "/dev/zero"}, []string{"--log /dev/zero", "a character device"}},
		"log is a FIFO":                 {[]string{"--log", fifo}, []string{"--log " + fifo, "a FIFO"}},
		"pod is a 20 MB array":          {[]string{"--pod", big}, []string{"pod " + big, "larger than its limit", "16 MiB"}},
		"events is a 20 MB array":       {[]string{"--events", big}, []string{"events " + big, "larger than its limit"}},
		"pod is a 4 MB array of values": {[]string{"--pod", small}, []string{small, "value budget"}},
		"a 10 MB quantity":              {[]string{"--pod", longQuantity}, []string{longQuantity, "/spec/containers/0/resources/limits/cpu", "more than numascope reads in one quantity"}},
		"reserved CPUs out of range":    {[]string{"--kubelet-config", cfg}, []string{cfg + `: reservedSystemCPUs "0-400000000"`, "above the largest CPU id 65535"}},
		"machine-info thread id 2^63-1": {[]string{"--topology", mi}, []string{mi, "thread_ids/0", "9223372036854775807 is not in 0-65535"}},
	} {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tc.args, &out, &errOut)
			assert.Equal(t, 2, code, "stdout: %s", out.String())
			for _, w := range tc.want {
				assert.Contains(t, errOut.String(), w)
			}
			assert.True(t, strings.HasPrefix(errOut.String(), "diagnose: "), errOut.String())
		})
	}
}
