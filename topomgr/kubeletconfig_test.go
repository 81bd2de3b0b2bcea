package topomgr

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const configHead = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"

func TestParseKubeletConfigAsTheKubelet(t *testing.T) {
	for _, tc := range []struct {
		name, doc          string
		policy, scope, cpu string
		warnings           []string
		configz            bool
		lines              map[string]int
		reserved           string
		gates              map[string]bool
	}{
		{name: "defaults", doc: configHead, policy: "none", scope: "container", cpu: "none"},
		{name: "a file", doc: configHead + "topologyManagerPolicy: single-numa-node\ntopologyManagerScope: pod\ncpuManagerPolicy: static\nreservedSystemCPUs: \"0-1\"\nfeatureGates:\n  TopologyManagerPolicyAlphaOptions: true\n",
			policy: "single-numa-node", scope: "pod", cpu: "static", reserved: "0-1", gates: map[string]bool{"TopologyManagerPolicyAlphaOptions": true},
			lines: map[string]int{"apiVersion": 1, "kind": 2, "topologyManagerPolicy": 3, "topologyManagerScope": 4, "cpuManagerPolicy": 5, "reservedSystemCPUs": 6, "featureGates": 7}},
		{name: "/configz output", doc: `{"kubeletconfig":{"topologyManagerPolicy":"single-numa-node","topologyManagerScope":"pod","cpuManagerPolicy":"static"}}`,
			policy: "single-numa-node", scope: "pod", cpu: "static", configz: true, lines: map[string]int{}},
		{name: "a key in another case is ignored", doc: configHead + "TopologyManagerPolicy: single-numa-node\n", policy: "none", scope: "container", cpu: "none",
			warnings: []string{"/TopologyManagerPolicy: the kubelet's decoder is case-sensitive and ignores this key; write topologyManagerPolicy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseKubeletConfig([]byte(tc.doc))
			require.NoError(t, err)
			assert.Equal(t, tc.policy, c.TopologyManagerPolicy)
			assert.Equal(t, tc.scope, c.TopologyManagerScope)
			assert.Equal(t, tc.cpu, c.CPUManagerPolicy)
			assert.Equal(t, "None", c.MemoryManagerPolicy)
			assert.Equal(t, tc.warnings, c.Warnings)
			assert.Equal(t, tc.configz, c.Configz)
			assert.Equal(t, tc.reserved, c.ReservedSystemCPUs)
			assert.Equal(t, tc.gates, c.FeatureGates)
			for k, line := range tc.lines {
				assert.Equal(t, line, c.Line(k), k)
			}
		})
	}
}

func TestParseKubeletConfigRefusesWhatTheKubeletRefuses(t *testing.T) {
	for name, tc := range map[string]struct{ doc, want string }{
		"no kind":            {"topologyManagerPolicy: restricted\n", "/kind: missing"},
		"another kind":       {"kind: Pod\n", `/kind: "Pod" is not KubeletConfiguration`},
		"no apiVersion":      {"kind: KubeletConfiguration\n", `/apiVersion: "": the kubelet reads only kubelet.config.k8s.io/v1beta1`},
		"apiVersion v1":      {"apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\n", `/apiVersion: "kubelet.config.k8s.io/v1"`},
		"reserved CPUs huge": {configHead + "reservedSystemCPUs: 0-400000000\n", `reservedSystemCPUs "0-400000000": CPU id 400000000`},
		"a list":             {"- a\n", "YAML mapping"},
		"bad gate":           {configHead + "featureGates: {A: maybe}\n", "/featureGates/A: want true or false"},
		"bad reservation":    {configHead + "reservedMemory:\n- numaNode: 0\n  limits: {memory: x}\n", "/reservedMemory/0/limits/memory"},
		"configz bad gate":   {`{"kubeletconfig":{"featureGates":{"A":"maybe"}}}`, "/kubeletconfig/featureGates/A"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseKubeletConfig([]byte(tc.doc))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
