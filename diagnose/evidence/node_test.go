package evidence

import (
	"testing"

	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNodeConfig(t *testing.T) {
	kc, err := topomgr.ParseKubeletConfig([]byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ntopologyManagerPolicy: restricted\ntopologyManagerScope: pod\nreservedSystemCPUs: \"0-1\"\ntopologyManagerPolicyOptions: {prefer-closest-numa-nodes: \"true\"}\ncpuManagerPolicyOptions: {full-pcpus-only: \"true\"}\nfeatureGates: {TopologyManagerPolicyAlphaOptions: true}\n"))
	require.NoError(t, err)
	for _, tc := range []struct {
		name                    string
		set                     *Set
		s                       NodeSettings
		policy, scope, reserved string
		options, cpuOptions     map[string]string
		alpha                   bool
	}{
		{"defaults", &Set{}, NodeSettings{}, "none", "container", "", nil, nil, false},
		{"the kubelet config", &Set{Config: kc}, NodeSettings{}, "restricted", "pod", "0-1",
			map[string]string{"prefer-closest-numa-nodes": "true"}, map[string]string{"full-pcpus-only": "true"}, true},
		{"explicit values first", &Set{Config: kc},
			NodeSettings{Policy: "best-effort", Scope: "container", ReservedCPUs: "2", Options: map[string]string{}, CPUPolicyOptions: map[string]string{}},
			"best-effort", "container", "2", map[string]string{}, map[string]string{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := tc.set.NodeConfig(tc.s)
			require.NoError(t, err)
			assert.Equal(t, tc.policy, cfg.Policy, "policy")
			assert.Equal(t, tc.scope, cfg.Scope, "scope")
			assert.Equal(t, tc.reserved, cfg.ReservedCPUs.String(), "reserved CPUs")
			assert.Equal(t, tc.options, cfg.Options, "policy options")
			assert.Equal(t, tc.cpuOptions, cfg.CPUPolicyOptions, "CPU manager options")
			assert.Equal(t, tc.alpha, cfg.Gates.TopologyManagerPolicyAlphaOptions, "alpha options gate")
		})
	}
	_, err = (&Set{}).NodeConfig(NodeSettings{ReservedCPUs: "0-400000000"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `reservedSystemCPUs "0-400000000": CPU id 400000000`)
}

// The node's parts are the set's: its machine, the first checkpoint of
// each kind and the allocatable answer.
func TestNodeConfigTakesTheSetsParts(t *testing.T) {
	m := &topomgr.Machine{Source: "machine-info.json"}
	cpu := &statefile.File{Kind: statefile.KindCPU, CPU: &statefile.CPUState{PolicyName: "static"}}
	other := &statefile.File{Kind: statefile.KindCPU, CPU: &statefile.CPUState{PolicyName: "none"}}
	mem := &statefile.File{Kind: statefile.KindMemory, Memory: &statefile.MemoryState{PolicyName: "Static"}}
	dev := &statefile.File{Kind: statefile.KindDevice, Device: &statefile.DeviceState{}}
	alloc := &podresources.Allocatable{CPUIDs: []int{0, 1}}
	e := &Set{Machine: m, States: []*statefile.File{cpu, mem, other, dev}, PodResources: &podresources.Snapshot{Allocatable: alloc}}
	cfg, err := e.NodeConfig(NodeSettings{})
	require.NoError(t, err)
	assert.Same(t, m, cfg.Machine, "machine")
	assert.Same(t, cpu.CPU, cfg.CPU, "the first cpu checkpoint")
	assert.Same(t, mem.Memory, cfg.Memory, "memory checkpoint")
	assert.Same(t, dev.Device, cfg.Devices, "device checkpoint")
	assert.Same(t, alloc, cfg.Allocatable, "allocatable answer")
	empty, err := (&Set{}).NodeConfig(NodeSettings{})
	require.NoError(t, err)
	assert.Nil(t, empty.Machine, "machine of an empty set")
	assert.Nil(t, empty.Allocatable, "allocatable of an empty set")
}
