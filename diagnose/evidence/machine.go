package evidence

import (
	"fmt"
	"io/fs"

	"github.com/numascope/numascope/topomgr"
)

// ParseMachine reads a machine topology in any form topomgr.ParseMachine
// detects (numactl -H, lscpu, lscpu -e/-p, sysfs listings, lstopo,
// cAdvisor machine-info JSON, the kubelet's Machine: and Detected CPU
// topology lines, NodeResourceTopology); name is the Source and starts
// every error.
func ParseMachine(name string, data []byte) (*topomgr.Machine, error) {
	m, err := topomgr.ParseMachine(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if m.CPUsUnknown {
		// The findings count free CPUs per NUMA node from the machine's
		// CPU lists: counts alone would read as "no CPU free anywhere".
		return nil, fmt.Errorf("%s: %s: it counts CPUs per NUMA node but names none, and the diagnosis needs each node's CPUs: pass `numactl -H` or `lscpu` output from the node", name, m.Summary())
	}
	m.Source = name
	return m, nil
}

// ParseSysfs reads a snapshot of /sys (a copy of the directory tree, or a
// subset holding devices/system/node and devices/system/cpu). fsys is rooted
// at the snapshot; the node directory is looked up at devices/system/node,
// sys/devices/system/node or node.
func ParseSysfs(name string, fsys fs.FS) (*topomgr.Machine, error) {
	m, err := topomgr.ReadMachine(fsys, name)
	if err != nil {
		return nil, err
	}
	m.Source = name
	return m, nil
}
