package diagnose

import (
	"fmt"
	"io/fs"

	"github.com/numascope/numascope/topomgr"
)

// Machine is the node's topology as evidence: topomgr's Machine (the one
// the admission simulation runs on) and the file it was read from.
type Machine struct {
	*topomgr.Machine
	// Source is the file or directory the topology was read from.
	Source string
	// Format is "machine-info" or "sysfs".
	Format string
}

// ParseMachineInfo reads cAdvisor machine-info JSON (`/api/v2.0/machine` or
// the kubelet's `/spec` answer).
func ParseMachineInfo(name string, data []byte) (*Machine, error) {
	m, err := topomgr.ParseMachineInfo(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (pass the output of `kubectl get --raw /api/v1/nodes/NODE/proxy/spec` or a sysfs snapshot directory)", name, err)
	}
	return &Machine{Machine: m, Source: name, Format: "machine-info"}, nil
}

// ParseSysfs reads a snapshot of /sys (a copy of the directory tree, or a
// subset holding devices/system/node and devices/system/cpu). fsys is rooted
// at the snapshot; the node directory is looked up at devices/system/node,
// sys/devices/system/node or node.
func ParseSysfs(name string, fsys fs.FS) (*Machine, error) {
	m, err := topomgr.ReadSysfsFS(fsys, name)
	if err != nil {
		return nil, err
	}
	return &Machine{Machine: m, Source: name, Format: "sysfs"}, nil
}
