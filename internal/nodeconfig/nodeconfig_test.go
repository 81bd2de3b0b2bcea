package nodeconfig

import (
	"testing"

	"github.com/numascope/numascope/topomgr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBuild(t *testing.T) {
	kc, err := topomgr.ParseKubeletConfig([]byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ntopologyManagerPolicy: restricted\ntopologyManagerScope: pod\nreservedSystemCPUs: \"0-1\"\ntopologyManagerPolicyOptions: {prefer-closest-numa-nodes: \"true\"}\nfeatureGates: {TopologyManagerPolicyAlphaOptions: true}\n"))
	require.NoError(t, err)
	for _, tc := range []struct {
		name                    string
		in                      Input
		policy, scope, reserved string
		options                 map[string]string
		alpha                   bool
	}{
		{"defaults", Input{}, "none", "container", "", nil, false},
		{"the kubelet config", Input{Kubelet: kc}, "restricted", "pod", "0-1", map[string]string{"prefer-closest-numa-nodes": "true"}, true},
		{"explicit values first", Input{Kubelet: kc, Policy: "best-effort", Scope: "container", ReservedCPUs: "2", Options: map[string]string{}},
			"best-effort", "container", "2", map[string]string{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Build(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.policy, cfg.Policy)
			assert.Equal(t, tc.scope, cfg.Scope)
			assert.Equal(t, tc.reserved, cfg.ReservedCPUs.String())
			assert.Equal(t, tc.options, cfg.Options)
			assert.Equal(t, tc.alpha, cfg.Gates.TopologyManagerPolicyAlphaOptions)
		})
	}
	_, err = Build(Input{ReservedCPUs: "0-400000000"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `reservedSystemCPUs "0-400000000": CPU id 400000000`)
}
