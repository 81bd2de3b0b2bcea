package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStdin: a piped log is diagnosed; "-" names standard input; nothing
// given at all is a usage error, never "no findings".
func TestStdin(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "diagnose", "testdata", "log-1.20-pod-scope", "kubelet.log"))
	require.NoError(t, err)
	log := string(b)
	for _, tc := range []struct {
		name         string
		args         []string
		piped        *string
		code         int
		want, stderr string
	}{
		{name: "diagnose < kubelet.log", piped: &log, code: 1, want: "TopologyAffinityError"},
		{name: "- beside a flag", args: []string{"--log-limit", "1GiB", "-"}, piped: &log, code: 1, want: "standard input"},
		{name: "- with nothing piped", args: []string{"-"}, code: 2, stderr: "nothing was piped"},
		{name: "no evidence at all", code: 2, stderr: "no evidence given"},
		{name: "an empty pipe is no evidence", piped: new(string), code: 2, stderr: "no evidence given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := stdin
			t.Cleanup(func() { stdin = old })
			stdin = func() (io.Reader, bool) {
				if tc.piped == nil {
					return nil, false
				}
				return strings.NewReader(*tc.piped), true
			}
			var out, errb bytes.Buffer
			code := run(tc.args, &out, &errb)
			assert.Equal(t, tc.code, code, "exit status; stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
			assert.Contains(t, out.String(), tc.want)
			assert.Contains(t, errb.String(), tc.stderr)
			assert.NotContains(t, out.String(), "no findings")
		})
	}
}
