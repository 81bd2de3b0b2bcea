package conformance

import (
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"
	cpustate "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
	"k8s.io/utils/cpuset"
)

// BenchMemoryContainers and BenchMemoryNodes size the memory benchmark file;
// BenchCPUPods sizes the CPU one.
const (
	BenchMemoryContainers = 10000
	BenchMemoryNodes      = 8
	BenchCPUPods          = 1000
)

// benchMemoryData is a memory manager state with BenchMemoryContainers
// containers (2,500 pods of 4) spread over BenchMemoryNodes NUMA nodes, each
// holding memory and, for every other container, 1Gi hugepages.
func benchMemoryData() memstate.MemoryManagerCheckpointData {
	const gi = uint64(1) << 30
	d := memstate.MemoryManagerCheckpointData{PolicyName: "Static", MachineState: memstate.NUMANodeMap{}, Entries: memstate.ContainerMemoryAssignments{}, PodEntries: memstate.PodMemoryAssignments{}}
	for n := 0; n < BenchMemoryNodes; n++ {
		d.MachineState[n] = &memstate.NUMANodeState{Cells: []int{n}, MemoryMap: map[v1.ResourceName]*memstate.MemoryTable{
			v1.ResourceMemory: {TotalMemSize: 512 * gi, SystemReserved: gi, Allocatable: 511 * gi, Free: 511 * gi},
			"hugepages-1Gi":   {TotalMemSize: 64 * gi, Allocatable: 64 * gi, Free: 64 * gi},
		}}
	}
	r := Rand(7)
	for c := 0; c < BenchMemoryContainers; c++ {
		pod := fmt.Sprintf("%08x-0000-4000-8000-%012x", c/4, c/4)
		if d.Entries[pod] == nil {
			d.Entries[pod] = map[string][]memstate.Block{}
		}
		node := c % BenchMemoryNodes
		size := uint64(1+r.IntN(64)) << 20
		blocks := []memstate.Block{{NUMAAffinity: []int{node}, Type: v1.ResourceMemory, Size: size}}
		t := d.MachineState[node].MemoryMap[v1.ResourceMemory]
		t.Reserved += size
		t.Free -= size
		d.MachineState[node].NumberOfAssignments++
		if c%2 == 0 {
			blocks = append(blocks, memstate.Block{NUMAAffinity: []int{node}, Type: "hugepages-1Gi", Size: 0})
		}
		d.Entries[pod][fmt.Sprintf("container-%d", c%4)] = blocks
	}
	return d
}

// benchCPUData is a static-policy CPU manager state with BenchCPUPods pods of
// two containers, each with exclusive CPUs on a 4,096-CPU machine, and a
// baseline per container.
func benchCPUData() cpustate.CPUManagerCheckpointData {
	d := cpustate.CPUManagerCheckpointData{PolicyName: "static", Entries: map[string]map[string]string{}, PodEntries: cpustate.PodCPUAssignments{}, Baselines: map[string]map[string]cpustate.ContainerCPUs{}}
	next := 2
	for p := 0; p < BenchCPUPods; p++ {
		pod := fmt.Sprintf("%08x-0000-4000-8000-%012x", p, p)
		d.Entries[pod] = map[string]string{}
		d.Baselines[pod] = map[string]cpustate.ContainerCPUs{}
		for c := 0; c < 2; c++ {
			n := 1 + (p+c)%3
			set := cpuset.New()
			for i := 0; i < n; i++ {
				set = set.Union(cpuset.New(next))
				next++
			}
			name := fmt.Sprintf("container-%d", c)
			d.Entries[pod][name] = set.String()
			d.Baselines[pod][name] = cpustate.ContainerCPUs{Baseline: set.String()}
		}
	}
	all := make([]int, 0, 4096)
	for i := 0; i < 2; i++ {
		all = append(all, i)
	}
	for i := next; i < 4096; i++ {
		all = append(all, i)
	}
	d.DefaultCPUSet = cpuset.New(all...).String()
	return d
}

type benchFile struct {
	kind, format, policy string
	data                 []byte
}

var benchFiles = sync.OnceValue(func() map[string]benchFile {
	out := map[string]benchFile{}
	md := benchMemoryData()
	for _, f := range []string{"v1", "v2", "v3"} {
		out["memory-"+f] = benchFile{KindMemory, f, "Static", must(MarshalMemory(md, f))}
	}
	cd := benchCPUData()
	for _, f := range []string{"v2", "v4"} {
		out["cpu-"+f] = benchFile{KindCPU, f, "static", must(MarshalCPU(cd, f))}
	}
	return out
})

// kubeletVerify is the kubelet's own check of a checkpoint: what its
// checkpoint manager's GetCheckpoint does after reading the file
// (UnmarshalCheckpoint, then VerifyChecksum) on a checkpoint made the way
// the manager's constructors make it.
func kubeletVerify(kind, format string, data []byte) error {
	var cp interface {
		UnmarshalCheckpoint([]byte) error
		VerifyChecksum() error
	}
	switch kind + "-" + format {
	case "memory-v1":
		cp = &memstate.MemoryManagerCheckpointV1{Entries: memstate.ContainerMemoryAssignments{}, MachineState: memstate.NUMANodeMap{}}
	case "memory-v2":
		cp = &memstate.MemoryManagerCheckpointV2{Entries: memstate.ContainerMemoryAssignments{}, PodEntries: memstate.PodMemoryAssignments{}, MachineState: memstate.NUMANodeMap{}}
	case "memory-v3":
		cp = &memstate.MemoryManagerCheckpoint{
			MemoryManagerCheckpointV1: memstate.MemoryManagerCheckpointV1{Entries: memstate.ContainerMemoryAssignments{}, MachineState: memstate.NUMANodeMap{}},
			CheckpointData:            memstate.MemoryManagerCheckpointData{Entries: memstate.ContainerMemoryAssignments{}, PodEntries: memstate.PodMemoryAssignments{}, MachineState: memstate.NUMANodeMap{}},
		}
	case "cpu-v2":
		cp = &cpustate.CPUManagerCheckpointV2{Entries: map[string]map[string]string{}}
	case "cpu-v4":
		cp = &cpustate.CPUManagerCheckpoint{
			CPUManagerCheckpointV2: cpustate.CPUManagerCheckpointV2{Entries: map[string]map[string]string{}},
			CheckpointData:         cpustate.CPUManagerCheckpointData{Entries: map[string]map[string]string{}, PodEntries: cpustate.PodCPUAssignments{}, Baselines: map[string]map[string]cpustate.ContainerCPUs{}},
		}
	default:
		return fmt.Errorf("no kubelet reader for %s %s", kind, format)
	}
	if err := cp.UnmarshalCheckpoint(data); err != nil {
		return err
	}
	return cp.VerifyChecksum()
}

// TestBenchFiles checks that the benchmark inputs are what they claim to be
// and that both sides accept them, so the benchmarks time real work.
func TestBenchFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds large checkpoints; run without -short")
	}
	for name, bf := range benchFiles() {
		assert.NoError(t, kubeletVerify(bf.kind, bf.format, bf.data), "%s: the kubelet rejects it", name)
		f, err := decodeNumascope(bf.kind, bf.data, bf.policy)
		if !assert.NoError(t, err, "%s: numascope decodes it", name) ||
			!assert.True(t, f.KubeletAccepts, "%s: numascope says the kubelet accepts it: %s", name, f.Reason) ||
			!assert.Equal(t, bf.format, string(f.Format), "%s: format numascope detects", name) {
			continue
		}
		switch bf.kind {
		case KindMemory:
			n := 0
			for _, ctrs := range f.Memory.Entries {
				n += len(ctrs)
			}
			assert.Equal(t, BenchMemoryContainers, n, "%s: containers", name)
			assert.Len(t, f.Memory.MachineState, BenchMemoryNodes, "%s: NUMA nodes", name)
		case KindCPU:
			assert.Len(t, f.CPU.Entries, BenchCPUPods, "%s: pods", name)
		}
		t.Logf("%s: %d bytes", name, len(bf.data))
	}
}

func benchmarkSides(b *testing.B, name string) {
	bf := benchFiles()[name]
	b.Run("kubelet", func(b *testing.B) {
		b.SetBytes(int64(len(bf.data)))
		b.ReportAllocs()
		start := cpuTime(b)
		for b.Loop() {
			if err := kubeletVerify(bf.kind, bf.format, bf.data); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, start)
	})
	opts := statefile.Options{Name: FileNames[bf.kind], Kind: statefile.Kind(bf.kind), Policy: bf.policy}
	b.Run("numascope-Decode", func(b *testing.B) {
		b.SetBytes(int64(len(bf.data)))
		b.ReportAllocs()
		start := cpuTime(b)
		for b.Loop() {
			f, err := statefile.Decode(bf.data, opts)
			if err != nil || !f.Checksum.Valid {
				b.Fatal(err, f)
			}
		}
		reportCPU(b, start)
	})
}

// cpuTime is the CPU time the process has used (user and system, all its
// threads: the garbage collector's work included).
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start as cpu-ns/op:
// on a shared machine it moves less than the wall time of ns/op, which
// also counts the time spent waiting for a CPU.
func reportCPU(b *testing.B, start time.Duration) {
	if b.N > 0 {
		b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
	}
}

// The benchmarks time reading the same bytes, already in memory, two ways:
// the kubelet's own GetCheckpoint work (unmarshal + VerifyChecksum) and
// statefile.Decode (verdict, typed state and every problem; statefile.Verify
// is a view of it).
func BenchmarkMemory10000ContainersV3(b *testing.B) { benchmarkSides(b, "memory-v3") }
func BenchmarkMemory10000ContainersV2(b *testing.B) { benchmarkSides(b, "memory-v2") }
func BenchmarkMemory10000ContainersV1(b *testing.B) { benchmarkSides(b, "memory-v1") }
func BenchmarkCPU1000PodsV4(b *testing.B)           { benchmarkSides(b, "cpu-v4") }
func BenchmarkCPU1000PodsV2(b *testing.B)           { benchmarkSides(b, "cpu-v2") }
