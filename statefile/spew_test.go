package statefile

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/numascope/numascope/statefile/internal/spewtypes/checkpoint"
	"github.com/numascope/numascope/statefile/internal/spewtypes/checksum"
	dstate "github.com/numascope/numascope/statefile/internal/spewtypes/dstate"
	"github.com/numascope/numascope/statefile/internal/spewtypes/runtime"
	"github.com/numascope/numascope/statefile/internal/spewtypes/sets"
	"github.com/numascope/numascope/statefile/internal/spewtypes/state"
	"github.com/numascope/numascope/statefile/internal/spewtypes/types"
	v1 "github.com/numascope/numascope/statefile/internal/spewtypes/v1"
	"github.com/numascope/numascope/statefile/internal/spewtypes/v1alpha2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
	"k8s.io/utils/dump"
)

// render runs fn with text capture on and returns the text and the hash.
func render(fn func() uint64) (string, uint64) {
	var buf []byte
	captureText = &buf
	defer func() { captureText = nil }()
	sum := fn()
	return string(buf), sum
}

func fnv32a(s string) uint64 {
	p := printer{h: fnvOffset32}
	p.s(s)
	return p.sum()
}

// gen produces random strings, numbers and nil-or-empty containers.
type gen struct{ r *rand.Rand }

var alphabet = []string{"a", "b", "Z", "0", "9", " ", "\"", "'", "\\", "\n", "é", "世", "-", ",", ":", "{", "}", "[", "]", "<nil>", "\x00", "\xff", "map[", "CPUManagerCheckpointV2"}

func (g gen) str() string {
	n := g.r.Intn(6)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(alphabet[g.r.Intn(len(alphabet))])
	}
	return b.String()
}

func (g gen) n(max int) int { return g.r.Intn(max + 1) }

func (g gen) u64() uint64 {
	switch g.r.Intn(4) {
	case 0:
		return 0
	case 1:
		return ^uint64(0) - uint64(g.r.Intn(3))
	default:
		return g.r.Uint64() >> uint(g.r.Intn(64))
	}
}

func (g gen) ints() []int {
	switch g.r.Intn(4) {
	case 0:
		return nil
	case 1:
		return []int{}
	}
	out := make([]int, g.n(4))
	for i := range out {
		out[i] = g.r.Intn(20) - 5
		if g.r.Intn(10) == 0 {
			out[i] = int(g.r.Int63()) * (1 - 2*g.r.Intn(2))
		}
	}
	return out
}

func (g gen) strs() []string {
	switch g.r.Intn(4) {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	out := make([]string, g.n(3))
	for i := range out {
		out[i] = g.str()
	}
	return out
}

func (g gen) strMap() map[string]string {
	if g.r.Intn(4) == 0 {
		return nil
	}
	m := map[string]string{}
	for i := g.n(4); i > 0; i-- {
		m[g.str()] = g.str()
	}
	return m
}

func (g gen) strMapMap() map[string]map[string]string {
	if g.r.Intn(4) == 0 {
		return nil
	}
	m := map[string]map[string]string{}
	for i := g.n(4); i > 0; i-- {
		m[g.str()] = g.strMap()
	}
	return m
}

func (g gen) strListMap() map[string][]string {
	if g.r.Intn(4) == 0 {
		return nil
	}
	m := map[string][]string{}
	for i := g.n(3); i > 0; i-- {
		m[g.str()] = g.strs()
	}
	return m
}

func (g gen) bytes() []byte {
	switch g.r.Intn(3) {
	case 0:
		return nil
	case 1:
		return []byte{}
	}
	b := make([]byte, g.n(12))
	g.r.Read(b)
	return b
}

func (g gen) set() cpuset.CPUSet {
	if g.r.Intn(5) == 0 {
		return cpuset.CPUSet{}
	}
	var cpus []int
	for i := g.n(6); i > 0; i-- {
		cpus = append(cpus, g.r.Intn(300))
	}
	return cpuset.New(cpus...)
}

func (g gen) podUIDs() map[string]struct{} {
	if g.r.Intn(4) == 0 {
		return nil
	}
	m := map[string]struct{}{}
	for i := g.n(3); i > 0; i-- {
		m[g.str()] = struct{}{}
	}
	return m
}

func compare(t *testing.T, what, want, got string, sum uint64) {
	t.Helper()
	require.Equal(t, want, got, "%s: printer against go-spew", what)
	require.Equal(t, fnv32a(want), sum, "%s: hash against FNV-32a of the text", what)
}

func TestPrinterMatchesSpewCPU(t *testing.T) {
	g := gen{rand.New(rand.NewSource(1))}
	for i := 0; i < 3000; i++ {
		policy, def, entries := g.str(), g.str(), g.strMapMap()
		got, sum := render(func() uint64 { return cpuV2Sum("CPUManagerCheckpoint", policy, def, entries) })
		want := dump.ForHash(&state.CPUManagerCheckpoint{PolicyName: policy, DefaultCPUSet: def, Entries: entries})
		compare(t, "cpu v2", want, got, sum)

		// the raw layout's checksum is taken over got below; render's sum is not needed
		got, _ = render(func() uint64 { return cpuV2Sum("CPUManagerCheckpointV2", policy, def, entries) })
		want = dump.ForHash(&state.CPUManagerCheckpointV2{PolicyName: policy, DefaultCPUSet: def, Entries: entries})
		compare(t, "cpu v2 raw", want, got, fnv32a(got))

		v1e := g.strMap()
		got, sum = render(func() uint64 { return cpuV1Sum(policy, def, v1e) })
		want = strings.Replace(dump.ForHash(&state.CPUManagerCheckpointV1{PolicyName: policy, DefaultCPUSet: def, Entries: v1e}), "CPUManagerCheckpointV1", "CPUManagerCheckpoint", 1)
		compare(t, "cpu v1", want, got, sum)

		var pods map[string]cpuPodEntry
		var spods state.PodCPUAssignments
		if g.r.Intn(4) > 0 {
			pods, spods = map[string]cpuPodEntry{}, state.PodCPUAssignments{}
			for j := g.n(3); j > 0; j-- {
				k, s := g.str(), g.set()
				pods[k] = cpuPodEntry{CPUSet: s}
				spods[k] = state.PodEntry{CPUSet: s}
			}
		}
		v3 := &cpuCheckpointV3{PolicyName: policy, DefaultCPUSet: def, Entries: entries, PodEntries: pods}
		for _, name := range []string{"CPUManagerCheckpoint", "CPUManagerCheckpointV3"} {
			got, sum = render(func() uint64 { return cpuV3Sum(name, v3) })
			want = strings.Replace(dump.ForHash(&state.CPUManagerCheckpointV3{PolicyName: policy, DefaultCPUSet: def, Entries: entries, PodEntries: spods}),
				"CPUManagerCheckpointV3", name, 1)
			compare(t, "cpu v3", want, got, sum)
		}
	}
}

func (g gen) blocks() ([]Block, []state.Block) {
	switch g.r.Intn(4) {
	case 0:
		return nil, nil
	case 1:
		return []Block{}, []state.Block{}
	}
	var a []Block
	var b []state.Block
	for i := g.n(3); i > 0; i-- {
		aff, typ, size := g.ints(), g.str(), g.u64()
		if k := g.r.Intn(6); k < 4 {
			// the names the printer hashes in one step, and one it does not
			typ = [...]string{"memory", "hugepages-1Gi", "hugepages-2Mi", "hugepages-64Ki"}[k]
		}
		a = append(a, Block{NUMAAffinity: aff, Type: typ, Size: size})
		b = append(b, state.Block{NUMAAffinity: aff, Type: v1.ResourceName(typ), Size: size})
	}
	if a == nil {
		a, b = []Block{}, []state.Block{}
	}
	return a, b
}

func TestPrinterMatchesSpewMemory(t *testing.T) {
	g := gen{rand.New(rand.NewSource(2))}
	for i := 0; i < 2000; i++ {
		var ms map[int]*NUMANodeState
		var sms state.NUMANodeMap
		if g.r.Intn(5) > 0 {
			ms, sms = map[int]*NUMANodeState{}, state.NUMANodeMap{}
			for j := g.n(4); j > 0; j-- {
				id := g.r.Intn(10) - 2
				if g.r.Intn(8) == 0 {
					ms[id], sms[id] = nil, nil
					continue
				}
				cells := g.ints()
				n := &NUMANodeState{NumberOfAssignments: g.r.Intn(5) - 1, Cells: cells}
				sn := &state.NUMANodeState{NumberOfAssignments: n.NumberOfAssignments, Cells: cells}
				if g.r.Intn(5) > 0 {
					n.MemoryMap, sn.MemoryMap = map[string]*MemoryTable{}, map[v1.ResourceName]*state.MemoryTable{}
					for k := g.n(3); k > 0; k-- {
						name := g.str()
						if g.r.Intn(6) == 0 {
							n.MemoryMap[name], sn.MemoryMap[v1.ResourceName(name)] = nil, nil
							continue
						}
						tb := MemoryTable{g.u64(), g.u64(), g.u64(), g.u64(), g.u64()}
						n.MemoryMap[name] = &tb
						sn.MemoryMap[v1.ResourceName(name)] = &state.MemoryTable{TotalMemSize: tb.TotalMemSize, SystemReserved: tb.SystemReserved, Allocatable: tb.Allocatable, Reserved: tb.Reserved, Free: tb.Free}
					}
				}
				ms[id], sms[id] = n, sn
			}
		}
		var es map[string]map[string][]Block
		var ses state.ContainerMemoryAssignments
		if g.r.Intn(4) > 0 {
			es, ses = map[string]map[string][]Block{}, state.ContainerMemoryAssignments{}
			for j := g.n(3); j > 0; j-- {
				pod := g.str()
				if g.r.Intn(5) == 0 {
					es[pod], ses[pod] = nil, nil
					continue
				}
				es[pod], ses[pod] = map[string][]Block{}, map[string][]state.Block{}
				for k := g.n(3); k > 0; k-- {
					c := g.str()
					es[pod][c], ses[pod][c] = g.blocks()
				}
			}
		}
		policy := g.str()
		cp := &memCheckpointV1{PolicyName: policy, MachineState: ms, Entries: es}
		got, sum := render(func() uint64 { return memV1Sum(cp) })
		want := dump.ForHash(&state.MemoryManagerCheckpoint{PolicyName: policy, MachineState: sms, Entries: ses})
		compare(t, "memory v1", want, got, sum)

		var pe map[string]PodMemoryEntry
		var spe state.PodMemoryAssignments
		if g.r.Intn(4) > 0 {
			pe, spe = map[string]PodMemoryEntry{}, state.PodMemoryAssignments{}
			for j := g.n(3); j > 0; j-- {
				k := g.str()
				a, b := g.blocks()
				pe[k], spe[k] = PodMemoryEntry{MemoryBlocks: a}, state.MemPodEntry{MemoryBlocks: b}
			}
		}
		cp2 := &memCheckpointV2{PolicyName: policy, MachineState: ms, Entries: es, PodEntries: pe}
		got, sum = render(func() uint64 { return memV2Sum(cp2) })
		want = strings.Replace(dump.ForHash(&state.MemoryManagerCheckpointV2{PolicyName: policy, MachineState: sms, Entries: ses, PodEntries: spe}),
			"MemoryManagerCheckpointV2", "MemoryManagerCheckpoint", 1)
		compare(t, "memory v2", want, got, sum)

		data := g.str() + `{"a":"\u00e9"}`
		got, sum = render(func() uint64 { return stringChecksum(data) })
		compare(t, "data string", dump.ForHash(data), got, sum)
	}
}

func TestPrinterMatchesSpewDevice(t *testing.T) {
	g := gen{rand.New(rand.NewSource(3))}
	for i := 0; i < 2000; i++ {
		var d devCheckpointData
		var sd checkpoint.CheckpointData
		var d1 devCheckpointV1
		var sd1 checkpoint.CheckpointDataV1
		if g.r.Intn(4) > 0 {
			d.PodDeviceEntries, sd.PodDeviceEntries = []PodDevicesEntry{}, []checkpoint.PodDevicesEntry{}
			d1.Data.PodDeviceEntries, sd1.PodDeviceEntries = []devEntryV1{}, []checkpoint.PodDevicesEntryV1{}
			for j := g.n(3); j > 0; j-- {
				pod, c, r, resp := g.str(), g.str(), g.str(), g.bytes()
				var ids map[int64][]string
				if g.r.Intn(4) > 0 {
					ids = map[int64][]string{}
					for k := g.n(3); k > 0; k-- {
						ids[int64(g.r.Intn(6)-1)] = g.strs()
					}
				}
				d.PodDeviceEntries = append(d.PodDeviceEntries, PodDevicesEntry{PodUID: pod, ContainerName: c, ResourceName: r, DeviceIDs: ids, AllocResp: resp})
				sd.PodDeviceEntries = append(sd.PodDeviceEntries, checkpoint.PodDevicesEntry{PodUID: pod, ContainerName: c, ResourceName: r, DeviceIDs: ids, AllocResp: resp})
				flat := g.strs()
				d1.Data.PodDeviceEntries = append(d1.Data.PodDeviceEntries, devEntryV1{PodUID: pod, ContainerName: c, ResourceName: r, DeviceIDs: flat, AllocResp: resp})
				sd1.PodDeviceEntries = append(sd1.PodDeviceEntries, checkpoint.PodDevicesEntryV1{PodUID: pod, ContainerName: c, ResourceName: r, DeviceIDs: flat, AllocResp: resp})
			}
		}
		reg := g.strListMap()
		d.RegisteredDevices, sd.RegisteredDevices, d1.Data.RegisteredDevices, sd1.RegisteredDevices = reg, reg, reg, reg
		got, sum := render(func() uint64 { return devV2Sum(&d) })
		want := strings.Replace(dump.ForHash(sd), "CheckpointData", "checkpointData", 1)
		compare(t, "device v2", want, got, sum)
		got, sum = render(func() uint64 { return devV1Sum(&d1) })
		want = strings.Replace(strings.Replace(dump.ForHash(sd1), "CheckpointDataV1", "checkpointData", 1), "PodDevicesEntryV1", "PodDevicesEntry", 1)
		compare(t, "device v1", want, got, sum)
	}
}

func TestPrinterMatchesSpewDRA(t *testing.T) {
	g := gen{rand.New(rand.NewSource(4))}
	raw := func() (rawExtension, runtime.RawExtension) {
		b := g.bytes()
		return rawExtension{Raw: b}, runtime.RawExtension{Raw: b}
	}
	for i := 0; i < 2000; i++ {
		cp := &draCheckpointSpew{Version: g.str()}
		s30 := &dstate.DRAManagerCheckpoint{Version: cp.Version}
		s28 := &dstate.DRAManagerCheckpoint128{Version: cp.Version}
		sNo := &dstate.DRAManagerCheckpointWithoutResourceHandles{Version: "v1", Entries: dstate.ClaimInfoStateListWithoutResourceHandles{}}
		if g.r.Intn(4) > 0 {
			cp.Entries, s30.Entries, s28.Entries = []draClaimSpew{}, dstate.ClaimInfoStateList{}, dstate.ClaimInfoStateList128{}
			for j := g.n(3); j > 0; j-- {
				e := draClaimSpew{DriverName: g.str(), ClassName: g.str(), ClaimUID: g.str(), ClaimName: g.str(), Namespace: g.str(), PodUIDs: g.podUIDs(), CDIDevices: g.strListMap()}
				var sets1 sets.Set[string]
				if e.PodUIDs != nil {
					sets1 = sets.Set[string]{}
					for k := range e.PodUIDs {
						sets1[k] = sets.Empty{}
					}
				}
				var h30 []v1alpha2.ResourceHandle
				var h28 []v1alpha2.ResourceHandle128
				if g.r.Intn(3) > 0 {
					e.ResourceHandles, h30, h28 = []ResourceHandle{}, []v1alpha2.ResourceHandle{}, []v1alpha2.ResourceHandle128{}
					for k := g.n(2); k > 0; k-- {
						h := ResourceHandle{DriverName: g.str(), Data: g.str()}
						sh := v1alpha2.ResourceHandle{DriverName: h.DriverName, Data: h.Data}
						if g.r.Intn(2) == 0 {
							h.StructuredData = &StructuredResourceHandle{NodeName: g.str()}
							sh.StructuredData = &v1alpha2.StructuredResourceHandle{NodeName: h.StructuredData.NodeName}
							h.StructuredData.VendorClassParameters, sh.StructuredData.VendorClassParameters = raw()
							h.StructuredData.VendorClaimParameters, sh.StructuredData.VendorClaimParameters = raw()
							if g.r.Intn(3) > 0 {
								h.StructuredData.Results, sh.StructuredData.Results = []DriverAllocationResult{}, []v1alpha2.DriverAllocationResult{}
								for l := g.n(2); l > 0; l-- {
									var r DriverAllocationResult
									var sr v1alpha2.DriverAllocationResult
									r.VendorRequestParameters, sr.VendorRequestParameters = raw()
									if g.r.Intn(2) == 0 {
										name := g.str()
										r.NamedResources = &struct {
											Name string `json:"name"`
										}{name}
										sr.NamedResources = &v1alpha2.NamedResourcesAllocationResult{Name: name}
									}
									h.StructuredData.Results = append(h.StructuredData.Results, r)
									sh.StructuredData.Results = append(sh.StructuredData.Results, sr)
								}
							}
						}
						e.ResourceHandles = append(e.ResourceHandles, h)
						h30 = append(h30, sh)
						h28 = append(h28, v1alpha2.ResourceHandle128{DriverName: h.DriverName, Data: h.Data})
					}
				}
				cp.Entries = append(cp.Entries, e)
				uid := types.UID(e.ClaimUID)
				s30.Entries = append(s30.Entries, dstate.ClaimInfoState{DriverName: e.DriverName, ClassName: e.ClassName, ClaimUID: uid, ClaimName: e.ClaimName, Namespace: e.Namespace, PodUIDs: sets1, ResourceHandles: h30, CDIDevices: e.CDIDevices})
				s28.Entries = append(s28.Entries, dstate.ClaimInfoState128{DriverName: e.DriverName, ClassName: e.ClassName, ClaimUID: uid, ClaimName: e.ClaimName, Namespace: e.Namespace, PodUIDs: sets1, ResourceHandles: h28, CDIDevices: e.CDIDevices})
				sNo.Entries = append(sNo.Entries, dstate.ClaimInfoStateWithoutResourceHandles{DriverName: e.DriverName, ClassName: e.ClassName, ClaimUID: uid, ClaimName: e.ClaimName, Namespace: e.Namespace, PodUIDs: sets1, CDIDevices: e.CDIDevices})
			}
		}
		got, sum := render(func() uint64 { return draSpewSum(cp, 2) })
		compare(t, "dra 1.30", dump.ForHash(s30), got, sum)
		got, sum = render(func() uint64 { return draSpewSum(cp, 1) })
		want := strings.Replace(strings.Replace(strings.Replace(dump.ForHash(s28), "DRAManagerCheckpoint128", "DRAManagerCheckpoint", 1), "ClaimInfoStateList128", "ClaimInfoStateList", 1), "ResourceHandle128", "ResourceHandle", -1)
		compare(t, "dra 1.28", want, got, sum)
		got, sum = render(func() uint64 { return draSpewSum(cp, 0) })
		want = strings.Replace(strings.Replace(dump.ForHash(sNo), "DRAManagerCheckpointWithoutResourceHandles", "DRAManagerCheckpoint", 1), "ClaimInfoStateListWithoutResourceHandles", "ClaimInfoStateList", 1)
		compare(t, "dra without handles", want, got, sum)
	}
}

var _ = checksum.Checksum(0)

func TestFNVJumpIsTheLoop(t *testing.T) {
	for _, lit := range []string{"", "x", "{NUMAAffinity:([]int)", " Type:(v1.ResourceName)memory Size:(uint64)", "\xff\x00\x80 ünïcode"} {
		j := newFNVJump(lit)
		for _, h := range []uint32{0, 1, 0xff, 0x100, fnvOffset32, 0xdeadbeef, 0xffffffff, 0x12345678} {
			p := printer{h: h}
			p.lit(j)
			assert.Equal(t, fnvAdd(h, lit), p.h, "%q from %#x", lit, h)
		}
		for h := range uint32(1 << 12) {
			p := printer{h: h * 0x9e3779b1}
			p.lit(j)
			if !assert.Equal(t, fnvAdd(h*0x9e3779b1, lit), p.h, "%q from %#x", lit, h*0x9e3779b1) {
				break
			}
		}
	}
}
