package conformance

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/kubernetes/pkg/kubelet/checkpointmanager/checksum"
	cpustate "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
)

// TestKubeletLinks checks that the kubelet code this module pins links and
// computes the upstream unit tests' own checksum vector.
func TestKubeletLinks(t *testing.T) {
	cp := &cpustate.CPUManagerCheckpointV2{PolicyName: "none", DefaultCPUSet: "4-6", Entries: map[string]map[string]string{}}
	_, err := cp.MarshalCheckpoint()
	require.NoError(t, err)
	require.Equal(t, checksum.Checksum(354655845), cp.Checksum, "the kubelet's checksum of the upstream vector")
}
