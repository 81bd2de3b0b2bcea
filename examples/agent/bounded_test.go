package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"

	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/podresources/podresourcestest"
	"github.com/numascope/numascope/statefile"
)

// copyDir copies the regular files of a fixture tree into a new directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	require.NoError(t, filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o600)
	}))
	return dst
}

// replaceWithFIFO puts a named pipe where a file was: opening it for
// reading would block until a writer comes, which none does.
func replaceWithFIFO(t *testing.T, p string) {
	t.Helper()
	require.NoError(t, os.RemoveAll(p))
	require.NoError(t, syscall.Mkfifo(p, 0o600))
}

// errorOf returns the round error of source for file, or "".
func errorOf(rep *Report, source, file string) string {
	for _, e := range rep.Errors {
		if e.Source == source && (file == "" || e.File == file) {
			return e.Message
		}
	}
	return ""
}

func TestStateFileLimits(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(t *testing.T, dir string)
		args   []string
		want   []string // in the error of cpu_manager_state
	}{
		{"a FIFO is refused, not waited on", func(t *testing.T, dir string) { replaceWithFIFO(t, filepath.Join(dir, "cpu_manager_state")) },
			nil, []string{"state file", "cpu_manager_state", "FIFO", "not a regular file"}},
		{"a directory is refused", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "cpu_manager_state")
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.Mkdir(p, 0o755))
		}, nil, []string{"cpu_manager_state", "a directory"}},
		{"a file over --max-state-size", func(t *testing.T, dir string) {}, []string{"--max-state-size", "1Ki"},
			[]string{"cpu_manager_state", "larger than its limit", "1 KiB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyDir(t, nodeDir)
			tt.break_(t, dir)
			start := time.Now()
			rep, code, _ := runOnce(t, append([]string{"--state-dir", dir, "--sysfs", sysDir, "--socket", "none", "--kubelet-config", "none"}, tt.args...)...)
			assert.Less(t, time.Since(start), 10*time.Second)
			assert.Equal(t, 1, code, "an unreadable checkpoint is an error finding")
			p := filepath.Join(dir, "cpu_manager_state")
			msg := errorOf(rep, "state", p)
			for _, w := range tt.want {
				assert.Contains(t, msg, w)
			}
			var found *diagnose.Finding
			for i, f := range rep.Findings {
				if f.Code == CodeEvidenceUnreadable && strings.Contains(f.Title, p) {
					found = &rep.Findings[i]
				}
			}
			require.NotNil(t, found, "no EvidenceUnreadable finding for %s: %+v", p, rep.Findings)
			assert.Equal(t, statefile.SeverityError, found.Severity)
			assert.NotEmpty(t, found.Remedy)
			for _, c := range rep.Checkpoints {
				if c.File == p {
					assert.True(t, c.Present)
					assert.Nil(t, c.KubeletAccepts, "the kubelet may read what the agent cannot: no verdict")
				}
			}
		})
	}
}

func TestSysfsLimits(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(t *testing.T, dir string)
		want   string
	}{
		{"a CPU list expanding past the cap", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "devices/system/node/node0/cpulist"), []byte("0-400000000\n"), 0o644))
		}, "cpulist"},
		{"a CPU id past the kernel's range", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "devices/system/node/node0/cpulist"), []byte("9223372036854775807\n"), 0o644))
		}, "cpulist"},
		{"a FIFO as cpulist", func(t *testing.T, dir string) {
			replaceWithFIFO(t, filepath.Join(dir, "devices/system/node/node0/cpulist"))
		}, "FIFO"},
		{"a cpulist file larger than a sysfs attribute", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "devices/system/node/node0/cpulist"), bytes.Repeat([]byte("0,"), 1<<16), 0o644))
		}, "larger than its limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyDir(t, sysDir)
			tt.break_(t, dir)
			start := time.Now()
			rep, _, _ := runOnce(t, "--state-dir", nodeDir, "--sysfs", dir, "--socket", "none")
			assert.Less(t, time.Since(start), 10*time.Second)
			assert.Contains(t, errorOf(rep, "sysfs", dir), tt.want)
		})
	}
}

// The bounded sysfs copy gives the same answers as the readers it replaces.
func TestSysfsCopyMatchesDirectReaders(t *testing.T) {
	cpus, copyFS, err := readSysfs(sysDir)
	require.NoError(t, err)
	direct, err := podresources.ReadSysfsCPUMap(sysDir)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(direct, cpus))
	fromCopy, err := evidence.ParseSysfs(sysDir, copyFS)
	require.NoError(t, err)
	fromDir, err := evidence.ParseSysfs(sysDir, os.DirFS(sysDir))
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(fromDir, fromCopy, cmp.Comparer(func(a, b cpuset.CPUSet) bool { return a.Equals(b) })))
}

func TestPodResourcesLimits(t *testing.T) {
	srv := startServer(t, podresourcestest.Sample())
	pods := len(podresourcestest.Sample().Pods)
	require.Greater(t, pods, 1)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"more pods than --max-pods", []string{"--max-pods", "1"}, []string{"more than the 1 of --max-pods", "raise --max-pods"}},
		{"an answer over --max-podresources-size", []string{"--max-podresources-size", "64"}, []string{"message size limit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, _, _ := runOnce(t, append([]string{"--state-dir", nodeDir, "--sysfs", sysDir, "--socket", srv.Socket()}, tt.args...)...)
			assert.False(t, rep.PodResources.Available)
			for _, w := range tt.want {
				assert.Contains(t, rep.PodResources.Error, w)
			}
			assert.Nil(t, rep.NUMA)
		})
	}
	rep, _, _ := runOnce(t, "--state-dir", nodeDir, "--sysfs", sysDir, "--socket", srv.Socket(), "--max-pods", "1000")
	assert.True(t, rep.PodResources.Available, rep.PodResources.Error)
	assert.Equal(t, pods, rep.PodResources.Pods)
}

func TestSnapshotLimits(t *testing.T) {
	const saved = "../../podresources/testdata/offline/numascope"
	tests := []struct {
		name  string
		setup func(t *testing.T) string
		args  []string
		want  []string
	}{
		{"a FIFO as --snapshot", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "snapshot.json")
			require.NoError(t, syscall.Mkfifo(p, 0o600))
			return p
		}, nil, []string{"--snapshot", "FIFO"}},
		{"a FIFO as list.json", func(t *testing.T) string {
			dir := copyDir(t, saved)
			replaceWithFIFO(t, filepath.Join(dir, "list.json"))
			return dir
		}, nil, []string{"--snapshot", "list.json", "FIFO"}},
		{"a directory over --max-podresources-size", func(t *testing.T) string { return copyDir(t, saved) },
			[]string{"--max-podresources-size", "100"}, []string{"--snapshot", "larger than its limit", "--max-podresources-size"}},
		{"a file over --max-podresources-size", func(t *testing.T) string {
			return filepath.Join(copyDir(t, saved), "list.json")
		}, []string{"--max-podresources-size", "100"}, []string{"--snapshot", "list.json", "larger than its limit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.setup(t)
			start := time.Now()
			rep, _, _ := runOnce(t, append([]string{"--state-dir", nodeDir, "--sysfs", sysDir, "--snapshot", p}, tt.args...)...)
			assert.Less(t, time.Since(start), 10*time.Second)
			assert.False(t, rep.PodResources.Available)
			for _, w := range tt.want {
				assert.Contains(t, rep.PodResources.Error, w)
			}
		})
	}
	rep, _, _ := runOnce(t, "--state-dir", nodeDir, "--sysfs", sysDir, "--snapshot", saved)
	assert.True(t, rep.PodResources.Available, rep.PodResources.Error)
}

// The report is written a list element at a time; the line is what
// json.Marshal writes.
func TestReportEncodingMatchesMarshal(t *testing.T) {
	srv := startServer(t, podresourcestest.Sample())
	a := newAgent(config{stateDir: nodeDir, sysfs: sysDir, socket: srv.Socket(), timeout: 10 * time.Second, diagnose: true, interval: time.Minute, node: "n"})
	rep := a.round(context.Background())
	require.NotNil(t, rep)
	require.NotEmpty(t, rep.Findings)
	for _, form := range []string{"full", "summary"} {
		t.Run(form, func(t *testing.T) {
			r := rep
			if form == "summary" {
				r = rep.summary()
			}
			want, err := json.Marshal(r)
			require.NoError(t, err)
			var got bytes.Buffer
			require.NoError(t, writeReport(&got, rep, form))
			assert.Equal(t, string(want)+"\n", got.String())
		})
	}
	empty := &Report{}
	want, err := json.Marshal(empty)
	require.NoError(t, err)
	var got bytes.Buffer
	bw := bufio.NewWriter(&got)
	require.NoError(t, encodeReport(bw, empty))
	require.NoError(t, bw.Flush())
	assert.Equal(t, string(want)+"\n", got.String(), "nil lists are null, as json.Marshal writes them")
}

// TestSizeFlagsRefuse checks the size flags' refusals through the command;
// the sizes they accept are internal/units' (TestParseSize there).
func TestSizeFlagsRefuse(t *testing.T) {
	tests := []struct {
		flag, in, err string
	}{
		{"--max-state-size", "-1", "not a number with a unit"},
		{"--max-state-size", "2000Gi", "more than 1 TiB, the largest this flag takes"},
		{"--max-podresources-size", "", "empty"},
		{"--max-podresources-size", "4 apples", "give a byte count such as 4194304, 4096Ki"},
	}
	for _, tt := range tests {
		t.Run(tt.flag+"="+tt.in, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{tt.flag, tt.in, "--once"}, &out, &errb)
			assert.Equal(t, 2, code)
			assert.Contains(t, errb.String(), tt.err)
			assert.Contains(t, errb.String(), tt.flag[1:])
		})
	}
}
