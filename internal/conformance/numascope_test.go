package conformance

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"github.com/numascope/numascope/statefile"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	cpustate "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	devcheckpoint "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/checkpoint"
	drastate "k8s.io/kubernetes/pkg/kubelet/cm/dra/state"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
)

// decodeNumascope runs statefile.Decode the way examples/inspect would for a
// file of kind with the kubelet configured for policy.
func decodeNumascope(kind string, data []byte, policy string) (*statefile.File, error) {
	return statefile.Decode(data, statefile.Options{Name: FileNames[kind], Kind: statefile.Kind(kind), Policy: policy})
}

// numascopeRestored renders numascope's restored state in the same neutral
// form as the kubelet's (see Outcome.Restored).
func numascopeRestored(f *statefile.File) (json.RawMessage, error) {
	switch f.Kind {
	case statefile.KindCPU:
		if f.CPU == nil {
			return nil, fmt.Errorf("no CPU state")
		}
		out := CPURestored{PolicyName: f.CPU.PolicyName, DefaultCPUSet: f.CPU.DefaultCPUSet.String(), Entries: map[string]map[string]string{}}
		for pod, ctrs := range f.CPU.Entries {
			out.Entries[pod] = map[string]string{}
			for c, set := range ctrs {
				out.Entries[pod][c] = set.String()
			}
		}
		return json.Marshal(out)
	case statefile.KindMemory:
		if f.Memory == nil {
			return nil, fmt.Errorf("no memory state")
		}
		out := MemoryRestored{PolicyName: f.Memory.PolicyName, MachineState: memstate.NUMANodeMap{}, Entries: memstate.ContainerMemoryAssignments{}}
		for n, st := range f.Memory.MachineState {
			if st == nil {
				out.MachineState[n] = nil
				continue
			}
			ks := &memstate.NUMANodeState{NumberOfAssignments: st.NumberOfAssignments, Cells: st.Cells}
			if st.MemoryMap != nil {
				ks.MemoryMap = map[v1.ResourceName]*memstate.MemoryTable{}
				for res, t := range st.MemoryMap {
					if t == nil {
						ks.MemoryMap[v1.ResourceName(res)] = nil
						continue
					}
					ks.MemoryMap[v1.ResourceName(res)] = &memstate.MemoryTable{TotalMemSize: t.TotalMemSize, SystemReserved: t.SystemReserved, Allocatable: t.Allocatable, Reserved: t.Reserved, Free: t.Free}
				}
			}
			out.MachineState[n] = ks
		}
		for pod, ctrs := range f.Memory.Entries {
			out.Entries[pod] = map[string][]memstate.Block{}
			for c, blocks := range ctrs {
				var kb []memstate.Block
				for _, b := range blocks {
					kb = append(kb, memstate.Block{NUMAAffinity: b.NUMAAffinity, Type: v1.ResourceName(b.Type), Size: b.Size})
				}
				out.Entries[pod][c] = kb
			}
		}
		return json.Marshal(out)
	case statefile.KindDevice:
		if f.Device == nil {
			return nil, fmt.Errorf("no device state")
		}
		out := DeviceRestored{RegisteredDevices: f.Device.RegisteredDevices}
		for _, e := range f.Device.PodDeviceEntries {
			out.PodDeviceEntries = append(out.PodDeviceEntries, devcheckpoint.PodDevicesEntry{
				PodUID: e.PodUID, ContainerName: e.ContainerName, ResourceName: e.ResourceName,
				DeviceIDs: devcheckpoint.DevicesPerNUMA(e.DeviceIDs), AllocResp: e.AllocResp,
			})
		}
		return json.Marshal(out)
	case statefile.KindDRA:
		if f.DRA == nil {
			return nil, fmt.Errorf("no DRA state")
		}
		var out DRARestored
		for _, c := range f.DRA.Claims {
			st := drastate.ClaimInfoState{ClaimUID: types.UID(c.ClaimUID), ClaimName: c.ClaimName, Namespace: c.Namespace}
			if c.PodUIDs != nil {
				st.PodUIDs = sets.New[string]()
				for p := range c.PodUIDs {
					st.PodUIDs.Insert(p)
				}
			}
			if c.DriverState != nil {
				st.DriverState = map[string]drastate.DriverState{}
				for d, ds := range c.DriverState {
					var kds drastate.DriverState
					for _, dev := range ds.Devices {
						kd := drastate.Device{PoolName: dev.PoolName, DeviceName: dev.DeviceName, RequestNames: dev.RequestNames, CDIDeviceIDs: dev.CDIDeviceIDs}
						if dev.ShareID != nil {
							u := types.UID(*dev.ShareID)
							kd.ShareID = &u
						}
						kds.Devices = append(kds.Devices, kd)
					}
					for _, op := range ds.SkipNodeOperations {
						kds.SkipNodeOperations = append(kds.SkipNodeOperations, resourceapi.SkipNodeOperation(op))
					}
					st.DriverState[d] = kds
				}
			}
			out.Entries = append(out.Entries, st)
		}
		return json.Marshal(out)
	}
	return nil, fmt.Errorf("unknown kind %q", f.Kind)
}

// normalize makes nil and empty the same (the kubelet's in-memory state does
// not tell them apart): members whose value is null, [] or {} are dropped,
// and null list elements stay null.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			n := normalize(e)
			if isEmpty(n) {
				continue
			}
			out[k] = n
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// sameRestored compares two neutral restored states.
func sameRestored(a, b json.RawMessage) (bool, error) {
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		return false, err
	}
	return reflect.DeepEqual(normalize(va), normalize(vb)), nil
}

// kubeletChecksumValid runs the kubelet's VerifyChecksum for format on data,
// starting from the values its constructors give. known is false when the
// kubelet cannot read the file in that format. note says what else the
// kubelet's reader does with the file (its data section not decoding).
func kubeletChecksumValid(kind string, format statefile.Format, data []byte) (valid, known bool, stored uint64, note string) {
	var cp interface{ VerifyChecksum() error }
	var full interface{ UnmarshalCheckpoint([]byte) error }
	switch {
	case kind == KindCPU && format == statefile.FormatV2:
		c := &cpustate.CPUManagerCheckpointV2{Entries: map[string]map[string]string{}}
		cp = c
		defer func() { stored = uint64(c.Checksum) }()
	case kind == KindCPU && format == statefile.FormatV3:
		c := &cpustate.CPUManagerCheckpointV3{Entries: map[string]map[string]string{}, PodEntries: cpustate.PodCPUAssignments{}}
		cp = c
		defer func() { stored = uint64(c.Checksum) }()
	case kind == KindCPU && format == statefile.FormatV4:
		c := &cpustate.CPUManagerCheckpoint{}
		cp, full = c, &cpustate.CPUManagerCheckpoint{}
		defer func() { stored = uint64(c.DataChecksum) }()
	case kind == KindMemory && format == statefile.FormatV1:
		c := &memstate.MemoryManagerCheckpointV1{Entries: memstate.ContainerMemoryAssignments{}, MachineState: memstate.NUMANodeMap{}}
		cp = c
		defer func() { stored = uint64(c.Checksum) }()
	case kind == KindMemory && format == statefile.FormatV2:
		c := &memstate.MemoryManagerCheckpointV2{Entries: memstate.ContainerMemoryAssignments{}, PodEntries: memstate.PodMemoryAssignments{}, MachineState: memstate.NUMANodeMap{}}
		cp = c
		defer func() { stored = uint64(c.Checksum) }()
	case kind == KindMemory && format == statefile.FormatV3:
		c := &memstate.MemoryManagerCheckpoint{}
		cp, full = c, &memstate.MemoryManagerCheckpoint{}
		defer func() { stored = uint64(c.DataChecksum) }()
	case kind == KindDevice && format == statefile.FormatV2:
		c := devcheckpoint.New(make([]devcheckpoint.PodDevicesEntry, 0), make(map[string][]string)).(*devcheckpoint.Data)
		cp = c
		defer func() { stored = uint64(c.Checksum) }()
	case kind == KindDRA && format == statefile.FormatCRC32:
		c, err := drastate.NewCheckpoint(nil)
		if err != nil {
			panic(err)
		}
		cp, full = c, draData{}
	default:
		return false, false, 0, ""
	}
	if err := json.Unmarshal(data, cp); err != nil {
		return false, false, 0, ""
	}
	if c, ok := cp.(*drastate.Checkpoint); ok {
		stored = uint64(c.Checksum)
	}
	if full != nil {
		if err := full.UnmarshalCheckpoint(data); err != nil {
			note = fmt.Sprintf(" (the kubelet cannot decode the file: %v)", err)
		}
	}
	return cp.VerifyChecksum() == nil, true, stored, note
}

// compareOne runs the kubelet and numascope on one file and returns every
// disagreement. withEncode also demands that statefile.Encode reproduces the
// bytes in format.
func compareOne(r *Restorer, kind string, data []byte, policy string, wantFormat string, withEncode bool) ([]string, error) {
	k, err := r.Restore(kind, data, policy)
	if err != nil {
		return nil, err
	}
	var diffs []string
	f, nerr := decodeNumascope(kind, data, policy)
	if nerr != nil || f == nil {
		if k.Accepts {
			diffs = append(diffs, fmt.Sprintf("the kubelet accepts the file, numascope cannot decode it: %v", nerr))
		}
		return diffs, nil
	}
	if f.KubeletAccepts != k.Accepts {
		diffs = append(diffs, fmt.Sprintf("kubeletAccepts: numascope %v, kubelet %v (kubelet error %q, numascope reason %q)", f.KubeletAccepts, k.Accepts, k.Error, f.Reason))
	} else if !k.Accepts && f.OnReject != k.OnReject {
		diffs = append(diffs, fmt.Sprintf("onReject: numascope %q, kubelet %q", f.OnReject, k.OnReject))
	}
	if k.Accepts && f.KubeletAccepts {
		got, err := numascopeRestored(f)
		if err != nil {
			diffs = append(diffs, "restored state: "+err.Error())
		} else if same, err := sameRestored(got, k.Restored); err != nil || !same {
			diffs = append(diffs, fmt.Sprintf("restored state differs:\n numascope %s\n   kubelet %s", got, k.Restored))
		}
	}
	// When the kubelet's reader fails to decode the file (note != ""), its
	// GetCheckpoint never reaches VerifyChecksum, so there is no kubelet
	// answer to compare checksum.valid with.
	if valid, known, stored, note := kubeletChecksumValid(kind, f.Format, data); known && note == "" && valid != f.Checksum.Valid {
		diffs = append(diffs, fmt.Sprintf("checksum.valid for format %s: numascope %v, kubelet's VerifyChecksum %v (stored %d)", f.Format, f.Checksum.Valid, valid, stored))
	}
	// statefile.Verify is the fast path: it must give Decode's verdict.
	if v, err := statefile.Verify(data, statefile.Options{Name: FileNames[kind], Kind: statefile.Kind(kind), Policy: policy}); err != nil {
		diffs = append(diffs, fmt.Sprintf("statefile.Verify fails where Decode decodes: %v", err))
	} else if v.KubeletAccepts != k.Accepts || v.OnReject != k.OnReject || v.Format != f.Format || v.Checksum.Valid != f.Checksum.Valid {
		diffs = append(diffs, fmt.Sprintf("statefile.Verify: accepts %v onReject %q format %s valid %v; kubelet accepts %v onReject %q; Decode format %s valid %v",
			v.KubeletAccepts, v.OnReject, v.Format, v.Checksum.Valid, k.Accepts, k.OnReject, f.Format, f.Checksum.Valid))
	}
	if wantFormat != "" && string(f.Format) != wantFormat {
		diffs = append(diffs, fmt.Sprintf("format: numascope %q, written as %q", f.Format, wantFormat))
	}
	if withEncode {
		enc, err := statefile.Encode(f, statefile.Format(wantFormat))
		if err != nil {
			diffs = append(diffs, fmt.Sprintf("Encode(%s): %v", wantFormat, err))
		} else if string(enc) != string(data) {
			diffs = append(diffs, fmt.Sprintf("Encode(%s) is not byte-identical to the kubelet's MarshalCheckpoint:\n numascope %s\n   kubelet %s", wantFormat, enc, data))
		}
	}
	return diffs, nil
}

func sortedStrings(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// draData reads the data section of a DRA checkpoint as the DRA manager does
// after the checkpointer's checksum check.
type draData struct{}

func (draData) UnmarshalCheckpoint(b []byte) error {
	c, err := drastate.NewCheckpoint(nil)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, c); err != nil {
		return err
	}
	_, err = c.GetClaimInfoStateList()
	return err
}
