package api

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubeletVersionRequest: the request's kubeletVersion gives that
// release's verdict: a 1.30 DRA file (spew checksum) is refused by the
// newest kubelet and restored by 1.30; diagnose takes the field too.
func TestKubeletVersionRequest(t *testing.T) {
	data, err := os.ReadFile("../../../statefile/testdata/kubelet/dra/legacy-v1.30.0-dra-spew-handles-0.json")
	require.NoError(t, err)
	files := []InputFile{{Name: "dra_manager_state", Content: string(data)}}
	for _, tc := range []struct {
		version string
		accepts bool
	}{{"", false}, {"1.37", false}, {"1.30", true}, {"v1.30.4", true}, {"1.31", false}} {
		t.Run("inspect "+tc.version, func(t *testing.T) {
			out := Inspect(&InspectRequest{Files: files, KubeletVersion: tc.version})
			require.Len(t, out.Files, 1)
			assert.Equal(t, tc.accepts, out.Files[0].KubeletAccepts)
		})
	}
	_, err = Diagnose(&DiagnoseRequest{Files: files, KubeletVersion: "1.30"})
	require.NoError(t, err)
	_, err = Diagnose(&DiagnoseRequest{Files: files, KubeletVersion: "0.9"})
	assert.ErrorContains(t, err, "kubelet version")
}
