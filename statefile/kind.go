package statefile

import (
	"path"
	"path/filepath"
)

// Kind names which kubelet manager a checkpoint file belongs to.
type Kind string

// The checkpoint kinds numascope understands.
const (
	KindCPU    Kind = "cpu"    // cpu_manager_state
	KindMemory Kind = "memory" // memory_manager_state
	KindDevice Kind = "device" // device-plugins/kubelet_internal_checkpoint
	KindDRA    Kind = "dra"    // dra_manager_state
)

// kubeletRootDir is the kubelet's --root-dir by default.
const kubeletRootDir = "/var/lib/kubelet"

// checkpointPaths is where the kubelet keeps each kind's checkpoint, below
// its root directory (slash-separated), in the order the kubelet starts
// their managers: the CPU manager's cpuManagerStateFileName, the memory
// manager's memoryManagerStateFileName, the device manager's
// kubeletDeviceManagerCheckpoint in pluginapi.DevicePluginPath, and the
// DRA manager's checkpoint file.
var checkpointPaths = []struct {
	kind Kind
	path string
}{
	{KindCPU, "cpu_manager_state"},
	{KindMemory, "memory_manager_state"},
	{KindDevice, "device-plugins/kubelet_internal_checkpoint"},
	{KindDRA, "dra_manager_state"},
}

// Kinds returns the checkpoint kinds, in the order the kubelet starts
// their managers.
func Kinds() []Kind {
	out := make([]Kind, len(checkpointPaths))
	for i, c := range checkpointPaths {
		out[i] = c.kind
	}
	return out
}

// below returns the path of k's checkpoint below the kubelet's root
// directory, slash-separated; "" for an unknown kind.
func (k Kind) below() string {
	for _, c := range checkpointPaths {
		if c.kind == k {
			return c.path
		}
	}
	return ""
}

// Path returns where a kubelet with the default root directory keeps the
// checkpoint of k: /var/lib/kubelet/cpu_manager_state,
// /var/lib/kubelet/device-plugins/kubelet_internal_checkpoint, ...; "" for
// an unknown kind.
func (k Kind) Path() string {
	if k.below() == "" {
		return ""
	}
	return kubeletRootDir + "/" + k.below()
}

// PathIn returns the path of k's checkpoint under a kubelet root directory
// (--root-dir), in the operating system's form; with root "" it is the
// path relative to the root directory. "" for an unknown kind.
func (k Kind) PathIn(root string) string {
	if k.below() == "" {
		return ""
	}
	return filepath.Join(root, filepath.FromSlash(k.below()))
}

// FileName returns the file name of k's checkpoint, without a directory:
// cpu_manager_state, kubelet_internal_checkpoint, ...; "" for an unknown
// kind.
func (k Kind) FileName() string {
	if k.below() == "" {
		return ""
	}
	return path.Base(k.below())
}

// KindOfFileName returns the kind whose checkpoint has the file name name
// (without a directory).
func KindOfFileName(name string) (Kind, bool) {
	for _, c := range checkpointPaths {
		if path.Base(c.path) == name {
			return c.kind, true
		}
	}
	return "", false
}
