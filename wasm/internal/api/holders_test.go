package api

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/internal/holdings"
	"github.com/stretchr/testify/require"
)

// fileOf is the example's file of the given name.
func fileOf(t *testing.T, id, name string) InputFile {
	t.Helper()
	for _, f := range exampleFiles(t, id) {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("example %q has no file %q", id, name)
	return InputFile{}
}

// draState is a dra_manager_state (crc32 era) with two claims.
func draState(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../../statefile/testdata/kubelet/dra/crc32-random-2.json")
	require.NoError(t, err)
	return string(b)
}

// TestInspectHolders checks that every checkpoint's view carries who holds
// what as package holdings builds it (the model examples/inspect prints),
// placed on NUMA nodes with the machine topology of the same request,
// whatever tab it is in.
func TestInspectHolders(t *testing.T) {
	const pod = "fa9bdd38-6df9-4cf9-aa67-8c4814da37a8"
	cpuState := fileOf(t, "troubleshooting-page", "cpu_manager_state")
	machine := fileOf(t, "troubleshooting-page", "machine-info.json")
	unnamed := func(f InputFile) InputFile { f.Name = ""; return f }
	placed := &holdings.Holdings{Kind: "cpu", CPU: &holdings.CPUs{
		Policy:    "static",
		Shared:    holdings.CPUList{List: "0-1,6-47", Count: 44},
		Exclusive: holdings.CPUList{List: "2-5", Count: 4},
		Holders: []holdings.CPUHolder{{PodUID: pod, Container: "guaranteed", CPUList: holdings.CPUList{List: "2-5", Count: 4},
			NUMA: []holdings.NodeCPUs{{Node: 0, CPUList: holdings.CPUList{List: "2-5", Count: 4}}}}},
		Topology: "machine-info.json, machine-info",
		Nodes: []holdings.CPUNode{
			{Node: 0, CPUs: holdings.CPUList{List: "0-23", Count: 24}, Exclusive: holdings.CPUList{List: "2-5", Count: 4}, Shared: holdings.CPUList{List: "0-1,6-23", Count: 20}},
			{Node: 1, CPUs: holdings.CPUList{List: "24-47", Count: 24}, Exclusive: holdings.CPUList{List: "", Count: 0}, Shared: holdings.CPUList{List: "24-47", Count: 24}},
		},
	}}
	tests := []struct {
		name  string
		files []InputFile
		// at is the file whose holders are checked
		at   int
		want *holdings.Holdings
	}{
		{
			name:  "the upstream sample's memory block",
			files: []InputFile{exampleFile(t, "troubleshooting")},
			want: &holdings.Holdings{Kind: "memory", Memory: []holdings.MemoryBlock{
				{PodUID: pod, Container: "guaranteed", Type: "memory", Size: 161061273600, NUMA: []int{0, 1}},
			}},
		},
		{
			name:  "CPUs without a topology",
			files: []InputFile{cpuState},
			want: &holdings.Holdings{Kind: "cpu", CPU: &holdings.CPUs{
				Policy:    "static",
				Shared:    holdings.CPUList{List: "0-1,6-47", Count: 44},
				Exclusive: holdings.CPUList{List: "2-5", Count: 4},
				Holders:   []holdings.CPUHolder{{PodUID: pod, Container: "guaranteed", CPUList: holdings.CPUList{List: "2-5", Count: 4}}},
			}, Notes: []string{holdings.NoteCPUWithoutTopology}},
		},
		{name: "CPUs placed with the machine info of an earlier tab", files: []InputFile{machine, cpuState}, at: 1, want: placed},
		{name: "CPUs placed with the machine info of a later tab", files: []InputFile{cpuState, machine}, want: placed},
		{name: "unnamed pastes", files: []InputFile{unnamed(cpuState), unnamed(machine)}, want: placed},
		{
			name:  "devices per NUMA node",
			files: []InputFile{exampleFile(t, "device-checkpoint")},
			want: &holdings.Holdings{Kind: "device",
				Devices: []holdings.DeviceAllocation{
					{PodUID: "6c2b54e4-43c5-4bd6-a1c3-0a4c0d2b6a11", Container: "app", Resource: "nvidia.com/gpu", Devices: []holdings.Device{{ID: "GPU-0", NUMA: []int{0}}, {ID: "GPU-2", NUMA: []int{1}}}},
					{PodUID: "6c2b54e4-43c5-4bd6-a1c3-0a4c0d2b6a11", Container: "sidecar", Resource: "example.com/fpga", Devices: []holdings.Device{{ID: "fpga-0", NUMA: []int{-1}}}},
				},
				Registered: []holdings.RegisteredResource{
					{Resource: "example.com/fpga", Devices: []string{"fpga-0"}, Allocated: 1},
					{Resource: "nvidia.com/gpu", Devices: []string{"GPU-0", "GPU-1", "GPU-2", "GPU-3"}, Allocated: 2},
				}},
		},
		{
			name:  "DRA claims",
			files: []InputFile{{Name: "dra_manager_state", Content: draState(t)}},
			want: &holdings.Holdings{Kind: "dra", Claims: []holdings.Claim{
				{UID: "c86d1c75-154c-4a35-5868-84d8d67291bb", Namespace: "default", Name: "claim-0", PodUIDs: []string{"118cc357-c4ba-6062-2105-2fd2bf73fdba"},
					Drivers: []holdings.ClaimDriver{{Driver: "gpu.example.com", Devices: []holdings.ClaimDevice{
						{Pool: "node-1", Device: "dev-0", Requests: []string{"req-0"}, CDIDevices: []string{"gpu.example.com/dev=0"}},
						{Pool: "node-1", Device: "dev-1", ShareID: "cdf53c74-bd22-e48e-f90b-1a10c3117178"},
					}}}},
				{UID: "d17fef8f-5ebc-20c7-b3d2-92af8c8302c8", Namespace: "default", Name: "claim-1", PodUIDs: []string{"8855ce89-41e3-fc62-228f-7de78c2fba6c"},
					Drivers: []holdings.ClaimDriver{{Driver: "gpu.example.com", Devices: []holdings.ClaimDevice{
						{Pool: "node-2", Device: "dev-0", CDIDevices: []string{"gpu.example.com/dev=0"}},
						{Pool: "node-2", Device: "dev-1"},
					}}}},
			}, Notes: []string{holdings.NoteDRA}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := inspectJSON(t, tc.files...)
			if diff := cmp.Diff(tc.want, r.Files[tc.at].Holders); diff != "" {
				t.Errorf("holders of %s (-want +got):\n%s", r.Files[tc.at].File, diff)
			}
		})
	}
}

// TestInspectHoldersOnlyForCheckpoints checks that inputs other than
// kubelet checkpoints, and checkpoints that do not decode, carry no holders.
func TestInspectHoldersOnlyForCheckpoints(t *testing.T) {
	tests := []struct {
		name string
		file InputFile
	}{
		{name: "machine info", file: fileOf(t, "troubleshooting-page", "machine-info.json")},
		{name: "kubelet log", file: fileOf(t, "troubleshooting-page", "kubelet.log")},
		{name: "PodResources answer", file: exampleFile(t, "podresources")},
		{name: "broken checkpoint", file: InputFile{Name: "cpu_manager_state", Content: `{"policyName":"static",`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := inspectJSON(t, tc.file)
			if diff := cmp.Diff((*holdings.Holdings)(nil), r.Files[0].Holders); diff != "" {
				t.Errorf("holders of %s (-want +got):\n%s", r.Files[0].File, diff)
			}
		})
	}
}
