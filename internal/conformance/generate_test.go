package conformance

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in statefile/testdata/kubelet")

func encodeManifest(m Manifest) []byte {
	var b bytes.Buffer
	head, _ := json.Marshal(struct {
		Kubelet      string `json:"kubelet"`
		FeatureGates string `json:"featureGates"`
		Note         string `json:"note"`
	}{m.Kubelet, m.FeatureGates, m.Note})
	b.Write(head[:len(head)-1])
	b.WriteString(`,"cases":[`)
	for i, c := range m.Cases {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n")
		line, err := json.Marshal(c)
		if err != nil {
			panic(err)
		}
		b.Write(line)
	}
	b.WriteString("\n]}\n")
	return b.Bytes()
}

// TestGenerate writes (with -update) or checks the golden files: every file
// is regenerated with the kubelet's own code and every verdict is recomputed
// with the kubelet's restore path, so a committed file that drifted from
// what kubelet v1.37.2 writes or decides fails here.
func TestGenerate(t *testing.T) {
	cases := AllCases()
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.File()] {
			t.Fatalf("duplicate case %s", c.File())
		}
		seen[c.File()] = true
	}
	if *update {
		for _, kind := range []string{KindCPU, KindMemory, KindDevice, KindDRA} {
			dir := filepath.Join(GoldenDir, kind)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			// Remove files this generator wrote before; legacy files stay.
			old, _ := filepath.Glob(filepath.Join(dir, "*.json"))
			for _, f := range old {
				if !strings.HasPrefix(filepath.Base(f), "legacy-") {
					os.Remove(f)
				}
			}
		}
		for _, c := range cases {
			if err := os.WriteFile(filepath.Join(GoldenDir, filepath.FromSlash(c.File())), c.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	legacy, err := LegacyCases(GoldenDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range legacy {
		if !strings.HasPrefix(c.Name, "legacy-") {
			t.Errorf("legacy file %s must be named legacy-*", c.File())
		}
	}
	all := append(cases, legacy...)
	m, err := BuildManifest(NewRestorer(t.TempDir()), all)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range all {
		if c.Tamper == "" && !m.Cases[i].KubeletAccepts && !strings.HasPrefix(c.Name, "legacy-") {
			t.Errorf("%s: the kubelet refuses its own output: %s", c.File(), m.Cases[i].KubeletError)
		}
	}
	enc := encodeManifest(m)
	path := filepath.Join(GoldenDir, "manifest.json")
	if *update {
		if err := os.WriteFile(path, enc, 0o644); err != nil {
			t.Fatal(err)
		}
		accepted := 0
		for _, c := range m.Cases {
			if c.KubeletAccepts {
				accepted++
			}
		}
		t.Logf("wrote %d golden files (%d legacy), %d accepted by kubelet %s", len(all), len(legacy), accepted, KubeletVersion)
		return
	}
	for _, c := range cases {
		got, err := os.ReadFile(filepath.Join(GoldenDir, filepath.FromSlash(c.File())))
		if err != nil {
			t.Errorf("%s: %v (run `go test -run TestGenerate -update` in internal/conformance)", c.File(), err)
			continue
		}
		if !bytes.Equal(got, c.Data) {
			t.Errorf("%s differs from what kubelet %s writes now (run `go test -run TestGenerate -update`)", c.File(), KubeletVersion)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go test -run TestGenerate -update` in internal/conformance)", err)
	}
	if !bytes.Equal(got, enc) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(enc), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("manifest.json line %d differs from the kubelet's verdicts now:\n got %s\nwant %s\n(run `go test -run TestGenerate -update`)", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("manifest.json has %d lines, the kubelet's verdicts %d (run `go test -run TestGenerate -update`)", len(gl), len(wl))
	}
}
