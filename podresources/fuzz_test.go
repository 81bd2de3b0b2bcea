package podresources_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/numascope/numascope/podresources"
)

// addFixtures seeds a fuzzer with every saved answer under testdata/offline
// whose name matches one of names (the committed corpus under
// testdata/fuzz adds hand-made edge cases).
func addFixtures(f *testing.F, names ...string) {
	for _, n := range names {
		files, _ := filepath.Glob(filepath.Join("testdata", "offline", "*", n))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
}

// FuzzDecode checks that Decode never panics, and that whatever it accepts
// survives numascope's JSON form unchanged.
func FuzzDecode(f *testing.F) {
	addFixtures(f, "list.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := podresources.Decode(data)
		if err != nil {
			return
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("Marshal of a decoded snapshot: %v", err)
		}
		back, err := podresources.Decode(out)
		if err != nil {
			t.Fatalf("numascope's own JSON does not decode: %v\n%s", err, out)
		}
		if d := cmp.Diff(s, back, equateEmpty); d != "" {
			t.Fatalf("round trip changed the snapshot (-first +second):\n%s", d)
		}
		v := s.PerNUMA(podresources.CPUMap{0: 0, 1: 1})
		v.WriteText(discard{})
	})
}

// FuzzDecodeAllocatable is FuzzDecode for GetAllocatableResources answers.
func FuzzDecodeAllocatable(f *testing.F) {
	addFixtures(f, "allocatable.json", "get_allocatable_resources.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := podresources.DecodeAllocatable(data)
		if err != nil {
			return
		}
		out, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		back, err := podresources.DecodeAllocatable(out)
		if err != nil {
			t.Fatalf("numascope's own JSON does not decode: %v\n%s", err, out)
		}
		if d := cmp.Diff(a, back, equateEmpty); d != "" {
			t.Fatalf("round trip changed the answer (-first +second):\n%s", d)
		}
	})
}

// FuzzDecodePod is FuzzDecode for Get answers.
func FuzzDecodePod(f *testing.F) {
	addFixtures(f, "get.json", "get-*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := podresources.DecodePod(data)
		if err != nil {
			return
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := podresources.DecodePod(out)
		if err != nil {
			t.Fatalf("numascope's own JSON does not decode: %v\n%s", err, out)
		}
		if d := cmp.Diff(p, back, equateEmpty); d != "" {
			t.Fatalf("round trip changed the pod (-first +second):\n%s", d)
		}
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// FuzzQOSClassesFromPods checks that reading kubectl's pod lists never
// panics and yields only valid classes keyed by namespace/name.
func FuzzQOSClassesFromPods(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		classes, err := podresources.QOSClassesFromPods(data)
		if err != nil {
			return
		}
		for ref, q := range classes {
			if !q.Valid() || q == "" || !strings.Contains(ref, "/") {
				t.Fatalf("entry %q: %q", ref, q)
			}
		}
	})
}
