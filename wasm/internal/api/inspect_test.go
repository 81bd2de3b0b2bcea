package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/numascope/numascope/podresources/podresourcestest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func inspectJSON(t *testing.T, files ...InputFile) *InspectResult {
	t.Helper()
	req, err := json.Marshal(InspectRequest{Files: files})
	require.NoError(t, err)
	var e struct {
		OK     bool           `json:"ok"`
		Result *InspectResult `json:"result"`
		Error  *Error         `json:"error"`
	}
	require.NoError(t, json.Unmarshal(Call("inspect", req), &e))
	if !e.OK {
		t.Fatalf("inspect failed: %+v", e.Error)
	}
	if len(e.Result.Files) != len(files) {
		t.Fatalf("inspect answered for %d files, want %d", len(e.Result.Files), len(files))
	}
	return e.Result
}

func TestInspectRejectsWhatIsNoStateFile(t *testing.T) {
	for _, tc := range []struct{ name, content, mention string }{
		{"empty", "  \n", "is empty"},
		{"truncated", `{"policyName": "static", "defaultCpuSet": `, "not valid JSON"},
		{"yaml", "policyName: static\n", "not valid JSON"},
		{"other JSON", `{"hello": "world"}`, "not a known kubelet checkpoint"},
		{"prose", "The node was rebooted on Monday.", "not recognised as kubelet evidence"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := inspectJSON(t, InputFile{Name: "x_state", Content: tc.content})
			require.NotEmpty(t, r.Files, "files")
			f := r.Files[0]
			require.False(t, f.KubeletAccepts, "accepted")
			require.NotEmpty(t, f.Problems, "problems")
			require.Contains(t, f.Problems[0].Message, tc.mention, "the first problem")
			if tc.name == "prose" {
				require.NotContains(t, f.Problems[0].Message+f.Problems[0].Remedy, "delete", "advice for a paste that is no checkpoint")
			}
			require.NotEmpty(t, f.Problems[0].Remedy, "remedy of the first problem")
			if !strings.Contains(f.Problems[0].Message, "x_state") {
				t.Errorf("the problem %q does not name the file", f.Problems[0].Message)
			}
		})
	}
}

func TestInspectNamesUnnamedFiles(t *testing.T) {
	r := inspectJSON(t, InputFile{Content: "{"}, InputFile{Content: "{"}, InputFile{Content: `{"policyName":"none","defaultCpuSet":"4-6","checksum":354655845}`})
	require.Len(t, r.Files, 3, "files")
	assert.Equal(t, "file 1", r.Files[0].File, "name of file 0")
	assert.Equal(t, "file 2", r.Files[1].File, "name of file 1")
	assert.Equal(t, "cpu_manager_state", r.Files[2].File, "name of file 2")
	require.NotEmpty(t, r.Files[0].Problems, "problems of file 0")
	if !strings.Contains(r.Files[0].Problems[0].Message, "file 1") {
		t.Errorf("the problem does not name the file: %+v", r.Files[0].Problems)
	}
}

func TestInspectTooLarge(t *testing.T) {
	r := inspectJSON(t, InputFile{Name: "big", Content: strings.Repeat(" ", MaxFileBytes+1)})
	if !strings.Contains(r.Files[0].Problems[0].Message, "limit") {
		t.Fatalf("%+v", r.Files[0])
	}
}

func TestInspectStrictRequest(t *testing.T) {
	out := string(Call("inspect", []byte(`{"files": [], "bogus": 1}`)))
	assert.Contains(t, out, `"bad-request"`, "an unknown request field must be refused")
	assert.Contains(t, out, "bogus", "an unknown request field must be refused by name")
}

func TestInspectPodResources(t *testing.T) {
	b, err := json.Marshal(podresourcestest.Sample())
	require.NoError(t, err)
	r := inspectJSON(t, InputFile{Name: "list.json", Content: string(b)})
	require.NotEmpty(t, r.Files, "files")
	f := r.Files[0]
	require.Equal(t, "podresources", f.Kind, "kind")
	require.True(t, f.KubeletAccepts, "accepted: %s", f.Reason)
	require.Nil(t, f.Checksum, "checksum of a PodResources answer")
	var gpu, cpus bool
	for _, a := range f.Assignments {
		if a.Pod == "default/web" && a.Container == "app" && a.Resource == "example.com/gpu" && a.Amount == "gpu0" && len(a.NUMA) == 1 && a.NUMA[0] == 0 {
			gpu = true
		}
		if a.Pod == "default/web" && a.Container == "app" && a.Resource == "cpu" && a.Amount == "2-3" {
			cpus = true
		}
	}
	assert.True(t, gpu, "assignments lack web/app's gpu0 on node 0: %+v", f.Assignments)
	assert.True(t, cpus, "assignments lack web/app's CPUs 2-3: %+v", f.Assignments)
	if r.NUMA == nil {
		t.Fatal("no NUMA view")
	}
	var onNode0 bool
	for _, n := range r.NUMA.Nodes {
		for _, d := range n.Devices {
			if n.ID == 0 && d.ID == "gpu0" && d.Pod == "default/web" {
				onNode0 = true
			}
		}
	}
	if !onNode0 {
		t.Errorf("gpu0 is not shown on NUMA node 0: %+v", r.NUMA.Nodes)
	}
	for _, g := range r.NUMA.Groups {
		if len(g.Nodes) != 1 {
			t.Errorf("PodResources alone defines no multi-node group: %+v", g)
		}
	}
}

func TestInspectPodResourcesProblemsHavePointers(t *testing.T) {
	r := inspectJSON(t, InputFile{Name: "list.json", Content: `{"pods": [{"name": 3, "containers": []}]}`})
	require.NotEmpty(t, r.Files, "files")
	f := r.Files[0]
	assert.False(t, f.KubeletAccepts, "accepted")
	if assert.NotEmpty(t, f.Problems, "problems") {
		assert.NotEmpty(t, f.Problems[0].Path, "JSON pointer of the first problem")
	}
}
