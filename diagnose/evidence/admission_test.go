package evidence

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
)

// Messages built from the kubelet's format strings (evidence-formats.md §4).
var (
	uae           = func(inner string) string { return fmt.Sprintf("Allocate failed due to %v, which is unexpected", inner) }
	msgUpdatePlug = fmt.Sprintf("Update plugin resources failed due to %v, which is unexpected.", "requested number of devices unavailable for example.com/fpga. Requested: 1, Available: 0")
)

func TestReasonOf(t *testing.T) {
	for _, tc := range []struct {
		msg, want string
	}{
		{msgTAE, ReasonTopologyAffinity},
		{"Resources cannot be allocated with Topology Locality", ReasonTopologyAffinity},
		{"Pod was rejected: " + msgTAE, ReasonTopologyAffinity},
		{fmt.Sprintf("SMT Alignment Error: requested %d cpus not multiple cpus per core = %d", 3, 2), ReasonSMTAlignment},
		{fmt.Sprintf("SMT Alignment Error: not enough free physical CPUs: available physical CPUs = %d, requested CPUs = %d, CPUs per core = %d", 2, 4, 2), ReasonSMTAlignment},
		{uae("not enough cpus available to satisfy request"), ReasonUnexpected},
		{msgUpdatePlug, ReasonUnexpected},
		{"GeneralPredicates failed due to something, which is unexpected.", ReasonUnexpected},
		{"Back-off restarting failed container", ""},
		{"topology locality is nice", ""},
		{"", ""},
	} {
		t.Run(tc.msg, func(t *testing.T) {
			assert.Equal(t, tc.want, ReasonOf(tc.msg))
		})
	}
}

func TestParseAllocationError(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want AllocationError // Text is checked apart
	}{
		{uae("not enough cpus available to satisfy request"), AllocationError{Kind: AllocCPUs, Manager: "cpu", Resource: "cpu"}},
		{uae(fmt.Sprintf("not enough cpus available to satisfy request: requested=%d, available=%d", 8, 6)), AllocationError{Kind: AllocCPUs, Manager: "cpu", Resource: "cpu", Requested: "8", Available: "6"}},
		{uae("[memorymanager] failed to find NUMA nodes to extend the current topology hint"), AllocationError{Kind: AllocMemoryExtend, Manager: "memory"}},
		{uae("[memorymanager] failed to find the default preferred hint"), AllocationError{Kind: AllocMemoryDefault, Manager: "memory"}},
		{uae("[memorymanager] failed to find the extended preferred hint"), AllocationError{Kind: AllocMemoryExtended, Manager: "memory"}},
		{uae("[memorymanager] failed to get the default NUMA affinity, no NUMA nodes with enough memory is available"), AllocationError{Kind: AllocMemoryNoAffinity, Manager: "memory"}},
		{uae("[memorymanager] preferred hint violates NUMA node allocation"), AllocationError{Kind: AllocMemoryViolates, Manager: "memory"}},
		{uae(fmt.Sprintf("requested number of devices unavailable for %s. Requested: %d, Available: %d", "nvidia.com/gpu", 2, 1)), AllocationError{Kind: AllocDevicesShort, Manager: "device", Resource: "nvidia.com/gpu", Requested: "2", Available: "1"}},
		{msgUpdatePlug, AllocationError{Kind: AllocDevicesShort, Manager: "device", Resource: "example.com/fpga", Requested: "1", Available: "0"}},
		{uae(fmt.Sprintf("can't allocate unregistered device %s", "intel.com/qat")), AllocationError{Kind: AllocDeviceUnregister, Manager: "device", Resource: "intel.com/qat"}},
		{uae(fmt.Sprintf("cannot allocate unregistered device %s", "intel.com/qat")), AllocationError{Kind: AllocDeviceUnregister, Manager: "device", Resource: "intel.com/qat"}},
		{uae(fmt.Sprintf("endpoint not found in cache for a registered resource: %s", "nvidia.com/gpu")), AllocationError{Kind: AllocDeviceEndpoint, Manager: "device", Resource: "nvidia.com/gpu"}},
		{uae(fmt.Sprintf("no healthy devices present; cannot allocate unhealthy devices %s", "squat.ai/zigbee")), AllocationError{Kind: AllocDeviceUnhealthy, Manager: "device", Detail: "no healthy devices present", Resource: "squat.ai/zigbee"}},
		{uae(fmt.Sprintf("previously allocated devices are no longer healthy; cannot allocate unhealthy devices %s", "nvidia.com/gpu")), AllocationError{Kind: AllocDeviceUnhealthy, Manager: "device", Detail: "previously allocated devices are no longer healthy", Resource: "nvidia.com/gpu"}},
		{uae("rpc error: code = Unknown desc = failed to allocate GPU: device lost"), AllocationError{Kind: AllocDevicePluginRPC, Manager: "device", Code: "Unknown", Desc: "failed to allocate GPU: device lost"}},
		{uae(fmt.Sprintf("pod %q container %q changed request for resource %q from %d to %d", "uid-1", "app", "nvidia.com/gpu", 1, 2)), AllocationError{Kind: AllocDeviceRequestDiff, Manager: "device", Container: "app", Resource: "nvidia.com/gpu", From: "1", To: "2"}},
		{uae("something else entirely"), AllocationError{}},
		{`Unable to generate topology hints: requested number of devices unavailable resourceName=nvidia.com/gpu pod=other/x request=2 available=1`, AllocationError{}},
	} {
		t.Run(tc.msg, func(t *testing.T) {
			got := ParseAllocationError(tc.msg)
			assert.Contains(t, tc.msg, got.Text, "the inner error is part of the message")
			got.Text = ""
			assert.Empty(t, cmp.Diff(tc.want, got))
		})
	}
}

func TestParseSMTError(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want SMTError
		ok   bool
	}{
		{fmt.Sprintf("SMT Alignment Error: requested %d cpus not multiple cpus per core = %d", 3, 2), SMTError{NotMultiple: true, Requested: 3, PerCore: 2}, true},
		{fmt.Sprintf("SMT Alignment Error: not enough free physical CPUs: available physical CPUs = %d, requested CPUs = %d, CPUs per core = %d", 2, 4, 2), SMTError{Requested: 4, PerCore: 2, Available: 2}, true},
		{"SMT Alignment Error", SMTError{}, false},
	} {
		got, ok := ParseSMTError(tc.msg)
		assert.Equal(t, tc.ok, ok, tc.msg)
		assert.Empty(t, cmp.Diff(tc.want, got), tc.msg)
	}
	c, w, ok := ParsePolicyMismatch(`could not restore state from checkpoint: configured policy "static" differs from state checkpoint policy "none", please drain this node and delete the CPU manager checkpoint file "/var/lib/kubelet/cpu_manager_state" before restarting Kubelet`)
	assert.True(t, ok)
	assert.Equal(t, []string{"static", "none"}, []string{c, w})
}
