package statefile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
)

// sameSets compares cpusets by their CPUs and by nil against empty (the
// checksums tell them apart).
var sameSets = cmp.Comparer(func(a, b cpuset.CPUSet) bool {
	return a.Equals(b) && isZeroCPUSet(a) == isZeroCPUSet(b)
})

// fastDiff decodes data on the fast path and on the exact path and returns
// their difference, and whether the fast path read the file.
func fastDiff(t testing.TB, data []byte, opts Options) (string, bool) {
	fast, ferr := decode(data, opts, true)
	exact, eerr := decode(data, opts, false)
	if eerr != nil || ferr != nil {
		return cmp.Diff(errText(eerr), errText(ferr)), false
	}
	cpu, mem := fastRestore(data, opts.Kind)
	return cmp.Diff(exact, fast, sameSets), cpu != nil || mem != nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestFastDecodeMatchesExact holds Decode's fast path to the exact path on
// every kubelet file of testdata, with and without the kind and policy
// given, and checks that the fast path reads the files the kubelet writes.
func TestFastDecodeMatchesExact(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "kubelet", "*", "*.json"))
	require.NoError(t, err)
	read := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		kind := Kind(filepath.Base(filepath.Dir(file)))
		for _, opts := range []Options{{Name: "f"}, {Name: "f", Kind: kind}, {Name: "f", Kind: kind, Policy: "static"}, {Name: "f", Kind: kind, Policy: "Static"}} {
			diff, fast := fastDiff(t, data, opts)
			assert.Empty(t, diff, "%s %+v: exact (-) and fast (+)", file, opts)
			if fast {
				read++
			}
		}
	}
	assert.Greater(t, read, 20, "files the fast path reads")
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"memory", benchMemoryFile(t, FormatV3)},
		{"cpu", benchCPUFile(t, FormatV4)},
	} {
		for _, opts := range []Options{{Name: "f"}, {Name: "f", Kind: Kind(c.name)}} {
			diff, fast := fastDiff(t, c.data, opts)
			assert.Empty(t, diff, "%s: exact (-) and fast (+)", c.name)
			assert.True(t, fast, "%s: the fast path reads a file numascope encodes", c.name)
		}
	}
}

// FuzzDecodeFast holds Decode's fast path to the exact path: whenever the
// fast path reads a file, the File is the exact path's.
func FuzzDecodeFast(f *testing.F) {
	cpu, err := Encode(&File{Kind: KindCPU, CPU: sampleCPU()}, FormatV4)
	require.NoError(f, err)
	mem, err := Encode(&File{Kind: KindMemory, Memory: sampleMemory()}, FormatV3)
	require.NoError(f, err)
	f.Add(cpu, uint8(0), "")
	f.Add(mem, uint8(1), "Static")
	files, err := filepath.Glob(filepath.Join("testdata", "kubelet", "*", "*.json"))
	require.NoError(f, err)
	for i, file := range files {
		if b, err := os.ReadFile(file); err == nil && len(b) < 8192 && !strings.Contains(file, "device") {
			f.Add(b, uint8(i), "")
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8, policy string) {
		fuzzbudget.RunWith(t, decodes(2), func() {
			opts := Options{Name: "fuzz", Kind: []Kind{"", KindCPU, KindMemory}[int(which)%3], Policy: policy}
			diff, _ := fastDiff(t, data, opts)
			require.Empty(t, diff, "%q %+v: exact (-) and fast (+)", data, opts)
		})
	})
}

// TestFastDecodeUnsortedKeys holds the fast path's ordered lists to the
// exact path when the file does not have its keys sorted (encoding/json
// writes them sorted; an edited file may not), and when a key is repeated.
func TestFastDecodeUnsortedKeys(t *testing.T) {
	for _, c := range []struct {
		name    string
		kind    Kind
		section string
		fast    bool // the fast path reads it
	}{
		{"cpu-pods", KindCPU, `{"policyName":"static","defaultCpuSet":"0,9","entries":{"pod-b":{"db":"5"},"pod-a":{"side":"4","app":"2-3"}},"baselines":{"pod-b":{"db":{"baseline":"5"}},"pod-a":{"side":{"baseline":"4"},"app":{"baseline":"2-3"}}}}`, true},
		{"cpu-repeated-pod", KindCPU, `{"policyName":"static","defaultCpuSet":"0,9","entries":{"pod-b":{"db":"5"},"pod-a":{"app":"2-3"},"pod-b":{"x":"6"}}}`, false},
		{"cpu-repeated-container", KindCPU, `{"policyName":"static","defaultCpuSet":"0,9","entries":{"pod-a":{"app":"2-3","side":"4","app":"7"}}}`, false},
		{"memory-pods", KindMemory, `{"policyName":"Static","machineState":{"0":{"numberOfAssignments":3,"memoryMap":{"memory":{"total":4096,"systemReserved":0,"allocatable":4096,"reserved":1536,"free":2560}},"cells":[0]}},"entries":{"pod-b":{"db":[{"numaAffinity":[0],"type":"memory","size":512}]},"pod-a":{"side":[{"numaAffinity":[0],"type":"memory","size":512}],"app":[{"numaAffinity":[0],"type":"memory","size":512}]}}}`, true},
		{"memory-repeated-pod", KindMemory, `{"policyName":"Static","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":4096,"systemReserved":0,"allocatable":4096,"reserved":0,"free":4096}},"cells":[0]}},"entries":{"pod-a":{"app":[]},"pod-b":{},"pod-a":{"db":[]}}}`, false},
		{"memory-repeated-pod-entry", KindMemory, `{"policyName":"Static","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":4096,"systemReserved":0,"allocatable":4096,"reserved":0,"free":4096}},"cells":[0]}},"entries":{},"podEntries":{"pod-a":{"memoryBlocks":[]},"pod-a":{"memoryBlocks":[]}}}`, false},
		{"memory-repeated-container", KindMemory, `{"policyName":"Static","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":4096,"systemReserved":0,"allocatable":4096,"reserved":0,"free":4096}},"cells":[0]}},"entries":{"pod-a":{"app":[],"app":[]}}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := wrapData(t, c.kind, c.section, nil)
			for _, opts := range []Options{{Name: "f"}, {Name: "f", Kind: c.kind}} {
				diff, fast := fastDiff(t, data, opts)
				assert.Empty(t, diff, "%+v: exact (-) and fast (+)", opts)
				assert.Equal(t, c.fast, fast, "%+v: the fast path reads it", opts)
			}
		})
	}
}

// wrapData makes a cpu v4 or memory v3 file of a data section: the outer
// copy repeats the members the kubelet repeats, byte for byte, and
// dataChecksum is the section's. outer, when set, edits the outer copy's
// members (the text between its braces).
func wrapData(t testing.TB, kind Kind, section string, outer func(string) string) []byte {
	var members map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(section), &members), "the data section is a JSON object")
	get := func(name string) (json.RawMessage, bool) {
		for k, v := range members {
			if strings.EqualFold(k, name) {
				return v, true
			}
		}
		return nil, false
	}
	copies := []string{"policyName", "defaultCpuSet", "entries"}
	if kind == KindMemory {
		copies = []string{"policyName", "machineState", "entries"}
	}
	var parts []string
	for _, name := range copies {
		if v, ok := get(name); ok {
			parts = append(parts, fmt.Sprintf("%q:%s", name, v))
		}
	}
	quoted, err := json.Marshal(section)
	require.NoError(t, err)
	parts = append(parts, `"checksum":0`, `"data":`+string(quoted), fmt.Sprintf(`"dataChecksum":%d`, stringChecksum(section)))
	body := strings.Join(parts, ",")
	if outer != nil {
		body = outer(body)
	}
	return []byte("{" + body + "}")
}

// TestFastDecodeOverFeed holds Decode's fast path, which reads the state of
// a memory v3 or cpu v4 file while a second goroutine unescapes its data
// section, to the exact path: on the large benchmark files and on every
// memory and cpu file of testdata, with the section handed over in the
// default chunks and in chunks of a few bytes (so that chunk and window
// ends fall everywhere; a scan that meets the end of its window gives up
// rather than misreads).
func TestFastDecodeOverFeed(t *testing.T) {
	type input struct {
		kind Kind
		data []byte
	}
	files := map[string]input{"bench memory": {KindMemory, benchMemoryFile(t, FormatV3)}, "bench cpu": {KindCPU, benchCPUFile(t, FormatV4)}}
	for _, kind := range []Kind{KindMemory, KindCPU} {
		names, err := filepath.Glob(filepath.Join("testdata", "kubelet", string(kind), "*.json"))
		require.NoError(t, err)
		for _, name := range names {
			data, err := os.ReadFile(name)
			require.NoError(t, err)
			files[filepath.Base(name)] = input{kind, data}
		}
	}
	for _, feed := range []struct {
		name                    string
		chunk, window, least    int
		wantFastOnTheBenchFiles bool
	}{
		{"default", feedChunk, feedWindow, 0, true},
		{"blocks", 64, 512, 0, true},
		{"bytes", 5, 11, 0, false},
	} {
		for name, in := range files {
			t.Run(feed.name+"/"+name, func(t *testing.T) {
				chunk, window, least := feedChunk, feedWindow, feedMin
				defer func() { feedChunk, feedWindow, feedMin = chunk, window, least }()
				feedChunk, feedWindow, feedMin = feed.chunk, feed.window, feed.least
				bench := strings.HasPrefix(name, "bench ")
				if bench && feed.wantFastOnTheBenchFiles {
					// the state is read over the feed, not left to the plain reading
					var b *builder
					var st MemoryState
					var d cpuCheckpointData
					reader := memStateReader(in.data, &b, &st)
					if in.kind == KindCPU {
						reader = cpuStateReader(in.data, &b, &d)
					}
					k := bytes.Index(in.data, dataKey)
					p, _ := readDataAlongside(in.data, k+len(`"data":`), nil, reader)
					require.NotNil(t, p, "the state is read alongside the unescaping")
					if in.kind == KindCPU {
						assert.Len(t, d.entryList, 1000, "pods read alongside")
					} else {
						assert.Len(t, st.Entries, 2500, "pods read alongside")
					}
				}
				for _, opts := range []Options{{Name: "f"}, {Name: "f", Kind: in.kind}} {
					diff, fast := fastDiff(t, in.data, opts)
					assert.Empty(t, diff, "%+v: exact (-) and fast (+)", opts)
					if bench && feed.wantFastOnTheBenchFiles {
						assert.True(t, fast, "%+v: the fast path reads the benchmark file", opts)
					}
				}
			})
		}
	}
}

// TestDecodeKeepsNothingOfItsBuffers decodes every kubelet file of
// testdata and the large benchmark files, keeps each File, overwrites the
// bytes it was decoded from and decodes the other files (which reuse the
// buffers Decode lends out), and then requires every kept File to be what
// a fresh Decode of its bytes gives: no string, slice or problem of a File
// points into the caller's input or into a buffer Decode reuses.
func TestDecodeKeepsNothingOfItsBuffers(t *testing.T) {
	names, err := filepath.Glob(filepath.Join("testdata", "kubelet", "*", "*.json"))
	require.NoError(t, err)
	inputs := map[string][]byte{
		"bench memory v3": benchMemoryFile(t, FormatV3), "bench memory v1": benchMemoryFile(t, FormatV1),
		"bench cpu v4": benchCPUFile(t, FormatV4), "bench cpu v2": benchCPUFile(t, FormatV2),
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		inputs[name] = data
	}
	type kept struct {
		data []byte
		file *File
	}
	var all []kept
	for _, data := range inputs {
		mine := bytes.Clone(data)
		f, err := Decode(mine, Options{Name: "f"})
		if err != nil {
			continue
		}
		for i := range mine {
			mine[i] = 'x'
		}
		all = append(all, kept{data, f})
	}
	require.Greater(t, len(all), 100, "files decoded")
	for _, k := range all {
		want, err := Decode(bytes.Clone(k.data), Options{Name: "f"})
		require.NoError(t, err)
		if diff := cmp.Diff(want, k.file, sameSets); diff != "" {
			t.Fatalf("a kept File changed after its input was overwritten and other files were decoded (-fresh +kept):\n%s", diff)
		}
	}
}

// TestFastDecodeLargeFiles holds the fast path to the exact path on the
// benchmark files (2,500 pods of 4 containers; 1,000 pods of 2), whose
// lists fill several of the builder's chunks.
func TestFastDecodeLargeFiles(t *testing.T) {
	for name, data := range map[string][]byte{
		"memory v1": benchMemoryFile(t, FormatV1), "memory v2": benchMemoryFile(t, FormatV2), "memory v3": benchMemoryFile(t, FormatV3),
		"cpu v2": benchCPUFile(t, FormatV2), "cpu v4": benchCPUFile(t, FormatV4),
	} {
		diff, fast := fastDiff(t, data, Options{Name: "f"})
		assert.Empty(t, diff, "%s: exact (-) and fast (+)", name)
		assert.True(t, fast, "%s: the fast path reads it", name)
	}
}

// TestFindDataDecoys holds Decode to the exact path when what findData
// takes for the data member is something else: a member named data in the
// outer copy (before the real one, or the first backslash of the file
// after `"data":"{`), and a backslash in the outer copy before the data
// section.
func TestFindDataDecoys(t *testing.T) {
	section := `{"policyName":"Static","machineState":{"0":{"numberOfAssignments":1,"memoryMap":{"memory":{"total":4096,"systemReserved":0,"allocatable":4096,"reserved":512,"free":3584}},"cells":[0]}},"entries":{"pod-a":{"app":[{"numaAffinity":[0],"type":"memory","size":512}]}}}`
	for _, c := range []struct {
		name  string
		outer func(string) string
	}{
		{"as written", nil},
		{"decoy data member first", func(b string) string { return `"data":"{\"x\":1}",` + b }},
		{"decoy nested data member", func(b string) string {
			return strings.Replace(b, `"entries":{`, `"entries":{"pod-z":{"data":"{\"y\"","app":[]},`, 1)
		}},
		{"escape in the outer policy", func(b string) string {
			return strings.Replace(b, `"policyName":"Static"`, `"policyName":"St\u0061tic"`, 1)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := wrapData(t, KindMemory, section, c.outer)
			for _, opts := range []Options{{Name: "f"}, {Name: "f", Kind: KindMemory}} {
				diff, _ := fastDiff(t, data, opts)
				assert.Empty(t, diff, "%+v: exact (-) and fast (+)", opts)
			}
		})
	}
}

// TestDecodeConcurrently decodes the benchmark files and the kubelet files
// of testdata from several goroutines at once (they share the pool of
// section buffers and the hash tables) and holds every result to the
// sequential one.
func TestDecodeConcurrently(t *testing.T) {
	names, err := filepath.Glob(filepath.Join("testdata", "kubelet", "memory", "*.json"))
	require.NoError(t, err)
	inputs := [][]byte{benchMemoryFile(t, FormatV3), benchMemoryFile(t, FormatV2), benchCPUFile(t, FormatV4)}
	for _, name := range names {
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		inputs = append(inputs, data)
	}
	type result struct {
		File *File
		Err  string
	}
	run := func(data []byte) result {
		f, err := decode(data, Options{Name: "f"}, true)
		return result{f, errText(err)}
	}
	want := make([]result, len(inputs))
	for i, data := range inputs {
		want[i] = run(data)
	}
	require.NotNil(t, want[0].File, "the benchmark file decodes: %s", want[0].Err)
	var wg sync.WaitGroup
	diffs := make([]string, 4*len(inputs))
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range inputs {
				j := (i + g) % len(inputs) // each goroutine in another order
				diffs[g*len(inputs)+j] = cmp.Diff(want[j], run(inputs[j]), sameSets)
			}
		}()
	}
	wg.Wait()
	for i, d := range diffs {
		assert.Empty(t, d, "input %d: sequential (-) and concurrent (+)", i%len(inputs))
	}
}
