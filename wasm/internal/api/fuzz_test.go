package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzCall feeds arbitrary requests to every method: the answer must always
// be one valid JSON envelope, and never a crash.
func FuzzCall(f *testing.F) {
	list, _ := Examples()
	for _, ex := range list.Examples {
		b, _ := json.Marshal(InspectRequest{Files: ex.Files})
		f.Add(uint8(0), b)
		f.Add(uint8(1), b)
		if ex.Admission != nil {
			f.Add(uint8(2), []byte(ex.Admission.Hints))
		}
	}
	f.Add(uint8(0), []byte(`{"files":[{"name":"","content":"{"}]}`))
	f.Add(uint8(2), []byte(`{"numaNodes":[0,1],"policy":"restricted","providers":[null,{"cpu":[]}]}`))
	methods := []string{"inspect", "diagnose", "merge", "capabilities", "examples", "nope"}
	f.Fuzz(func(t *testing.T, m uint8, req []byte) {
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
}

// TestFuzzSeedsAreCommitted keeps the committed seed corpus in place.
func TestFuzzSeedsAreCommitted(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "fuzz", "FuzzCall"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("testdata/fuzz/FuzzCall needs its seed corpus: %v", err)
	}
}
