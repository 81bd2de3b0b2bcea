package statefile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withConcurrentHash sets the size above which a spew-era memory file's
// entries are hashed beside the parse, for the test.
func withConcurrentHash(t *testing.T, min int) {
	old := concurrentHashMin
	concurrentHashMin = min
	t.Cleanup(func() { concurrentHashMin = old })
}

// TestConcurrentHashMatchesExact: with every memory file hashed beside
// its parse (the threshold at 0), the fast path still gives what the
// exact path gives, on every memory file of testdata and on large v1 and
// v2 files whose pods are in spew's order, out of it at the start, in the
// middle and at the very end, and whose pod count falls on a hand-over.
func TestConcurrentHashMatchesExact(t *testing.T) {
	withConcurrentHash(t, 0)
	files, err := filepath.Glob(filepath.Join("testdata", "kubelet", "memory", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		diff, _ := fastDiff(t, data, Options{Name: "f", Kind: KindMemory})
		assert.Empty(t, diff, "%s: exact (-) and fast (+)", file)
	}
	for _, format := range []Format{FormatV1, FormatV2, FormatV3} {
		for name, pods := range map[string]int{"a batch": hashBatch, "two batches": 2 * hashBatch, "batches and a part": 3*hashBatch + 5, "one pod": 1, "none": 0} {
			data := spewMemoryFile(t, format, pods, -1)
			diff, fast := fastDiff(t, data, Options{Name: "f"})
			if pods > 0 {
				used := hashesUsed.Load()
				_, err := decode(data, Options{Name: "f"}, true)
				require.NoError(t, err)
				assert.Equal(t, used+1, hashesUsed.Load(), "%s, %s: the fast path used the text hashed beside its parse", format, name)
			}
			assert.Empty(t, diff, "%s, %s: exact (-) and fast (+)", format, name)
			assert.True(t, fast, "%s, %s: the fast path reads it", format, name)
			f := mustDecode(t, data, Options{Name: "f"})
			assert.True(t, f.Checksum.Valid, "%s, %s: the checksum verifies", format, name)
		}
		if format == FormatV3 {
			continue // its pods are inside the data section's string
		}
		for name, at := range map[string]int{"first": 1, "in a later batch": 2*hashBatch + 3, "last": 4*hashBatch - 1} {
			data := spewMemoryFile(t, format, 4*hashBatch, at)
			used := hashesUsed.Load()
			diff, fast := fastDiff(t, data, Options{Name: "f"})
			assert.Equal(t, used, hashesUsed.Load(), "%s, pod out of order %s: the text hashed in file order is not used", format, name)
			assert.Empty(t, diff, "%s, pod out of order %s: exact (-) and fast (+)", format, name)
			assert.True(t, fast, "%s, pod out of order %s: the fast path reads it", format, name)
			f := mustDecode(t, data, Options{Name: "f"})
			assert.True(t, f.Checksum.Valid, "%s, pod out of order %s: the checksum is spew's, over sorted keys", format, name)
		}
	}
}

// TestConcurrentHashOuterPolicy: the outer copy of a v3 file is hashed
// beside the parse with the data section's policy; when the outer policy
// is another, that work is not used and the layouts are still right.
func TestConcurrentHashOuterPolicy(t *testing.T) {
	withConcurrentHash(t, 0)
	data := spewMemoryFile(t, FormatV3, 2*hashBatch, -1)
	edited := bytes.Replace(data, []byte(`"policyName":"Static"`), []byte(`"policyName":"None"`), 1)
	require.NotEqual(t, data, edited, "the outer policy is edited")
	require.Less(t, bytes.Index(edited, []byte(`"policyName":"None"`)), bytes.Index(edited, []byte(`"data"`)), "the outer copy comes before the data section")
	used := hashesUsed.Load()
	diff, fast := fastDiff(t, edited, Options{Name: "f"})
	assert.Empty(t, diff, "exact (-) and fast (+)")
	assert.True(t, fast, "the fast path reads it")
	assert.Equal(t, used, hashesUsed.Load(), "the text hashed with the section's policy is not used")
	// the v1 layout of the outer copy is over the outer policy: the exact
	// path's value, which fastDiff compared, differs from the unedited file's
	v1 := func(f *File) uint64 {
		for _, l := range f.Checksum.Layouts {
			if l.Name == layoutMemV1 {
				return l.Computed
			}
		}
		require.Fail(t, "no v1 layout", "%+v", f.Checksum.Layouts)
		return 0
	}
	exact, err := decode(edited, Options{Name: "f"}, false)
	require.NoError(t, err)
	assert.NotEqual(t, v1(mustDecode(t, data, Options{Name: "f"})), v1(exact), "the outer policy is in the v1 layout")
}

// spewMemoryFile is a memory v1 or v2 file of pods pods (of two
// containers each) as a kubelet writes it; with swap >= 1 the pod at that
// index is moved in front of the one before it, so the file's pods are out
// of Go string order there (the checksum, spew's, stays over sorted keys).
func spewMemoryFile(t *testing.T, format Format, pods, swap int) []byte {
	s := &MemoryState{PolicyName: "Static", MachineState: map[int]*NUMANodeState{}, Entries: map[string]map[string][]Block{}}
	for n := 0; n < 2; n++ {
		s.MachineState[n] = &NUMANodeState{NumberOfAssignments: pods, Cells: []int{n}, MemoryMap: map[string]*MemoryTable{
			"memory": {TotalMemSize: 64 << 30, SystemReserved: 1 << 30, Allocatable: 63 << 30, Reserved: uint64(pods) << 20, Free: 63<<30 - uint64(pods)<<20},
		}}
	}
	for i := 0; i < pods; i++ {
		pod := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		s.Entries[pod] = map[string][]Block{
			"app":     {{NUMAAffinity: []int{i % 2}, Type: "memory", Size: 1 << 19}},
			"sidecar": {{NUMAAffinity: []int{i % 2}, Type: "memory", Size: 1 << 19}},
		}
	}
	data, err := Encode(&File{Kind: KindMemory, Memory: s}, format)
	require.NoError(t, err)
	if swap < 1 {
		return data
	}
	// the members of two neighbouring pods change places
	key := func(i int) string { return fmt.Sprintf(`"%08x-0000-4000-8000-%012x":`, i, i) }
	a, b := bytes.Index(data, []byte(key(swap-1))), bytes.Index(data, []byte(key(swap)))
	require.True(t, a > 0 && b > a, "pods %d and %d in the file", swap-1, swap)
	// the end of pod swap's value
	dec := json.NewDecoder(bytes.NewReader(data[b+len(key(swap)):]))
	var v json.RawMessage
	require.NoError(t, dec.Decode(&v))
	end := b + len(key(swap)) + int(dec.InputOffset())
	first, second := string(data[a:b-1]), string(data[b:end]) // b-1: the comma between them
	out := string(data[:a]) + second + "," + first + string(data[end:])
	require.Equal(t, len(data), len(out))
	require.True(t, strings.Contains(out, second+","+first))
	return []byte(out)
}

// hashersRunning counts the goroutines of entriesHasher still alive, after
// waiting up to two seconds for the ones that were stopped to end.
func hashersRunning(t *testing.T) int {
	t.Helper()
	var n int
	for wait := 0; wait < 200; wait++ {
		var b bytes.Buffer
		require.NoError(t, pprof.Lookup("goroutine").WriteTo(&b, 1))
		if n = strings.Count(b.String(), "startEntriesHash.func"); n == 0 {
			return 0
		}
		time.Sleep(10 * time.Millisecond)
	}
	return n
}

// TestConcurrentHashEndsOnEveryPath: a file the fast path gives up on
// after its entries began (a pod named twice, a member it does not know
// after the entries, trailing bytes) leaves no hasher behind, in the
// spew-era layouts and in a v3 data section, which is read a second time
// when the first reading fails.
func TestConcurrentHashEndsOnEveryPath(t *testing.T) {
	withConcurrentHash(t, 0)
	require.Equal(t, 0, hashersRunning(t), "no hasher before the test")
	pods := `"pod-a":{"app":[{"numaAffinity":[0],"type":"memory","size":512}]},"pod-b":{"db":[{"numaAffinity":[0],"type":"memory","size":512}]}`
	head := `{"policyName":"Static","machineState":{"0":{"numberOfAssignments":2,"memoryMap":{"memory":{"total":4096,"systemReserved":0,"allocatable":4096,"reserved":1024,"free":3072}},"cells":[0]}},`
	for name, data := range map[string][]byte{
		"v2, a pod named twice":       []byte(head + `"entries":{` + pods + `,"pod-a":{}},"checksum":1}`),
		"v2, trailing bytes":          []byte(head + `"entries":{` + pods + `},"checksum":1} x`),
		"v2, a member after":          []byte(head + `"entries":{` + pods + `},"future":1,"checksum":1}`),
		"v3, a pod named twice":       wrapData(t, KindMemory, head+`"entries":{`+pods+`,"pod-a":{}}}`, nil),
		"v3, a member after":          wrapData(t, KindMemory, head+`"entries":{`+pods+`},"future":{}}`, nil),
		"v3, an escape in podEntries": wrapData(t, KindMemory, head+`"entries":{`+pods+`},"podEntries":{"p\u00e9":{"memoryBlocks":[]}}}`, nil),
	} {
		for i := 0; i < 3; i++ {
			diff, _ := fastDiff(t, data, Options{Name: "f", Kind: KindMemory})
			assert.Empty(t, diff, "%s: exact (-) and fast (+)", name)
		}
		assert.Equal(t, 0, hashersRunning(t), "%s: hashers left running", name)
	}
}
