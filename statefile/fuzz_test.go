package statefile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/require"
)

// decodes is the budget of a fuzz body that decodes its input n times.
// fuzzbudget's default fits one Decode of a file at MaxFileCPUs, which
// allocates about 350 MB in all and takes under a second; a body that
// decodes such a file twice would go over it though every Decode is
// bounded.
func decodes(n int) fuzzbudget.Budget {
	return fuzzbudget.Budget{Time: time.Duration(n) * fuzzbudget.DefaultTime, Alloc: uint64(n) * fuzzbudget.DefaultAlloc}
}

func addSeeds(f *testing.F) {
	f.Add([]byte(`{"policyName":"none","defaultCpuSet":"4-6","checksum":354655845}`))
	f.Add([]byte(`{"policyName":"static","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":2048,"systemReserved":512,"allocatable":1536,"reserved":512,"free":1024}},"cells":[]}},"entries":{"pod":{"container1":[{"numaAffinity":[0],"type":"memory","size":512}]}},"checksum":4215593881}`))
	f.Add([]byte(`{"Data":{"PodDeviceEntries":null,"RegisteredDevices":{}},"Checksum":1}`))
	f.Add([]byte(`{"Checksum":4010664294}`))
	f.Add([]byte(`{"version":"v1","entries":[{"ClaimUID":"u","PodUIDs":{"p":{}}}],"checksum":1}`))
	if sample, err := os.ReadFile(filepath.Join("..", "examples", "inspect", "memory_manager_state.sample.json")); err == nil {
		f.Add(sample)
	}
	files, err := filepath.Glob(filepath.Join("testdata", "kubelet", "*", "*.json"))
	require.NoError(f, err)
	for i, name := range files {
		if i%7 != 0 { // a spread of the kubelet's own files keeps the corpus small
			continue
		}
		if b, err := os.ReadFile(name); err == nil && len(b) < 4096 {
			f.Add(b)
		}
	}
}

// FuzzDecode checks that Decode never panics, that its verdict is
// self-consistent, and that an accepted file re-encodes into a file that is
// accepted again with the same state.
func FuzzDecode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		// Decode, and Decode again with the encodings between
		fuzzbudget.RunWith(t, decodes(2), func() {
			file, err := Decode(data, Options{Name: "fuzz"})
			if err != nil {
				require.Nil(t, file, "error with a non-nil File")
				return
			}
			if file.KubeletAccepts {
				require.Empty(t, file.OnReject, "an accepted file has no OnReject")
				require.Empty(t, file.Reason, "an accepted file has no Reason")
			} else {
				require.NotEmpty(t, file.OnReject, "a refused file says what the kubelet does (OnReject)")
				require.NotEmpty(t, file.Reason, "a refused file has a Reason")
			}
			_, err = json.Marshal(file)
			require.NoError(t, err, "JSON of the decoded File")
			if !file.KubeletAccepts || file.Kind == KindDRA && file.Format == FormatSpewV1 {
				return
			}
			out, err := Encode(file, file.Format)
			if err != nil {
				return // e.g. a state with unparsable cpusets
			}
			again, err := Decode(out, Options{Name: "fuzz", Kind: file.Kind})
			require.NoError(t, err, "re-encoded file does not decode:\n%s", out)
			if file.Kind != KindCPU {
				require.True(t, again.KubeletAccepts, "re-encoded file rejected: %s\n%s", again.Reason, out)
			}
			out2, err := Encode(again, file.Format)
			if err == nil && again.KubeletAccepts {
				require.Equal(t, string(out), string(out2), "encoding is not stable")
			}
		})
	})
}

// FuzzDetect checks kind detection against forced kinds: detection never
// panics, and forcing the detected kind gives the same verdict.
func FuzzDetect(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.RunWith(t, decodes(2), func() {
			if len(data) > 1<<16 {
				return
			}
			kind, err := detectKind(data)
			if err != nil {
				return
			}
			a, errA := Decode(data, Options{Name: "fuzz"})
			b, errB := Decode(data, Options{Name: "fuzz", Kind: kind})
			require.Equal(t, errA == nil, errB == nil, "detected %s: detecting decode %v, forced decode %v", kind, errA, errB)
			if errA == nil {
				require.Equal(t, a.Kind, b.Kind, "detected %s: kind, detecting and forced decode", kind)
				require.Equal(t, a.KubeletAccepts, b.KubeletAccepts, "detected %s: KubeletAccepts, detecting and forced decode", kind)
				require.Equal(t, a.Reason, b.Reason, "detected %s: Reason, detecting and forced decode", kind)
			}
		})
	})
}

// FuzzPrinterString checks the streamed string hash against the hash of the
// rendered text for arbitrary bytes (invalid UTF-8 included).
func FuzzPrinterString(f *testing.F) {
	f.Add("")
	f.Add("{\"a\":\"\\u00e9\"}\xff")
	f.Fuzz(func(t *testing.T, s string) {
		fuzzbudget.Run(t, func() {
			require.Equal(t, fnv32a("(string)"+s), stringChecksum(s), "stringChecksum against FNV-32a of the spew text")
			require.Equal(t, fnv32a("(string)"+s), bytesStringChecksum([]byte(s)), "bytesStringChecksum against FNV-32a of the spew text")
		})
	})
}
