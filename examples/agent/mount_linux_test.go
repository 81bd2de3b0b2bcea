package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/numascope/numascope/podresources/podresourcestest"
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
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(src)
	if err := os.Mkdir(filepath.Join(src, "pod-resources"), 0o750); err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(0o022)
	srv, err := podresourcestest.Start(filepath.Join(src, "pod-resources", "kubelet.sock"), podresourcestest.Sample())
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, f := range stateFiles {
		b, err := os.ReadFile(filepath.Join(nodeDir, f.path))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(src, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(src, 0o750); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(srv.Socket())
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o755 {
		t.Fatalf("socket mode %v, want 0755", st.Mode().Perm())
	}

	// The container side: a read-only bind mount of the directory.
	ro, err := os.MkdirTemp("", "ro")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(ro)
	if err := syscall.Mount(src, ro, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount (%v): needs CAP_SYS_ADMIN", err)
	}
	defer syscall.Unmount(ro, syscall.MNT_DETACH)
	if err := syscall.Mount("", ro, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount read-only: %v", err)
	}
	if err := os.WriteFile(filepath.Join(ro, "x"), nil, 0o600); !errors.Is(err, syscall.EROFS) {
		t.Fatalf("writing through the read-only mount: %v, want EROFS", err)
	}

	// In process (root, all capabilities): everything is readable.
	rep, code, _ := runOnce(t, "--state-dir", ro, "--sysfs", "none")
	if code != 0 || !rep.PodResources.Available || rep.PodResources.Pods != 3 {
		t.Fatalf("through the read-only mount: exit %d, podResources %+v, findings %+v", code, rep.PodResources, rep.Findings)
	}
	for _, c := range rep.Checkpoints {
		if c.Checksum == nil || !c.Checksum.Valid {
			t.Errorf("%s: %+v", c.File, c)
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
		} else if err != nil {
			t.Fatalf("setpriv %v: %v", privs, err)
		}
		var r Report
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("setpriv %v: %v\n%s", privs, err, out)
		}
		return &r, code
	}

	// User 0 with no capability at all, as in the DaemonSet.
	rep, code = agentAs("--bounding-set=-all", "--inh-caps=-all")
	if code != 0 || !rep.PodResources.Available || len(rep.Errors) != 0 {
		t.Errorf("user 0 without capabilities: exit %d, podResources %+v, errors %+v", code, rep.PodResources, rep.Errors)
	}
	for _, c := range rep.Checkpoints {
		if c.Checksum == nil || !c.Checksum.Valid {
			t.Errorf("user 0 without capabilities, %s: %+v", c.File, c)
		}
	}

	// Any other user: refused by the 0750 directory, the 0600 files and the
	// socket's missing write bit, read-only mount or not.
	rep, code = agentAs("--reuid=65534", "--regid=65534", "--clear-groups")
	if code != 1 || rep.PodResources.Available {
		t.Errorf("user nobody: exit %d, podResources %+v", code, rep.PodResources)
	}
	for _, c := range rep.Checkpoints {
		if !c.Present || !strings.Contains(c.Error, "permission denied") {
			t.Errorf("user nobody, %s: %+v", c.File, c)
		}
	}
}
