package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/stretchr/testify/require"
)

// FuzzCall feeds arbitrary requests to every method: the answer must always
// be one valid JSON envelope, and never a crash.
func FuzzCall(f *testing.F) {
	list, err := Examples()
	require.NoError(f, err)
	for _, ex := range list.Examples {
		b, err := json.Marshal(InspectRequest{Files: ex.Files})
		require.NoError(f, err)
		f.Add(uint8(0), b)
		f.Add(uint8(1), b)
		if a := ex.Admission; a != nil && len(a.Hints) > 0 {
			f.Add(uint8(2), []byte(a.Hints))
		}
		if a := ex.Admission; a != nil && a.Pod != "" {
			b, err := json.Marshal(SimulateRequest{Pod: a.Pod, Files: ex.Files, Policy: a.Policy, Scope: a.Scope})
			require.NoError(f, err)
			f.Add(uint8(6), b)
		}
	}
	f.Add(uint8(0), []byte(`{"files":[{"name":"","content":"{"}]}`))
	f.Add(uint8(2), []byte(`{"numaNodes":[0,1],"policy":"restricted","providers":[null,{"cpu":[]}]}`))
	f.Add(uint8(6), []byte(`{"pod":"{\"kind\":\"Pod\",\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]}}","files":[{"name":"m","content":"{\"topology\":[{\"node_id\":0,\"memory\":1,\"cores\":[{\"core_id\":0,\"thread_ids\":[0]}]}]}"}],"policy":"single-numa-node"}`))
	methods := []string{"inspect", "diagnose", "merge", "capabilities", "examples", "nope", "simulate"}
	f.Fuzz(func(t *testing.T, m uint8, req []byte) {
		fuzzbudget.Run(t, func() {
			out := Call(methods[int(m)%len(methods)], req)
			var e struct {
				OK    bool            `json:"ok"`
				Res   json.RawMessage `json:"result"`
				Error *Error          `json:"error"`
			}
			if err := json.Unmarshal(out, &e); err != nil {
				t.Fatalf("invalid JSON answer %q: %v", out, err)
			}
			if e.OK == (e.Error != nil) {
				t.Fatalf("ok=%v with error %+v", e.OK, e.Error)
			}
			if e.Error != nil && e.Error.Code == "panic" {
				t.Fatalf("the engine panicked: %s", e.Error.Message)
			}
		})
	})
}

// TestFuzzSeedsAreCommitted keeps the committed seed corpus in place.
func TestFuzzSeedsAreCommitted(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "fuzz", "FuzzCall"))
	require.NoError(t, err, "testdata/fuzz/FuzzCall needs its seed corpus")
	require.NotEmpty(t, entries, "testdata/fuzz/FuzzCall needs its seed corpus")
}
