package cluster

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// KubeletIP is the address the fake kubelets listen on inside the test's
// network namespace. The API server proxies only to global unicast
// addresses, so loopback will not do; nothing leaves the namespace.
const KubeletIP = "10.253.0.1"

// unshareFlags make a user and network namespace for the test, and a PID
// namespace whose init is the test binary: when it exits, or unshare is
// killed, the kernel kills etcd and kube-apiserver with it, so a failed or
// interrupted test never leaves them running.
var unshareFlags = []string{"--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child"}

// netnsEnv marks the re-executed test binary running inside the namespace.
const netnsEnv = "NUMASCOPE_CLUSTER_NETNS"

// InNetns runs the calling test inside a network namespace of its own. The
// first call re-executes the test binary under `unshare -rn --pid --fork` for this test
// only, sets the namespace's loopback up with KubeletIP, reports the child's
// output and result, and returns false: the caller returns at once. Inside
// the child it returns true and the test goes on there.
//
//	func TestX(t *testing.T) {
//		if !cluster.InNetns(t) {
//			return
//		}
//		...
//	}
func InNetns(t *testing.T) bool {
	t.Helper()
	if os.Getenv(netnsEnv) == t.Name() {
		if err := setupLoopback(); err != nil {
			t.Fatalf("setting up the network namespace: %v", err)
		}
		return true
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		unavailable(t, "no unshare on PATH (util-linux) to make a network namespace")
	}
	if out, err := exec.Command(unshare, append(unshareFlags, "true")...).CombinedOutput(); err != nil {
		unavailable(t, "`unshare %s` is not permitted here: %v %s", strings.Join(unshareFlags, " "), err, bytes.TrimSpace(out))
	}
	if _, err := exec.LookPath("ip"); err != nil {
		unavailable(t, "no ip command (iproute2) to set the namespace's address up")
	}
	// Build the API server before entering the namespace: the build needs
	// the network for the module proxy, the namespace has none.
	if _, err := APIServerBinary(); err != nil {
		unavailable(t, "kube-apiserver cannot be built: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, unshareFlags...), exe, "-test.run", "^"+regexp.QuoteMeta(topName(t.Name()))+"$", "-test.v")
	if f := flag.Lookup("test.timeout"); f != nil {
		args = append(args, "-test.timeout", f.Value.String())
	}
	cmd := exec.Command(unshare, args...)
	cmd.Env = append(os.Environ(), netnsEnv+"="+t.Name())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Logf("inside the network namespace:\n%s", indent(out.String()))
	if err != nil {
		if strings.Contains(out.String(), "--- SKIP") && !strings.Contains(out.String(), "--- FAIL") {
			t.Skip("skipped inside the network namespace (see above)")
		}
		t.Fatalf("the test failed inside its network namespace: %v", err)
	}
	if strings.Contains(out.String(), "--- SKIP: "+t.Name()) {
		t.Skip("skipped inside the network namespace (see above)")
	}
	return false
}

func topName(name string) string {
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return name
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

func setupLoopback() error {
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"addr", "add", KubeletIP + "/32", "dev", "lo"},
		{"route", "add", "default", "dev", "lo"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
		}
	}
	return nil
}
