package legacy

import (
	"fmt"

	"k8s.io/kubernetes/pkg/kubelet/checkpointmanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	cpustate "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	devcheckpoint "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/checkpoint"
	drastate "k8s.io/kubernetes/pkg/kubelet/cm/dra/state"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
)

// restore runs this release's restore path for kind on the file name in
// dir, the way the kubelet does at start (with no running containers), and
// returns what the kubelet does on an error with it.
func restore(dir, kind, name, policy string) (string, error) {
	switch kind {
	case "cpu":
		_, err := cpustate.NewCheckpointState(dir, name, policy, containermap.ContainerMap{})
		return "refuses-to-start", err
	case "memory":
		_, err := memstate.NewCheckpointState(dir, name, policy)
		return "refuses-to-start", err
	case "device":
		// ManagerImpl.readCheckpoint (cm/devicemanager/manager.go): the
		// current layout, then the 1.19 one; the first error is returned.
		m, err := checkpointmanager.NewCheckpointManager(dir)
		if err != nil {
			return "", err
		}
		err = m.GetCheckpoint(name, devcheckpoint.New(make([]devcheckpoint.PodDevicesEntry, 0), make(map[string][]string)))
		if err != nil && m.GetCheckpoint(name, devcheckpoint.NewV1(make([]devcheckpoint.PodDevicesEntryV1, 0), make(map[string][]string))) == nil {
			err = nil
		}
		return "discards-data", err
	case "dra":
		// NewManagerImpl (cm/dra/manager.go) around newClaimInfoCache
		// (cm/dra/claiminfo.go).
		st, err := drastate.NewCheckpointState(dir, name)
		if err != nil {
			err = fmt.Errorf("could not initialize checkpoint manager, please drain node and remove dra state file, err: %+v", err)
		} else if _, err = st.GetOrCreate(); err != nil {
			err = fmt.Errorf("error calling GetOrCreate() on checkpoint state: %v", err)
		}
		if err != nil {
			err = fmt.Errorf("failed to create claimInfo cache: %+v", err)
		}
		return "refuses-to-start", err
	}
	return "", fmt.Errorf("unknown kind %q", kind)
}
