package podresources_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/numascope/numascope/podresources"
)

func TestPerNUMA(t *testing.T) {
	snap := load(t, "numascope")
	cpus, err := podresources.ParseCPULists(map[int]string{0: "0-7", 1: "8-15"})
	if err != nil {
		t.Fatal(err)
	}
	v := snap.PerNUMA(cpus)
	if len(v.Nodes) != 2 || !v.HasAllocatable {
		t.Fatalf("view has %d nodes", len(v.Nodes))
	}
	n0, n1 := v.Nodes[0], v.Nodes[1]
	want0 := podresources.CPUUse{Allocatable: []int{1, 2, 3, 4, 5, 6, 7}, Taken: []int{2, 3}, Free: []int{1, 4, 5, 6, 7}}
	if d := cmp.Diff(want0, n0.CPUs); d != "" {
		t.Errorf("node 0 CPUs (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{12, 13, 14, 15}, n1.CPUs.Free); d != "" {
		t.Errorf("node 1 free CPUs (-want +got):\n%s", d)
	}
	const gib = 1 << 30
	wantMem0 := []podresources.MemoryUse{
		{Type: "hugepages-1Gi", Allocatable: 4 * gib, Taken: 2 * gib},
		{Type: "memory", Allocatable: 30 * gib, Taken: 1 * gib, Spanning: 4 * gib},
	}
	if d := cmp.Diff(wantMem0, n0.Memory); d != "" {
		t.Errorf("node 0 memory (-want +got):\n%s", d)
	}
	wantDev1 := []podresources.DeviceUse{
		{ResourceName: "example.com/gpu", Allocatable: []string{"gpu1"}, Taken: []string{}, Free: []string{"gpu1"}},
		{ResourceName: "example.com/nic", Allocatable: []string{"nic1"}, Taken: []string{"nic1"}, Free: []string{}},
	}
	if d := cmp.Diff(wantDev1, n1.Devices); d != "" {
		t.Errorf("node 1 devices (-want +got):\n%s", d)
	}
	if len(n0.Holders) != 2 || n0.Holders[0].Pod != "default/web" || n0.Holders[1].Pod != "shop/db" {
		t.Errorf("node 0 holders = %+v", n0.Holders)
	}
	if u := v.Unplaced; len(u.Devices) != 1 || u.Devices[0].ResourceName != "example.com/fpga" || len(u.Holders) != 1 || len(u.Holders[0].DynamicResources) != 1 {
		t.Errorf("unplaced = %+v", u)
	}
	if len(v.Shared) != 2 || v.Shared[1].CPUStatus != podresources.NotReportedForQOSClass {
		t.Errorf("shared = %+v", v.Shared)
	}
}

func TestPerNUMAWithoutMapOrAllocatable(t *testing.T) {
	snap := load(t, "numascope")
	snap.Allocatable = nil
	v := snap.PerNUMA(nil)
	if v.HasAllocatable {
		t.Error("HasAllocatable without an allocatable answer")
	}
	// Without a CPU map every CPU is unplaced; memory and devices still
	// carry their NUMA nodes.
	if d := cmp.Diff([]int{2, 3, 8, 9, 10, 11}, v.Unplaced.CPUs.Taken); d != "" {
		t.Errorf("unplaced CPUs (-want +got):\n%s", d)
	}
	if len(v.Nodes) != 2 || len(v.Nodes[0].CPUs.Taken) != 0 {
		t.Errorf("nodes = %+v", v.Nodes)
	}
	var b bytes.Buffer
	if err := v.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"no allocatable answer", "cpus  taken 2-3,8-11 (6)", "shared CPU pool: 2 containers"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

func TestPerNUMAPodLevelResources(t *testing.T) {
	// KEP-5526: pod-level CPUs and memory include the containers' own.
	snap := &podresources.Snapshot{Pods: []podresources.Pod{{
		Name: "p", Namespace: "n",
		CPUIDs: []int{0, 1, 2, 3},
		Memory: []podresources.Memory{{Type: "memory", Size: 4096, NUMANodes: []int{0}}},
		Containers: []podresources.Container{
			{Name: "big", CPUIDs: []int{0, 1}, Memory: []podresources.Memory{{Type: "memory", Size: 1024, NUMANodes: []int{0}}}},
			{Name: "shared"},
		},
	}}}
	v := snap.PerNUMA(podresources.CPUMap{0: 0, 1: 0, 2: 0, 3: 0})
	n := v.Nodes[0]
	if d := cmp.Diff([]int{0, 1, 2, 3}, n.CPUs.Taken); d != "" {
		t.Errorf("taken (-want +got):\n%s", d)
	}
	if n.Memory[0].Taken != 4096 {
		t.Errorf("memory counted %d bytes, want the pod's 4096 once", n.Memory[0].Taken)
	}
	var pod *podresources.Holder
	for i := range n.Holders {
		if n.Holders[i].Container == "" {
			pod = &n.Holders[i]
		}
	}
	if pod == nil || !cmp.Equal(pod.CPUIDs, []int{2, 3}) {
		t.Errorf("pod-level holder = %+v", pod)
	}
	if len(v.Shared) != 1 || v.Shared[0].Container != "shared" || v.Shared[0].CPUStatus != podresources.None {
		t.Errorf("shared = %+v", v.Shared)
	}
}

func TestSharedListIsBounded(t *testing.T) {
	snap := &podresources.Snapshot{}
	for i := range 30 {
		snap.Pods = append(snap.Pods, podresources.Pod{Name: strings.Repeat("p", i+1), Namespace: "n", Containers: []podresources.Container{{Name: "c"}}})
	}
	v := snap.PerNUMA(nil)
	var b bytes.Buffer
	v.WriteText(&b)
	if !strings.Contains(b.String(), "... and 10 more") || !strings.Contains(b.String(), "30 none reported (QoS class unknown)") {
		t.Errorf("text:\n%s", b.String())
	}
}

func TestParseCPULists(t *testing.T) {
	m, err := podresources.ParseCPULists(map[int]string{0: "0-1,4\n", 1: "2-3"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(podresources.CPUMap{0: 0, 1: 0, 4: 0, 2: 1, 3: 1}, m); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, bad := range []map[int]string{{0: "0-x"}, {0: "0-3", 1: "3"}, {-1: "0"}} {
		if _, err := podresources.ParseCPULists(bad); err == nil {
			t.Errorf("ParseCPULists(%v) succeeded", bad)
		}
	}
}

func TestReadSysfsCPUMap(t *testing.T) {
	root := t.TempDir()
	for node, list := range map[string]string{"node0": "0-3\n", "node1": "4-7\n"} {
		dir := filepath.Join(root, "devices", "system", "node", node)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cpulist"), []byte(list), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, "devices", "system", "node", "possible"), []byte("0-1\n"), 0o644)
	m, err := podresources.ReadSysfsCPUMap(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 8 || m[5] != 1 || m[0] != 0 {
		t.Errorf("map = %v", m)
	}
	if _, err := podresources.ReadSysfsCPUMap(t.TempDir()); err == nil || !strings.Contains(err.Error(), "host's sysfs root") {
		t.Errorf("ReadSysfsCPUMap(empty) = %v", err)
	}
}

func TestQuantity(t *testing.T) {
	for in, want := range map[uint64]string{0: "0", 1: "1", 1024: "1Ki", 3 << 20: "3Mi", 1 << 30: "1Gi", 1<<30 + 1: "1073741825", 2 << 40: "2Ti"} {
		if got := podresources.Quantity(in); got != want {
			t.Errorf("Quantity(%d) = %q, want %q", in, got, want)
		}
	}
}
