package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/kubernetes/pkg/kubelet/checkpointmanager"
	"k8s.io/kubernetes/pkg/kubelet/checkpointmanager/checksum"
	cperrors "k8s.io/kubernetes/pkg/kubelet/checkpointmanager/errors"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	cpustate "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	devcheckpoint "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/checkpoint"
	drastate "k8s.io/kubernetes/pkg/kubelet/cm/dra/state"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
)

// KubeletVersion is the kubelet release whose restore paths this module runs.
const KubeletVersion = "v1.37.2"

// Kinds of checkpoint, with the file name the kubelet gives each.
const (
	KindCPU    = "cpu"
	KindMemory = "memory"
	KindDevice = "device"
	KindDRA    = "dra"
)

// FileNames maps a kind to the checkpoint file name the kubelet uses.
var FileNames = map[string]string{
	KindCPU:    "cpu_manager_state",
	KindMemory: "memory_manager_state",
	KindDevice: "kubelet_internal_checkpoint",
	KindDRA:    "dra_manager_state",
}

// KubeletStateDir is the directory name substituted for the temporary
// directory in the kubelet's error messages, so recorded errors are stable.
const KubeletStateDir = "/var/lib/kubelet"

// Outcome is what the kubelet's own restore path decided for one file.
type Outcome struct {
	// Accepts is true when the kubelet restores the file's content.
	Accepts bool `json:"kubeletAccepts"`
	// OnReject is "refuses-to-start" (CPU, memory and DRA managers) or
	// "discards-data" (device manager) when Accepts is false.
	OnReject string `json:"onReject,omitempty"`
	// Error is the kubelet's error text, with the state directory shown as
	// /var/lib/kubelet.
	Error string `json:"kubeletError,omitempty"`
	// Restored is the state the kubelet restored, in the neutral JSON form
	// of CPURestored, MemoryRestored, DeviceRestored or DRARestored.
	Restored json.RawMessage `json:"restored,omitempty"`
}

// CPURestored is the CPU manager state the kubelet keeps after restoring a
// checkpoint with the default feature gates: cpusets in canonical form.
type CPURestored struct {
	PolicyName    string                       `json:"policyName"`
	DefaultCPUSet string                       `json:"defaultCpuSet"`
	Entries       map[string]map[string]string `json:"entries"`
}

// MemoryRestored is the memory manager state the kubelet keeps after
// restoring a checkpoint with the default feature gates.
type MemoryRestored struct {
	PolicyName   string                              `json:"policyName"`
	MachineState memstate.NUMANodeMap                `json:"machineState"`
	Entries      memstate.ContainerMemoryAssignments `json:"entries"`
}

// DeviceRestored is the device manager data the kubelet takes from an
// accepted checkpoint.
type DeviceRestored struct {
	PodDeviceEntries  []devcheckpoint.PodDevicesEntry `json:"podDeviceEntries"`
	RegisteredDevices map[string][]string             `json:"registeredDevices"`
}

// DRARestored is the claim list the DRA manager takes from an accepted
// checkpoint.
type DRARestored struct {
	Entries drastate.ClaimInfoStateList `json:"entries"`
}

// Restorer runs the kubelet's restore path on bytes. It owns a private state
// directory; it is not safe for concurrent use.
type Restorer struct {
	dir string
}

// NewRestorer returns a Restorer whose state files live under dir.
func NewRestorer(dir string) *Restorer { return &Restorer{dir: dir} }

func (r *Restorer) write(kind string, data []byte) (string, error) {
	name := FileNames[kind]
	path := filepath.Join(r.dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", err
	}
	return name, nil
}

func (r *Restorer) errText(err error) string {
	return strings.ReplaceAll(err.Error(), r.dir, KubeletStateDir)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Restore runs the kubelet's restore path for kind on data. policy is the
// configured policy name for the CPU and memory managers.
func (r *Restorer) Restore(kind string, data []byte, policy string) (Outcome, error) {
	switch kind {
	case KindCPU:
		return r.CPU(data, policy)
	case KindMemory:
		return r.Memory(data, policy)
	case KindDevice:
		return r.Device(data)
	case KindDRA:
		return r.DRA(data)
	}
	return Outcome{}, fmt.Errorf("unknown kind %q", kind)
}

// CPU runs cpumanager state.NewCheckpointState, as the kubelet does at start.
func (r *Restorer) CPU(data []byte, policy string) (Outcome, error) {
	name, err := r.write(KindCPU, data)
	if err != nil {
		return Outcome{}, err
	}
	st, err := cpustate.NewCheckpointState(logr.Discard(), r.dir, name, policy, containermap.ContainerMap{})
	if err != nil {
		return Outcome{OnReject: "refuses-to-start", Error: r.errText(err)}, nil
	}
	out := CPURestored{PolicyName: policy, DefaultCPUSet: st.GetDefaultCPUSet().String(), Entries: map[string]map[string]string{}}
	for pod, ctrs := range st.GetCPUAssignments() {
		out.Entries[pod] = map[string]string{}
		for c, set := range ctrs {
			out.Entries[pod][c] = set.String()
		}
	}
	return Outcome{Accepts: true, Restored: mustJSON(out)}, nil
}

// Memory runs memorymanager state.NewCheckpointState.
func (r *Restorer) Memory(data []byte, policy string) (Outcome, error) {
	name, err := r.write(KindMemory, data)
	if err != nil {
		return Outcome{}, err
	}
	st, err := memstate.NewCheckpointState(logr.Discard(), r.dir, name, policy)
	if err != nil {
		return Outcome{OnReject: "refuses-to-start", Error: r.errText(err)}, nil
	}
	out := MemoryRestored{PolicyName: policy, MachineState: st.GetMachineState(), Entries: st.GetMemoryAssignments()}
	return Outcome{Accepts: true, Restored: mustJSON(out)}, nil
}

// Device runs the device manager's getCheckpoint: checkpointmanager
// GetCheckpoint into checkpoint.New. On error the manager logs and starts
// without the allocation data.
func (r *Restorer) Device(data []byte) (Outcome, error) {
	name, err := r.write(KindDevice, data)
	if err != nil {
		return Outcome{}, err
	}
	m, err := checkpointmanager.NewCheckpointManager(r.dir)
	if err != nil {
		return Outcome{}, err
	}
	cp := devcheckpoint.New(make([]devcheckpoint.PodDevicesEntry, 0), make(map[string][]string))
	if err := m.GetCheckpoint(name, cp); err != nil {
		return Outcome{OnReject: "discards-data", Error: r.errText(err)}, nil
	}
	entries, reg := cp.GetData()
	return Outcome{Accepts: true, Restored: mustJSON(DeviceRestored{PodDeviceEntries: entries, RegisteredDevices: reg})}, nil
}

// DRA runs what the DRA manager's newClaimInfoCache does: the checkpointer's
// GetOrCreate, then GetClaimInfoStateList.
func (r *Restorer) DRA(data []byte) (Outcome, error) {
	name, err := r.write(KindDRA, data)
	if err != nil {
		return Outcome{}, err
	}
	c, err := drastate.NewCheckpointer(r.dir, name)
	if err != nil {
		return Outcome{}, err
	}
	cp, err := c.GetOrCreate()
	if err != nil {
		return Outcome{OnReject: "refuses-to-start", Error: r.errText(fmt.Errorf("create ResourceClaim cache: GetOrCreate() on checkpoint state: %w", err))}, nil
	}
	entries, err := cp.GetClaimInfoStateList()
	if err != nil {
		return Outcome{OnReject: "refuses-to-start", Error: r.errText(fmt.Errorf("create ResourceClaim cache: GetEntries() on checkpoint: %w", err))}, nil
	}
	return Outcome{Accepts: true, Restored: mustJSON(DRARestored{Entries: entries})}, nil
}

// Checksum is a stored checksum beside the value the kubelet computes for it.
type Checksum struct {
	Stored   uint64 `json:"stored"`
	Expected uint64 `json:"expected"`
	// Layout names what the expected value covers.
	Layout string `json:"layout"`
}

// Checksums computes, with the kubelet's own code, the checksums of a file
// that encoding/json can read into the kubelet's types: the outer
// (legacy-named spew) checksum and, for data-carrying formats, the checksum
// of the data string. It returns nil entries for what cannot be read.
func Checksums(kind string, data []byte) []Checksum {
	var out []Checksum
	switch kind {
	case KindCPU:
		// Each checkpoint starts as the kubelet's constructors make it (empty
		// maps, not nil), since a member absent from the file keeps that
		// value and the checksum tells an empty map from a nil one.
		v2 := cpustate.CPUManagerCheckpointV2{Entries: map[string]map[string]string{}}
		if json.Unmarshal(data, &v2) == nil {
			stored := v2.Checksum
			v2.Checksum = 0
			typed := checksum.New(&v2)
			_, _ = v2.MarshalCheckpoint()
			out = append(out,
				Checksum{Stored: uint64(stored), Expected: uint64(v2.Checksum), Layout: "spew:state.CPUManagerCheckpoint{PolicyName,DefaultCPUSet,Entries}"},
				Checksum{Stored: uint64(stored), Expected: uint64(typed), Layout: "spew:state.CPUManagerCheckpointV2{PolicyName,DefaultCPUSet,Entries}"})
		}
		v3 := cpustate.CPUManagerCheckpointV3{Entries: map[string]map[string]string{}, PodEntries: cpustate.PodCPUAssignments{}}
		if json.Unmarshal(data, &v3) == nil {
			stored := v3.Checksum
			v3.Checksum = 0
			typed := checksum.New(&v3)
			_, _ = v3.MarshalCheckpoint()
			out = append(out,
				Checksum{Stored: uint64(stored), Expected: uint64(v3.Checksum), Layout: "spew:state.CPUManagerCheckpoint{PolicyName,DefaultCPUSet,Entries,PodEntries}"},
				Checksum{Stored: uint64(stored), Expected: uint64(typed), Layout: "spew:state.CPUManagerCheckpointV3{PolicyName,DefaultCPUSet,Entries,PodEntries}"})
		}
		var v4 struct {
			Data         *string           `json:"data"`
			DataChecksum checksum.Checksum `json:"dataChecksum"`
		}
		if json.Unmarshal(data, &v4) == nil && v4.Data != nil {
			out = append(out, Checksum{Stored: uint64(v4.DataChecksum), Expected: uint64(checksum.New(*v4.Data)), Layout: "spew:string(data)"})
		}
	case KindMemory:
		v1 := memstate.MemoryManagerCheckpointV1{Entries: memstate.ContainerMemoryAssignments{}, MachineState: memstate.NUMANodeMap{}}
		if json.Unmarshal(data, &v1) == nil {
			stored := v1.Checksum
			_, _ = v1.MarshalCheckpoint()
			out = append(out, Checksum{Stored: uint64(stored), Expected: uint64(v1.Checksum), Layout: "spew:state.MemoryManagerCheckpoint{PolicyName,MachineState,Entries}"})
		}
		v2 := memstate.MemoryManagerCheckpointV2{Entries: memstate.ContainerMemoryAssignments{}, PodEntries: memstate.PodMemoryAssignments{}, MachineState: memstate.NUMANodeMap{}}
		if json.Unmarshal(data, &v2) == nil {
			stored := v2.Checksum
			_, _ = v2.MarshalCheckpoint()
			out = append(out, Checksum{Stored: uint64(stored), Expected: uint64(v2.Checksum), Layout: "spew:state.MemoryManagerCheckpoint{PolicyName,MachineState,Entries,PodEntries}"})
		}
		var v3 struct {
			Data         *string           `json:"data"`
			DataChecksum checksum.Checksum `json:"dataChecksum"`
		}
		if json.Unmarshal(data, &v3) == nil && v3.Data != nil {
			out = append(out, Checksum{Stored: uint64(v3.DataChecksum), Expected: uint64(checksum.New(*v3.Data)), Layout: "spew:string(data)"})
		}
	case KindDevice:
		cp := devcheckpoint.New(make([]devcheckpoint.PodDevicesEntry, 0), make(map[string][]string)).(*devcheckpoint.Data)
		if json.Unmarshal(data, cp) == nil {
			stored := cp.Checksum
			_, _ = cp.MarshalCheckpoint()
			out = append(out, Checksum{Stored: uint64(stored), Expected: uint64(cp.Checksum), Layout: "spew:checkpoint.checkpointData{PodDeviceEntries,RegisteredDevices}"})
		}
	case KindDRA:
		cp, err := drastate.NewCheckpoint(nil)
		if err != nil {
			panic(err)
		}
		if json.Unmarshal(data, cp) == nil {
			out = append(out, Checksum{Stored: uint64(cp.Checksum), Expected: uint64(crc32.ChecksumIEEE([]byte(cp.Data))), Layout: "crc32:data"})
		}
	}
	return out
}

// IsCorrupt reports whether err is the kubelet's checksum mismatch error.
func IsCorrupt(err error) bool {
	return errors.Is(err, cperrors.CorruptCheckpointError{})
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
