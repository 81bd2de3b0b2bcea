package conformance

import (
	"fmt"
	"math/rand/v2"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	cpustate "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	devcheckpoint "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/checkpoint"
	drastate "k8s.io/kubernetes/pkg/kubelet/cm/dra/state"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
	"k8s.io/utils/cpuset"
)

// Rand returns the deterministic generator used for seed.
func Rand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6e756d6173636f70)) }

func uid(r *rand.Rand) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 36)
	for i := range b {
		switch i {
		case 8, 13, 18, 23:
			b[i] = '-'
		default:
			b[i] = hex[r.IntN(16)]
		}
	}
	return string(b)
}

var containerNames = []string{"app", "sidecar", "init-setup", "proxy", "worker", "db", "metrics", "c"}

func containerName(r *rand.Rand, i int) string {
	n := containerNames[r.IntN(len(containerNames))]
	if i > 0 {
		n = fmt.Sprintf("%s-%d", n, i)
	}
	return n
}

// Size bounds the random states.
type Size struct {
	Pods       int // at most this many pods
	Containers int // at most this many containers per pod
	NUMANodes  int // at most this many NUMA nodes
}

// SmallSize keeps golden files short.
var SmallSize = Size{Pods: 4, Containers: 3, NUMANodes: 4}

// RandomCPUData is a random CPU manager state as the kubelet keeps it in a
// v4 checkpoint's data: exclusive cpusets that do not overlap the default set.
// policy "none" has no assignments.
func RandomCPUData(r *rand.Rand, policy string, sz Size, withBaselines, withPodEntries bool) cpustate.CPUManagerCheckpointData {
	d := cpustate.CPUManagerCheckpointData{
		PolicyName: policy,
		Entries:    map[string]map[string]string{},
		PodEntries: cpustate.PodCPUAssignments{},
		Baselines:  map[string]map[string]cpustate.ContainerCPUs{},
	}
	ncpu := []int{4, 8, 16, 32, 64, 96, 192}[r.IntN(7)]
	all := make([]int, ncpu)
	for i := range all {
		all[i] = i
	}
	if policy == "none" {
		if r.IntN(2) == 0 {
			d.DefaultCPUSet = cpuset.New(all...).String()
		}
		return d
	}
	reserved := 1 + r.IntN(2)
	free := append([]int(nil), all[reserved:]...)
	r.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
	pods := r.IntN(sz.Pods + 1)
	for p := 0; p < pods && len(free) > 0; p++ {
		pod := uid(r)
		ctrs := 1 + r.IntN(sz.Containers)
		var podSet cpuset.CPUSet
		for c := 0; c < ctrs && len(free) > 0; c++ {
			n := 1 + r.IntN(min(4, len(free)))
			set := cpuset.New(free[:n]...)
			free = free[n:]
			if d.Entries[pod] == nil {
				d.Entries[pod] = map[string]string{}
			}
			name := containerName(r, c)
			d.Entries[pod][name] = set.String()
			podSet = podSet.Union(set)
			if withBaselines && r.IntN(2) == 0 {
				base := set
				if set.Size() > 1 && r.IntN(2) == 0 {
					base = cpuset.New(set.List()[:set.Size()-1]...)
				}
				if d.Baselines[pod] == nil {
					d.Baselines[pod] = map[string]cpustate.ContainerCPUs{}
				}
				d.Baselines[pod][name] = cpustate.ContainerCPUs{Baseline: base.String()}
			}
		}
		if withPodEntries && r.IntN(2) == 0 {
			d.PodEntries[pod] = cpustate.PodEntry{CPUSet: podSet}
		}
	}
	d.DefaultCPUSet = cpuset.New(all[:reserved]...).Union(cpuset.New(free...)).String()
	return d
}

// RandomMemoryData is a random memory manager state: per-NUMA tables that add
// up, NUMA groups for assignments that span nodes, and the entries that
// reserve the memory.
func RandomMemoryData(r *rand.Rand, policy string, sz Size, withPodEntries bool) memstate.MemoryManagerCheckpointData {
	d := memstate.MemoryManagerCheckpointData{
		PolicyName:   policy,
		MachineState: memstate.NUMANodeMap{},
		Entries:      memstate.ContainerMemoryAssignments{},
		PodEntries:   memstate.PodMemoryAssignments{},
	}
	if policy == "None" {
		return d
	}
	nodes := 1 + r.IntN(sz.NUMANodes)
	const gi = uint64(1) << 30
	resources := []v1.ResourceName{v1.ResourceMemory}
	if r.IntN(2) == 0 {
		resources = append(resources, "hugepages-1Gi")
	}
	if r.IntN(3) == 0 {
		resources = append(resources, "hugepages-2Mi")
	}
	for n := 0; n < nodes; n++ {
		st := &memstate.NUMANodeState{MemoryMap: map[v1.ResourceName]*memstate.MemoryTable{}, Cells: []int{n}}
		for _, res := range resources {
			total := uint64(8+r.IntN(120)) * gi
			if res != v1.ResourceMemory {
				total = uint64(r.IntN(16)) * gi
			}
			var sysRes uint64
			if res == v1.ResourceMemory && (n == 0 || r.IntN(3) == 0) {
				sysRes = uint64(1+r.IntN(3)) * gi
			}
			alloc := total - sysRes
			st.MemoryMap[res] = &memstate.MemoryTable{TotalMemSize: total, SystemReserved: sysRes, Allocatable: alloc, Free: alloc}
		}
		d.MachineState[n] = st
	}
	pods := r.IntN(sz.Pods + 1)
	for p := 0; p < pods; p++ {
		pod := uid(r)
		ctrs := 1 + r.IntN(sz.Containers)
		var podBlocks []memstate.Block
		for c := 0; c < ctrs; c++ {
			// One node, or a group of two adjacent nodes.
			first := r.IntN(nodes)
			aff := []int{first}
			if nodes > 1 && first+1 < nodes && r.IntN(4) == 0 {
				aff = []int{first, first + 1}
			}
			var blocks []memstate.Block
			for _, res := range resources {
				if res != v1.ResourceMemory && r.IntN(2) == 0 {
					continue
				}
				unit := uint64(1) << 20
				if res == "hugepages-1Gi" {
					unit = gi
				} else if res == "hugepages-2Mi" {
					unit = 2 << 20
				}
				var size uint64
				for _, a := range aff {
					t := d.MachineState[a].MemoryMap[res]
					take := min(t.Free, uint64(r.IntN(2048))*unit)
					take -= take % unit
					t.Free -= take
					t.Reserved += take
					size += take
				}
				if size == 0 {
					continue
				}
				blocks = append(blocks, memstate.Block{NUMAAffinity: append([]int(nil), aff...), Type: res, Size: size})
			}
			if len(blocks) == 0 {
				continue
			}
			for _, a := range aff {
				d.MachineState[a].NumberOfAssignments++
				d.MachineState[a].Cells = append([]int(nil), aff...)
			}
			if d.Entries[pod] == nil {
				d.Entries[pod] = map[string][]memstate.Block{}
			}
			d.Entries[pod][containerName(r, c)] = blocks
			podBlocks = append(podBlocks, blocks...)
		}
		if withPodEntries && len(podBlocks) > 0 && r.IntN(2) == 0 {
			d.PodEntries[pod] = memstate.PodEntry{MemoryBlocks: podBlocks}
		}
	}
	return d
}

var deviceResources = []string{"nvidia.com/gpu", "intel.com/sriov_netdevice", "example.com/fpga", "amd.com/gpu"}

// RandomDeviceData is a random device manager checkpoint content: pod device
// entries with per-NUMA device IDs (-1 for devices without topology), opaque
// allocate responses, and the registered devices.
func RandomDeviceData(r *rand.Rand, sz Size) ([]devcheckpoint.PodDevicesEntry, map[string][]string) {
	reg := map[string][]string{}
	nres := r.IntN(len(deviceResources) + 1)
	for i := 0; i < nres; i++ {
		res := deviceResources[i]
		n := 1 + r.IntN(6)
		for d := 0; d < n; d++ {
			reg[res] = append(reg[res], fmt.Sprintf("%s-%d", []string{"dev", "GPU", "0000:3b:00"}[i%3], d))
		}
	}
	var entries []devcheckpoint.PodDevicesEntry
	pods := r.IntN(sz.Pods + 1)
	for p := 0; p < pods && len(reg) > 0; p++ {
		pod := uid(r)
		for c := 0; c < 1+r.IntN(sz.Containers); c++ {
			res := deviceResources[r.IntN(nres)]
			ids := devcheckpoint.NewDevicesPerNUMA()
			for _, id := range reg[res] {
				if r.IntN(3) == 0 {
					node := int64(r.IntN(sz.NUMANodes))
					if r.IntN(5) == 0 {
						node = -1
					}
					ids[node] = append(ids[node], id)
				}
			}
			var resp []byte
			if r.IntN(4) != 0 {
				resp = make([]byte, r.IntN(48))
				for i := range resp {
					resp[i] = byte(r.IntN(256))
				}
			}
			entries = append(entries, devcheckpoint.PodDevicesEntry{PodUID: pod, ContainerName: containerName(r, c), ResourceName: res, DeviceIDs: ids, AllocResp: resp})
		}
	}
	if entries == nil {
		entries = []devcheckpoint.PodDevicesEntry{}
	}
	return entries, reg
}

// RandomDRAData is a random DRA claim list as the CRC32-era kubelet keeps it.
func RandomDRAData(r *rand.Rand, sz Size) drastate.ClaimInfoStateList {
	var list drastate.ClaimInfoStateList
	for c := 0; c < r.IntN(sz.Pods+1); c++ {
		st := drastate.ClaimInfoState{
			ClaimUID:    types.UID(uid(r)),
			ClaimName:   fmt.Sprintf("claim-%d", c),
			Namespace:   []string{"default", "gpu-jobs", "kube-system"}[r.IntN(3)],
			PodUIDs:     sets.New[string](),
			DriverState: map[string]drastate.DriverState{},
		}
		for i := 0; i < 1+r.IntN(2); i++ {
			st.PodUIDs.Insert(uid(r))
		}
		for d := 0; d < 1+r.IntN(2); d++ {
			driver := []string{"gpu.example.com", "dra.net", "test-driver.cdi.k8s.io"}[d]
			var ds drastate.DriverState
			for i := 0; i < 1+r.IntN(3); i++ {
				dev := drastate.Device{PoolName: fmt.Sprintf("node-%d", r.IntN(3)), DeviceName: fmt.Sprintf("dev-%d", i)}
				if r.IntN(2) == 0 {
					dev.RequestNames = []string{"req-0"}
				}
				if r.IntN(3) != 0 {
					dev.CDIDeviceIDs = []string{fmt.Sprintf("%s/dev=%d", driver, i)}
				}
				if r.IntN(4) == 0 {
					s := types.UID(uid(r))
					dev.ShareID = &s
				}
				ds.Devices = append(ds.Devices, dev)
			}
			if r.IntN(5) == 0 {
				ds.SkipNodeOperations = []resourceapi.SkipNodeOperation{resourceapi.SkipNodeOperationNodePrepareResources}
			}
			st.DriverState[driver] = ds
		}
		list = append(list, st)
	}
	return list
}
