package diagnose

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubeletVersionVerdicts checks that the checkpoint verdicts follow the
// kubelet release: the one given, else the one the log shows, else the newest.
func TestKubeletVersionVerdicts(t *testing.T) {
	// written by kubelet v1.30.0's own code (internal/conformance/legacy/v1.30.0)
	spew, err := os.ReadFile(filepath.Join("..", "statefile", "testdata", "kubelet", "dra", "legacy-v1.30.0-dra-spew-handles-0.json"))
	require.NoError(t, err)
	logOf := func(v string) []byte {
		return []byte(`Nov 30 07:00:00 worker-9 kubelet[1234]: I1130 07:00:00.000000    1234 server.go:487] "Kubelet version" kubeletVersion="` + v + `"` + "\n")
	}
	for _, tc := range []struct {
		name    string
		log     string // kubelet version in the log, "" for no log
		given   string // SetKubeletVersion
		corrupt bool   // a CorruptCheckpoint finding
		note    string
	}{
		{name: "no version: the newest kubelet refuses the spew file", corrupt: true, note: "kubelet refuses-to-start"},
		{name: "the log shows 1.30", log: "v1.30.2", note: "kubelet 1.30 accepts it (worker-9.log:1 says kubeletVersion=v1.30.2)"},
		{name: "the log shows 1.31", log: "v1.31.2", corrupt: true, note: "kubelet 1.31 refuses-to-start (worker-9.log:1 says kubeletVersion=v1.31.2)"},
		{name: "given 1.30", given: "1.30", note: "kubelet 1.30 accepts it (the release given)"},
		{name: "given beats the log", log: "v1.31.2", given: "v1.30.4", note: "kubelet v1.30.4 accepts it (the release given)"},
		{name: "a log outside the known releases keeps the newest", log: "v1.26.1", corrupt: true, note: "kubelet refuses-to-start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := &evidence.Set{}
			require.NoError(t, ev.AddStateFile("dra_manager_state", spew))
			if tc.log != "" {
				require.NoError(t, ev.AddLog("worker-9.log", logOf(tc.log)))
			}
			if tc.given != "" {
				require.NoError(t, ev.SetKubeletVersion(tc.given))
			}
			rep, err := Run(context.Background(), ev)
			require.NoError(t, err)
			var codes []string
			for _, f := range rep.Findings {
				codes = append(codes, f.Code)
			}
			if tc.corrupt {
				assert.Contains(t, codes, CodeCorruptCheckpoint)
			} else {
				assert.NotContains(t, codes, CodeCorruptCheckpoint)
			}
			var notes []string
			for _, it := range rep.Evidence {
				if it.File == "dra_manager_state" {
					notes = append(notes, it.Note)
				}
			}
			assert.Equal(t, []string{tc.note}, notes)
		})
	}
}

func TestSetKubeletVersionRefuses(t *testing.T) {
	for _, v := range []string{"1.27", "v1.38.0", "latest", "1"} {
		t.Run(v, func(t *testing.T) {
			err := new(evidence.Set).SetKubeletVersion(v)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "numascope knows the restore code of kubelet 1.28 to 1.37")
			assert.Contains(t, err.Error(), `"`+v+`"`)
		})
	}
}
