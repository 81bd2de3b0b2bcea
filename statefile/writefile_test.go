package statefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteFileMode(t *testing.T) {
	tests := []struct {
		name     string
		existing os.FileMode // 0: no file yet
		want     os.FileMode
	}{
		{"a new file gets 0600", 0, 0o600},
		{"a kubelet 0600 file stays 0600", 0o600, 0o600},
		{"a 0640 file stays 0640", 0o640, 0o640},
		{"a 0644 file stays 0644", 0o644, 0o644},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "cpu_manager_state")
			if tt.existing != 0 {
				require.NoError(t, os.WriteFile(path, []byte("old"), tt.existing))
				require.NoError(t, os.Chmod(path, tt.existing))
			}
			require.NoError(t, WriteFile(path, []byte("new")))
			st, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, tt.want, st.Mode().Perm())
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, "new", string(b))
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "no temporary file left behind")
		})
	}
}

func TestWriteFileKubeletPaths(t *testing.T) {
	base := t.TempDir()
	mk := func(parts ...string) string {
		p := filepath.Join(append([]string{base}, parts...)...)
		require.NoError(t, os.MkdirAll(p, 0o755))
		return p
	}
	varLib := mk("host", "var", "lib", "kubelet")
	mk("host", "var", "lib", "kubelet", "device-plugins")
	rootDir := mk("data", "kubelet-root")
	mk("data", "kubelet-root", "pods")
	lab := mk("lab")
	link := filepath.Join(base, "link")
	require.NoError(t, os.Symlink(varLib, link))
	tests := []struct {
		name    string
		path    string
		refused bool
	}{
		{"inside /var/lib/kubelet", filepath.Join(varLib, "cpu_manager_state"), true},
		{"any file inside /var/lib/kubelet", filepath.Join(varLib, "notes.txt"), true},
		{"the device checkpoint", filepath.Join(varLib, "device-plugins", "kubelet_internal_checkpoint"), true},
		{"through a symbolic link to /var/lib/kubelet", filepath.Join(link, "memory_manager_state"), true},
		{"unclean path into /var/lib/kubelet", filepath.Join(base, "host", "var", "lib", "x", "..", "kubelet", "dra_manager_state"), true},
		{"a --root-dir elsewhere (it has pods/)", filepath.Join(rootDir, "memory_manager_state"), true},
		{"a state file name in a lab directory", filepath.Join(lab, "memory_manager_state"), false},
		{"another file in a --root-dir", filepath.Join(rootDir, "notes.txt"), false},
		{"a directory named kubelet elsewhere", filepath.Join(mk("lib", "kubelet"), "cpu_manager_state"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.refused, IsKubeletPath(tt.path))
			err := WriteFile(tt.path, []byte("x"))
			if !tt.refused {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrKubeletPath), "%v", err)
			assert.Contains(t, err.Error(), tt.path)
			assert.Contains(t, err.Error(), "AllowKubeletPath")
			_, serr := os.Lstat(tt.path)
			assert.True(t, errors.Is(serr, os.ErrNotExist), "nothing written: %v", serr)
			require.NoError(t, WriteFile(tt.path, []byte("x"), WriteOptions{AllowKubeletPath: true}))
			b, err := os.ReadFile(tt.path)
			require.NoError(t, err)
			assert.Equal(t, "x", string(b))
		})
	}
}

func TestWriteFileRefusesOddTargets(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o600))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(target, link))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	for _, p := range []string{link, sub} {
		t.Run(filepath.Base(p), func(t *testing.T) {
			err := WriteFile(p, []byte("new"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "not a regular file")
			b, err := os.ReadFile(target)
			require.NoError(t, err)
			assert.Equal(t, "keep", string(b))
		})
	}
}
