package statefile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLooks(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       bool
	}{
		{"cpu", `{"policyName":"static","defaultCpuSet":"0-3","checksum":1}`, true},
		{"memory v3 data section", `{"data":"{\"policyName\":\"Static\",\"machineState\":{}}","dataChecksum":1}`, true},
		{"device", `{"Data":{"PodDeviceEntries":null,"RegisteredDevices":{}},"Checksum":1}`, true},
		{"DRA crc32", `{"Data":"{\"kind\":\"DRACheckpoint\",\"ClaimInfoStateList\":null}","Checksum":1}`, true},
		{"DRA spew", `{"version":"v1","entries":[{"DriverName":"gpu.example.com","ClaimUID":"u"}],"checksum":1}`, true},
		{"a PodResources answer with a DRA device", `{"pod_resources":[{"containers":[{"dynamic_resources":[{"claim_name":"c","claim_resources":[{"driverName":"gpu.example.com"}]}]}]}]}`, false},
		{"prose", "the machineState of the node is odd", false},
		{"empty object", `{}`, false},
	} {
		_, ok := Looks([]byte(tc.text))
		assert.Equal(t, tc.want, ok, tc.name)
	}
}

// TestLooksTakesTheKubeletsFiles: every checkpoint a kubelet wrote (the
// golden files of every kind and release) looks like one, but for the
// degenerate ones that hold no member at all (empty, an array, only a
// checksum).
func TestLooksTakesTheKubeletsFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/kubelet/*/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	degenerate := map[string]bool{"v2-array.json": true, "v2-empty-file.json": true, "v2-empty-object-policy-empty.json": true, "v2-empty-object.json": true,
		"v2-not-json.json": true, "crc32-empty-object.json": true, "crc32-only-checksum.json": true, "legacy-v1.30.0-dra-spew-empty.json": true}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		_, ok := Looks(b[:min(len(b), 64<<10)])
		assert.Equal(t, !degenerate[filepath.Base(f)], ok, f)
	}
}
