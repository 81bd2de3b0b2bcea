package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInstall: --install DIR copies the running program to DIR/agent,
// executable, over an older copy, and leaves nothing else behind; a
// directory that is not there is an error that says what to give.
func TestInstall(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, installName), []byte("an older agent"), 0o755))
	var out, errb bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"--install", dir}, &out, &errb), errb.String())
	dst := filepath.Join(dir, installName)
	assert.Equal(t, "agent: installed "+dst+"\n", out.String())
	self, err := os.Executable()
	require.NoError(t, err)
	want, err := os.ReadFile(self)
	require.NoError(t, err)
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, got), "DIR/agent is this program, byte for byte")
	fi, err := os.Stat(dst)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left")

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--install", filepath.Join(dir, "missing")}, 1, "--install " + filepath.Join(dir, "missing") + ": stat"},
		{[]string{"--install", dst}, 1, "not a directory"},
		{[]string{"--install", dir, "extra"}, 2, `unexpected argument "extra"`},
	} {
		var out, errb bytes.Buffer
		assert.Equal(t, tc.code, run(context.Background(), tc.args, &out, &errb), "%v", tc.args)
		assert.Contains(t, errb.String(), tc.want, "%v", tc.args)
		assert.Empty(t, out.String())
	}
}
