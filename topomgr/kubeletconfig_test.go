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
		"another kind":       {"kind: Pod\n", `not a KubeletConfiguration: no recognised kubelet fields at any known wrapper path`},
		"a Pod names itself": {"apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n", `; /kind is "Pod" (apiVersion "v1")`},
		"reserved CPUs huge": {configHead + "reservedSystemCPUs: 0-400000000\n", `reservedSystemCPUs "0-400000000": CPU id 400000000`},
		"a list":             {"- a\n", "a KubeletConfiguration is a YAML mapping, this is a list"},
		"bad gate":           {configHead + "featureGates: {A: maybe}\n", `/featureGates/A: "maybe" is not true or false: the kubelet refuses to start ("json: cannot unmarshal string into Go struct field KubeletConfiguration.featureGates of type bool")`},
		"gate a string":      {configHead + "featureGates: {A: \"true\"}\n", `/featureGates/A: "true" is not true or false`},
		"maxPods a word":     {configHead + "maxPods: many\n", `/maxPods: "many" is not an integer: the kubelet refuses to start ("json: cannot unmarshal string into Go struct field KubeletConfiguration.maxPods of type int32")`},
		"maxPods too large":  {configHead + "maxPods: 4294967296\n", `/maxPods: 4294967296 is not an integer that fits int32: the kubelet refuses to start ("json: cannot unmarshal number 4294967296 into Go struct field KubeletConfiguration.maxPods of type int32")`},
		"maxPods a fraction": {configHead + "maxPods: 2.5\n", `/maxPods: 2.5 is not an integer that fits int32`},
		"JSON maxPods 250.0": {`{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","maxPods":250.0}`, `/maxPods: 250.0 is not an integer`},
		"a bool a string":    {configHead + "failSwapOn: \"true\"\n", `/failSwapOn: "true" is not true or false`},
		"a float a string":   {configHead + "memoryThrottlingFactor: \"0.9\"\n", `/memoryThrottlingFactor: "0.9" is not a number`},
		"a string a number":  {configHead + "topologyManagerPolicy: 5\n", `/topologyManagerPolicy: 5 is not a string: the kubelet refuses to start ("json: cannot unmarshal number into Go struct field KubeletConfiguration.topologyManagerPolicy of type string")`},
		"a list a map":       {configHead + "clusterDNS: {a: b}\n", `/clusterDNS: {"a":"b"} is not a list`},
		"a list element":     {configHead + "clusterDNS: [5]\n", `/clusterDNS/0: 5 is not a string`},
		"a struct a list":    {configHead + "authentication: []\n", `/authentication: [] is not a mapping`},
		"bad duration":       {configHead + "streamingConnectionIdleTimeout: soon\n", `/streamingConnectionIdleTimeout: "soon" is not a duration: the kubelet refuses to start ("time: invalid duration \"soon\"")`},
		"null duration":      {configHead + "streamingConnectionIdleTimeout: null\n", `/streamingConnectionIdleTimeout: null is not a duration`},
		"number duration":    {configHead + "syncFrequency: 5\n", `/syncFrequency: 5 is not a duration`},
		"map value a number": {configHead + "evictionHard: {memory.available: 5}\n", `/evictionHard/memory.available: 5 is not a string`},
		"header value":       {configHead + "staticPodURLHeader: {a: [5]}\n", `/staticPodURLHeader/a/0: 5 is not a string`},
		"duplicate JSON key": {`{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","maxPods":"x","maxPods":5}`, `/maxPods: "x" is not an integer`},
		"bad reservation":    {configHead + "reservedMemory:\n- numaNode: 0\n  limits: {memory: x}\n", "/reservedMemory/0/limits/memory"},
		"configz wrong type": {`{"kubeletconfig":{"maxPods":"many"}}`, `/kubeletconfig/maxPods: "many" is not an integer`},
		"configz bad gate":   {`{"kubeletconfig":{"featureGates":{"A":"maybe"}}}`, "/kubeletconfig/featureGates/A"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseKubeletConfig([]byte(tc.doc))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestParseKubeletConfigAcceptsWhatTheKubeletAccepts(t *testing.T) {
	for name, doc := range map[string]string{
		"null for each kind":      "maxPods: null\nfailSwapOn: null\nclusterDNS: null\nauthentication: null\ncpuCFSQuotaPeriod: null\nevictionHard: {memory.available: null}\nallowedUnsafeSysctls: [null]\n",
		"YAML numbers":            "maxPods: 250.0\npodPidsLimit: 1e3\nhealthzPort: 0x10\nmemoryThrottlingFactor: 1\n",
		"YAML booleans":           "failSwapOn: yes\n",
		"durations":               "streamingConnectionIdleTimeout: 4h\ncpuCFSQuotaPeriod: 100ms\n",
		"unknown key any type":    "notAField: {a: [1]}\n",
		"structs not looked into": "logging: {format: json}\nregisterWithTaints: [{key: a, effect: NoSchedule}]\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseKubeletConfig([]byte(configHead + doc))
			assert.NoError(t, err)
		})
	}
}
