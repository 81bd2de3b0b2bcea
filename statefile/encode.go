package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
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

// WriteOptions tells WriteFile what the caller allows.
type WriteOptions struct {
	// AllowKubeletPath lets WriteFile replace a file in a kubelet state
	// directory (see IsKubeletPath). Without it such a path is refused:
	// numascope never writes to the kubelet's files unless told to.
	AllowKubeletPath bool
}

// ErrKubeletPath is wrapped by WriteFile's error for a path in a kubelet
// state directory written without WriteOptions.AllowKubeletPath.
var ErrKubeletPath = errors.New("refusing to write into the kubelet's state directory")

// IsKubeletPath reports whether path names a file the kubelet owns: any
// path inside a directory /var/lib/kubelet (under any prefix, such as a
// host mount at /host/var/lib/kubelet, and after resolving symbolic links
// of the directories), or one of the kubelet's checkpoint names
// (cpu_manager_state, memory_manager_state, dra_manager_state,
// device-plugins/kubelet_internal_checkpoint) in a directory that looks
// like a kubelet --root-dir (it has a pods or plugins_registry directory,
// or device-plugins/kubelet.sock).
func IsKubeletPath(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	candidates := []string{abs}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		candidates = append(candidates, filepath.Join(dir, filepath.Base(abs)))
	}
	for _, p := range candidates {
		slashed := filepath.ToSlash(p)
		if strings.Contains(slashed+"/", kubeletRootDir+"/") {
			return true
		}
		for _, c := range checkpointPaths {
			if root, ok := strings.CutSuffix(slashed, "/"+c.path); ok && looksLikeKubeletRoot(filepath.FromSlash(root)) {
				return true
			}
		}
	}
	return false
}

func looksLikeKubeletRoot(dir string) bool {
	for _, marker := range []string{"pods", "plugins_registry", filepath.Join("device-plugins", "kubelet.sock")} {
		if _, err := os.Lstat(filepath.Join(dir, marker)); err == nil {
			return true
		}
	}
	return false
}

// WriteFile writes data to path atomically: to a temporary file in the same
// directory, synced, renamed over path, and the directory synced, so that a
// crash leaves either the old file or the new one. An existing file keeps
// its permission bits (and, when run as root, its owner); a new file gets
// 0600, as the kubelet's checkpoints have. It writes only to the path the
// caller names, refuses a path that is a directory, a symbolic link or not a
// regular file, and refuses the kubelet's own files (IsKubeletPath) unless
// opts sets AllowKubeletPath. At most one WriteOptions is used.
func WriteFile(path string, data []byte, opts ...WriteOptions) error {
	var o WriteOptions
	if len(opts) > 0 {
		o = opts[len(opts)-1]
	}
	if !o.AllowKubeletPath && IsKubeletPath(path) {
		return fmt.Errorf("write %s: %w: the kubelet owns this file and rewrites it itself; write to a copy elsewhere, or set WriteOptions.AllowKubeletPath (with the kubelet stopped) if replacing it is really meant", path, ErrKubeletPath)
	}
	mode := os.FileMode(0o600)
	uid, gid := -1, -1
	if st, err := os.Lstat(path); err == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("write %s: it exists and is not a regular file (%s); give the path of a regular file or of a new one", path, st.Mode().Type())
		}
		mode = st.Mode().Perm()
		if os.Geteuid() == 0 {
			uid, gid = fileOwner(st)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, err)
	}
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
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if uid >= 0 {
		if err := tmp.Chown(uid, gid); err != nil {
			return fmt.Errorf("write %s: keeping the owner: %w", path, err)
		}
	}
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("write %s: the file is written, but syncing its directory failed (a crash now may lose it): %w", path, err)
	}
	return nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
