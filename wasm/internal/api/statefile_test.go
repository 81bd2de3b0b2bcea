package api

import (
	"encoding/json"
	"strings"
	"testing"
)

func exampleFile(t *testing.T, id string) InputFile {
	t.Helper()
	list, err := Examples()
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range list.Examples {
		if ex.ID == id {
			return ex.Files[0]
		}
	}
	t.Fatalf("no example %q", id)
	return InputFile{}
}

func TestInspectTroubleshootingSampleGroups(t *testing.T) {
	r := inspectJSON(t, exampleFile(t, "troubleshooting"))
	f := r.Files[0]
	if f.Kind != "memory" || f.Checksum == nil {
		t.Fatalf("%+v", f)
	}
	if r.NUMA == nil || len(r.NUMA.Nodes) != 2 {
		t.Fatalf("want two NUMA nodes, got %+v", r.NUMA)
	}
	var group *GroupView
	for i, g := range r.NUMA.Groups {
		if len(g.Nodes) == 2 && g.Nodes[0] == 0 && g.Nodes[1] == 1 {
			group = &r.NUMA.Groups[i]
		}
	}
	if group == nil || len(r.NUMA.Groups) != 1 {
		t.Fatalf("want exactly the group [0 1], got %+v", r.NUMA.Groups)
	}
	var mem *Resource
	for i, res := range group.Resources {
		if res.Name == "memory" {
			mem = &group.Resources[i]
		}
	}
	if mem == nil || group.Resources[0].Name != "memory" {
		t.Fatalf("memory must come first in the group: %+v", group.Resources)
	}
	// Node 0: free 0, reserved 131766128640; node 1: free 103739236352, reserved 29295144960.
	if mem.Free != 103739236352 || mem.Reserved != 131766128640+29295144960 || mem.Total != 134987354112+135286722560 {
		t.Errorf("group [0 1] memory = %+v", *mem)
	}
	for _, n := range r.NUMA.Nodes {
		if n.Assignments == nil || *n.Assignments != 1 || len(n.Group) != 2 {
			t.Errorf("node %d: %+v", n.ID, n)
		}
	}
	if len(f.Assignments) != 1 || f.Assignments[0].Bytes != 161061273600 || len(f.Assignments[0].NUMA) != 2 {
		t.Errorf("assignments %+v", f.Assignments)
	}
}

func TestInspectCorruptCPUState(t *testing.T) {
	r := inspectJSON(t, exampleFile(t, "corrupt-cpu"))
	f := r.Files[0]
	if f.Kind != "cpu" || f.KubeletAccepts || f.Checksum == nil || f.Checksum.Valid || f.Checksum.Stored != 1234567890 {
		t.Fatalf("a checksum mismatch must be refused: %+v %+v", f, f.Checksum)
	}
	if f.OnReject != "refuses-to-start" || f.Reason == "" {
		t.Errorf("onReject %q reason %q", f.OnReject, f.Reason)
	}
	if len(f.Problems) == 0 || f.Problems[0].Remedy == "" || !strings.Contains(strings.ToLower(f.Problems[0].Message), "checksum") {
		t.Errorf("the first problem must explain the checksum: %+v", f.Problems)
	}
	if len(f.Assignments) != 0 || !strings.Contains(f.Summary, "nothing is restored") {
		t.Errorf("a refused CPU state restores nothing: summary %q assignments %+v", f.Summary, f.Assignments)
	}
	if r.NUMA != nil {
		t.Errorf("a CPU state alone knows no NUMA nodes: %+v", r.NUMA)
	}
}

func TestInspectIntactCPUState(t *testing.T) {
	r := inspectJSON(t, exampleFile(t, "cpu-none"))
	f := r.Files[0]
	if !f.KubeletAccepts || !f.Checksum.Valid || f.Checksum.Stored != 354655845 {
		t.Fatalf("%+v %+v", f, f.Checksum)
	}
}

func TestInspectPolicyOverride(t *testing.T) {
	in := exampleFile(t, "cpu-none")
	r := Inspect(&InspectRequest{Files: []InputFile{in}, Policy: "static"})
	if r.Files[0].KubeletAccepts {
		t.Fatalf("a kubelet configured for static must refuse a none checkpoint: %+v", r.Files[0])
	}
}

func TestInspectSeveralFiles(t *testing.T) {
	r := inspectJSON(t, exampleFile(t, "troubleshooting"), exampleFile(t, "corrupt-cpu"), InputFile{Name: "junk", Content: "{"})
	if r.Files[0].Kind != "memory" || r.Files[1].Kind != "cpu" || r.Files[2].Kind != "" {
		t.Fatalf("kinds %q %q %q", r.Files[0].Kind, r.Files[1].Kind, r.Files[2].Kind)
	}
	if r.NUMA == nil || len(r.NUMA.Groups) != 1 {
		t.Fatalf("the memory file's group must survive the other files: %+v", r.NUMA)
	}
	if !strings.Contains(r.Files[2].Problems[0].Message, "junk") {
		t.Errorf("the JSON error does not name the file: %+v", r.Files[2].Problems)
	}
}

func TestEveryExampleFileIsUnderstood(t *testing.T) {
	list, err := Examples()
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range list.Examples {
		if len(ex.Files) == 0 {
			continue
		}
		r := Inspect(&InspectRequest{Files: ex.Files, Policy: ex.Policy})
		for _, f := range r.Files {
			if f.Kind == "" {
				t.Errorf("example %s: %s was not recognised: %+v", ex.ID, f.File, f.Problems)
			}
		}
	}
}

func TestInspectIsDeterministic(t *testing.T) {
	in := exampleFile(t, "troubleshooting")
	first := string(Call("inspect", mustJSON(t, InspectRequest{Files: []InputFile{in}})))
	for i := 0; i < 20; i++ {
		if again := string(Call("inspect", mustJSON(t, InspectRequest{Files: []InputFile{in}}))); again != first {
			t.Fatalf("inspect answered differently for the same input:\n%s\n%s", first, again)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestInspectDeviceCheckpoint(t *testing.T) {
	r := inspectJSON(t, exampleFile(t, "device-checkpoint"))
	f := r.Files[0]
	if f.Kind != "device" || !f.KubeletAccepts || !f.Checksum.Valid {
		t.Fatalf("%+v %+v", f, f.Checksum)
	}
	if r.NUMA == nil {
		t.Fatal("no NUMA view")
	}
	perNode := map[int][]string{}
	for _, n := range r.NUMA.Nodes {
		for _, d := range n.Devices {
			perNode[n.ID] = append(perNode[n.ID], d.ID)
		}
	}
	if len(perNode[0]) == 0 || len(perNode[1]) == 0 {
		t.Errorf("devices per node: %v", perNode)
	}
	var noTopology bool
	for _, a := range f.Assignments {
		noTopology = noTopology || strings.Contains(a.Amount, "(no NUMA node)")
	}
	if !noTopology {
		t.Errorf("the device without topology is not marked: %+v", f.Assignments)
	}
}
