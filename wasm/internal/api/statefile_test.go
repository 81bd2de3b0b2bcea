package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func exampleFile(t *testing.T, id string) InputFile {
	t.Helper()
	list, err := Examples()
	require.NoError(t, err)
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
	require.NotEmpty(t, r.Files, "files")
	f := r.Files[0]
	require.Equal(t, "memory", f.Kind, "kind")
	require.NotNil(t, f.Checksum, "checksum")
	require.NotNil(t, r.NUMA, "NUMA view")
	require.Len(t, r.NUMA.Nodes, 2, "NUMA nodes")
	var group *GroupView
	for i, g := range r.NUMA.Groups {
		if len(g.Nodes) == 2 && g.Nodes[0] == 0 && g.Nodes[1] == 1 {
			group = &r.NUMA.Groups[i]
		}
	}
	require.Len(t, r.NUMA.Groups, 1, "groups")
	require.NotNil(t, group, "the group [0 1] in %+v", r.NUMA.Groups)
	var mem *Resource
	for i, res := range group.Resources {
		if res.Name == "memory" {
			mem = &group.Resources[i]
		}
	}
	require.NotNil(t, mem, "memory in the group: %+v", group.Resources)
	require.Equal(t, "memory", group.Resources[0].Name, "memory must come first in the group")
	// Node 0: free 0, reserved 131766128640; node 1: free 103739236352, reserved 29295144960.
	assert.EqualValues(t, 103739236352, mem.Free, "free memory of the group [0 1]")
	assert.EqualValues(t, 131766128640+29295144960, mem.Reserved, "reserved memory of the group [0 1]")
	assert.EqualValues(t, 134987354112+135286722560, mem.Total, "total memory of the group [0 1]")
	for _, n := range r.NUMA.Nodes {
		if assert.NotNil(t, n.Assignments, "assignments on node %d", n.ID) {
			assert.Equal(t, 1, *n.Assignments, "assignments on node %d", n.ID)
		}
		assert.Len(t, n.Group, 2, "group of node %d", n.ID)
	}
	require.NotNil(t, f.Holders, "holders")
	if assert.Len(t, f.Holders.Memory, 1, "memory blocks held") {
		assert.EqualValues(t, 161061273600, f.Holders.Memory[0].Size, "bytes of block 0")
		assert.Equal(t, []int{0, 1}, f.Holders.Memory[0].NUMA, "NUMA nodes of block 0")
	}
}

func TestInspectCorruptCPUState(t *testing.T) {
	r := inspectJSON(t, exampleFile(t, "corrupt-cpu"))
	require.NotEmpty(t, r.Files, "files")
	f := r.Files[0]
	require.Equal(t, "cpu", f.Kind, "kind")
	require.False(t, f.KubeletAccepts, "a checksum mismatch must be refused")
	require.NotNil(t, f.Checksum, "checksum")
	require.False(t, f.Checksum.Valid, "checksum valid")
	require.EqualValues(t, 1234567890, f.Checksum.Stored, "stored checksum")
	assert.Equal(t, "refuses-to-start", f.OnReject, "onReject")
	assert.NotEmpty(t, f.Reason, "reason")
	if assert.NotEmpty(t, f.Problems, "problems") {
		assert.NotEmpty(t, f.Problems[0].Remedy, "remedy of the first problem")
		assert.Contains(t, strings.ToLower(f.Problems[0].Message), "checksum", "the first problem must explain the checksum")
	}
	// the kubelet restores nothing, the card shows what the file records
	if assert.NotNil(t, f.Holders, "holders") && assert.NotNil(t, f.Holders.CPU, "CPU holders") && assert.Len(t, f.Holders.CPU.Holders, 1, "recorded assignments") {
		h := f.Holders.CPU.Holders[0]
		assert.Equal(t, "app", h.Container, "container of the recorded assignment")
		assert.Equal(t, "2-5", h.List, "CPUs of the recorded assignment")
	}
	assert.Equal(t, "recorded in the file, which the kubelet refuses: policy static · shared pool (defaultCpuSet) 0-1,6-15", f.Summary, "summary of a refused CPU state")
	if r.NUMA != nil {
		t.Errorf("a CPU state alone knows no NUMA nodes: %+v", r.NUMA)
	}
}

func TestInspectIntactCPUState(t *testing.T) {
	r := inspectJSON(t, exampleFile(t, "cpu-none"))
	require.NotEmpty(t, r.Files, "files")
	f := r.Files[0]
	assert.True(t, f.KubeletAccepts, "accepted: %s", f.Reason)
	require.NotNil(t, f.Checksum, "checksum")
	assert.True(t, f.Checksum.Valid, "checksum valid")
	assert.EqualValues(t, 354655845, f.Checksum.Stored, "stored checksum")
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
	require.Len(t, r.Files, 3, "files")
	assert.Equal(t, "memory", r.Files[0].Kind, "kind of file 0")
	assert.Equal(t, "cpu", r.Files[1].Kind, "kind of file 1")
	assert.Empty(t, r.Files[2].Kind, "kind of file 2")
	require.NotNil(t, r.NUMA, "the memory file's NUMA view must survive the other files")
	require.Len(t, r.NUMA.Groups, 1, "the memory file's group must survive the other files")
	require.NotEmpty(t, r.Files[2].Problems, "problems of the junk file")
	assert.Contains(t, r.Files[2].Problems[0].Message, "junk", "the JSON error names the file")
}

func TestEveryExampleFileIsUnderstood(t *testing.T) {
	list, err := Examples()
	require.NoError(t, err)
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
	require.NoError(t, err)
	return b
}

func TestInspectDeviceCheckpoint(t *testing.T) {
	r := inspectJSON(t, exampleFile(t, "device-checkpoint"))
	require.NotEmpty(t, r.Files, "files")
	f := r.Files[0]
	require.Equal(t, "device", f.Kind, "kind")
	require.True(t, f.KubeletAccepts, "accepted: %s", f.Reason)
	require.NotNil(t, f.Checksum, "checksum")
	require.True(t, f.Checksum.Valid, "checksum valid")
	if r.NUMA == nil {
		t.Fatal("no NUMA view")
	}
	perNode := map[int][]string{}
	for _, n := range r.NUMA.Nodes {
		for _, d := range n.Devices {
			perNode[n.ID] = append(perNode[n.ID], d.ID)
		}
	}
	assert.NotEmpty(t, perNode[0], "devices on node 0")
	assert.NotEmpty(t, perNode[1], "devices on node 1")
	var noTopology bool
	if assert.NotNil(t, f.Holders, "holders") {
		for _, a := range f.Holders.Devices {
			for _, d := range a.Devices {
				noTopology = noTopology || (d.ID == "fpga-0" && len(d.NUMA) == 1 && d.NUMA[0] == -1)
			}
		}
		assert.True(t, noTopology, "the device without topology is not marked: %+v", f.Holders.Devices)
	}
}
