package legacy

import (
	"fmt"

	"github.com/go-logr/logr"

	"k8s.io/kubernetes/pkg/kubelet/checkpointmanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	cpustate "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	devcheckpoint "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/checkpoint"
	drastate "k8s.io/kubernetes/pkg/kubelet/cm/dra/state"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
)

const release = "v1.36.0"

// restore runs this release's restore path for kind on the file name in
// dir, the way the kubelet does at start (with no running containers), and
// returns what the kubelet does on an error with it.
func restore(dir, kind, name, policy string) (string, error) {
	switch kind {
	case "cpu":
		_, err := cpustate.NewCheckpointState(logr.Discard(), dir, name, policy, containermap.ContainerMap{})
		return "refuses-to-start", err
	case "memory":
		_, err := memstate.NewCheckpointState(logr.Discard(), dir, name, policy)
		return "refuses-to-start", err
	case "device":
		// ManagerImpl.getCheckpoint (cm/devicemanager/manager.go): the
		// current layout only.
		m, err := checkpointmanager.NewCheckpointManager(dir)
		if err != nil {
			return "", err
		}
		return "discards-data", m.GetCheckpoint(name, devcheckpoint.New(make([]devcheckpoint.PodDevicesEntry, 0), make(map[string][]string)))
	case "dra":
		// NewManagerImpl (cm/dra/manager.go) around newClaimInfoCache
		// (cm/dra/claiminfo.go).
		err := func() error {
			c, err := drastate.NewCheckpointer(dir, name)
			if err != nil {
				return fmt.Errorf("could not initialize checkpoint manager, please drain node and remove DRA state file, err: %w", err)
			}
			cp, err := c.GetOrCreate()
			if err != nil {
				return fmt.Errorf("GetOrCreate() on checkpoint state: %w", err)
			}
			if _, err := cp.GetClaimInfoStateList(); err != nil {
				return fmt.Errorf("GetEntries() on checkpoint: %w", err)
			}
			return nil
		}()
		if err != nil {
			err = fmt.Errorf("create ResourceClaim cache: %w", err)
		}
		return "refuses-to-start", err
	}
	return "", fmt.Errorf("unknown kind %q", kind)
}
