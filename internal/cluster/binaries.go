// Package cluster runs a real Kubernetes control plane for numascope's
// tests: etcd and a kube-apiserver (v1.37.2, built from the module proxy by
// the helper module in ./apiserver and cached), a network namespace of the
// test's own with a non-loopback address, and fake kubelets serving
// /configz, /logs/ and /containerLogs/ over HTTPS on that address, so that
// the API server's node and pod proxies really carry the traffic.
//
// Tests skip, saying why, when the API server cannot be built or a network
// namespace cannot be made; with NUMASCOPE_REQUIRE_CLUSTER=1 (set by .ci/run)
// they fail instead.
package cluster

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// KubernetesVersion is the release of the kube-apiserver the tests run.
const KubernetesVersion = "v1.37.2"

// RequireEnv names the variable that turns a skip into a failure.
const RequireEnv = "NUMASCOPE_REQUIRE_CLUSTER"

// unavailable skips t, or fails it when the cluster is required.
func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s (%s=1: the cluster tests must run here)", msg, RequireEnv)
	}
	t.Skipf("skipping the cluster test: %s (set %s=1 to make this a failure)", msg, RequireEnv)
}

// helperDir is the directory of the helper module that pins kube-apiserver.
func helperDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot locate the cluster package's source")
	}
	d := filepath.Join(filepath.Dir(file), "apiserver")
	if _, err := os.Stat(filepath.Join(d, "go.mod")); err != nil {
		return "", fmt.Errorf("the helper module is missing: %w", err)
	}
	return d, nil
}

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// ldflags stamps the release into the binary: without it the server says
// v0.0.0-master, which clients may refuse.
const ldflags = "-s -w -X k8s.io/component-base/version.gitVersion=" + KubernetesVersion +
	" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37"

// APIServerBinary returns the path of a kube-apiserver KubernetesVersion
// binary, building it on first use (about 6 minutes cold, seconds with a warm
// Go build cache) into the user's cache directory, keyed by the helper
// module's go.sum and the Go toolchain, so later runs reuse it at once.
func APIServerBinary() (string, error) {
	buildOnce.Do(func() { buildPath, buildErr = buildAPIServer() })
	return buildPath, buildErr
}

func buildAPIServer() (string, error) {
	dir, err := helperDir()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum", "tools.go"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return "", fmt.Errorf("reading the helper module: %w", err)
		}
		h.Write(data)
	}
	h.Write([]byte(runtime.Version() + ldflags))
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	out := filepath.Join(cache, "numascope", "kube-apiserver-"+KubernetesVersion+"-"+hex.EncodeToString(h.Sum(nil))[:12])
	if st, err := os.Stat(out); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		return out, nil
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	// go test puts its own toolchain first on PATH.
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command on PATH to build kube-apiserver: %w", err)
	}
	tmp := fmt.Sprintf("%s.tmp%d", out, os.Getpid())
	cmd := exec.Command(goBin, "build", "-ldflags", ldflags, "-o", tmp, "k8s.io/kubernetes/cmd/kube-apiserver")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("building kube-apiserver %s in %s: %v\n%s", KubernetesVersion, dir, err, tail(buf.Bytes(), 2000))
	}
	if err := os.Rename(tmp, out); err != nil {
		return "", err
	}
	// Older builds (another go.sum or toolchain) are 120 MB each: drop them.
	if old, err := filepath.Glob(filepath.Join(filepath.Dir(out), "kube-apiserver-*")); err == nil {
		for _, p := range old {
			if p != out && !strings.Contains(filepath.Base(p), ".tmp") {
				os.Remove(p)
			}
		}
	}
	return out, nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// etcdBinary finds etcd on PATH (Debian's etcd-server package puts it there).
func etcdBinary() (string, error) {
	p, err := exec.LookPath("etcd")
	if err != nil {
		return "", errors.New("no etcd on PATH: install it with `apt-get install -y etcd-server`")
	}
	return p, nil
}

// Assets returns a directory holding kube-apiserver and etcd, as envtest's
// BinaryAssetsDirectory wants it, or skips t (fails it under
// NUMASCOPE_REQUIRE_CLUSTER=1) when either cannot be had.
func Assets(t testing.TB) string {
	t.Helper()
	api, err := APIServerBinary()
	if err != nil {
		unavailable(t, "kube-apiserver cannot be built: %v", err)
	}
	etcd, err := etcdBinary()
	if err != nil {
		unavailable(t, "%v", err)
	}
	dir := t.TempDir()
	for name, target := range map[string]string{"kube-apiserver": api, "etcd": etcd} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatalf("linking %s: %v", name, err)
		}
	}
	return dir
}
