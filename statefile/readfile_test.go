//go:build unix

package statefile

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
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
			var pathErr *fs.PathError
			assert.True(t, errors.As(err, &pathErr), "an *fs.PathError, as an open error is: %v", err)
			assert.Contains(t, err.Error(), tt.path+": cannot read the checkpoint")
			assert.Contains(t, err.Error(), tt.what)
		})
	}
	t.Run("the name given leads the error", func(t *testing.T) {
		_, err := ReadFile(fifo, Options{Name: "ticket-42/cpu_manager_state"})
		require.Error(t, err)
		assert.True(t, strings.HasPrefix(err.Error(), "ticket-42/cpu_manager_state: "), err.Error())
	})
	t.Run("missing", func(t *testing.T) {
		_, err := ReadFile(filepath.Join(dir, "none"), Options{})
		require.Error(t, err)
		assert.True(t, errors.Is(err, fs.ErrNotExist), "%v", err)
		var pathErr *fs.PathError
		assert.True(t, errors.As(err, &pathErr), "%v", err)
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

// FuzzReadFile writes the fuzz bytes to a file of an odd kind and reads it:
// a regular file decodes exactly as Decode decodes its bytes (or is refused
// as too large, naming the file), and a FIFO, a device or a directory is
// refused at once with ErrNotRegular.
func FuzzReadFile(f *testing.F) {
	f.Add([]byte(`{"policyName":"none","defaultCpuSet":"0-3","checksum":0}`), uint8(0))
	f.Add([]byte(`{"policyName":"none","defaultCpuSet":"0-1048575,0-1048575","checksum":0}`), uint8(4))
	f.Add([]byte(""), uint8(1))
	f.Add([]byte("x"), uint8(2))
	f.Add([]byte("x"), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, odd uint8) {
		// ReadFile and Decode each decode the bytes
		fuzzbudget.RunWith(t, decodes(2), func() {
			dir := t.TempDir()
			path := filepath.Join(dir, "state")
			opts := Options{}
			if odd&4 != 0 {
				opts.MaxSize = 64
			}
			var err error
			switch odd % 4 {
			case 0:
				err = os.WriteFile(path, data, 0o600)
			case 1:
				err = syscall.Mkfifo(path, 0o600)
			case 2:
				err = os.Symlink("/dev/zero", path)
			case 3:
				err = os.Mkdir(path, 0o700)
			}
			require.NoError(t, err)
			got, gerr := ReadFile(path, opts)
			if odd%4 != 0 {
				require.ErrorIs(t, gerr, ErrNotRegular, "ReadFile of an odd file")
				require.Nil(t, got, "file from ReadFile of an odd file")
				require.Contains(t, gerr.Error(), path, "the error names the file")
				return
			}
			opts.Name = path
			want, werr := Decode(data, opts)
			require.Equal(t, werr == nil, gerr == nil, "ReadFile: %v; Decode: %v", gerr, werr)
			if gerr != nil {
				if errors.Is(werr, ErrTooLarge) {
					require.ErrorIs(t, gerr, ErrTooLarge, "ReadFile of a file Decode finds too large (%v)", werr)
					require.Contains(t, gerr.Error(), path, "the error names the file")
				} else {
					require.EqualError(t, gerr, werr.Error(), "ReadFile's error against Decode's")
				}
				return
			}
			require.Equal(t, want.KubeletAccepts, got.KubeletAccepts, "accepts for ReadFile and Decode")
			require.Equal(t, want.Reason, got.Reason, "reason for ReadFile and Decode")
			require.Len(t, got.Problems, len(want.Problems), "problems of ReadFile, against Decode's %+v", want.Problems)
		})
	})
}
