package statefile

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
)

func mustDecode(t *testing.T, data []byte, opts Options) *File {
	t.Helper()
	f, err := Decode(data, opts)
	require.NoError(t, err, "Decode")
	return f
}

func sampleCPU() *CPUState {
	return &CPUState{
		PolicyName:    "static",
		DefaultCPUSet: cpuset.New(0, 1, 6, 7),
		Entries: map[string]map[string]cpuset.CPUSet{
			"pod-a": {"app": cpuset.New(2, 3), "side": cpuset.New(4)},
			"pod-b": {"db": cpuset.New(5)},
		},
		ContainerEntries: map[string]cpuset.CPUSet{"docker://abc": cpuset.New(2, 3)},
	}
}

func sampleMemory() *MemoryState {
	return &MemoryState{
		PolicyName: "Static",
		MachineState: map[int]*NUMANodeState{
			0: {NumberOfAssignments: 1, Cells: []int{0}, MemoryMap: map[string]*MemoryTable{
				"memory":        {TotalMemSize: 10 << 30, SystemReserved: 1 << 30, Allocatable: 7 << 30, Reserved: 2 << 30, Free: 5 << 30},
				"hugepages-1Gi": {TotalMemSize: 2 << 30, Allocatable: 2 << 30, Free: 2 << 30},
			}},
			1: {NumberOfAssignments: 0, Cells: []int{1}, MemoryMap: map[string]*MemoryTable{
				"memory":        {TotalMemSize: 10 << 30, Allocatable: 10 << 30, Free: 10 << 30},
				"hugepages-1Gi": {},
			}},
		},
		Entries: map[string]map[string][]Block{"pod-a": {"app": {{NUMAAffinity: []int{0}, Type: "memory", Size: 2 << 30}}}},
	}
}

func TestRoundTripEveryFormat(t *testing.T) {
	cases := []struct {
		kind    Kind
		format  Format
		file    *File
		accepts bool
		layout  string
	}{
		{KindCPU, FormatV4, &File{Kind: KindCPU, CPU: sampleCPU()}, true, layoutCPUV4},
		{KindCPU, FormatV3, &File{Kind: KindCPU, CPU: sampleCPU()}, true, layoutCPUV3},
		{KindCPU, FormatV2, &File{Kind: KindCPU, CPU: sampleCPU()}, true, layoutCPUV2},
		{KindCPU, FormatV1, &File{Kind: KindCPU, CPU: sampleCPU()}, false, layoutCPUV1},
		{KindMemory, FormatV3, &File{Kind: KindMemory, Memory: sampleMemory()}, true, layoutMemV3},
		{KindMemory, FormatV2, &File{Kind: KindMemory, Memory: sampleMemory()}, true, layoutMemV2},
		{KindMemory, FormatV1, &File{Kind: KindMemory, Memory: sampleMemory()}, true, layoutMemV1},
		{KindDevice, FormatV2, &File{Kind: KindDevice, Device: sampleDevice()}, true, layoutDevV2},
		{KindDevice, FormatV1, &File{Kind: KindDevice, Device: sampleDevice()}, false, layoutDevV1},
		{KindDRA, FormatCRC32, &File{Kind: KindDRA, DRA: sampleDRA()}, true, layoutDRACRC},
		{KindDRA, FormatSpewV1, &File{Kind: KindDRA, DRA: sampleDRA()}, false, layoutDRASpew},
	}
	for _, c := range cases {
		t.Run(string(c.kind)+"-"+string(c.format), func(t *testing.T) {
			data, err := Encode(c.file, c.format)
			require.NoError(t, err)
			f := mustDecode(t, data, Options{Name: "x"})
			require.Equal(t, c.kind, f.Kind, "detected kind of\n%s", data)
			require.Equal(t, c.format, f.Format, "detected format of\n%s", data)
			require.Equal(t, c.accepts, f.KubeletAccepts, "KubeletAccepts (reason %s)", f.Reason)
			require.Equal(t, c.layout, f.Checksum.Matched, "matched layout: %+v", f.Checksum.Layouts)
			again, err := Encode(f, c.format)
			require.NoError(t, err)
			require.Equal(t, string(data), string(again), "re-encoding differs")
			if c.accepts {
				assert.Empty(t, f.OnReject, "OnReject of an accepted file")
			} else {
				assert.NotEmpty(t, f.OnReject, "OnReject of a refused file")
			}
		})
	}
}

func sampleDevice() *DeviceState {
	return &DeviceState{
		PodDeviceEntries: []PodDevicesEntry{{PodUID: "pod-a", ContainerName: "cuda", ResourceName: "nvidia.com/gpu",
			DeviceIDs: map[int64][]string{0: {"GPU-1"}, -1: {"dev-x"}}, AllocResp: []byte{0x0a, 0x06, 0x0a, 0x01, 'A', 0x12, 0x01, 'B'}}},
		RegisteredDevices: map[string][]string{"nvidia.com/gpu": {"GPU-1", "GPU-2"}},
	}
}

func sampleDRA() *DRAState {
	return &DRAState{Claims: []ClaimInfoState{{ClaimUID: "uid-1", ClaimName: "gpu", Namespace: "default",
		PodUIDs: map[string]struct{}{"pod-a": {}}, DriverName: "gpu.example.com", ClassName: "gpu",
		CDIDevices:  map[string][]string{"gpu.example.com": {"example.com/gpu=0"}},
		DriverState: map[string]DriverState{"gpu.example.com": {Devices: []DRADevice{{PoolName: "node-1", DeviceName: "gpu-0", RequestNames: []string{"gpu"}}}}}}}}
}

func TestUpstreamVectors(t *testing.T) {
	// values from the kubelet's own unit tests
	assert.EqualValues(t, 354655845, cpuV2Sum("CPUManagerCheckpoint", "none", "4-6", map[string]map[string]string{}), "cpu v2 vector")
	assert.EqualValues(t, 3610638499, cpuV2Sum("CPUManagerCheckpoint", "none", "1-3", map[string]map[string]string{"pod": {"container1": "4-6", "container2": "1-3"}}), "cpu v2 entries vector")
	assert.EqualValues(t, 3680390589, cpuV1Sum("none", "1-3", map[string]string{"containerID1": "4-6", "containerID2": "1-3"}), "cpu v1 vector")
	f := mustDecode(t, []byte(`{"policyName":"static","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":2048,"systemReserved":512,"allocatable":1536,"reserved":512,"free":1024}},"cells":[]}},"entries":{"pod":{"container1":[{"numaAffinity":[0],"type":"memory","size":512}]}},"checksum":4215593881}`), Options{Name: "m", Kind: KindMemory})
	assert.True(t, f.KubeletAccepts, "memory vector accepted: %s", f.Reason)
	assert.EqualValues(t, layoutMemV1, f.Checksum.Matched, "memory vector layout")
	// DRA crc32 vector from checkpointer_test.go
	dra := `{"Data":"{\"kind\":\"DRACheckpoint\",\"apiVersion\":\"checkpoint.dra.kubelet.k8s.io/v1\",\"ClaimInfoStateList\":[{\"ClaimUID\":\"067798be-454e-4be4-9047-1aa06aea63f7\",\"ClaimName\":\"example\",\"Namespace\":\"default\",\"PodUIDs\":{\"139cdb46-f989-4f17-9561-ca10cfb509a6\":{}},\"DriverState\":{\"test-driver.cdi.k8s.io\":{\"Devices\":[{\"PoolName\":\"worker-1\",\"DeviceName\":\"dev-1\",\"ShareID\":null,\"RequestNames\":[\"test request\"],\"CDIDeviceIDs\":[\"example.com/example=cdi-example\"]}]}}}]}","Checksum":2570581864}`
	f = mustDecode(t, []byte(dra), Options{Name: "dra_manager_state"})
	require.Equal(t, KindDRA, f.Kind, "dra vector kind")
	require.True(t, f.KubeletAccepts, "dra vector accepted: %s", f.Reason)
	require.NotNil(t, f.DRA, "dra vector state")
	require.Len(t, f.DRA.Claims, 1, "dra vector claims")
	again, err := Encode(f, FormatCRC32)
	require.NoError(t, err, "dra re-encode")
	assert.Equal(t, dra, string(again), "dra re-encode")
}

func TestCPURestoreOrder(t *testing.T) {
	good, err := Encode(&File{Kind: KindCPU, CPU: sampleCPU()}, FormatV4)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(good, &m))

	// corrupt data section: refused, no fallback to the (valid) outer copy
	m["dataChecksum"] = 12345
	bad, err := json.Marshal(m)
	require.NoError(t, err)
	f := mustDecode(t, bad, Options{Name: "/var/lib/kubelet/cpu_manager_state"})
	want := `could not restore state from checkpoint: could not load v4 checkpoint: checkpoint is corrupted, please drain this node and delete the CPU manager checkpoint file "/var/lib/kubelet/cpu_manager_state" before restarting Kubelet`
	require.False(t, f.KubeletAccepts, "corrupt data section accepted")
	require.Equal(t, want, f.Reason, "reason")
	require.Equal(t, RefusesToStart, f.OnReject, "OnReject")

	// v2 with checksum 0: accepted without checking
	v2 := []byte(`{"policyName":"none","defaultCpuSet":"0-7","checksum":0}`)
	f = mustDecode(t, v2, Options{Name: "c"})
	require.True(t, f.KubeletAccepts, "zero checksum accepted: %s", f.Reason)
	require.True(t, f.Checksum.ZeroSkipped, "zero checksum skipped")
	require.Equal(t, FormatV2, f.Format, "format of the zero-checksum file")
	// policy mismatch
	f = mustDecode(t, v2, Options{Name: "c", Policy: "static"})
	require.False(t, f.KubeletAccepts, "policy mismatch accepted")
	require.Contains(t, f.Reason, `configured policy "static" differs from state checkpoint policy "none"`, "policy mismatch reason")
	// bad cpuset
	v2bad, err := Encode(&File{Kind: KindCPU, CPU: sampleCPU()}, FormatV2)
	require.NoError(t, err)
	v2bad = bytes.Replace(v2bad, []byte(`"0-1,6-7"`), []byte(`"7-1"`), 1)
	f = mustDecode(t, v2bad, Options{Name: "c"})
	assert.False(t, f.KubeletAccepts, "edited file accepted")
	assert.False(t, f.Checksum.Valid, "checksum of the edited file valid")
}

func TestCPUOverlapProblems(t *testing.T) {
	s := sampleCPU()
	s.Entries["pod-b"]["db"] = cpuset.New(1, 2)
	data, err := Encode(&File{Kind: KindCPU, CPU: s}, FormatV4)
	require.NoError(t, err)
	f := mustDecode(t, data, Options{Name: "c"})
	require.True(t, f.KubeletAccepts, "restore itself does not check overlaps: %s", f.Reason)
	var overlapsDefault, overlapsOther bool
	for _, p := range f.Problems {
		overlapsDefault = overlapsDefault || strings.Contains(p.Message, "also in the default")
		overlapsOther = overlapsOther || strings.Contains(p.Message, "assigned to both")
	}
	assert.True(t, overlapsDefault, "a problem says a CPU is also in the default set: %+v", f.Problems)
	assert.True(t, overlapsOther, "a problem says a CPU is assigned to both containers: %+v", f.Problems)
}

func TestMemoryZeroChecksumAndReplay(t *testing.T) {
	data, err := Encode(&File{Kind: KindMemory, Memory: sampleMemory()}, FormatV1)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	m["checksum"] = 0
	zero, err := json.Marshal(m)
	require.NoError(t, err)
	f := mustDecode(t, zero, Options{Name: "m"})
	require.True(t, f.KubeletAccepts, "memory v1 zero checksum accepted: %s", f.Reason)
	require.True(t, f.Checksum.ZeroSkipped, "memory v1 zero checksum skipped: %+v", f.Checksum)
	for _, p := range f.Problems {
		require.NotEqual(t, SeverityError, p.Severity, "consistent file has error %+v", p)
	}
	// an inconsistent machine state: the replay predicts a failed start
	s := sampleMemory()
	s.MachineState[0].MemoryMap["memory"].Reserved = 3 << 30
	s.MachineState[0].MemoryMap["memory"].Free = 4 << 30
	data, err = Encode(&File{Kind: KindMemory, Memory: s}, FormatV3)
	require.NoError(t, err)
	f = mustDecode(t, data, Options{Name: "m"})
	found := false
	for _, p := range f.Problems {
		found = found || strings.Contains(p.Message, "expected machine state is different")
	}
	assert.True(t, f.KubeletAccepts, "inconsistent machine state accepted at restore: %s", f.Reason)
	assert.True(t, found, "a problem predicts the failed start: %+v", f.Problems)
}

func TestDocumentationSample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "examples", "inspect", "memory_manager_state.sample.json"))
	require.NoError(t, err)
	f := mustDecode(t, data, Options{Name: "sample"})
	require.Equal(t, KindMemory, f.Kind, "sample kind")
	require.False(t, f.KubeletAccepts, "sample accepted")
	require.Empty(t, f.Checksum.Matched, "sample checksum layout: %+v", f.Checksum)
	groups := f.Memory.Groups()
	require.Len(t, groups, 1, "groups")
	require.Len(t, groups[0].Nodes, 2, "nodes of group 0")
	var mem *GroupResource
	for i := range groups[0].Resources {
		if groups[0].Resources[i].Name == "memory" {
			mem = &groups[0].Resources[i]
		}
	}
	require.NotNil(t, mem, "memory resource of group 0")
	assert.EqualValues(t, 103739236352, mem.Sum.Free, "free memory of the group")
	require.NotEmpty(t, mem.PerNode, "per-node memory")
	assert.EqualValues(t, 0, mem.PerNode[0].Table.Free, "free memory of node 0")
	assert.EqualValues(t, 3<<30, mem.PerNode[0].Table.SystemReserved, "system-reserved memory of node 0")
	alias := 0
	for _, p := range f.Problems {
		if p.Severity == SeverityInfo && strings.Contains(p.Path, "/nodes") {
			alias++
		}
	}
	require.Equal(t, 2, alias, "alias notes (info problems at /nodes): %+v", f.Problems)
}

func TestLimits(t *testing.T) {
	_, err := Decode(bytes.Repeat([]byte(" "), 100), Options{Name: "big", MaxSize: 10})
	require.ErrorIs(t, err, ErrTooLarge, "size")
	assert.Contains(t, err.Error(), "big", "the error names the file")
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	_, err = Decode([]byte(`{"a":`+deep+`}`), Options{Name: "deep"})
	require.ErrorIs(t, err, ErrTooDeep, "depth")
	_, err = Decode([]byte(`{"policyName":`), Options{Name: "trunc"})
	require.ErrorIs(t, err, ErrNotJSON, "syntax")
	_, err = Decode([]byte(`{"hello":1}`), Options{Name: "other"})
	require.ErrorIs(t, err, ErrUnknownKind, "kind")
	_, err = Decode([]byte(`[]`), Options{Name: "arr"})
	require.ErrorIs(t, err, ErrUnknownKind, "array")
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	require.NoError(t, WriteFile(path, []byte("one")))
	require.NoError(t, WriteFile(path, []byte("two")))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Equal(t, "two", string(b), "content")
	assert.Len(t, entries, 1, "entries in the directory (no temporary file left)")
	f, err := ReadFile(path, Options{})
	require.Error(t, err, "ReadFile of non-JSON")
	assert.Nil(t, f, "file from ReadFile of non-JSON")
	assert.Contains(t, err.Error(), path, "the error names the file")
}

// A zero checksum on a cpu v3 / memory v2 file fails the kubelet's check for
// that format; the kubelet accepts the file only through the older reader,
// which drops podEntries.
func TestZeroChecksumFallbackDropsPodEntries(t *testing.T) {
	cases := []struct {
		kind   Kind
		blob   string
		format Format
	}{
		{KindCPU, `{"policyName":"static","defaultCpuSet":"0,3","entries":{"p":{"c":"1-2"}},"podEntries":{"p":{"cpuSet":"1-2"}},"checksum":0}`, FormatV3},
		{KindMemory, `{"policyName":"Static","machineState":{},"entries":{},"podEntries":{"p":{"memoryBlocks":[{"numaAffinity":[0],"type":"memory","size":1}]}},"checksum":0}`, FormatV2},
	}
	for _, c := range cases {
		opts := Options{Name: string(c.kind) + "_state", Kind: c.kind}
		f := mustDecode(t, []byte(c.blob), opts)
		assert.Equal(t, c.format, f.Format, "%s: format", c.kind)
		assert.True(t, f.KubeletAccepts, "%s: accepted through the fallback: %s", c.kind, f.Reason)
		assert.False(t, f.Checksum.Valid, "%s: checksum valid", c.kind)
		assert.True(t, f.Checksum.ZeroSkipped, "%s: zero checksum skipped", c.kind)
		assert.Empty(t, f.Checksum.Matched, "%s: matched layout", c.kind)
		if f.CPU != nil {
			assert.Empty(t, f.CPU.PodEntries, "%s: the restored state keeps podEntries the kubelet's fallback drops", c.kind)
		}
		if f.Memory != nil {
			assert.Empty(t, f.Memory.PodEntries, "%s: the restored state keeps podEntries the kubelet's fallback drops", c.kind)
		}
		found := false
		for _, p := range f.Problems {
			found = found || strings.Contains(p.Message, "falls back") && strings.Contains(p.Message, "podEntries")
		}
		assert.True(t, found, "%s: no problem explains the fallback (falls back ... podEntries): %+v", c.kind, f.Problems)
		v, err := Verify([]byte(c.blob), opts)
		if assert.NoError(t, err, "%s: Verify", c.kind) {
			assert.Equal(t, f.Format, v.Format, "%s: format of Verify and Decode", c.kind)
			assert.Equal(t, f.Checksum.Valid, v.Checksum.Valid, "%s: checksum valid for Verify and Decode", c.kind)
			assert.Equal(t, f.KubeletAccepts, v.KubeletAccepts, "%s: accepts for Verify and Decode", c.kind)
		}
	}
}

// A cpu file without entries whose checksum is in the v1 layout (the
// upstream v1.21 test vector) is v1 for Decode and Verify alike.
func TestCPUV1WithoutEntriesSameFormatInVerify(t *testing.T) {
	blob := []byte(`{"policyName":"none","defaultCPUSet":"1-3","checksum":1694838852}`)
	opts := Options{Name: "cpu_manager_state", Kind: KindCPU, Policy: "none"}
	f := mustDecode(t, blob, opts)
	v, err := Verify(blob, opts)
	require.NoError(t, err)
	assert.Equal(t, FormatV1, f.Format, "Decode format")
	assert.Equal(t, FormatV1, v.Format, "Verify format")
	assert.EqualValues(t, layoutCPUV1, f.Checksum.Matched, "Decode matched layout")
	assert.False(t, f.KubeletAccepts, "Decode accepts")
	assert.False(t, v.KubeletAccepts, "Verify accepts")
}

// A spew-era DRA file without Data and Checksum members leaves kubelet
// v1.37.2 with its empty default checkpoint: accepted, no claim restored.
func TestDRASpewWithoutChecksumRestoresNoClaim(t *testing.T) {
	blob := []byte(`{"version":"v1","entries":[{"DriverName":"d.example.com","ClassName":"c","ClaimUID":"u1","ClaimName":"n","Namespace":"default","PodUIDs":{"p":{}}}]}`)
	f := mustDecode(t, blob, Options{Name: "dra_manager_state", Kind: KindDRA})
	require.True(t, f.KubeletAccepts, "accepted: %s", f.Reason)
	require.NotNil(t, f.DRA, "DRA state")
	require.Empty(t, f.DRA.Claims, "restored claims")
	found := false
	for _, p := range f.Problems {
		found = found || strings.Contains(p.Message, "forgets its 1 claims")
	}
	assert.True(t, found, "no problem says the claim is forgotten: %+v", f.Problems)
}

// Problems come out in one order (worst first, then as found) however the
// maps in the file are walked: decoding the same file again gives the same
// list.
func TestProblemsOrderIsDeterministic(t *testing.T) {
	rank := map[Severity]int{SeverityError: 0, SeverityWarning: 1, SeverityInfo: 2}
	checked := 0
	for _, kind := range []Kind{KindCPU, KindMemory, KindDevice, KindDRA} {
		dir := filepath.Join("testdata", "kubelet", string(kind))
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			require.NoError(t, err)
			opts := Options{Name: e.Name(), Kind: kind}
			first, err := Decode(data, opts)
			if err != nil {
				continue
			}
			ps := first.Problems
			for i := 1; i < len(ps); i++ {
				assert.LessOrEqual(t, rank[ps[i-1].Severity], rank[ps[i].Severity], "%s/%s: problem %d (%s) comes before a worse one (%s)", kind, e.Name(), i-1, ps[i-1].Severity, ps[i].Severity)
			}
			for run := 0; run < 10; run++ {
				again := mustDecode(t, data, opts)
				require.Empty(t, cmp.Diff(first.Problems, again.Problems), "%s/%s: decode %d lists the problems in another order", kind, e.Name(), run+2)
			}
			if len(ps) > 1 {
				checked++
			}
		}
	}
	require.NotZero(t, checked, "no test file has more than one problem; the order check checked nothing")
	t.Logf("%d files with several problems decode in one order", checked)
}

// TestRefusedCPUFileShowsWhatItRecords: the kubelet restores nothing from a
// cpu_manager_state whose checksum matches no layout, but File.CPU holds what
// the file records, read as the kubelet's reader of that format reads it (as
// for memory and for cpu v4), on the fast path and on the exact one.
func TestRefusedCPUFileShowsWhatItRecords(t *testing.T) {
	cases := map[string]struct {
		file    string
		format  Format
		def     string
		entries map[string]map[string]string
		pods    map[string]string
	}{
		"v2": {file: "v2-checksum-flipped.json", format: FormatV2, def: "0,2-9,11-19,21-27,29-31",
			entries: map[string]map[string]string{"79ca8f13-a41f-14a9-217b-16ccb93f3d40": {"c": "1,10", "metrics-1": "20,28"}},
			pods:    map[string]string{}},
		"v3 with podEntries": {file: "v3-checksum-flipped.json", format: FormatV3, def: "0",
			entries: map[string]map[string]string{"7ff3b637-f28b-27c0-359d-1458400d34a9": {"c-2": "4", "sidecar": "1,3", "sidecar-1": "2,5-7"}},
			pods:    map[string]string{"7ff3b637-f28b-27c0-359d-1458400d34a9": "1-7"}},
		"v4 data": {file: "v4-datachecksum-flipped.json", format: FormatV4, def: "0-2,4-5,7-11,13-14,16,18-20,22,24-26,29-32,35,39-42,44-46,48-52,54-57,59-63",
			entries: map[string]map[string]string{
				"01bffdca-2794-0ec5-c637-d97f87fd5d94": {"c": "47", "metrics-1": "3"},
				"4946123e-82aa-dfd0-4244-3b737d814fa3": {"app-1": "6,37", "sidecar": "23,33", "worker-2": "17,36,58"},
				"9a5953fe-ddfe-5313-e607-cf22db673c5c": {"c": "15,34,43", "metrics-1": "27,38", "proxy-2": "12,21"},
				"9c6e4ee7-726c-1b5b-3469-9bd169ba796c": {"sidecar": "28,53"}},
			pods: map[string]string{"9a5953fe-ddfe-5313-e607-cf22db673c5c": "12,15,21,27,34,38,43", "9c6e4ee7-726c-1b5b-3469-9bd169ba796c": "28,53"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "kubelet", "cpu", c.file))
			require.NoError(t, err)
			for _, fast := range []bool{true, false} {
				f, err := decode(data, Options{Name: "cpu_manager_state", Kind: KindCPU}, fast)
				require.NoError(t, err, "fast %v", fast)
				assert.False(t, f.KubeletAccepts, "fast %v: a checksum mismatch is refused", fast)
				assert.Equal(t, RefusesToStart, f.OnReject, "fast %v", fast)
				assert.Equal(t, c.format, f.Format, "fast %v", fast)
				require.NotNil(t, f.CPU, "fast %v", fast)
				got := map[string]map[string]string{}
				for pod, cs := range f.CPU.Entries {
					got[pod] = map[string]string{}
					for name, set := range cs {
						got[pod][name] = set.String()
					}
				}
				pods := map[string]string{}
				for pod, set := range f.CPU.PodEntries {
					pods[pod] = set.String()
				}
				assert.Equal(t, "static", f.CPU.PolicyName, "fast %v", fast)
				assert.Equal(t, c.def, f.CPU.DefaultCPUSet.String(), "fast %v", fast)
				assert.Empty(t, cmp.Diff(c.entries, got), "fast %v: entries", fast)
				assert.Empty(t, cmp.Diff(c.pods, pods), "fast %v: pod entries", fast)
			}
			diff, _ := fastDiff(t, data, Options{Kind: KindCPU})
			assert.Empty(t, diff, "fast and exact decodes differ")
		})
	}
}

// TestRefusedCPUFileReportsItsOverlaps: problems in what a refused file
// records are reported beside the checksum error.
func TestRefusedCPUFileReportsItsOverlaps(t *testing.T) {
	data := []byte(`{"policyName":"static","defaultCpuSet":"0-3","entries":{"pod-a":{"web":"3-4"},"pod-b":{"db":"4"}},"checksum":1}`)
	f := mustDecode(t, data, Options{Name: "cpu_manager_state"})
	assert.False(t, f.KubeletAccepts, "refused")
	var msgs []string
	for _, p := range f.Problems {
		msgs = append(msgs, p.Message)
	}
	joined := strings.Join(msgs, "\n")
	assert.Contains(t, joined, "stored checksum 1 matches no layout", "the checksum error")
	assert.Contains(t, joined, "assigned to both", "CPU 4 held twice")
	assert.Contains(t, joined, "also in the default", "CPU 3 also shared")
}
