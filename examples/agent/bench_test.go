package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"

	"github.com/numascope/numascope/podresources/podresourcestest"
	"github.com/numascope/numascope/statefile"
)

// bigNode writes a node of n pods, the shape of podresourcestest.Generate(n):
// 2 NUMA nodes of 64 CPUs in sysfs, a cpu_manager_state (v4) with every
// pod's containers (a quarter of them with two exclusive CPUs), a
// memory_manager_state (v3) with one block per Guaranteed container and a
// device checkpoint with one device per Guaranteed container. The pods' UIDs
// are not the ones the PodResources API knows, so every state entry is also a
// finding: the worst case for the report.
func bigNode(tb testing.TB, n int) (stateDir, sysfs string) {
	tb.Helper()
	dir := tb.TempDir()
	stateDir, sysfs = filepath.Join(dir, "kubelet"), filepath.Join(dir, "sys")
	require.NoError(tb, os.MkdirAll(filepath.Join(stateDir, "device-plugins"), 0o755))
	for node, list := range []string{"0-63", "64-127"} {
		d := filepath.Join(sysfs, "devices", "system", "node", fmt.Sprintf("node%d", node))
		require.NoError(tb, os.MkdirAll(d, 0o755))
		require.NoError(tb, os.WriteFile(filepath.Join(d, "cpulist"), []byte(list+"\n"), 0o644))
		require.NoError(tb, os.WriteFile(filepath.Join(d, "distance"), []byte([]string{"10 20\n", "20 10\n"}[node]), 0o644))
		require.NoError(tb, os.WriteFile(filepath.Join(d, "meminfo"), []byte(fmt.Sprintf("Node %d MemTotal:       268435456 kB\n", node)), 0o644))
	}

	const gib = 1 << 30
	cpu := &statefile.CPUState{PolicyName: "static", DefaultCPUSet: cpuset.New(0, 1, 64, 65), Entries: map[string]map[string]cpuset.CPUSet{}}
	mem := &statefile.MemoryState{PolicyName: "Static", MachineState: map[int]*statefile.NUMANodeState{}, Entries: map[string]map[string][]statefile.Block{}}
	dev := &statefile.DeviceState{RegisteredDevices: map[string][]string{}}
	for node := range 2 {
		mem.MachineState[node] = &statefile.NUMANodeState{NumberOfAssignments: n / 8, Cells: []int{node}, MemoryMap: map[string]*statefile.MemoryTable{
			"memory": {TotalMemSize: 256 * gib, SystemReserved: gib, Allocatable: 255 * gib, Reserved: uint64(n/8) << 20, Free: 255*gib - uint64(n/8)<<20},
		}}
	}
	for i := range n {
		uid := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		if i%4 != 0 {
			continue // Burstable: in the shared pool, not in the files
		}
		node := (i / 4) % 2
		c := node*64 + (i/8)%32*2
		cpu.Entries[uid] = map[string]cpuset.CPUSet{"main": cpuset.New(c, c+1)}
		mem.Entries[uid] = map[string][]statefile.Block{"main": {{NUMAAffinity: []int{node}, Type: "memory", Size: 1 << 20}}}
		id := fmt.Sprintf("vf-%d", i)
		dev.PodDeviceEntries = append(dev.PodDeviceEntries, statefile.PodDevicesEntry{PodUID: uid, ContainerName: "main",
			ResourceName: "example.com/vf", DeviceIDs: map[int64][]string{int64(node): {id}}})
		dev.RegisteredDevices["example.com/vf"] = append(dev.RegisteredDevices["example.com/vf"], id)
	}
	for _, f := range []struct {
		file   *statefile.File
		format statefile.Format
		path   string
	}{
		{&statefile.File{Kind: statefile.KindCPU, CPU: cpu}, statefile.FormatV4, "cpu_manager_state"},
		{&statefile.File{Kind: statefile.KindMemory, Memory: mem}, statefile.FormatV3, "memory_manager_state"},
		{&statefile.File{Kind: statefile.KindDevice, Device: dev}, statefile.FormatV2, filepath.Join("device-plugins", "kubelet_internal_checkpoint")},
	} {
		data, err := statefile.Encode(f.file, f.format)
		require.NoError(tb, err)
		require.NoError(tb, os.WriteFile(filepath.Join(stateDir, f.path), data, 0o600))
	}
	return stateDir, sysfs
}

// BenchmarkRound10000Pods is one round on a node with 10,000 pods (17,500
// containers): the PodResources answer over a unix socket from the real test
// server, state files of that size, sysfs and the diagnosis. It reports the
// size of the round's report line in both forms: full-report-MiB (--report
// full, what --once writes) and summary-report-KiB (--report summary, what
// the loop, and so the DaemonSet, writes by default).
func BenchmarkRound10000Pods(b *testing.B) {
	stateDir, sysfs := bigNode(b, 10000)
	s, err := podresourcestest.StartInDir(podresourcestest.Generate(10000))
	require.NoError(b, err)
	defer s.Close()
	a := newAgent(config{stateDir: stateDir, sysfs: sysfs, socket: s.Socket(), timeout: 10 * time.Second,
		diagnose: true, interval: time.Minute, report: "full"})
	ctx := context.Background()
	var full, summary bytes.Buffer
	for b.Loop() {
		full.Reset()
		summary.Reset()
		rep := a.round(ctx)
		if !rep.PodResources.Available {
			b.Fatal(rep.PodResources.Error)
		}
		require.NoError(b, writeReport(&full, rep, "full"))
		require.NoError(b, writeReport(&summary, rep, "summary"))
	}
	b.ReportMetric(float64(full.Len())/(1<<20), "full-report-MiB")
	b.ReportMetric(float64(summary.Len())/(1<<10), "summary-report-KiB")
}

// BenchmarkRSS10000Pods runs the agent binary for one round (--once) on a
// node with 10,000 pods served by the real test server over a unix socket,
// under /usr/bin/time, and reports the peak RSS it prints ("Maximum
// resident set size") as peak-RSS-MiB. The child is started by
// /usr/bin/time, not by the test binary: a process forked from the large
// test binary inherits its high-water mark. The DaemonSet's limit is 128Mi
// and the target 64 MiB.
func BenchmarkRSS10000Pods(b *testing.B) {
	const timeBin = "/usr/bin/time"
	if _, err := os.Stat(timeBin); err != nil {
		b.Skip("needs " + timeBin)
	}
	bin := buildAgent(b)
	stateDir, sysfs := bigNode(b, 10000)
	s, err := podresourcestest.StartInDir(podresourcestest.Generate(10000))
	require.NoError(b, err)
	defer s.Close()
	out := filepath.Join(b.TempDir(), "rss")
	var peak int64
	for b.Loop() {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(timeBin, "-f", "%M", "-o", out, bin, "--once", "--state-dir", stateDir, "--sysfs", sysfs, "--socket", s.Socket(), "--kubelet-config", "none")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
			b.Fatalf("agent: %v\n%s", err, stderr.String())
		}
		if !strings.Contains(stdout.String(), `"available":true`) {
			b.Fatalf("the PodResources answer was not read:\n%.2000s\n%s", stdout.String(), stderr.String())
		}
		data, err := os.ReadFile(out)
		require.NoError(b, err)
		lines := strings.Fields(string(data))
		require.NotEmpty(b, lines)
		kib, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
		require.NoError(b, err)
		peak = max(peak, kib)
	}
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MiB")
}
