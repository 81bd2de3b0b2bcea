package statefile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Encode writes f's state (the field of f.Kind) in the given format, with the
// checksums the kubelet computes. For the formats the kubelet still writes
// (cpu v4, memory v3, device v2, dra crc32) the bytes are identical to its
// MarshalCheckpoint for the same state; older formats are written as the
// kubelets of their era did. format "" keeps f.Format.
func Encode(f *File, format Format) ([]byte, error) {
	if f == nil {
		return nil, fmt.Errorf("statefile.Encode: nil File")
	}
	if format == "" {
		format = f.Format
	}
	switch f.Kind {
	case KindCPU:
		if f.CPU == nil {
			return nil, fmt.Errorf("%s: Encode: File.CPU is nil; set it before encoding a cpu checkpoint", f.Name)
		}
		return encodeCPU(f.CPU, format)
	case KindMemory:
		if f.Memory == nil {
			return nil, fmt.Errorf("%s: Encode: File.Memory is nil; set it before encoding a memory checkpoint", f.Name)
		}
		return encodeMemory(f.Memory, format)
	case KindDevice:
		if f.Device == nil {
			return nil, fmt.Errorf("%s: Encode: File.Device is nil; set it before encoding a device checkpoint", f.Name)
		}
		return encodeDevice(f.Device, format)
	case KindDRA:
		if f.DRA == nil {
			return nil, fmt.Errorf("%s: Encode: File.DRA is nil; set it before encoding a dra checkpoint", f.Name)
		}
		return encodeDRA(f.DRA, format)
	}
	return nil, fmt.Errorf("%s: Encode: unknown kind %q (use cpu, memory, device or dra)", f.Name, f.Kind)
}

func badFormat(k Kind, format Format, valid string) error {
	return fmt.Errorf("statefile.Encode: %s checkpoints have no format %q (use %s)", k, format, valid)
}

func encodeCPU(s *CPUState, format Format) ([]byte, error) {
	entries := map[string]map[string]string{}
	for pod, cs := range s.Entries {
		entries[pod] = make(map[string]string, len(cs))
		for c, set := range cs {
			entries[pod][c] = set.String()
		}
	}
	pods := map[string]cpuPodEntry{}
	for pod, set := range s.PodEntries {
		pods[pod] = cpuPodEntry{CPUSet: set}
	}
	def := s.DefaultCPUSet.String()
	switch format {
	case FormatV4:
		data := cpuCheckpointData{PolicyName: s.PolicyName, DefaultCPUSet: def, Entries: entries, PodEntries: pods,
			Baselines: map[string]map[string]cpuBaseline{}}
		for pod, cs := range s.Baselines {
			data.Baselines[pod] = make(map[string]cpuBaseline, len(cs))
			for c, set := range cs {
				data.Baselines[pod][c] = cpuBaseline{Baseline: set.String()}
			}
		}
		raw, err := json.Marshal(data)
		if err != nil {
			return nil, fmt.Errorf("failed to serialize cpu manager checkpoint data: %w", err)
		}
		cp := cpuCheckpointV4{Data: string(raw)}
		cp.DataChecksum = stringChecksum(cp.Data)
		cp.PolicyName, cp.DefaultCPUSet, cp.Entries = s.PolicyName, def, entries
		cp.Checksum = cpuV2Sum("CPUManagerCheckpoint", cp.PolicyName, cp.DefaultCPUSet, cp.Entries)
		return json.Marshal(cp)
	case FormatV3:
		cp := cpuCheckpointV3{PolicyName: s.PolicyName, DefaultCPUSet: def, Entries: entries, PodEntries: pods}
		cp.Checksum = cpuV3Sum("CPUManagerCheckpoint", &cp)
		return json.Marshal(cp)
	case FormatV2:
		cp := cpuCheckpointV2{PolicyName: s.PolicyName, DefaultCPUSet: def, Entries: entries}
		cp.Checksum = cpuV2Sum("CPUManagerCheckpoint", cp.PolicyName, cp.DefaultCPUSet, cp.Entries)
		return json.Marshal(cp)
	case FormatV1:
		cp := cpuCheckpointV1{PolicyName: s.PolicyName, DefaultCPUSet: def, Entries: map[string]string{}}
		for id, set := range s.ContainerEntries {
			cp.Entries[id] = set.String()
		}
		cp.Checksum = cpuV1Sum(cp.PolicyName, cp.DefaultCPUSet, cp.Entries)
		return json.Marshal(cp)
	}
	return nil, badFormat(KindCPU, format, "v1, v2, v3 or v4")
}

func nonNilMemory(s *MemoryState) (map[int]*NUMANodeState, map[string]map[string][]Block, map[string]PodMemoryEntry) {
	ms, es, pe := s.MachineState, s.Entries, s.PodEntries
	if ms == nil {
		ms = map[int]*NUMANodeState{}
	}
	if es == nil {
		es = map[string]map[string][]Block{}
	}
	if pe == nil {
		pe = map[string]PodMemoryEntry{}
	}
	return ms, es, pe
}

func encodeMemory(s *MemoryState, format Format) ([]byte, error) {
	ms, es, pe := nonNilMemory(s)
	switch format {
	case FormatV3:
		raw, err := json.Marshal(MemoryState{PolicyName: s.PolicyName, MachineState: ms, Entries: es, PodEntries: pe})
		if err != nil {
			return nil, fmt.Errorf("failed to serialize memory manager checkpoint data: %w", err)
		}
		cp := memCheckpointV3{Data: string(raw)}
		cp.DataChecksum = stringChecksum(cp.Data)
		cp.PolicyName, cp.MachineState, cp.Entries = s.PolicyName, ms, es
		cp.Checksum = memV1Sum(&cp.memCheckpointV1)
		return json.Marshal(cp)
	case FormatV2:
		cp := memCheckpointV2{PolicyName: s.PolicyName, MachineState: ms, Entries: es, PodEntries: pe}
		cp.Checksum = memV2Sum(&cp)
		return json.Marshal(cp)
	case FormatV1:
		cp := memCheckpointV1{PolicyName: s.PolicyName, MachineState: ms, Entries: es}
		cp.Checksum = memV1Sum(&cp)
		return json.Marshal(cp)
	}
	return nil, badFormat(KindMemory, format, "v1, v2 or v3")
}

func encodeDevice(s *DeviceState, format Format) ([]byte, error) {
	switch format {
	case FormatV2:
		cp := devCheckpoint{Data: devCheckpointData{PodDeviceEntries: s.PodDeviceEntries, RegisteredDevices: s.RegisteredDevices}}
		cp.Checksum = devV2Sum(&cp.Data)
		return json.Marshal(cp)
	case FormatV1:
		var cp devCheckpointV1
		cp.Data.RegisteredDevices = s.RegisteredDevices
		if s.PodDeviceEntries != nil {
			cp.Data.PodDeviceEntries = []devEntryV1{}
		}
		for _, e := range s.PodDeviceEntries {
			ids := e.FlatDeviceIDs
			if ids == nil && e.DeviceIDs != nil {
				ids = []string{}
				numas := make([]int64, 0, len(e.DeviceIDs))
				for n := range e.DeviceIDs {
					numas = append(numas, n)
				}
				sort.Slice(numas, func(i, j int) bool { return numas[i] < numas[j] })
				seen := map[string]bool{}
				for _, n := range numas {
					for _, id := range e.DeviceIDs[n] {
						if !seen[id] {
							seen[id] = true
							ids = append(ids, id)
						}
					}
				}
			}
			cp.Data.PodDeviceEntries = append(cp.Data.PodDeviceEntries, devEntryV1{PodUID: e.PodUID, ContainerName: e.ContainerName, ResourceName: e.ResourceName, DeviceIDs: ids, AllocResp: e.AllocResp})
		}
		cp.Checksum = devV1Sum(&cp)
		return json.Marshal(cp)
	}
	return nil, badFormat(KindDevice, format, "v1 or v2")
}

func encodeDRA(s *DRAState, format Format) ([]byte, error) {
	switch format {
	case FormatCRC32:
		data := draCheckpointData{Kind: s.Kind, APIVersion: s.APIVersion}
		if data.Kind == "" && data.APIVersion == "" {
			data.Kind, data.APIVersion = "DRACheckpoint", "checkpoint.dra.kubelet.k8s.io/v1"
		}
		if s.Claims != nil {
			data.ClaimInfoStateList = []draClaimCRC{}
		}
		for _, c := range s.Claims {
			data.ClaimInfoStateList = append(data.ClaimInfoStateList, draClaimCRC{ClaimUID: c.ClaimUID, ClaimName: c.ClaimName, Namespace: c.Namespace, PodUIDs: c.PodUIDs, DriverState: c.DriverState})
		}
		raw, err := json.Marshal(data)
		if err != nil {
			return nil, err
		}
		return json.Marshal(&draCheckpoint{Data: string(raw), Checksum: crc32Checksum(string(raw))})
	case FormatSpewV1:
		cp := draCheckpointSpew{Version: s.Version, Entries: []draClaimSpew{}}
		if cp.Version == "" {
			cp.Version = "v1"
		}
		for _, c := range s.Claims {
			cp.Entries = append(cp.Entries, draClaimSpew{DriverName: c.DriverName, ClassName: c.ClassName, ClaimUID: c.ClaimUID, ClaimName: c.ClaimName,
				Namespace: c.Namespace, PodUIDs: c.PodUIDs, ResourceHandles: c.ResourceHandles, CDIDevices: c.CDIDevices})
		}
		cp.Checksum = draSpewSum(&cp, 2)
		return json.Marshal(cp)
	}
	return nil, badFormat(KindDRA, format, "crc32 or spew-v1")
}

// WriteFile writes data to path atomically: to a temporary file in the same
// directory, synced, then renamed over path. It writes only to the path the
// caller names.
func WriteFile(path string, data []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	return nil
}
