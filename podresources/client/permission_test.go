package client_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/podresources/client"
	"github.com/numascope/numascope/podresources/podresourcestest"
)

const childSocketEnv = "NUMASCOPE_PODRESOURCES_CHILD_SOCKET"

// TestPermissionDenied connects as a user without write access to the socket,
// which is what a read-only mount or a non-root container gets. As root, it
// runs itself again as the user nobody.
func TestPermissionDenied(t *testing.T) {
	s := serve(t, podresourcestest.Sample())
	dir := filepath.Dir(s.Socket())
	require.NoError(t, os.Chmod(dir, 0o755))
	// Readable and searchable by everyone, writable only by the owner: the
	// mode people expect to be enough for reading.
	require.NoError(t, os.Chmod(s.Socket(), 0o755))
	if os.Geteuid() != 0 {
		require.NoError(t, os.Chmod(s.Socket(), 0o500))
		checkPermissionDenied(t, s.Socket())
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	bin, err := os.MkdirTemp("", "prbin")
	require.NoError(t, err)
	defer os.RemoveAll(bin)
	require.NoError(t, os.Chmod(bin, 0o755))
	copyExe := filepath.Join(bin, "client.test")
	require.NoError(t, copyFile(exe, copyExe))
	cmd := exec.Command(copyExe, "-test.run=^TestPermissionDeniedChild$", "-test.v")
	cmd.Dir = bin
	cmd.Env = append(os.Environ(), childSocketEnv+"="+s.Socket())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		if !strings.Contains(string(out), "--- FAIL") {
			// Starting the child failed, for example without CAP_SETUID.
			t.Skipf("cannot run as nobody: %v\n%s", err, out)
		}
		require.NoError(t, err, "as nobody:\n%s", out)
	}
	require.Contains(t, string(out), "--- PASS: TestPermissionDeniedChild", "child did not run")
	t.Logf("as nobody:\n%s", out)
}

func TestPermissionDeniedChild(t *testing.T) {
	socket := os.Getenv(childSocketEnv)
	if socket == "" {
		t.Skip("runs as a child of TestPermissionDenied")
	}
	checkPermissionDenied(t, socket)
}

func checkPermissionDenied(t *testing.T, socket string) {
	t.Helper()
	_, err := client.Dial(context.Background(), socket)
	require.ErrorIs(t, err, client.ErrPermissionDenied, "Dial without write access")
	require.ErrorIs(t, err, syscall.EACCES, "Dial without write access")
	for _, w := range []string{socket, "needs write permission on the socket file", "run as root", "readOnly works"} {
		assert.Contains(t, err.Error(), w, "Dial without write access: error")
	}
	fmt.Println(err)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
