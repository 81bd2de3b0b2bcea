package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/numascope/numascope/podresources/podresourcestest"
	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSocketConnectThroughReadOnlyBindMount proves the DaemonSet's choice:
// a read-only bind mount (what readOnly: true on a hostPath mount is) lets a
// process connect to the PodResources socket inside it, because connect(2)
// checks write permission on the socket inode, not whether the mount is
// writable; and user 0 needs no capability for it, nor to read the kubelet's
// 0600 files, because it owns them. Another user is refused both. It needs
// root and CAP_SYS_ADMIN to mount, and skips otherwise.
func TestSocketConnectThroughReadOnlyBindMount(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to bind-mount")
	}
	// The host side, with the kubelet's modes: directory 0750, files 0600,
	// socket created under umask 022 (0755).
	src, err := os.MkdirTemp("", "kl")
	require.NoError(t, err)
	defer os.RemoveAll(src)
	require.NoError(t, os.Mkdir(filepath.Join(src, "pod-resources"), 0o750))
	old := syscall.Umask(0o022)
	srv, err := podresourcestest.Start(filepath.Join(src, "pod-resources", "kubelet.sock"), podresourcestest.Sample())
	syscall.Umask(old)
	require.NoError(t, err)
	defer srv.Close()
	for _, kind := range statefile.Kinds() {
		b, err := os.ReadFile(kind.PathIn(nodeDir))
		require.NoError(t, err)
		p := kind.PathIn(src)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o750))
		require.NoError(t, os.WriteFile(p, b, 0o600))
	}
	require.NoError(t, os.Chmod(src, 0o750))
	st, err := os.Stat(srv.Socket())
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o755), st.Mode().Perm(), "socket mode")

	// The container side: a read-only bind mount of the directory.
	ro, err := os.MkdirTemp("", "ro")
	require.NoError(t, err)
	defer os.Remove(ro)
	if err := syscall.Mount(src, ro, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount (%v): needs CAP_SYS_ADMIN", err)
	}
	defer syscall.Unmount(ro, syscall.MNT_DETACH)
	require.NoError(t, syscall.Mount("", ro, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""), "remount read-only")
	require.ErrorIs(t, os.WriteFile(filepath.Join(ro, "x"), nil, 0o600), syscall.EROFS, "writing through the read-only mount")

	// In process (root, all capabilities): everything is readable.
	rep, code, _ := runOnce(t, "--state-dir", ro, "--sysfs", "none")
	require.Equal(t, 0, code, "through the read-only mount: exit code; findings %+v", rep.Findings)
	require.True(t, rep.PodResources.Available, "through the read-only mount: podResources %+v", rep.PodResources)
	require.EqualValues(t, 3, rep.PodResources.Pods, "through the read-only mount: podResources pods")
	for _, c := range rep.Checkpoints {
		if assert.NotNil(t, c.Checksum, "%s: checksum: %+v", c.File, c) {
			assert.True(t, c.Checksum.Valid, "%s: checksum valid: %+v", c.File, c)
		}
	}

	if testing.Short() {
		return
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv (util-linux) not installed: cannot drop capabilities")
	}
	bin := buildAgent(t)
	agentAs := func(privs ...string) (*Report, int) {
		t.Helper()
		args := append(privs, bin, "--once", "--state-dir", ro, "--sysfs", "none", "--node", "n")
		cmd := exec.Command(setpriv, args...)
		cmd.Stderr = io.Discard
		out, err := cmd.Output()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else {
			require.NoError(t, err, "setpriv %v", privs)
		}
		var r Report
		require.NoError(t, json.Unmarshal(out, &r), "setpriv %v: the report:\n%s", privs, out)
		return &r, code
	}

	// User 0 with no capability at all, as in the DaemonSet.
	rep, code = agentAs("--bounding-set=-all", "--inh-caps=-all")
	assert.Equal(t, 0, code, "user 0 without capabilities: exit code")
	assert.True(t, rep.PodResources.Available, "user 0 without capabilities: podResources %+v", rep.PodResources)
	assert.Empty(t, rep.Errors, "user 0 without capabilities: errors")
	for _, c := range rep.Checkpoints {
		if assert.NotNil(t, c.Checksum, "user 0 without capabilities, %s: checksum: %+v", c.File, c) {
			assert.True(t, c.Checksum.Valid, "user 0 without capabilities, %s: checksum valid: %+v", c.File, c)
		}
	}

	// Any other user: refused by the 0750 directory, the 0600 files and the
	// socket's missing write bit, read-only mount or not.
	rep, code = agentAs("--reuid=65534", "--regid=65534", "--clear-groups")
	assert.Equal(t, 1, code, "user nobody: exit code")
	assert.False(t, rep.PodResources.Available, "user nobody: podResources %+v", rep.PodResources)
	for _, c := range rep.Checkpoints {
		assert.True(t, c.Present, "user nobody, %s: present: %+v", c.File, c)
		assert.Contains(t, c.Error, "permission denied", "user nobody, %s: error", c.File)
	}
}
