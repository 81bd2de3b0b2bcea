package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fuzzPolicies are the configured policies a fuzz input can pick for the
// CPU and memory managers.
var fuzzPolicies = map[string][]string{
	KindCPU:    {"static", "none"},
	KindMemory: {"Static", "None"},
	KindDevice: {""},
	KindDRA:    {""},
}

// fuzzKubeletVsNumascope feeds arbitrary bytes to the kubelet's restore path
// and to statefile.Decode and demands the same accept or reject, the same
// consequence, and the same restored state.
func fuzzKubeletVsNumascope(f *testing.F, kind string) {
	m, err := ReadManifest(GoldenDir)
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range m.Cases {
		if c.Kind != kind {
			continue
		}
		data, err := os.ReadFile(filepath.Join(GoldenDir, filepath.FromSlash(c.File)))
		if err != nil {
			f.Fatal(err)
		}
		idx := 0
		for i, p := range fuzzPolicies[kind] {
			if p == c.Policy {
				idx = i
			}
		}
		f.Add(data, uint8(idx))
	}
	r := NewRestorer(f.TempDir())
	f.Fuzz(func(t *testing.T, data []byte, policy uint8) {
		if kind == KindCPU && hasWideCPURange(data) {
			t.Skip("a cpuset range this wide takes the kubelet seconds to minutes to build CPU by CPU; numascope refuses files over statefile.MaxFileCPUs on purpose")
		}
		ps := fuzzPolicies[kind]
		diffs, err := compareOne(r, kind, data, ps[int(policy)%len(ps)], "", false)
		require.NoError(t, err)
		var unknown []string
		for _, d := range diffs {
			if knownBug(kind, d) == "" {
				unknown = append(unknown, d)
			}
		}
		assert.Empty(t, unknown, "numascope and kubelet %s disagree on %q with policy %q", KubeletVersion, data, ps[int(policy)%len(ps)])
	})
}

var cpuRange = regexp.MustCompile(`([0-9]+)-([0-9]+)`)

// hasWideCPURange reports ranges of more than 2^16 CPUs in all in data: the
// kubelet takes seconds to build them, and numascope's per-file budget
// (statefile.MaxFileCPUs) refuses far larger ones on purpose.
func hasWideCPURange(data []byte) bool {
	var total uint64
	for _, m := range cpuRange.FindAllSubmatch(data, -1) {
		lo, err1 := strconv.ParseUint(string(m[1]), 10, 64)
		hi, err2 := strconv.ParseUint(string(m[2]), 10, 64)
		if err1 != nil || err2 != nil || (hi > lo && hi-lo > 1<<16) {
			return true
		}
		if hi > lo {
			total += hi - lo + 1
		}
		if total > 1<<16 {
			return true
		}
	}
	return false
}

func FuzzKubeletVsNumascopeCPU(f *testing.F)    { fuzzKubeletVsNumascope(f, KindCPU) }
func FuzzKubeletVsNumascopeMemory(f *testing.F) { fuzzKubeletVsNumascope(f, KindMemory) }
func FuzzKubeletVsNumascopeDevice(f *testing.F) { fuzzKubeletVsNumascope(f, KindDevice) }
func FuzzKubeletVsNumascopeDRA(f *testing.F)    { fuzzKubeletVsNumascope(f, KindDRA) }

// TestFuzzCorpus writes (with -update) the committed seed corpus of the fuzz
// targets: a handful of golden files per kind, untouched and tampered, so
// `go test` replays them even without the manifest's full set.
func TestFuzzCorpus(t *testing.T) {
	m, err := ReadManifest(GoldenDir)
	require.NoError(t, err)
	targets := map[string]string{KindCPU: "FuzzKubeletVsNumascopeCPU", KindMemory: "FuzzKubeletVsNumascopeMemory", KindDevice: "FuzzKubeletVsNumascopeDevice", KindDRA: "FuzzKubeletVsNumascopeDRA"}
	picked := map[string]int{}
	for _, c := range m.Cases {
		// Every fourth case of each kind keeps the corpus small.
		picked[c.Kind]++
		if picked[c.Kind]%4 != 1 {
			continue
		}
		dir := filepath.Join("testdata", "fuzz", targets[c.Kind])
		name := filepath.Join(dir, strings.TrimSuffix(filepath.Base(c.File), ".json"))
		data, err := os.ReadFile(filepath.Join(GoldenDir, filepath.FromSlash(c.File)))
		require.NoError(t, err)
		idx := 0
		for i, p := range fuzzPolicies[c.Kind] {
			if p == c.Policy {
				idx = i
			}
		}
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nbyte(%d)\n", data, idx)
		if *update {
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(name, []byte(want), 0o644))
			continue
		}
		got, err := os.ReadFile(name)
		if assert.NoError(t, err, "seed corpus %s is missing (run `go test -run 'TestGenerate|TestFuzzCorpus' -update`)", name) {
			assert.Equal(t, want, string(got), "seed corpus %s is stale (run `go test -run 'TestGenerate|TestFuzzCorpus' -update`)", name)
		}
	}
}
