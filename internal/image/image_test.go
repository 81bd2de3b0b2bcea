package main

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildAgent builds examples/agent for this machine's architecture, as the
// release does (static, stripped).
func buildAgent(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the agent image is a Linux image: its binary runs here on Linux only")
	}
	out := filepath.Join(t.TempDir(), "agent")
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", out, ".")
	cmd.Dir = "../../examples/agent"
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "building the agent: %s", b)
	return out
}

// untar unpacks the tar at p into a new directory.
func untar(t *testing.T, p string) string {
	t.Helper()
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	dir := t.TempDir()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return dir
		}
		require.NoError(t, err)
		require.False(t, strings.Contains(h.Name, ".."), h.Name)
		dst := filepath.Join(dir, filepath.FromSlash(h.Name))
		if h.Typeflag == tar.TypeDir {
			require.NoError(t, os.MkdirAll(dst, 0o755))
			continue
		}
		data, err := io.ReadAll(tr)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(dst, data, 0o644))
	}
}

// TestImage builds the agent's image twice (the same bytes), unpacks the
// OCI layout, checks its config (entrypoint, a non-root user, the
// platform, the labels) and its one layer (the agent alone: no shell, no
// other file), and runs the agent taken out of the layer once.
func TestImage(t *testing.T) {
	agent := buildAgent(t)
	dir := t.TempDir()
	var tars [2][]byte
	var out, errb bytes.Buffer
	for i := range tars {
		p := filepath.Join(dir, "agent-"+string(rune('a'+i))+".oci.tar")
		out.Reset()
		code := run(context.Background(), []string{"-agent", agent, "-arch", runtime.GOARCH, "-out", p, "-version", "v0.4.0", "-revision", "abc123", "-time", "2026-12-02T20:06:00Z"}, &out, &errb)
		require.Equal(t, 0, code, errb.String())
		assert.Contains(t, out.String(), "image: wrote "+p+" (linux/"+runtime.GOARCH+", sha256:")
		var err error
		tars[i], err = os.ReadFile(p)
		require.NoError(t, err)
	}
	assert.True(t, bytes.Equal(tars[0], tars[1]), "two builds of the same agent give different image tars")

	lp, err := layout.FromPath(untar(t, filepath.Join(dir, "agent-a.oci.tar")))
	require.NoError(t, err)
	idx, err := lp.ImageIndex()
	require.NoError(t, err)
	im, err := idx.IndexManifest()
	require.NoError(t, err)
	require.Len(t, im.Manifests, 1)
	desc := im.Manifests[0]
	require.NotNil(t, desc.Platform)
	assert.Equal(t, "linux/"+runtime.GOARCH, desc.Platform.OS+"/"+desc.Platform.Architecture)
	assert.Equal(t, "v0.4.0", desc.Annotations["org.opencontainers.image.ref.name"])
	assert.Contains(t, out.String(), desc.Digest.String(), "the digest printed is the manifest's")
	img, err := lp.Image(desc.Digest)
	require.NoError(t, err)
	mt, err := img.MediaType()
	require.NoError(t, err)
	assert.Equal(t, "application/vnd.oci.image.manifest.v1+json", string(mt))
	cf, err := img.ConfigFile()
	require.NoError(t, err)
	assert.Equal(t, []string{"/agent"}, cf.Config.Entrypoint)
	assert.Empty(t, cf.Config.Cmd)
	assert.Equal(t, "65532:65532", cf.Config.User, "a non-root user by default")
	assert.NotRegexp(t, `^0(:|$)|^root`, cf.Config.User)
	assert.Equal(t, "linux", cf.OS)
	assert.Equal(t, runtime.GOARCH, cf.Architecture)
	assert.Equal(t, "2026-12-02T20:06:00Z", cf.Created.UTC().Format("2006-01-02T15:04:05Z"))
	assert.Equal(t, "v0.4.0", cf.Config.Labels["org.opencontainers.image.version"])
	assert.Equal(t, "abc123", cf.Config.Labels["org.opencontainers.image.revision"])

	layers, err := img.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1, "one layer on an empty base")
	lmt, err := layers[0].MediaType()
	require.NoError(t, err)
	assert.Equal(t, "application/vnd.oci.image.layer.v1.tar+gzip", string(lmt))
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	defer rc.Close()
	tr := tar.NewReader(rc)
	var names []string
	extracted := filepath.Join(t.TempDir(), "agent")
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		names = append(names, h.Name)
		assert.Equal(t, int64(0o755), h.Mode, h.Name)
		assert.Equal(t, 0, h.Uid, h.Name)
		data, err := io.ReadAll(tr)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(extracted, data, 0o755))
	}
	assert.Empty(t, cmp.Diff([]string{"agent"}, names), "the layer holds the agent and nothing else: no shell, no libc")

	// The agent out of the image runs: its version, then one round as
	// node-problem-detector's plugin on the agent's test node.
	v, err := exec.Command(extracted, "--version").Output()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(v), "agent "), "%s", v)
	node := "../../examples/agent/testdata/node"
	res, err := exec.Command(extracted, "--once", "--report", "npd", "--state-dir", node+"/kubelet", "--sysfs", node+"/sys", "--socket", "none").Output()
	require.NoError(t, err)
	assert.Equal(t, "numascope: 4 checkpoints accepted, no error finding\n", string(res))
}

func TestImageFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-out", filepath.Join(dir, "x")}, 2, "-agent BINARY is required"},
		{[]string{"-agent", "a"}, 2, "-out FILE is required"},
		{[]string{"-agent", "a", "-out", "o", "-arch", "mips"}, 2, `-arch "mips": give amd64, arm64, ppc64le or s390x`},
		{[]string{"-agent", "a", "-out", "o", "-time", "yesterday"}, 2, `-time "yesterday": give an RFC3339 time`},
		{[]string{"-agent", "a", "-out", "o", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"-agent", filepath.Join(dir, "missing"), "-out", filepath.Join(dir, "o")}, 1, "missing"},
	} {
		var out, errb bytes.Buffer
		assert.Equal(t, tc.code, run(context.Background(), tc.args, &out, &errb), "%v", tc.args)
		assert.Contains(t, errb.String(), tc.want, "%v", tc.args)
	}
	// An existing -out is never overwritten.
	agent := filepath.Join(dir, "agent")
	require.NoError(t, os.WriteFile(agent, []byte("#!/bin/false\n"), 0o755))
	existing := filepath.Join(dir, "existing.tar")
	require.NoError(t, os.WriteFile(existing, []byte("keep"), 0o644))
	var errb bytes.Buffer
	assert.Equal(t, 1, run(context.Background(), []string{"-agent", agent, "-out", existing}, &bytes.Buffer{}, &errb))
	assert.Contains(t, errb.String(), "file exists")
	kept, err := os.ReadFile(existing)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(kept))
}
