package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/numascope/numascope/podresources/podresourcestest"
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
	if err := json.Unmarshal(Call("inspect", req), &e); err != nil {
		t.Fatal(err)
	}
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := inspectJSON(t, InputFile{Name: "x_state", Content: tc.content})
			f := r.Files[0]
			if f.KubeletAccepts || len(f.Problems) == 0 || !strings.Contains(f.Problems[0].Message, tc.mention) || f.Problems[0].Remedy == "" {
				t.Fatalf("got %+v, want a refusal mentioning %q with a remedy", f, tc.mention)
			}
			if !strings.Contains(f.Problems[0].Message, "x_state") {
				t.Errorf("the problem %q does not name the file", f.Problems[0].Message)
			}
		})
	}
}

func TestInspectNamesUnnamedFiles(t *testing.T) {
	r := inspectJSON(t, InputFile{Content: "{"}, InputFile{Content: "{"}, InputFile{Content: `{"policyName":"none","defaultCpuSet":"4-6","checksum":354655845}`})
	if r.Files[0].File != "file 1" || r.Files[1].File != "file 2" || r.Files[2].File != "cpu_manager_state" {
		t.Fatalf("names %q %q %q", r.Files[0].File, r.Files[1].File, r.Files[2].File)
	}
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
	if !strings.Contains(out, `"bad-request"`) || !strings.Contains(out, "bogus") {
		t.Fatalf("an unknown request field must be refused by name: %s", out)
	}
}

func TestInspectPodResources(t *testing.T) {
	b, err := json.Marshal(podresourcestest.Sample())
	if err != nil {
		t.Fatal(err)
	}
	r := inspectJSON(t, InputFile{Name: "list.json", Content: string(b)})
	f := r.Files[0]
	if f.Kind != "podresources" || !f.KubeletAccepts || f.Checksum != nil {
		t.Fatalf("%+v", f)
	}
	var gpu, cpus bool
	for _, a := range f.Assignments {
		if a.Pod == "default/web" && a.Container == "app" && a.Resource == "example.com/gpu" && a.Amount == "gpu0" && len(a.NUMA) == 1 && a.NUMA[0] == 0 {
			gpu = true
		}
		if a.Pod == "default/web" && a.Container == "app" && a.Resource == "cpu" && a.Amount == "2-3" {
			cpus = true
		}
	}
	if !gpu || !cpus {
		t.Errorf("assignments lack web/app's gpu0 on node 0 or CPUs 2-3: %+v", f.Assignments)
	}
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
	f := r.Files[0]
	if f.KubeletAccepts || len(f.Problems) == 0 || f.Problems[0].Path == "" {
		t.Fatalf("want a problem with a JSON pointer, got %+v", f)
	}
}
