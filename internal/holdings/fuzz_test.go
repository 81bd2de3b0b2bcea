package holdings

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
)

func cpuLists(hs []CPUHolder) []CPUList {
	out := make([]CPUList, len(hs))
	for i, h := range hs {
		out[i] = h.CPUList
	}
	return out
}

// FuzzBuild builds the holdings of whatever statefile decodes from
// arbitrary bytes, with and without an arbitrary machine: never a panic,
// within the per-input budget, and the counts agree with the lists: a CPU
// list's count is its size, a memory block's NUMA nodes are sorted.
func FuzzBuild(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("..", "..", "statefile", "testdata", "kubelet", "*", "*.json"))
	require.NoError(f, err)
	machine, err := os.ReadFile(filepath.Join("..", "..", "diagnose", "testdata", "troubleshooting-page", "machine-info.json"))
	require.NoError(f, err)
	for i, name := range files {
		if i%4 != 0 {
			continue // a quarter of the corpus covers every kind and format
		}
		b, err := os.ReadFile(name)
		require.NoError(f, err)
		f.Add(b, machine)
		f.Add(b, []byte(nil))
	}
	f.Fuzz(func(t *testing.T, state, machineInfo []byte) {
		fuzzbudget.Run(t, func() {
			file, err := statefile.Decode(state, statefile.Options{Name: "fuzz"})
			if err != nil {
				return
			}
			var m *topomgr.Machine
			if len(machineInfo) > 0 {
				if m, err = topomgr.ParseMachine(machineInfo); err != nil {
					m = nil
				}
			}
			h := Build(file, m)
			if h == nil {
				return
			}
			for _, b := range h.Memory {
				if !sort.IntsAreSorted(b.NUMA) {
					t.Fatalf("memory block of %s/%s: NUMA nodes %v are not sorted", b.PodUID, b.Container, b.NUMA)
				}
			}
			if h.CPU != nil {
				for _, l := range append([]CPUList{h.CPU.Shared, h.CPU.Exclusive}, cpuLists(h.CPU.Holders)...) {
					set, err := cpuset.Parse(l.List)
					if err != nil {
						t.Fatalf("CPU list %q does not parse: %v", l.List, err)
					}
					if set.Size() != l.Count {
						t.Fatalf("CPU list %q counts %d, has %d", l.List, l.Count, set.Size())
					}
				}
			}
		})
	})
}
