package conformance

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeviceManagerVanishedAllocatedDevice records what kubelet v1.37.2
// does when a container's checkpointed allocation names a device its
// plugin no longer lists (after a restart, the plugin came back with other
// device IDs) while another device of the resource has a NUMA node: the
// hint code reads the missing device's topology through a nil pointer and
// panics (generateDeviceTopologyHints on the allocated set). The random
// cases therefore keep a pod's own allocations to listed devices.
// numascope does not panic: from the checkpoint alone it answers with the
// NUMA nodes recorded for the device.
func TestDeviceManagerVanishedAllocatedDevice(t *testing.T) {
	for _, tc := range []struct {
		name      string
		listed    []dmDevice
		wantPanic bool
		numascope string
	}{
		{
			name:      "another device has topology",
			listed:    []dmDevice{{ID: "d0", Topology: true, Nodes: []int{0}}},
			wantPanic: true,
			numascope: "{example.com/dev0:[[1]P] }",
		},
		{
			name:   "no listed device has topology",
			listed: []dmDevice{{ID: "d0"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &dmCase{
				Nodes:     []int{0, 1},
				Resources: []dmResource{{Name: "example.com/dev0", Plugin: true, Devices: tc.listed}},
				Entries:   []dmEntry{{Pod: "pod-under-test", Container: "app0", Resource: "example.com/dev0", IDs: map[int64][]string{1: {"vanished"}}}},
				Pod:       dmPod{UID: "pod-under-test", Apps: []dmContainer{{Name: "app0", Limits: map[string]int{"example.com/dev0": 1}}}},
			}
			var steps []dmStep
			panicked := func() (p any) {
				defer func() { p = recover() }()
				var err error
				steps, err = runKubeletDM(c)
				require.NoError(t, err)
				return nil
			}()
			assert.Equal(t, tc.wantPanic, panicked != nil, "kubelet panic: %v", panicked)
			if panicked != nil {
				assert.Contains(t, fmt.Sprint(panicked), "nil pointer dereference")
				// numascope's answer from the checkpoint the kubelet started from.
				start, err := dmStartCheckpoint(c)
				require.NoError(t, err)
				hints, _, err := numascopeDM(c, dmStep{Label: "pod", checkpoint: start}, false)
				require.NoError(t, err)
				assert.Equal(t, tc.numascope, hints)
				return
			}
			require.NotEmpty(t, steps)
			// No listed device has a NUMA node: the kubelet has no preference,
			// and so has numascope given the plugin's list.
			assert.Equal(t, "{example.com/dev0:nil }", steps[0].Hints)
			hints, _, err := numascopeDM(c, steps[0], true)
			require.NoError(t, err)
			assert.Equal(t, steps[0].Hints, hints)
		})
	}
}
