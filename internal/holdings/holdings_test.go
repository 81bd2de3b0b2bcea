package holdings

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
)

// twoNodes is a machine-info JSON of two NUMA nodes: CPUs 0-3 on node 0,
// 4-7 on node 1.
const twoNodes = `{"num_cores":4,"num_sockets":1,"topology":[` +
	`{"node_id":0,"memory":1073741824,"distances":[10,20],"cores":[{"core_id":0,"socket_id":0,"thread_ids":[0,1]},{"core_id":2,"socket_id":0,"thread_ids":[2,3]}]},` +
	`{"node_id":1,"memory":1073741824,"distances":[20,10],"cores":[{"core_id":4,"socket_id":0,"thread_ids":[4,5]},{"core_id":6,"socket_id":0,"thread_ids":[6,7]}]}]}`

func machine(t *testing.T, src string) *topomgr.Machine {
	t.Helper()
	m, err := topomgr.ParseMachine([]byte(src))
	require.NoError(t, err)
	m.Source = "machine-info.json"
	return m
}

func TestBuild(t *testing.T) {
	m := machine(t, twoNodes)
	share := "share-1"
	tests := []struct {
		name    string
		file    *statefile.File
		machine *topomgr.Machine
		want    *Holdings
	}{
		{name: "nil file", file: nil, want: nil},
		{
			name: "memory: container and pod-level blocks, sorted, NUMA ascending",
			file: &statefile.File{Kind: statefile.KindMemory, Memory: &statefile.MemoryState{
				PolicyName:   "Static",
				MachineState: map[int]*statefile.NUMANodeState{0: {}, 1: {}},
				Entries: map[string]map[string][]statefile.Block{
					"pod-b": {"web": {{NUMAAffinity: []int{1, 0}, Type: "memory", Size: 1 << 30}, {NUMAAffinity: []int{1}, Type: "hugepages-2Mi", Size: 2 << 20}}},
					"pod-a": {"z": {{NUMAAffinity: []int{0}, Type: "memory", Size: 5}}, "a": {{NUMAAffinity: []int{1}, Type: "memory", Size: 7}}},
				},
				PodEntries: map[string]statefile.PodMemoryEntry{"pod-a": {MemoryBlocks: []statefile.Block{{NUMAAffinity: []int{0, 1}, Type: "memory", Size: 12}}}},
			}},
			want: &Holdings{Kind: statefile.KindMemory, Memory: []MemoryBlock{
				{PodUID: "pod-a", PodLevel: true, Type: "memory", Size: 12, NUMA: []int{0, 1}},
				{PodUID: "pod-a", Container: "a", Type: "memory", Size: 7, NUMA: []int{1}},
				{PodUID: "pod-a", Container: "z", Type: "memory", Size: 5, NUMA: []int{0}},
				{PodUID: "pod-b", Container: "web", Type: "memory", Size: 1 << 30, NUMA: []int{0, 1}},
				{PodUID: "pod-b", Container: "web", Type: "hugepages-2Mi", Size: 2 << 20, NUMA: []int{1}},
			}},
		},
		{
			name: "memory: a node the topology lacks is noted",
			file: &statefile.File{Kind: statefile.KindMemory, Memory: &statefile.MemoryState{
				MachineState: map[int]*statefile.NUMANodeState{0: {}, 1: {}, 3: {}},
			}},
			machine: m,
			want: &Holdings{Kind: statefile.KindMemory,
				Notes: []string{"NUMA node 3 of the file is not in the topology (machine-info.json, machine-info): the topology is of another machine"}},
		},
		{
			name: "cpu without a topology: CPU ids only, said once",
			file: &statefile.File{Kind: statefile.KindCPU, CPU: &statefile.CPUState{
				PolicyName: "static", DefaultCPUSet: cpuset.New(0, 1, 6, 7),
				Entries:   map[string]map[string]cpuset.CPUSet{"p2": {"c": cpuset.New(5)}, "p1": {"b": cpuset.New(2, 3, 4), "a": cpuset.New(4)}},
				Baselines: map[string]map[string]cpuset.CPUSet{"p1": {"b": cpuset.New(2, 3)}},
			}},
			want: &Holdings{Kind: statefile.KindCPU, CPU: &CPUs{
				Policy: "static", Shared: CPUList{"0-1,6-7", 4}, Exclusive: CPUList{"2-5", 4},
				Holders: []CPUHolder{
					{PodUID: "p1", Container: "a", CPUList: CPUList{"4", 1}},
					{PodUID: "p1", Container: "b", CPUList: CPUList{"2-4", 3}, Baseline: &CPUList{"2-3", 2}},
					{PodUID: "p2", Container: "c", CPUList: CPUList{"5", 1}},
				}},
				Notes: []string{"cpu_manager_state records CPU ids, not NUMA nodes: give a topology to place them"}},
		},
		{
			name: "cpu with a topology: split per NUMA node, per-node view, CPUs the topology lacks",
			file: &statefile.File{Kind: statefile.KindCPU, CPU: &statefile.CPUState{
				PolicyName: "static", DefaultCPUSet: cpuset.New(0, 1, 7, 9),
				Entries:    map[string]map[string]cpuset.CPUSet{"p1": {"app": cpuset.New(2, 3, 4, 12)}},
				PodEntries: map[string]cpuset.CPUSet{"p1": cpuset.New(2, 3, 4, 5, 12)},
			}},
			machine: m,
			want: &Holdings{Kind: statefile.KindCPU, CPU: &CPUs{
				Policy: "static", Shared: CPUList{"0-1,7,9", 4}, Exclusive: CPUList{"2-5,12", 5},
				Holders: []CPUHolder{
					{PodUID: "p1", PodLevel: true, CPUList: CPUList{"2-5,12", 5}, NUMA: []NodeCPUs{{0, CPUList{"2-3", 2}}, {1, CPUList{"4-5", 2}}, {NoNUMA, CPUList{"12", 1}}}},
					{PodUID: "p1", Container: "app", CPUList: CPUList{"2-4,12", 4}, NUMA: []NodeCPUs{{0, CPUList{"2-3", 2}}, {1, CPUList{"4", 1}}, {NoNUMA, CPUList{"12", 1}}}},
				},
				Topology: "machine-info.json, machine-info",
				Nodes: []CPUNode{
					{Node: 0, CPUs: CPUList{"0-3", 4}, Exclusive: CPUList{"2-3", 2}, Shared: CPUList{"0-1", 2}},
					{Node: 1, CPUs: CPUList{"4-7", 4}, Exclusive: CPUList{"4-5", 2}, Shared: CPUList{"7", 1}},
				},
				NotInTopology: &CPUList{"9,12", 2}},
				Notes: []string{"2 CPUs of the file (9,12) are not in the topology (machine-info.json, machine-info): the topology is of another machine, or CPUs went offline since the file was written"}},
		},
		{
			name: "cpu v1: container ids",
			file: &statefile.File{Kind: statefile.KindCPU, Format: statefile.FormatV1, CPU: &statefile.CPUState{
				PolicyName: "static", DefaultCPUSet: cpuset.New(0),
				ContainerEntries: map[string]cpuset.CPUSet{"docker://abc": cpuset.New(1)},
			}},
			want: &Holdings{Kind: statefile.KindCPU, CPU: &CPUs{
				Policy: "static", Shared: CPUList{"0", 1}, Exclusive: CPUList{"1", 1},
				Holders: []CPUHolder{{ContainerID: "docker://abc", CPUList: CPUList{"1", 1}}}},
				Notes: []string{"cpu_manager_state records CPU ids, not NUMA nodes: give a topology to place them"}},
		},
		{
			name: "cpu none policy: no holders",
			file: &statefile.File{Kind: statefile.KindCPU, CPU: &statefile.CPUState{PolicyName: "none", DefaultCPUSet: cpuset.New()}},
			want: &Holdings{Kind: statefile.KindCPU, CPU: &CPUs{Policy: "none", Holders: []CPUHolder{}},
				Notes: []string{"cpu_manager_state records CPU ids, not NUMA nodes: give a topology to place them"}},
		},
		{
			name: "device: per-NUMA ids grouped by device, no topology, registered counts",
			file: &statefile.File{Kind: statefile.KindDevice, Format: statefile.FormatV2, Device: &statefile.DeviceState{
				PodDeviceEntries: []statefile.PodDevicesEntry{
					{PodUID: "p2", ContainerName: "c", ResourceName: "example.com/fpga", DeviceIDs: map[int64][]string{-1: {"fpga-0"}}},
					{PodUID: "p1", ContainerName: "app", ResourceName: "nvidia.com/gpu", DeviceIDs: map[int64][]string{1: {"GPU-2", "GPU-1"}, 0: {"GPU-0", "GPU-1"}}},
					{PodUID: "p1", ContainerName: "app", ResourceName: "example.com/empty", DeviceIDs: map[int64][]string{}},
				},
				RegisteredDevices: map[string][]string{"nvidia.com/gpu": {"GPU-3", "GPU-0", "GPU-1", "GPU-2"}, "example.com/fpga": {"fpga-0"}},
			}},
			machine: m,
			want: &Holdings{Kind: statefile.KindDevice,
				Devices: []DeviceAllocation{
					{PodUID: "p1", Container: "app", Resource: "example.com/empty", Devices: []Device{}},
					{PodUID: "p1", Container: "app", Resource: "nvidia.com/gpu", Devices: []Device{{"GPU-0", []int{0}}, {"GPU-1", []int{0, 1}}, {"GPU-2", []int{1}}}},
					{PodUID: "p2", Container: "c", Resource: "example.com/fpga", Devices: []Device{{"fpga-0", []int{NoNUMA}}}},
				},
				Registered: []RegisteredResource{
					{Resource: "example.com/fpga", Devices: []string{"fpga-0"}, Allocated: 1},
					{Resource: "nvidia.com/gpu", Devices: []string{"GPU-0", "GPU-1", "GPU-2", "GPU-3"}, Allocated: 3},
				}},
		},
		{
			name: "device v1: the kubelet counts node 0",
			file: &statefile.File{Kind: statefile.KindDevice, Format: statefile.FormatV1, Device: &statefile.DeviceState{
				PodDeviceEntries: []statefile.PodDevicesEntry{{PodUID: "p", ContainerName: "c", ResourceName: "r", DeviceIDs: map[int64][]string{0: {"d"}}, FlatDeviceIDs: []string{"d"}}},
			}},
			want: &Holdings{Kind: statefile.KindDevice,
				Devices: []DeviceAllocation{{PodUID: "p", Container: "c", Resource: "r", Devices: []Device{{"d", []int{0}}}}},
				Notes:   []string{"a v1 device checkpoint records no NUMA node: the kubelet counts every device under NUMA node 0"}},
		},
		{
			name: "dra: crc32 and spew claims, sorted by namespace and name",
			file: &statefile.File{Kind: statefile.KindDRA, DRA: &statefile.DRAState{Claims: []statefile.ClaimInfoState{
				{ClaimUID: "u2", ClaimName: "gpu", Namespace: "b", PodUIDs: map[string]struct{}{"p9": {}, "p1": {}},
					DriverState: map[string]statefile.DriverState{"gpu.example.com": {Devices: []statefile.DRADevice{
						{PoolName: "node-0", DeviceName: "gpu-1", ShareID: &share, RequestNames: []string{"req"}, CDIDeviceIDs: []string{"gpu.example.com/gpu=1"}}}}}},
				{ClaimUID: "u1", ClaimName: "old", Namespace: "a", DriverName: "test.cdi.k8s.io", ClassName: "class-0", PodUIDs: map[string]struct{}{"p2": {}},
					CDIDevices: map[string][]string{"test.cdi.k8s.io": {"test.cdi.k8s.io/gpu=3"}}},
			}}},
			want: &Holdings{Kind: statefile.KindDRA,
				Claims: []Claim{
					{UID: "u1", Namespace: "a", Name: "old", Class: "class-0", PodUIDs: []string{"p2"},
						Drivers: []ClaimDriver{{Driver: "test.cdi.k8s.io", CDIDevices: []string{"test.cdi.k8s.io/gpu=3"}}}},
					{UID: "u2", Namespace: "b", Name: "gpu", PodUIDs: []string{"p1", "p9"},
						Drivers: []ClaimDriver{{Driver: "gpu.example.com", Devices: []ClaimDevice{{Pool: "node-0", Device: "gpu-1", ShareID: "share-1", Requests: []string{"req"}, CDIDevices: []string{"gpu.example.com/gpu=1"}}}}}},
				},
				Notes: []string{"dra_manager_state records no NUMA node: where a DRA device sits is the driver's to say (its ResourceSlice attributes)"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Build(tt.file, tt.machine)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Build (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBuildKubeletFiles builds the holdings of every kubelet-written file of
// the golden corpus and checks them against the decoded state: every block,
// exclusive CPU and device of the file is held by someone, once.
func TestBuildKubeletFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "statefile", "testdata", "kubelet", "*", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, name := range files {
		f, err := statefile.ReadFile(name, statefile.Options{})
		if err != nil {
			continue // not decodable at all: inspect reports the error, there is nothing to hold
		}
		t.Run(filepath.Base(filepath.Dir(name))+"/"+filepath.Base(name), func(t *testing.T) {
			h := Build(f, nil)
			require.NotNil(t, h)
			assert.Equal(t, f.Kind, h.Kind)
			switch {
			case f.Memory != nil:
				n := 0
				for _, cs := range f.Memory.Entries {
					for _, bs := range cs {
						n += len(bs)
					}
				}
				for _, p := range f.Memory.PodEntries {
					n += len(p.MemoryBlocks)
				}
				assert.Len(t, h.Memory, n, "memory blocks")
			case f.CPU != nil:
				require.NotNil(t, h.CPU)
				var sets []cpuset.CPUSet
				for _, cs := range f.CPU.Entries {
					for _, s := range cs {
						sets = append(sets, s)
					}
				}
				for _, s := range f.CPU.PodEntries {
					sets = append(sets, s)
				}
				for _, s := range f.CPU.ContainerEntries {
					sets = append(sets, s)
				}
				assert.Equal(t, cpuset.New().Union(sets...).String(), h.CPU.Exclusive.List, "exclusive CPUs")
				assert.Equal(t, f.CPU.DefaultCPUSet.String(), h.CPU.Shared.List, "shared CPUs")
			case f.Device != nil:
				assert.Len(t, h.Devices, len(f.Device.PodDeviceEntries), "device allocations")
				assert.Len(t, h.Registered, len(f.Device.RegisteredDevices), "registered resources")
			case f.DRA != nil:
				assert.Len(t, h.Claims, len(f.DRA.Claims), "claims")
				assert.NotEmpty(t, h.Notes, "the no-NUMA note")
			}
		})
	}
}

// TestBuildWithSysfs places the CPUs of a kubelet-written cpu_manager_state
// with the sysfs copy of the node that wrote it, read by topomgr's reader.
func TestBuildWithSysfs(t *testing.T) {
	f, err := statefile.ReadFile(filepath.Join("..", "..", "statefile", "testdata", "kubelet", "cpu", "v4-static.json"), statefile.Options{})
	require.NoError(t, err)
	m, err := topomgr.ReadMachine(nil, filepath.Join("..", "..", "examples", "agent", "testdata", "node", "sys"))
	require.NoError(t, err)
	h := Build(f, m)
	require.NotNil(t, h.CPU)
	assert.Nil(t, h.CPU.NotInTopology, "every CPU of the file is in the topology")
	want := []CPUNode{
		{Node: 0, CPUs: CPUList{"0-7,32-39", 16}, Exclusive: CPUList{"3,6,33-34,36-38", 7}, Shared: CPUList{"0-2,4-5,7,32,35,39", 9}},
		{Node: 1, CPUs: CPUList{"8-15,40-47", 16}, Exclusive: CPUList{"12,15,43,47", 4}, Shared: CPUList{"8-11,13-14,40-42,44-46", 12}},
		{Node: 2, CPUs: CPUList{"16-23,48-55", 16}, Exclusive: CPUList{"17,21,23,53", 4}, Shared: CPUList{"16,18-20,22,48-52,54-55", 12}},
		{Node: 3, CPUs: CPUList{"24-31,56-63", 16}, Exclusive: CPUList{"27-28,58", 3}, Shared: CPUList{"24-26,29-31,56-57,59-63", 13}},
	}
	if diff := cmp.Diff(want, h.CPU.Nodes); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
}

func TestShorten(t *testing.T) {
	tests := []struct {
		name string
		ids  []string
		want map[string]string
	}{
		{name: "none", ids: nil, want: map[string]string{}},
		{name: "short ids stay", ids: []string{"pod", "pod-123456ab"}, want: map[string]string{"pod": "pod", "pod-123456ab": "pod-123456ab"}},
		{name: "a UUID to 8", ids: []string{"fa9bdd38-6df9-4cf9-aa67-8c4814da37a8"}, want: map[string]string{"fa9bdd38-6df9-4cf9-aa67-8c4814da37a8": "fa9bdd38…"}},
		{name: "shared prefixes grow", ids: []string{"fa9bdd38-6df9-4cf9-aa67-8c4814da37a8", "fa9bdd38-6dab-4cf9-aa67-8c4814da37a8", "01bffdca-2794-0ec5-c637-d97f87fd5d94", "fa9bdd38-6df9-4cf9-aa67-8c4814da37a8"},
			want: map[string]string{"fa9bdd38-6df9-4cf9-aa67-8c4814da37a8": "fa9bdd38-6df…", "fa9bdd38-6dab-4cf9-aa67-8c4814da37a8": "fa9bdd38-6da…", "01bffdca-2794-0ec5-c637-d97f87fd5d94": "01bffdca…"}},
		{name: "a prefix of another id stays whole", ids: []string{"abcdefghijklmnop", "abcdefghijklmnopq"},
			want: map[string]string{"abcdefghijklmnop": "abcdefghijklmnop", "abcdefghijklmnopq": "abcdefghijklmnopq"}},
		{name: "no cut inside a rune", ids: []string{"ééééééééééééé"}, want: map[string]string{"ééééééééééééé": "éééé…"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Shorten(tt.ids)); diff != "" {
				t.Errorf("Shorten (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNodes(t *testing.T) {
	for _, tt := range []struct {
		numa []int
		want string
	}{{nil, "-"}, {[]int{0}, "0"}, {[]int{0, 1}, "0,1"}, {[]int{NoNUMA}, "none"}} {
		assert.Equal(t, tt.want, Nodes(tt.numa), "%v", tt.numa)
	}
}

// manyContainers is a cpu state of n containers with 2 exclusive CPUs each.
func manyContainers(n int) *statefile.File {
	s := &statefile.CPUState{PolicyName: "static", DefaultCPUSet: cpuset.New(0, 1), Entries: map[string]map[string]cpuset.CPUSet{}}
	for i := range n {
		s.Entries[fmt.Sprintf("%08x-0000-4000-8000-000000000000", i)] = map[string]cpuset.CPUSet{"app": cpuset.New(2+2*i, 3+2*i)}
	}
	return &statefile.File{Kind: statefile.KindCPU, CPU: s}
}

func BenchmarkBuildCPU10000(b *testing.B) {
	f := manyContainers(10000)
	for b.Loop() {
		if h := Build(f, nil); len(h.CPU.Holders) != 10000 {
			b.Fatal(len(h.CPU.Holders))
		}
	}
}
