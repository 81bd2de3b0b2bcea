//go:build unix

package statefile

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadFileOdd checks that ReadFile refuses at once what is not a
// regular file, naming it, and never blocks on a FIFO.
func TestReadFileOdd(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, l.Close()) })
	tests := []struct {
		path, what string
	}{
		{"/dev/zero", "a character device"},
		{"/dev/urandom", "a character device"},
		{fifo, "a FIFO"},
		{dir, "a directory"},
		{sock, "a socket"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			f, err := ReadFile(tt.path, Options{})
			require.Error(t, err)
			assert.Nil(t, f)
			assert.True(t, errors.Is(err, ErrNotRegular), "%v", err)
			assert.Contains(t, err.Error(), tt.path+": cannot read the checkpoint")
			assert.Contains(t, err.Error(), tt.what)
		})
	}
	t.Run("the name given leads the error", func(t *testing.T) {
		_, err := ReadFile(fifo, Options{Name: "ticket-42/cpu_manager_state"})
		require.Error(t, err)
		assert.True(t, strings.HasPrefix(err.Error(), "ticket-42/cpu_manager_state: "), err.Error())
	})
	t.Run("too large", func(t *testing.T) {
		big := filepath.Join(dir, "big")
		require.NoError(t, os.WriteFile(big, []byte(`{"policyName":"none","defaultCpuSet":"`+strings.Repeat("0,", 100)+`0"}`), 0o600))
		_, err := ReadFile(big, Options{MaxSize: 64})
		require.Error(t, err)
		assert.True(t, errors.Is(err, ErrTooLarge), "%v", err)
		assert.Contains(t, err.Error(), big)
	})
}
