package statefile

import (
	"os"
	"path/filepath"
	"strings"
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
