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

// TestStdin: a piped checkpoint is inspected, never the embedded sample in
// its place; "-" names standard input; nothing piped (a terminal,
// /dev/null, an empty pipe) with no FILE is the sample.
func TestStdin(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "statefile", "testdata", "kubelet", "cpu", name))
		require.NoError(t, err)
		return string(b)
	}
	good, flipped := read("v4-none.json"), read("v2-checksum-flipped.json")
	for _, tc := range []struct {
		name      string
		args      []string
		piped     *string // nil: nothing piped
		code      int
		want, not string
	}{
		{name: "a healthy file piped", piped: &good, code: 0, want: "✓ standard input (cpu, v4, policy none)", not: "memory_manager_state"},
		{name: "a corrupt file piped", piped: &flipped, code: 1, want: "✗ standard input (cpu, v2", not: "embedded sample"},
		{name: "- reads the pipe", args: []string{"-"}, piped: &good, code: 0, want: "✓ standard input"},
		{name: "- beside a file", args: []string{"-", "../../statefile/testdata/kubelet/cpu/v2-checksum-flipped.json"}, piped: &good, code: 1, want: "✓ standard input"},
		{name: "- with nothing piped", args: []string{"-"}, code: 1, want: "nothing was piped"},
		{name: "an empty pipe is the sample", piped: new(string), code: 0, want: "memory_manager_state"},
		{name: "no stdin is the sample", code: 0, want: "memory_manager_state"},
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
			if tc.not != "" {
				assert.NotContains(t, out.String(), tc.not)
			}
		})
	}
}
