package api

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/numascope/numascope/statefile"
)

func benchCall(b *testing.B, method string, req any) {
	body, err := json.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Call(method, body)
	}
}

func exampleFiles(b testing.TB, id string) []InputFile {
	list, err := Examples()
	if err != nil {
		b.Fatal(err)
	}
	for _, ex := range list.Examples {
		if ex.ID == id {
			return ex.Files
		}
	}
	b.Fatalf("no example %s", id)
	return nil
}

func BenchmarkInspectTroubleshootingSample(b *testing.B) {
	benchCall(b, "inspect", InspectRequest{Files: exampleFiles(b, "troubleshooting")})
}

func BenchmarkInspectWholeEvidence(b *testing.B) {
	benchCall(b, "inspect", InspectRequest{Files: exampleFiles(b, "troubleshooting-page")})
}

func BenchmarkDiagnoseWholeEvidence(b *testing.B) {
	benchCall(b, "diagnose", DiagnoseRequest{Files: exampleFiles(b, "troubleshooting-page")})
}

func BenchmarkMerge(b *testing.B) {
	benchCall(b, "merge", json.RawMessage(`{"numaNodes":[0,1,2,3],"policy":"restricted","providers":[{"cpu":[{"numaAffinity":[0],"preferred":true},{"numaAffinity":[0,1],"preferred":false}]},{"memory":[{"numaAffinity":[1],"preferred":true}]}]}`))
}

// memoryState10000 is a memory_manager_state (v3) with 10,000 containers
// on 8 NUMA nodes, as the playground's benchmark pastes it.
func memoryState10000(b testing.TB) string {
	s := &statefile.MemoryState{PolicyName: "Static", MachineState: map[int]*statefile.NUMANodeState{}, Entries: map[string]map[string][]statefile.Block{}}
	const n = 10000
	for node := 0; node < 8; node++ {
		s.MachineState[node] = &statefile.NUMANodeState{NumberOfAssignments: n / 8, Cells: []int{node}, MemoryMap: map[string]*statefile.MemoryTable{
			"memory": {TotalMemSize: 256 << 30, SystemReserved: 1 << 30, Allocatable: 255 << 30, Reserved: n / 8 << 20, Free: 255<<30 - n/8<<20},
		}}
	}
	for i := 0; i < n; i++ {
		pod := fmt.Sprintf("%08x-0000-4000-8000-%012x", i/4, i/4)
		if s.Entries[pod] == nil {
			s.Entries[pod] = map[string][]statefile.Block{}
		}
		s.Entries[pod][fmt.Sprintf("container-%d", i%4)] = []statefile.Block{{NUMAAffinity: []int{i % 8}, Type: "memory", Size: 1 << 20}}
	}
	data, err := statefile.Encode(&statefile.File{Kind: statefile.KindMemory, Memory: s}, statefile.FormatV3)
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

// The page's two calls for a pasted 10,000-container memory file (unnamed,
// as a paste is). Run under Node.js for the browser's figure:
//
//	GOOS=js GOARCH=wasm go test -exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec" -run '^$' -bench Memory10000 ./wasm/internal/api
func BenchmarkInspectMemory10000(b *testing.B) {
	benchCall(b, "inspect", InspectRequest{Files: []InputFile{{Content: memoryState10000(b)}}})
}

func BenchmarkDiagnoseMemory10000(b *testing.B) {
	benchCall(b, "diagnose", DiagnoseRequest{Files: []InputFile{{Content: memoryState10000(b)}}})
}
