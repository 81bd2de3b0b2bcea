package statefile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubeletGolden checks numascope's verdict on every file the kubelet's own
// code wrote (or judged) in testdata/kubelet, as recorded in its manifest.
func TestKubeletGolden(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "kubelet", "manifest.json"))
	if os.IsNotExist(err) {
		t.Skip("no kubelet golden files")
	}
	require.NoError(t, err)
	var m struct {
		Cases []struct {
			File           string `json:"file"`
			Kind           Kind   `json:"kind"`
			Format         Format `json:"format"`
			Policy         string `json:"policy"`
			KubeletAccepts bool   `json:"kubeletAccepts"`
			OnReject       string `json:"onReject"`
			KubeletError   string `json:"kubeletError"`
			Tamper         string `json:"tamper"`
			Writer         string `json:"writer"`
			Checksums      []struct {
				Stored, Expected uint64
				Layout           string
			} `json:"checksums"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(raw, &m))
	names := map[Kind]string{KindCPU: "/var/lib/kubelet/cpu_manager_state", KindMemory: "/var/lib/kubelet/memory_manager_state",
		KindDevice: "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint", KindDRA: "/var/lib/kubelet/dra_manager_state"}
	for _, c := range m.Cases {
		t.Run(c.File, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "kubelet", c.File))
			require.NoError(t, err)
			f, err := Decode(data, Options{Name: names[c.Kind], Policy: c.Policy, Kind: c.Kind})
			if err != nil {
				require.False(t, c.KubeletAccepts, "kubelet accepts, numascope cannot decode: %v", err)
				return
			}
			assert.Equal(t, c.Kind, f.Kind, "kind")
			assert.Equal(t, c.KubeletAccepts, f.KubeletAccepts, "KubeletAccepts (kubelet: %q, numascope: %q)", c.KubeletError, f.Reason)
			assert.Equal(t, c.OnReject, f.OnReject, "OnReject")
			if c.Tamper == "" && !strings.Contains(c.Writer, "hand") && !strings.Contains(c.File, "upstream") {
				for _, p := range f.Problems {
					assert.NotContains(t, p.Message, "does not match schema", "a kubelet-written file breaks its schema at %s", p.Path)
				}
			}
			if c.KubeletError != "" {
				assert.Equal(t, c.KubeletError, f.Reason, "reason: kubelet's, numascope's")
			}
			matched := 0
			for _, l := range f.Checksum.Layouts {
				if l.Matched {
					matched++
				}
			}
			// an empty device checkpoint is byte-identical in v1 and v2
			if c.Format != "" && c.Tamper == "" && matched < 2 {
				assert.Equal(t, c.Format, f.Format, "format")
			}
		})
	}
}
