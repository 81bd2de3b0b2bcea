package podresources_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/podresources"
)

var equateEmpty = cmpopts.EquateEmpty()

func load(t *testing.T, form string) *podresources.Snapshot {
	t.Helper()
	s, err := podresources.LoadDir(filepath.Join("testdata", "offline", form))
	require.NoError(t, err)
	return s
}

// The four saved forms of the same node read back identically (QoS classes
// exist only in numascope's form).
func TestOfflineFormsAgree(t *testing.T) {
	want := load(t, "numascope")
	for _, form := range []string{"protojson", "protonames", "rte"} {
		got := load(t, form)
		assert.Empty(t, cmp.Diff(want, got, equateEmpty, cmpopts.IgnoreFields(podresources.PodResources{}, "QOSClass")), "%s differs from numascope's form (-numascope +%s)", form, form)
		assert.Equal(t, []int{0}, got.Pods[0].Containers[1].Devices[0].NUMANodes[:1], "%s: NUMA node 0 lost", form)
	}
}

func TestJSONKeepsNUMANodeZeroAndEmptyLists(t *testing.T) {
	s := podresources.Snapshot{Pods: []podresources.PodResources{{
		Name: "p", Namespace: "ns",
		Containers: []podresources.ContainerResources{{
			Name:    "c",
			Memory:  []podresources.ContainerMemory{{Type: "memory", Size: 1, NUMANodes: []int{0}}},
			Devices: []podresources.ContainerDevices{{ResourceName: "r", DeviceIDs: []string{"d"}}},
		}},
	}}}
	data, err := json.Marshal(s)
	require.NoError(t, err)
	got := string(data)
	for _, want := range []string{
		`"numaNodes":[0]`, `"cpuIds":[]`, `"devices":[{"resourceName":"r","deviceIds":["d"],"numaNodes":[]}]`,
		`"dynamicResources":[]`, `"allocatable":null`, `"cpuIdsStatus":"none"`, `"qosClass":"Guaranteed","qosClassInferred":true`,
	} {
		assert.Contains(t, got, want, "JSON")
	}
	assert.NotContains(t, got, "null,", "JSON has a null list")
	if !strings.Contains(got, `"allocatable":null}`) {
		assert.NotContains(t, got, ":null}", "JSON has a null list")
	}
	back, err := podresources.Decode(data)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(&s, back, equateEmpty), "round trip (-want +got)")
}

func TestRoundTripSample(t *testing.T) {
	want := load(t, "numascope")
	data, err := json.Marshal(want)
	require.NoError(t, err)
	var got podresources.Snapshot
	require.NoError(t, json.Unmarshal(data, &got))
	assert.Empty(t, cmp.Diff(want, &got, equateEmpty), "round trip (-want +got)")
}

func TestStatus(t *testing.T) {
	c := podresources.ContainerResources{Name: "c"}
	withCPU := podresources.ContainerResources{Name: "c", CPUIDs: []int{1}}
	for _, tc := range []struct {
		q       podresources.QOSClass
		c       podresources.ContainerResources
		cpu     podresources.Status
		mem     podresources.Status
		inferQ  podresources.QOSClass
		inferFl bool
	}{
		{"", c, podresources.Unknown, podresources.Unknown, "", false},
		{podresources.BestEffort, c, podresources.NotReportedForQOSClass, podresources.NotReportedForQOSClass, podresources.BestEffort, false},
		{podresources.Burstable, c, podresources.NotReportedForQOSClass, podresources.NotReportedForQOSClass, podresources.Burstable, false},
		{podresources.Guaranteed, c, podresources.None, podresources.None, podresources.Guaranteed, false},
		{"", withCPU, podresources.Assigned, podresources.None, podresources.Guaranteed, true},
	} {
		p := podresources.PodResources{Name: "p", Namespace: "n", QOSClass: tc.q, Containers: []podresources.ContainerResources{tc.c}}
		assert.Equal(t, tc.cpu, p.CPUStatus(&p.Containers[0]), "%q %v: CPUStatus", tc.q, tc.c.CPUIDs)
		assert.Equal(t, tc.mem, p.MemoryStatus(&p.Containers[0]), "%q %v: MemoryStatus", tc.q, tc.c.CPUIDs)
		q, inf := p.EffectiveQOSClass()
		assert.Equal(t, tc.inferQ, q, "%q %v: EffectiveQOSClass class", tc.q, tc.c.CPUIDs)
		assert.Equal(t, tc.inferFl, inf, "%q %v: EffectiveQOSClass inferred", tc.q, tc.c.CPUIDs)
	}
	assert.Equal(t, "not reported for this QoS class", podresources.NotReportedForQOSClass.Describe(), "Describe")
}

func TestSetQOSClasses(t *testing.T) {
	s := load(t, "rte")
	require.NoError(t, s.SetQOSClasses(map[string]podresources.QOSClass{"kube-system/coredns-7d8f": podresources.BestEffort}))
	p := s.Pod("kube-system", "coredns-7d8f")
	assert.Equal(t, podresources.NotReportedForQOSClass, p.CPUStatus(&p.Containers[0]), "status after SetQOSClasses")
	assert.Error(t, s.SetQOSClasses(map[string]podresources.QOSClass{"a/b": "Gold"}), "an invalid class")
	assert.Nil(t, s.Pod("nope", "nope"))
	assert.Nil(t, p.Container("nope"))
	assert.NotNil(t, p.Container("coredns"))
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		decode   func([]byte) error
		want     []string
	}{
		{"empty", ``, decodeList, []string{"(document)", "empty"}},
		{"syntax", "{\n\"pods\": [}", decodeList, []string{"line 2, column 10", "not valid JSON"}},
		{"trailing", `{} {}`, decodeList, []string{"unexpected data after the JSON value"}},
		{"not an object", `[]`, decodeList, []string{"expected an object, found an array"}},
		{"unknown field", `{"pods":[{"name":"a","namespace":"b","containers":[{"name":"c","cpuID":[1]}]}]}`, decodeList,
			[]string{"/pods/0/containers/0/cpuID", `unknown field "cpuID"`, "cpuIds"}},
		{"negative CPU", `{"podResources":[{"name":"a","namespace":"b","containers":[{"name":"c","cpuIds":["-1"]}]}]}`, decodeList,
			[]string{"/podResources/0/containers/0/cpuIds/0", "CPU id -1 is negative"}},
		{"bad NUMA", `{"pods":[{"name":"a","namespace":"b","containers":[{"name":"c","memory":[{"type":"memory","size":1,"topology":{"nodes":[{"ID":"x"}]}}]}]}]}`, decodeList,
			[]string{"/pods/0/containers/0/memory/0/topology/nodes/0/ID", `"x" is not a non-negative integer`}},
		{"duplicate pod", `{"pods":[{"name":"a","namespace":"b"},{"name":"a","namespace":"b"}]}`, decodeList,
			[]string{"/pods/1", "pod b/a is listed twice (also at index 0)"}},
		{"duplicate CPU", `{"pods":[{"name":"a","namespace":"b","containers":[{"name":"c","cpuIds":[1,1]}]}]}`, decodeList,
			[]string{"/pods/0/containers/0/cpuIds/1", "listed twice"}},
		{"two spellings", `{"pods":[{"name":"a","namespace":"b","containers":[{"name":"c","cpuIds":[1],"cpu_ids":[1]}]}]}`, decodeList,
			[]string{"repeats"}},
		{"type twice", `{"cpuIds":[],"memory":[{"type":"memory","memoryType":"memory","size":1}]}`, decodeAlloc,
			[]string{"/memory/0", `"type" and "memoryType" give the same value twice`}},
		{"no name", `{"pods":[{"namespace":"b"}]}`, decodeList, []string{"/pods/0", "no name"}},
		{"bad QoS", `{"pods":[{"name":"a","namespace":"b","qosClass":"Gold"}]}`, decodeList, []string{"/pods/0/qosClass", "Gold"}},
		{"allocatable as list", `{"cpuIds":["1"]}`, decodeList, []string{"looks like a GetAllocatableResources answer"}},
		{"get as list", `{"podResources":{"name":"a","namespace":"b"}}`, decodeList, []string{"looks like a Get answer"}},
		{"list as get", `{"podResources":[]}`, decodePod, []string{"this is a List answer"}},
		{"list as allocatable", `{"podResources":[]}`, decodeAlloc, []string{"looks like a List or Get answer"}},
		{"size too big", `{"memory":[{"type":"memory","size":"18446744073709551616"}]}`, decodeAlloc, []string{"/memory/0/size"}},
		{"string for array", `{"cpuIds":"0-3"}`, decodeAlloc, []string{"/cpuIds", `expected an array, found the string "0-3"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.decode([]byte(tc.in))
			require.Error(t, err, "decoding %s", tc.in)
			var de *podresources.DecodeError
			assert.True(t, errors.As(err, &de), "error %v is not a *DecodeError", err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func decodeList(b []byte) error  { _, err := podresources.Decode(b); return err }
func decodeAlloc(b []byte) error { _, err := podresources.DecodeAllocatable(b); return err }
func decodePod(b []byte) error   { _, err := podresources.DecodePod(b); return err }

func TestDecodeErrorsAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"pods":[`)
	for i := range 100 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"name":"p","namespace":"n","bogus":1}`)
	}
	b.WriteString(`]}`)
	_, err := podresources.Decode([]byte(b.String()))
	require.Error(t, err)
	assert.Equal(t, 20, strings.Count(err.Error(), "\n"), "lines in the error for 100 bad pods")
	assert.Contains(t, err.Error(), "and 179 more problems")
}

func TestDecodeAcceptsNumbersAndStrings(t *testing.T) {
	a, err := podresources.DecodeAllocatable([]byte(`{"allocatable":{"cpu_ids":[0,"1"],"memory":[{"memory_type":"memory","size":"1024","topology":{"nodes":[{},{"ID":1}]}}],"devices":[{"resourceName":"r","deviceIds":["a"],"topology":null}]}}`))
	require.NoError(t, err)
	want := &podresources.Allocatable{
		CPUIDs:  []int{0, 1},
		Memory:  []podresources.ContainerMemory{{Type: "memory", Size: 1024, NUMANodes: []int{0, 1}}},
		Devices: []podresources.ContainerDevices{{ResourceName: "r", DeviceIDs: []string{"a"}}},
	}
	assert.Empty(t, cmp.Diff(want, a, equateEmpty), "(-want +got)")
	p, err := podresources.DecodePod([]byte(`{"name":"a","namespace":"b","containers":[{"name":"c","dynamic_resources":[{"claim_name":"x","claim_namespace":"b","claim_resources":[{"cdi_devices":[{"name":"v/g=0"}],"driver_name":"d","pool_name":"p","device_name":"g","share_id":"s"}]}]}]}`))
	require.NoError(t, err)
	require.Len(t, p.Containers, 1, "containers")
	require.Len(t, p.Containers[0].DynamicResources, 1, "dynamic resources")
	require.Len(t, p.Containers[0].DynamicResources[0].ClaimResources, 1, "claim resources")
	cr := p.Containers[0].DynamicResources[0].ClaimResources[0]
	assert.Equal(t, []string{"v/g=0"}, cr.CDIDevices, "CDI devices")
	assert.Equal(t, "s", cr.ShareID, "share ID")
	assert.Equal(t, "d", cr.DriverName, "driver name")
}

func TestLoadDirErrorsAndNotes(t *testing.T) {
	_, err := podresources.LoadDir(filepath.Join(t.TempDir(), "nope"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not exist")
	_, err = podresources.LoadDir(t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "holds none of list.json")

	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
	}
	write("list.json", `{"podResources":[{"name":"a","namespace":"n","containers":[{"name":"c","cpuIds":["1"]}]}]}`)
	s, err := podresources.LoadDir(dir)
	require.NoError(t, err)
	assert.Nil(t, s.Allocatable, "allocatable without allocatable.json")
	if assert.Len(t, s.Notes, 1, "notes") {
		assert.Contains(t, s.Notes[0], "no allocatable.json", "the note says what is missing")
	}
	write("get-n-b.json", `{"podResources":{"name":"b","namespace":"n"}}`)
	write("get-wrong-name.json", `{"podResources":{"name":"a","namespace":"n","containers":[{"name":"c","cpuIds":["2"]}]}}`)
	s, err = podresources.LoadDir(dir)
	require.NoError(t, err)
	notes := strings.Join(s.Notes, "\n")
	for _, w := range []string{"pod n/b is in get-n-b.json but not in list.json", "get-wrong-name.json holds pod n/a", "differs between list.json and get-wrong-name.json"} {
		assert.Contains(t, notes, w, "notes")
	}
	assert.Len(t, s.Pods, 2, "pods")
	if a := s.Pod("n", "a"); assert.NotNil(t, a, "pod n/a") && assert.NotEmpty(t, a.Containers, "containers of n/a") {
		assert.Equal(t, []int{2}, a.Containers[0].CPUIDs, "CPUs of n/a from get-wrong-name.json")
	}

	write("allocatable.json", `{"cpuIds":[1]}`)
	write("get_allocatable_resources.json", `{"cpu_ids":[1]}`)
	_, err = podresources.LoadDir(dir)
	if assert.Error(t, err, "two allocatable files") {
		assert.Contains(t, err.Error(), "both present")
	}
	require.NoError(t, os.Remove(filepath.Join(dir, "get_allocatable_resources.json")))
	write("allocatable.json", `{"cpuIds":[1],}`)
	_, err = podresources.LoadDir(dir)
	if assert.Error(t, err, "bad allocatable.json") {
		assert.Contains(t, err.Error(), filepath.Join(dir, "allocatable.json")+": (document): not valid JSON at line 1, column 15: invalid character '}'")
	}
}

func TestLoadDirAcceptsAFile(t *testing.T) {
	s, err := podresources.LoadDir(filepath.Join("testdata", "offline", "numascope", "list.json"))
	require.NoError(t, err)
	assert.Len(t, s.Pods, 3)
	assert.NotNil(t, s.Allocatable)
}

func TestSort(t *testing.T) {
	s := &podresources.Snapshot{
		Pods: []podresources.PodResources{
			{Name: "b", Namespace: "x", Containers: []podresources.ContainerResources{{Name: "c", CPUIDs: []int{3, 1}}}},
			{Name: "a", Namespace: "x"},
			{Name: "z", Namespace: "a"},
		},
		Allocatable: &podresources.Allocatable{CPUIDs: []int{2, 0}, Devices: []podresources.ContainerDevices{{ResourceName: "r", DeviceIDs: []string{"b", "a"}}}},
	}
	s.Sort()
	want := &podresources.Snapshot{
		Pods: []podresources.PodResources{
			{Name: "z", Namespace: "a"},
			{Name: "a", Namespace: "x"},
			{Name: "b", Namespace: "x", Containers: []podresources.ContainerResources{{Name: "c", CPUIDs: []int{1, 3}}}},
		},
		Allocatable: &podresources.Allocatable{CPUIDs: []int{0, 2}, Devices: []podresources.ContainerDevices{{ResourceName: "r", DeviceIDs: []string{"a", "b"}}}},
	}
	assert.Empty(t, cmp.Diff(want, s), "sorted (-want +got)")
}

// The model must stay free of gRPC so that the browser build can use it.
func TestNoGRPCInTheModel(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	cmd := exec.Command(goTool, "list", "-deps", ".")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go list for js/wasm:\n%s", out)
	for _, dep := range strings.Fields(string(out)) {
		assert.False(t, strings.HasPrefix(dep, "google.golang.org/"), "the model depends on %s", dep)
		assert.False(t, strings.HasPrefix(dep, "k8s.io/kubelet"), "the model depends on %s", dep)
	}
}

// A snapshot's pods.json is read by the pod reader WithPods gives
// (evidence.PodQOSClasses: topomgr.ParsePods), and left unread, with a
// note, without one.
func TestLoadDirReadsPodsJSON(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"list.json", "get_allocatable_resources.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "offline", "rte", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), data, 0o644))
	}
	pods := filepath.Join(dir, "pods.json")
	require.NoError(t, os.WriteFile(pods, []byte(`{"kind":"List","items":[{"metadata":{"name":"coredns-7d8f","namespace":"kube-system"},"spec":{"containers":[{"name":"coredns"}]},"status":{"qosClass":"BestEffort"}}]}`), 0o644))
	s, err := podresources.LoadDir(dir, podresources.WithPods(evidence.PodQOSClasses))
	require.NoError(t, err)
	assert.Equal(t, podresources.BestEffort, s.Pod("kube-system", "coredns-7d8f").QOSClass, "QoS class")
	s, err = podresources.LoadDir(dir)
	require.NoError(t, err, "without a pods reader")
	assert.Empty(t, s.Pod("kube-system", "coredns-7d8f").QOSClass, "QoS class without a pods reader")
	assert.Contains(t, strings.Join(s.Notes, "\n"), pods+" not read", "the note of an unread pods.json")
	for name, content := range map[string]string{
		"no pod":           `[]`,
		"an invalid class": `{"kind":"List","items":[{"metadata":{"name":"a","namespace":"n"},"spec":{"containers":[{"name":"c"}]},"status":{"qosClass":"Gold"}}]}`,
		"no namespace":     `{"kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c"}]}}`,
		"not a pod":        "{\n\"kind\": }",
	} {
		require.NoError(t, os.WriteFile(pods, []byte(content), 0o644))
		_, err = podresources.LoadDir(dir, podresources.WithPods(evidence.PodQOSClasses))
		if assert.Error(t, err, "bad pods.json: %s", name) {
			assert.Contains(t, err.Error(), pods, "the error names the file: %s", name)
		}
	}
}

// manyPods is a List answer naming n pods in protobuf-JSON.
func manyPods(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"podResources":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"p%d","namespace":"n"}`, i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// emptyArray is a JSON array of empty objects of about size bytes.
func emptyArray(size int) []byte {
	return []byte("[" + strings.Repeat("{},", size/3) + "{}]")
}

// Every hostile snapshot ends quickly with an error that names the file
// and wraps the sentinel callers test.
func TestLoadDirHostile(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, files map[string][]byte) string {
		t.Helper()
		d := filepath.Join(dir, name)
		require.NoError(t, os.Mkdir(d, 0o755))
		for f, data := range files {
			require.NoError(t, os.WriteFile(filepath.Join(d, f), data, 0o600))
		}
		return d
	}
	fifoDir := mk("fifo", nil)
	require.NoError(t, syscall.Mkfifo(filepath.Join(fifoDir, "list.json"), 0o600))
	fifoPods := mk("fifo-pods", map[string][]byte{"list.json": []byte(`{"pods":[]}`)})
	require.NoError(t, syscall.Mkfifo(filepath.Join(fifoPods, "pods.json"), 0o600))
	devDir := mk("dev", nil)
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(devDir, "list.json")))
	bigDir := mk("big", nil)
	require.NoError(t, os.WriteFile(filepath.Join(bigDir, "list.json"), nil, 0o600))
	require.NoError(t, os.Truncate(filepath.Join(bigDir, "list.json"), input.MaxPodResources+1))
	millionFile := filepath.Join(mk("million", map[string][]byte{"list.json": manyPods(1_000_000)}), "list.json")
	arrayDir := mk("array", map[string][]byte{"list.json": emptyArray(20 << 20)})
	podsArrayDir := mk("pods-array", map[string][]byte{"list.json": []byte(`{"pods":[]}`), "pods.json": emptyArray(20 << 20)})
	deepDir := mk("deep", map[string][]byte{"allocatable.json": []byte(strings.Repeat("[", 40) + strings.Repeat("]", 40)), "list.json": []byte(`{"pods":[]}`)})

	tests := []struct {
		name    string
		path    string
		is      error
		wantErr []string
	}{
		{name: "FIFO in the directory", path: fifoDir, is: input.ErrNotRegular, wantErr: []string{filepath.Join(fifoDir, "list.json"), "a FIFO (named pipe)"}},
		{name: "FIFO as pods.json", path: fifoPods, is: input.ErrNotRegular, wantErr: []string{filepath.Join(fifoPods, "pods.json"), "a FIFO"}},
		{name: "/dev/zero as the snapshot", path: "/dev/zero", is: input.ErrNotRegular, wantErr: []string{"/dev/zero", "a character device"}},
		{name: "list.json links to /dev/zero", path: devDir, is: input.ErrNotRegular, wantErr: []string{"list.json", "a character device"}},
		{name: "list.json over the byte limit", path: bigDir, is: input.ErrTooLarge, wantErr: []string{"list.json", "more than 64 MiB"}},
		{name: "1M-pod snapshot file", path: millionFile, is: podresources.ErrTooLarge, wantErr: []string{millionFile, "/podResources/20000", "more than 20000 pods"}},
		{name: "20 MB JSON array as list.json", path: arrayDir, is: input.ErrTooManyValues, wantErr: []string{"list.json", "more than 8388608 values"}},
		{name: "20 MB JSON array as pods.json", path: podsArrayDir, is: input.ErrTooManyValues, wantErr: []string{"pods.json", "--field-selector spec.nodeName=NODE"}},
		{name: "nesting past the depth limit", path: deepDir, is: input.ErrTooManyValues, wantErr: []string{"allocatable.json", "nested deeper than 32 levels"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := podresources.LoadDir(tt.path)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				require.FailNow(t, "LoadDir did not end within 10 s")
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.is)
			for _, w := range tt.wantErr {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// LoadFS refuses special files and directories over the caps.
func TestLoadFSHostile(t *testing.T) {
	list := &fstest.MapFile{Data: []byte(`{"pods":[]}`)}
	many := fstest.MapFS{podresources.ListFile: list}
	for i := range podresources.MaxDirEntries {
		many[fmt.Sprintf("f%05d", i)] = &fstest.MapFile{}
	}
	gets := fstest.MapFS{}
	for i := range podresources.MaxGetFiles + 1 {
		gets[podresources.GetFileName("n", fmt.Sprint(i))] = &fstest.MapFile{Data: []byte(fmt.Sprintf(`{"podResources":{"name":"%d","namespace":"n"}}`, i))}
	}
	tests := []struct {
		name    string
		fsys    fstest.MapFS
		is      error
		wantErr string
	}{
		{name: "FIFO list.json", fsys: fstest.MapFS{podresources.ListFile: {Mode: fs.ModeNamedPipe}}, is: input.ErrNotRegular, wantErr: "list.json: not a regular file: it is a FIFO"},
		{name: "device Get answer", fsys: fstest.MapFS{podresources.ListFile: list, "get-n-a.json": {Mode: fs.ModeDevice | fs.ModeCharDevice}}, is: input.ErrNotRegular, wantErr: "get-n-a.json: not a regular file: it is a character device"},
		{name: "socket allocatable.json", fsys: fstest.MapFS{podresources.ListFile: list, podresources.AllocatableFile: {Mode: fs.ModeSocket}}, is: input.ErrNotRegular, wantErr: "allocatable.json: not a regular file: it is a socket"},
		{name: "too many entries", fsys: many, is: podresources.ErrTooLarge, wantErr: "more than 10000 entries"},
		{name: "too many Get answers", fsys: gets, is: podresources.ErrTooLarge, wantErr: "1001 Get answers, more than 1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := podresources.LoadFS(tt.fsys)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.is)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

// The limits of one answer, each just over its bound.
func TestDecodeLimits(t *testing.T) {
	containers := func(n int) string {
		cs := make([]string, n)
		for i := range cs {
			cs[i] = fmt.Sprintf(`{"name":"c%d"}`, i)
		}
		return strings.Join(cs, ",")
	}
	tests := []struct {
		name    string
		data    []byte
		is      error
		wantErr string
	}{
		{name: "pods", data: manyPods(podresources.MaxPods + 1), is: podresources.ErrTooLarge, wantErr: "/podResources/20000: more than 20000 pods"},
		{name: "containers in a pod", data: []byte(`{"pods":[{"name":"a","namespace":"n","containers":[` + containers(podresources.MaxContainersPerPod+1) + `]}]}`),
			is: podresources.ErrTooLarge, wantErr: "/pods/0/containers/1000: more than 1000 containers in one pod"},
		{name: "CPU id over the bound", data: []byte(`{"pods":[{"name":"a","namespace":"n","containers":[{"name":"c","cpuIds":[65536]}]}]}`),
			wantErr: "/pods/0/containers/0/cpuIds/0: CPU id 65536 is out of range (at most 65535)"},
		{name: "values", data: emptyArray(30 << 20), is: input.ErrTooManyValues, wantErr: "(document): line 1: document over the value budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := podresources.Decode(tt.data)
			require.Error(t, err)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
	_, err := podresources.Decode(manyPods(podresources.MaxPods))
	assert.NoError(t, err, "MaxPods pods are accepted")
}
