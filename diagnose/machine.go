package diagnose

import (
	"fmt"
	"io/fs"

	"github.com/numascope/numascope/topomgr"
)

// ParseMachineInfo reads cAdvisor machine-info JSON (`/api/v2.0/machine` or
// the kubelet's `/spec` answer); name is the Source and starts every error.
func ParseMachineInfo(name string, data []byte) (*topomgr.Machine, error) {
	m, err := topomgr.ParseMachineInfo(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (pass the output of `kubectl get --raw /api/v1/nodes/NODE/proxy/spec` or a sysfs snapshot directory)", name, err)
	}
	m.Source = name
	return m, nil
}

// ParseSysfs reads a snapshot of /sys (a copy of the directory tree, or a
// subset holding devices/system/node and devices/system/cpu). fsys is rooted
// at the snapshot; the node directory is looked up at devices/system/node,
// sys/devices/system/node or node.
func ParseSysfs(name string, fsys fs.FS) (*topomgr.Machine, error) {
	m, err := topomgr.ReadSysfsFS(fsys, name)
	if err != nil {
		return nil, err
	}
	m.Source = name
	return m, nil
}
