package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/internal/nodebundle"
)

// TestBundleCarriesTheNodesFilesAsTheyAre: --report bundle prints the
// checkpoint files and config.yaml byte for byte, the PodResources snapshot
// and the NUMA part of sysfs, as one line kubectl-numascope reads back.
func TestBundleCarriesTheNodesFilesAsTheyAre(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--once", "--report", "bundle", "--node", "node-a",
		"--state-dir", "testdata/node/kubelet", "--sysfs", "testdata/node/sys",
		"--snapshot", "../../podresources/testdata/offline/numascope"}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Equal(t, 1, bytes.Count(out.Bytes(), []byte("\n")), "one line")
	b, err := nodebundle.Read(&out, "stdout")
	require.NoError(t, err)
	assert.Equal(t, "node-a", b.Node)
	assert.Empty(t, b.Errors)
	var paths []string
	for _, f := range b.Files {
		paths = append(paths, f.Path)
	}
	sort.Strings(paths)
	for _, p := range []string{"cpu_manager_state", "memory_manager_state", "device-plugins/kubelet_internal_checkpoint", "dra_manager_state", "config.yaml"} {
		want, err := os.ReadFile(filepath.Join("testdata/node/kubelet", p))
		require.NoError(t, err)
		got, ok := b.Get(p)
		if assert.True(t, ok, "%s is in the bundle (it has %v)", p, paths) {
			assert.Empty(t, cmp.Diff(want, got), p)
		}
	}
	_, ok := b.Get("podresources.json")
	assert.True(t, ok, "the PodResources snapshot is in the bundle")
	_, ok = b.Get("sys/devices/system/node/node0/cpulist")
	assert.True(t, ok, "the NUMA nodes' CPU lists are in the bundle (%v)", paths)
}

// TestBundleListsWhatItCannotRead: a FIFO where a checkpoint should be is
// refused without blocking, named in the bundle's errors, and the rest still
// goes out.
func TestBundleListsWhatItCannotRead(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "cpu_manager_state"), 0o600))
	data, err := os.ReadFile("testdata/node/kubelet/memory_manager_state")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "memory_manager_state"), data, 0o600))
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--once", "--report", "bundle", "--state-dir", dir, "--sysfs", "none", "--socket", "none"}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	b, err := nodebundle.Read(&out, "stdout")
	require.NoError(t, err)
	require.Len(t, b.Errors, 1)
	assert.Equal(t, filepath.Join(dir, "cpu_manager_state"), b.Errors[0].Path)
	assert.Contains(t, b.Errors[0].Message, "not a regular file")
	got, ok := b.Get("memory_manager_state")
	assert.True(t, ok)
	assert.Equal(t, data, got)
}

func TestBundleNeedsOnce(t *testing.T) {
	var errb bytes.Buffer
	code := run(context.Background(), []string{"--report", "bundle", "--listen", ""}, &bytes.Buffer{}, &errb)
	assert.Equal(t, 2, code)
	assert.Contains(t, errb.String(), "--report bundle goes with --once")
}
