package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Reading an unnamed paste once under the name of the kind the door tells
// gives exactly the view of reading it under a neutral name and then again.
func TestInspectGuessGivesTheSameView(t *testing.T) {
	list, err := Examples()
	require.NoError(t, err)
	var reqs []struct {
		name string
		req  InspectRequest
	}
	add := func(name string, files ...InputFile) {
		reqs = append(reqs, struct {
			name string
			req  InspectRequest
		}{name, InspectRequest{Files: files}})
	}
	for _, ex := range list.Examples {
		var unnamed []InputFile
		for _, f := range ex.Files {
			unnamed = append(unnamed, InputFile{Content: f.Content})
		}
		add(ex.ID, unnamed...)
		add(ex.ID+" named", ex.Files...)
	}
	add("machineState nested in a cpu file", InputFile{Content: `{"policyName":"none","defaultCpuSet":"","checksum":1,"x":{"machineState":{}}}`})
	add("machineState in a device checkpoint", InputFile{Content: `{"Data":{"PodDeviceEntries":null,"RegisteredDevices":{"machineState":[]}},"Checksum":1}`})
	add("both keys", InputFile{Content: `{"policyName":"Static","machineState":{},"defaultCpuSet":"0-3","checksum":1}`})
	add("not JSON", InputFile{Content: `machineState: yes`})
	add("memory v3 with the keys escaped", InputFile{Content: `{"Data":"{\"policyName\":\"Static\",\"machineState\":{}}","Checksum":1}`})
	guessed := 0
	for _, tc := range reqs {
		t.Run(tc.name, func(t *testing.T) {
			want, ok := inspect(&tc.req, false)
			require.True(t, ok)
			if diff := cmp.Diff(want, Inspect(&tc.req)); diff != "" {
				t.Errorf("Inspect differs from reading without guesses (-without +with):\n%s", diff)
			}
			if _, ok := inspect(&tc.req, true); ok {
				for _, f := range tc.req.Files {
					if f.Name == "" && pasteName(evidence.SniffKind([]byte(f.Content)), f.Content) != "" {
						guessed++
					}
				}
			}
		})
	}
	assert.Positive(t, guessed, "no request took the single-read path")
}
