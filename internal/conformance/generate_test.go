package conformance

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in statefile/testdata/kubelet")

func encodeManifest(m Manifest) []byte {
	var b bytes.Buffer
	head, err := json.Marshal(struct {
		Kubelet      string `json:"kubelet"`
		FeatureGates string `json:"featureGates"`
		Note         string `json:"note"`
	}{m.Kubelet, m.FeatureGates, m.Note})
	if err != nil {
		panic(err)
	}
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
		require.False(t, seen[c.File()], "duplicate case %s", c.File())
		seen[c.File()] = true
	}
	if *update {
		for _, kind := range []string{KindCPU, KindMemory, KindDevice, KindDRA} {
			dir := filepath.Join(GoldenDir, kind)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			// Remove files this generator wrote before; legacy files stay.
			old, err := filepath.Glob(filepath.Join(dir, "*.json"))
			require.NoError(t, err)
			for _, f := range old {
				if !strings.HasPrefix(filepath.Base(f), "legacy-") {
					require.NoError(t, os.Remove(f))
				}
			}
		}
		for _, c := range cases {
			require.NoError(t, os.WriteFile(filepath.Join(GoldenDir, filepath.FromSlash(c.File())), c.Data, 0o644))
		}
	}
	legacy, err := LegacyCases(GoldenDir)
	require.NoError(t, err)
	for _, c := range legacy {
		assert.True(t, strings.HasPrefix(c.Name, "legacy-"), "legacy file %s must be named legacy-*", c.File())
	}
	all := append(cases, legacy...)
	m, err := BuildManifest(NewRestorer(t.TempDir()), all)
	require.NoError(t, err)
	for i, c := range all {
		if c.Tamper == "" && !strings.HasPrefix(c.Name, "legacy-") {
			assert.True(t, m.Cases[i].KubeletAccepts, "%s: the kubelet refuses its own output: %s", c.File(), m.Cases[i].KubeletError)
		}
	}
	enc := encodeManifest(m)
	path := filepath.Join(GoldenDir, "manifest.json")
	if *update {
		require.NoError(t, os.WriteFile(path, enc, 0o644))
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
		if !assert.NoError(t, err, "%s (run `go test -run TestGenerate -update` in internal/conformance)", c.File()) {
			continue
		}
		assert.True(t, bytes.Equal(got, c.Data), "%s differs from what kubelet %s writes now (run `go test -run TestGenerate -update`)", c.File(), KubeletVersion)
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err, "run `go test -run TestGenerate -update` in internal/conformance")
	if !bytes.Equal(got, enc) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(enc), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			require.Equal(t, wl[i], gl[i], "manifest.json line %d differs from the kubelet's verdicts now (run `go test -run TestGenerate -update`)", i+1)
		}
		require.Len(t, gl, len(wl), "manifest.json lines against the kubelet's verdicts (run `go test -run TestGenerate -update`)")
	}
}
