// Package kubeletfiles names the kubelet's checkpoint files under its root
// directory (--root-dir, /var/lib/kubelet by default): the one table of
// kind and path that the CLIs, diagnose and the playground use.
package kubeletfiles

import (
	"path"

	"github.com/numascope/numascope/statefile"
)

// File is one checkpoint file: its kind and its path under the root
// directory (slash-separated).
type File struct {
	Kind statefile.Kind
	Path string
}

// Checkpoints are the kubelet's checkpoint files, in the order the kubelet
// starts their managers.
var Checkpoints = []File{
	{statefile.KindCPU, "cpu_manager_state"},
	{statefile.KindMemory, "memory_manager_state"},
	{statefile.KindDevice, "device-plugins/kubelet_internal_checkpoint"},
	{statefile.KindDRA, "dra_manager_state"},
}

// PathOf returns the path of a kind's checkpoint under the root directory.
func PathOf(kind statefile.Kind) string {
	for _, f := range Checkpoints {
		if f.Kind == kind {
			return f.Path
		}
	}
	return ""
}

// NameOf returns the file name of a kind's checkpoint (no directory).
func NameOf(kind statefile.Kind) string { return path.Base(PathOf(kind)) }

// IsCheckpointName reports whether a file name is one of a checkpoint's.
func IsCheckpointName(name string) bool {
	for _, f := range Checkpoints {
		if path.Base(f.Path) == name {
			return true
		}
	}
	return false
}

// DefaultPath is where a kubelet with the default root directory keeps
// the checkpoint of a kind.
func DefaultPath(kind statefile.Kind) string { return "/var/lib/kubelet/" + PathOf(kind) }
