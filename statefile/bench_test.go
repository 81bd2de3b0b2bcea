package statefile

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
)

// benchMemoryFile is a memory_manager_state (v3) with 10,000 container
// entries on 8 NUMA nodes.
func benchMemoryFile(tb testing.TB, format Format) []byte {
	s := &MemoryState{PolicyName: "Static", MachineState: map[int]*NUMANodeState{}, Entries: map[string]map[string][]Block{}}
	for n := 0; n < 8; n++ {
		s.MachineState[n] = &NUMANodeState{NumberOfAssignments: 1250, Cells: []int{n}, MemoryMap: map[string]*MemoryTable{
			"memory":        {TotalMemSize: 256 << 30, SystemReserved: 1 << 30, Allocatable: 255 << 30, Reserved: 1250 << 20, Free: 255<<30 - 1250<<20},
			"hugepages-2Mi": {},
			"hugepages-1Gi": {},
		}}
	}
	for i := 0; i < 10000; i++ {
		pod := fmt.Sprintf("%08x-0000-4000-8000-%012x", i/4, i/4)
		if s.Entries[pod] == nil {
			s.Entries[pod] = map[string][]Block{}
		}
		s.Entries[pod][fmt.Sprintf("container-%d", i%4)] = []Block{{NUMAAffinity: []int{i % 8}, Type: "memory", Size: 1 << 20}}
	}
	data, err := Encode(&File{Kind: KindMemory, Memory: s}, format)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// benchCPUFile is a cpu_manager_state with 1,000 pods.
func benchCPUFile(tb testing.TB, format Format) []byte {
	s := &CPUState{PolicyName: "static", DefaultCPUSet: cpuset.New(0, 1, 2, 3), Entries: map[string]map[string]cpuset.CPUSet{}}
	for i := 0; i < 1000; i++ {
		pod := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		s.Entries[pod] = map[string]cpuset.CPUSet{"app": cpuset.New(4+2*(i%100), 5+2*(i%100)), "sidecar": cpuset.New(250 + i%6)}
	}
	data, err := Encode(&File{Kind: KindCPU, CPU: s}, format)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func benchDecode(b *testing.B, data []byte, kind Kind) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := Decode(data, Options{Name: "bench", Kind: kind})
		if err != nil || !f.KubeletAccepts {
			b.Fatal(err, f.Reason)
		}
	}
}

func benchVerify(b *testing.B, data []byte, kind Kind) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v, err := Verify(data, Options{Name: "bench", Kind: kind})
		if err != nil || !v.KubeletAccepts {
			b.Fatal(err, v)
		}
	}
}

func BenchmarkVerifyMemory10kEntries8NUMA(b *testing.B) {
	benchVerify(b, benchMemoryFile(b, FormatV3), KindMemory)
}

func BenchmarkVerifyMemoryV1_10kEntries8NUMA(b *testing.B) {
	benchVerify(b, benchMemoryFile(b, FormatV1), KindMemory)
}

func BenchmarkVerifyCPU1000Pods(b *testing.B) {
	benchVerify(b, benchCPUFile(b, FormatV4), KindCPU)
}

func BenchmarkVerifyCPUV2_1000Pods(b *testing.B) {
	benchVerify(b, benchCPUFile(b, FormatV2), KindCPU)
}

func BenchmarkDecodeMemory10kEntries8NUMA(b *testing.B) {
	benchDecode(b, benchMemoryFile(b, FormatV3), KindMemory)
}

func BenchmarkDecodeCPU1000Pods(b *testing.B) {
	benchDecode(b, benchCPUFile(b, FormatV4), KindCPU)
}

func BenchmarkDecodeCPUV2_1000Pods(b *testing.B) {
	benchDecode(b, benchCPUFile(b, FormatV2), KindCPU)
}

// benchCPUFileExclusive is a static-policy cpu_manager_state with 1,000 pods
// of two containers, each with its own CPUs of a 4,096-CPU machine and the
// rest in the default set (the conformance benchmark's file).
func benchCPUFileExclusive(tb testing.TB, format Format) []byte {
	s := &CPUState{PolicyName: "static", Entries: map[string]map[string]cpuset.CPUSet{}}
	next := 2
	for p := 0; p < 1000; p++ {
		pod := fmt.Sprintf("%08x-0000-4000-8000-%012x", p, p)
		s.Entries[pod] = map[string]cpuset.CPUSet{}
		for c := 0; c < 2; c++ {
			var ids []int
			for i := 0; i < 1+(p+c)%3; i++ {
				ids = append(ids, next)
				next++
			}
			s.Entries[pod][fmt.Sprintf("container-%d", c)] = cpuset.New(ids...)
		}
	}
	all := []int{0, 1}
	for i := next; i < 4096; i++ {
		all = append(all, i)
	}
	s.DefaultCPUSet = cpuset.New(all...)
	data, err := Encode(&File{Kind: KindCPU, CPU: s}, format)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func BenchmarkDecodeCPUExclusive1000Pods(b *testing.B) {
	benchDecode(b, benchCPUFileExclusive(b, FormatV4), KindCPU)
}

func BenchmarkDecodeCPUExclusiveV2_1000Pods(b *testing.B) {
	benchDecode(b, benchCPUFileExclusive(b, FormatV2), KindCPU)
}

// BenchmarkUnescapeDataSection times the loop that unescapes and hashes
// the data section of a 10,000-container memory v3 file (FNV-32a's multiply
// chain bounds it; the names every block repeats are hashed in one step).
func BenchmarkUnescapeDataSection(b *testing.B) {
	data := benchMemoryFile(b, FormatV3)
	k := bytes.Index(data, dataKey)
	require.GreaterOrEqual(b, k, 0, "no data section")
	buf := make([]byte, 0, len(data))
	b.SetBytes(int64(len(data) - k))
	for b.Loop() {
		s := fastScanner{b: data, i: k + len(`"data":`)}
		if _, _, ok := s.dataString(buf[:0]); !ok {
			b.Fatal("the data section does not read")
		}
	}
}
