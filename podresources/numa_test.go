package podresources_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/podresources"
)

func TestPerNUMA(t *testing.T) {
	snap := load(t, "numascope")
	cpus, err := podresources.ParseCPULists(map[int]string{0: "0-7", 1: "8-15"})
	require.NoError(t, err)
	v := snap.PerNUMA(cpus)
	require.Len(t, v.Nodes, 2, "NUMA nodes of the view")
	require.True(t, v.HasAllocatable, "the view has the allocatable answer")
	n0, n1 := v.Nodes[0], v.Nodes[1]
	want0 := podresources.CPUUse{Allocatable: []int{1, 2, 3, 4, 5, 6, 7}, Taken: []int{2, 3}, Free: []int{1, 4, 5, 6, 7}}
	assert.Empty(t, cmp.Diff(want0, n0.CPUs), "node 0 CPUs (-want +got)")
	assert.Empty(t, cmp.Diff([]int{12, 13, 14, 15}, n1.CPUs.Free), "node 1 free CPUs (-want +got)")
	const gib = 1 << 30
	wantMem0 := []podresources.MemoryUse{
		{Type: "hugepages-1Gi", Allocatable: 4 * gib, Taken: 2 * gib},
		{Type: "memory", Allocatable: 30 * gib, Taken: 1 * gib, Spanning: 4 * gib},
	}
	assert.Empty(t, cmp.Diff(wantMem0, n0.Memory), "node 0 memory (-want +got)")
	wantDev1 := []podresources.DeviceUse{
		{ResourceName: "example.com/gpu", Allocatable: []string{"gpu1"}, Taken: []string{}, Free: []string{"gpu1"}},
		{ResourceName: "example.com/nic", Allocatable: []string{"nic1"}, Taken: []string{"nic1"}, Free: []string{}},
	}
	assert.Empty(t, cmp.Diff(wantDev1, n1.Devices), "node 1 devices (-want +got)")
	if assert.Len(t, n0.Holders, 2, "holders on node 0") {
		assert.Equal(t, "default/web", n0.Holders[0].Pod, "pod of holder 0 on node 0")
		assert.Equal(t, "shop/db", n0.Holders[1].Pod, "pod of holder 1 on node 0")
	}
	u := v.Unplaced
	if assert.Len(t, u.Devices, 1, "unplaced devices") {
		assert.Equal(t, "example.com/fpga", u.Devices[0].ResourceName, "resource of the unplaced device")
	}
	if assert.Len(t, u.Holders, 1, "unplaced holders") {
		assert.Len(t, u.Holders[0].DynamicResources, 1, "dynamic resources of the unplaced holder")
	}
	if assert.Len(t, v.Shared, 2, "shared-pool containers") {
		assert.Equal(t, podresources.NotReportedForQOSClass, v.Shared[1].CPUStatus, "CPU status of shared container 1")
	}
}

func TestPerNUMAWithoutMapOrAllocatable(t *testing.T) {
	snap := load(t, "numascope")
	snap.Allocatable = nil
	v := snap.PerNUMA(nil)
	assert.False(t, v.HasAllocatable, "HasAllocatable without an allocatable answer")
	// Without a CPU map every CPU is unplaced; memory and devices still
	// carry their NUMA nodes.
	assert.Empty(t, cmp.Diff([]int{2, 3, 8, 9, 10, 11}, v.Unplaced.CPUs.Taken), "unplaced CPUs (-want +got)")
	if assert.Len(t, v.Nodes, 2, "NUMA nodes") {
		assert.Empty(t, v.Nodes[0].CPUs.Taken, "CPUs taken on node 0 without a CPU map")
	}
	var b bytes.Buffer
	require.NoError(t, v.WriteText(&b))
	for _, want := range []string{"no allocatable answer", "cpus  taken 2-3,8-11 (6)", "shared CPU pool: 2 containers"} {
		assert.Contains(t, b.String(), want, "text")
	}
}

func TestPerNUMAPodLevelResources(t *testing.T) {
	// KEP-5526: pod-level CPUs and memory include the containers' own.
	snap := &podresources.Snapshot{Pods: []podresources.PodResources{{
		Name: "p", Namespace: "n",
		CPUIDs: []int{0, 1, 2, 3},
		Memory: []podresources.ContainerMemory{{Type: "memory", Size: 4096, NUMANodes: []int{0}}},
		Containers: []podresources.ContainerResources{
			{Name: "big", CPUIDs: []int{0, 1}, Memory: []podresources.ContainerMemory{{Type: "memory", Size: 1024, NUMANodes: []int{0}}}},
			{Name: "shared"},
		},
	}}}
	v := snap.PerNUMA(podresources.CPUMap{0: 0, 1: 0, 2: 0, 3: 0})
	n := v.Nodes[0]
	assert.Empty(t, cmp.Diff([]int{0, 1, 2, 3}, n.CPUs.Taken), "taken (-want +got)")
	require.NotEmpty(t, n.Memory, "memory of node 0")
	assert.EqualValues(t, 4096, n.Memory[0].Taken, "memory counted: the pod's 4096 bytes once")
	var pod *podresources.Holder
	for i := range n.Holders {
		if n.Holders[i].Container == "" {
			pod = &n.Holders[i]
		}
	}
	if assert.NotNil(t, pod, "pod-level holder in %+v", n.Holders) {
		assert.Empty(t, cmp.Diff([]int{2, 3}, pod.CPUIDs), "CPUs of the pod-level holder (-want +got)")
	}
	if assert.Len(t, v.Shared, 1, "shared-pool containers") {
		assert.Equal(t, "shared", v.Shared[0].Container, "shared container")
		assert.Equal(t, podresources.None, v.Shared[0].CPUStatus, "CPU status of the shared container")
	}
}

func TestSharedListIsBounded(t *testing.T) {
	snap := &podresources.Snapshot{}
	for i := range 30 {
		snap.Pods = append(snap.Pods, podresources.PodResources{Name: strings.Repeat("p", i+1), Namespace: "n", Containers: []podresources.ContainerResources{{Name: "c"}}})
	}
	v := snap.PerNUMA(nil)
	var b bytes.Buffer
	require.NoError(t, v.WriteText(&b))
	assert.Contains(t, b.String(), "... and 10 more", "the list is cut")
	assert.Contains(t, b.String(), "30 none reported (QoS class unknown)", "the count of the whole list")
}

func TestParseCPULists(t *testing.T) {
	m, err := podresources.ParseCPULists(map[int]string{0: "0-1,4\n", 1: "2-3"})
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(podresources.CPUMap{0: 0, 1: 0, 4: 0, 2: 1, 3: 1}, m), "(-want +got)")
	for _, bad := range []map[int]string{{0: "0-x"}, {0: "0-3", 1: "3"}, {-1: "0"}} {
		_, err := podresources.ParseCPULists(bad)
		assert.Error(t, err, "ParseCPULists(%v)", bad)
	}
}

func TestReadSysfsCPUMap(t *testing.T) {
	root := t.TempDir()
	for node, list := range map[string]string{"node0": "0-3\n", "node1": "4-7\n"} {
		dir := filepath.Join(root, "devices", "system", "node", node)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "cpulist"), []byte(list), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "devices", "system", "node", "possible"), []byte("0-1\n"), 0o644))
	m, err := podresources.ReadSysfsCPUMap(root)
	require.NoError(t, err)
	assert.Len(t, m, 8, "CPUs in the map")
	assert.Equal(t, 1, m[5], "node of CPU 5")
	assert.Equal(t, 0, m[0], "node of CPU 0")
	_, err = podresources.ReadSysfsCPUMap(t.TempDir())
	if assert.Error(t, err, "ReadSysfsCPUMap(empty)") {
		assert.Contains(t, err.Error(), "host's sysfs root", "the error says what the directory should be")
	}
}
