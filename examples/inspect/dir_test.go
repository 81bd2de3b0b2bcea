package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// firstLines are the verdict lines of inspect's text output.
func firstLines(out string) []string {
	var l []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "✓") || strings.HasPrefix(line, "✗") || strings.HasPrefix(line, "⚠") {
			l = append(l, line)
		}
	}
	return l
}

// TestDirectoryArguments: a directory stands for the checkpoints the
// kubelet keeps in it, each read as its kind, and nothing else in it is
// read (not even a FIFO with a checkpoint's name elsewhere).
func TestDirectoryArguments(t *testing.T) {
	root := filepath.Join("..", "agent", "testdata", "node", "kubelet")
	empty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("not a checkpoint"), 0o644))
	// a FIFO with a checkpoint's name, and a link to a device: never opened
	fifo := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(fifo, "cpu_manager_state"), 0o644))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(fifo, "memory_manager_state")))
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		lines []string
		want  string
	}{
		{name: "the kubelet's root directory", args: []string{root}, lines: []string{
			"✓ " + root + ": kubelet v1.37.2 restores all 4 checkpoints",
			"✓ " + filepath.Join(root, "cpu_manager_state") + " (cpu, v4, policy static): kubelet v1.37.2 restores it",
			"✓ " + filepath.Join(root, "memory_manager_state") + " (memory, v3, policy Static): kubelet v1.37.2 restores it",
			"✓ " + filepath.Join(root, "device-plugins", "kubelet_internal_checkpoint") + " (device, v2): kubelet v1.37.2 restores it",
			"✓ " + filepath.Join(root, "dra_manager_state") + " (dra, crc32): kubelet v1.37.2 restores it",
		}},
		{name: "its device-plugins directory", args: []string{filepath.Join(root, "device-plugins")}, lines: []string{
			"✓ " + filepath.Join(root, "device-plugins") + ": kubelet v1.37.2 restores its checkpoint",
			"✓ " + filepath.Join(root, "device-plugins", "kubelet_internal_checkpoint") + " (device, v2): kubelet v1.37.2 restores it",
		}},
		{name: "--policy applies to the kind it names", args: []string{"--policy", "Static", root}, lines: []string{
			"✓ " + root + ": kubelet v1.37.2 restores all 4 checkpoints",
			"✓ " + filepath.Join(root, "cpu_manager_state") + " (cpu, v4, policy static): kubelet v1.37.2 restores it",
			"✓ " + filepath.Join(root, "memory_manager_state") + " (memory, v3, policy Static): kubelet v1.37.2 restores it",
			"✓ " + filepath.Join(root, "device-plugins", "kubelet_internal_checkpoint") + " (device, v2): kubelet v1.37.2 restores it",
			"✓ " + filepath.Join(root, "dra_manager_state") + " (dra, crc32): kubelet v1.37.2 restores it",
		}},
		{name: "a CPU policy leaves the memory file alone", args: []string{"--policy", "none", root}, code: 1, lines: []string{
			"✗ " + root + ": 1 of 4 checkpoints would stop kubelet v1.37.2: cpu_manager_state",
			"✗ " + filepath.Join(root, "cpu_manager_state") + " (cpu, v4, policy static): kubelet v1.37.2 refuses to start — configured policy \"none\" differs from state checkpoint policy \"static\"",
			"✓ " + filepath.Join(root, "memory_manager_state") + " (memory, v3, policy Static): kubelet v1.37.2 restores it",
			"✓ " + filepath.Join(root, "device-plugins", "kubelet_internal_checkpoint") + " (device, v2): kubelet v1.37.2 restores it",
			"✓ " + filepath.Join(root, "dra_manager_state") + " (dra, crc32): kubelet v1.37.2 restores it",
		}},
		{name: "a FIFO and a device link with checkpoint names", args: []string{fifo}, code: 1, lines: []string{
			"✗ " + fifo + ": 2 of 2 checkpoints cannot be read: cpu_manager_state, memory_manager_state",
			"✗ " + filepath.Join(fifo, "cpu_manager_state") + ": cannot be inspected — not a regular file: it is a named pipe (FIFO)",
			"✗ " + filepath.Join(fifo, "memory_manager_state") + ": cannot be inspected — not a regular file: it is a device",
		}, want: "inspect never reads pipes or devices"},
		{name: "a directory without checkpoints", args: []string{empty}, code: 1,
			lines: []string{"✗ " + empty + ": cannot be inspected — no kubelet checkpoint in this directory"},
			want:  "what to do: give the kubelet's root directory (/var/lib/kubelet, or the kubelet's --root-dir)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			assert.Equal(t, tc.code, run(tc.args, &out, &errb), "exit code; stderr %s", errb.String())
			assert.Equal(t, tc.lines, firstLines(out.String()))
			assert.Contains(t, out.String(), tc.want)
		})
	}
	t.Run("--kind with a directory", func(t *testing.T) {
		var out, errb bytes.Buffer
		assert.Equal(t, 2, run([]string{"--kind", "cpu", root}, &out, &errb), "a usage error")
		assert.Empty(t, out.String(), "no file is read")
		assert.Contains(t, errb.String(), "--kind cpu with the directory")
	})
}

// TestDirectoryHere: "inspect ." in the device-plugins directory finds its
// checkpoint, and a directory inspect may not list says so (as a non-root
// user only: root lists every directory).
func TestDirectoryHere(t *testing.T) {
	dp, err := filepath.Abs(filepath.Join("..", "agent", "testdata", "node", "kubelet", "device-plugins"))
	require.NoError(t, err)
	t.Chdir(dp)
	var out, errb bytes.Buffer
	assert.Equal(t, 0, run([]string{"."}, &out, &errb), "exit code; stderr %s", errb.String())
	assert.Equal(t, []string{"✓ this directory: kubelet v1.37.2 restores its checkpoint", "✓ kubelet_internal_checkpoint (device, v2): kubelet v1.37.2 restores it"}, firstLines(out.String()))
	if os.Geteuid() == 0 {
		return
	}
	locked := t.TempDir()
	require.NoError(t, os.Chmod(locked, 0o300))
	t.Cleanup(func() { assert.NoError(t, os.Chmod(locked, 0o700)) })
	out.Reset()
	assert.Equal(t, 1, run([]string{locked}, &out, &errb))
	assert.Contains(t, out.String(), "run inspect as root (sudo)")
}
