package conformance

import (
	"encoding/json"
	"fmt"
	"hash/crc32"

	"k8s.io/kubernetes/pkg/kubelet/checkpointmanager/checksum"
	cpustate "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	devcheckpoint "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/checkpoint"
	drastate "k8s.io/kubernetes/pkg/kubelet/cm/dra/state"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
)

// The writers below produce checkpoint bytes with the kubelet's own
// MarshalCheckpoint methods, the code its checkpoint manager calls before it
// writes a file.

// MarshalCPU writes d in the CPU checkpoint format "v2", "v3" or "v4".
func MarshalCPU(d cpustate.CPUManagerCheckpointData, format string) ([]byte, error) {
	switch format {
	case "v2":
		cp := &cpustate.CPUManagerCheckpointV2{PolicyName: d.PolicyName, DefaultCPUSet: d.DefaultCPUSet, Entries: d.Entries}
		return cp.MarshalCheckpoint()
	case "v3":
		cp := &cpustate.CPUManagerCheckpointV3{PolicyName: d.PolicyName, DefaultCPUSet: d.DefaultCPUSet, Entries: d.Entries, PodEntries: d.PodEntries}
		return cp.MarshalCheckpoint()
	case "v4":
		cp := &cpustate.CPUManagerCheckpoint{CheckpointData: d}
		return cp.MarshalCheckpoint()
	}
	return nil, fmt.Errorf("the kubelet has no CPU checkpoint writer for format %q", format)
}

// MarshalMemory writes d in the memory checkpoint format "v1", "v2" or "v3".
func MarshalMemory(d memstate.MemoryManagerCheckpointData, format string) ([]byte, error) {
	switch format {
	case "v1":
		cp := &memstate.MemoryManagerCheckpointV1{PolicyName: d.PolicyName, MachineState: d.MachineState, Entries: d.Entries}
		return cp.MarshalCheckpoint()
	case "v2":
		cp := &memstate.MemoryManagerCheckpointV2{PolicyName: d.PolicyName, MachineState: d.MachineState, Entries: d.Entries, PodEntries: d.PodEntries}
		return cp.MarshalCheckpoint()
	case "v3":
		cp := &memstate.MemoryManagerCheckpoint{CheckpointData: d}
		return cp.MarshalCheckpoint()
	}
	return nil, fmt.Errorf("the kubelet has no memory checkpoint writer for format %q", format)
}

// MarshalDevice writes a device manager checkpoint (format "v2", 1.20+).
func MarshalDevice(entries []devcheckpoint.PodDevicesEntry, reg map[string][]string) ([]byte, error) {
	return devcheckpoint.New(entries, reg).MarshalCheckpoint()
}

// MarshalDRA writes a DRA manager checkpoint (format "crc32").
func MarshalDRA(list drastate.ClaimInfoStateList) ([]byte, error) {
	cp, err := drastate.NewCheckpoint(list)
	if err != nil {
		return nil, err
	}
	return cp.MarshalCheckpoint()
}

// CPUV2WithTypeNameChecksum writes a v2 CPU checkpoint whose checksum hashes
// the Go type name CPUManagerCheckpointV2 (checksum.New of the struct), the
// layout VerifyChecksum tries first when PodLevelResourceManagers is off.
func CPUV2WithTypeNameChecksum(d cpustate.CPUManagerCheckpointData) ([]byte, error) {
	cp := &cpustate.CPUManagerCheckpointV2{PolicyName: d.PolicyName, DefaultCPUSet: d.DefaultCPUSet, Entries: d.Entries}
	cp.Checksum = checksum.New(cp)
	return json.Marshal(*cp)
}

// CPUV3WithTypeNameChecksum is CPUV2WithTypeNameChecksum for v3.
func CPUV3WithTypeNameChecksum(d cpustate.CPUManagerCheckpointData) ([]byte, error) {
	cp := &cpustate.CPUManagerCheckpointV3{PolicyName: d.PolicyName, DefaultCPUSet: d.DefaultCPUSet, Entries: d.Entries, PodEntries: d.PodEntries}
	cp.Checksum = checksum.New(cp)
	return json.Marshal(*cp)
}

// checksumOfString is the kubelet's dataChecksum of a data string.
func checksumOfString(s string) checksum.Checksum { return checksum.New(s) }

func crc32IEEE(s string) uint32 { return crc32.ChecksumIEEE([]byte(s)) }
