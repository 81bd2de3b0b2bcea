package conformance

import (
	"testing"

	"k8s.io/kubernetes/pkg/kubelet/checkpointmanager/checksum"
	cpustate "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
)

// TestKubeletLinks checks that the kubelet code this module pins links and
// computes the upstream unit tests' own checksum vector.
func TestKubeletLinks(t *testing.T) {
	cp := &cpustate.CPUManagerCheckpointV2{PolicyName: "none", DefaultCPUSet: "4-6", Entries: map[string]map[string]string{}}
	if _, err := cp.MarshalCheckpoint(); err != nil {
		t.Fatal(err)
	}
	if cp.Checksum != checksum.Checksum(354655845) {
		t.Fatalf("kubelet computed %d for the upstream vector, want 354655845", cp.Checksum)
	}
}
