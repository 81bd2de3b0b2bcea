package input

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	require.NoError(t, os.WriteFile(small, []byte("hello"), 0o600))
	big := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(big, make([]byte, 1025), 0o600))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))

	tests := []struct {
		name, path string
		want       string
		wantErr    string
		is         error
	}{
		{name: "regular", path: small, want: "hello"},
		{name: "over the limit", path: big, wantErr: "--log " + big + ": input larger than its limit: more than 1 KiB", is: ErrTooLarge},
		{name: "fifo", path: fifo, wantErr: "a FIFO (named pipe)", is: ErrNotRegular},
		{name: "dev zero", path: "/dev/zero", wantErr: "a character device", is: ErrNotRegular},
		{name: "directory", path: dir, wantErr: "a directory", is: ErrNotRegular},
		{name: "missing", path: filepath.Join(dir, "nope"), wantErr: "no such file or directory", is: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadFile(tt.path, "--log", 1024)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.True(t, errors.Is(err, tt.is), "errors.Is(%v, %v)", err, tt.is)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestReadFS(t *testing.T) {
	fsys := fstest.MapFS{
		"a":    {Data: []byte("0-3\n")},
		"pipe": {Mode: fs.ModeNamedPipe},
		"big":  {Data: []byte(strings.Repeat("x", 100))},
	}
	got, err := ReadFS(fsys, "a", "", 10)
	require.NoError(t, err)
	assert.Equal(t, "0-3\n", string(got))
	_, err = ReadFS(fsys, "pipe", "sysfs pipe", 10)
	assert.ErrorIs(t, err, ErrNotRegular)
	_, err = ReadFS(fsys, "big", "", 10)
	assert.ErrorIs(t, err, ErrTooLarge)
}

func TestCheckValues(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		budget  ValueBudget
		wantErr string
	}{
		{name: "small JSON", data: `{"a":[1,2,3],"b":"x,y,{"}`, budget: ValueBudget{MaxValues: 20}},
		{name: "many JSON values", data: "[" + strings.Repeat("{},", 30) + "{}]", budget: ValueBudget{MaxValues: 40}, wantErr: "line 1: document over the value budget: more than 40 values"},
		{name: "deep JSON", data: strings.Repeat("[", 11) + strings.Repeat("]", 11), budget: ValueBudget{MaxDepth: 10}, wantErr: "nested deeper than 10 levels"},
		{name: "YAML lines", data: "a: 1\nb:\n  - x\n  - y\n", budget: ValueBudget{MaxValues: 20}},
		{name: "many YAML items", data: strings.Repeat("- a\n", 50), budget: ValueBudget{MaxValues: 40}, wantErr: "line 21:"},
		{name: "string with newlines", data: "\"a\nb\"\n[1,2", budget: ValueBudget{MaxValues: 2}, wantErr: "line 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckValues([]byte(tt.data), "--pod p.json", tt.budget)
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrTooManyValues)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestReadFileSizes(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 4095, 4096, 4097, 1 << 20} {
		p := filepath.Join(dir, "f")
		want := strings.Repeat("x", n)
		require.NoError(t, os.WriteFile(p, []byte(want), 0o600))
		got, err := ReadFile(p, "", 1<<20)
		require.NoError(t, err)
		assert.Equal(t, n, len(got))
		assert.Equal(t, want, string(got))
	}
	p := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(p, make([]byte, 1<<20+1), 0o600))
	_, err := ReadFile(p, "", 1<<20)
	assert.ErrorIs(t, err, ErrTooLarge)
}
