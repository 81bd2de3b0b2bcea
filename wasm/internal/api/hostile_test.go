package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSimulateHostileInputs: the playground's simulation refuses the hostile
// inputs of issue 12 with an error that names the tab and the value.
func TestSimulateHostileInputs(t *testing.T) {
	node := simulateFiles(t, "cpu_manager_state", "memory_manager_state", "machine-info.json")
	cfg := InputFile{Name: "kubelet-config.yaml", Content: "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\nmemoryManagerPolicy: Static\nreservedSystemCPUs: \"0-400000000\"\n"}
	huge := InputFile{Name: "machine-info.json", Content: `{"topology":[{"node_id":0,"cores":[{"core_id":0,"thread_ids":[9223372036854775807]}]}]}`}
	for name, tc := range map[string]struct {
		req  SimulateRequest
		want []string
	}{
		"reservedSystemCPUs in the config tab": {SimulateRequest{Files: append([]InputFile{cfg}, node...), Policy: "restricted"},
			[]string{`kubelet-config.yaml: reservedSystemCPUs "0-400000000"`, "above the largest CPU id 65535"}},
		"reserved CPUs field": {SimulateRequest{Files: node, Policy: "restricted", ReservedCPUs: "0-400000000"},
			[]string{`reservedSystemCPUs "0-400000000"`, "above the largest CPU id 65535"}},
		"machine-info thread id 2^63-1": {SimulateRequest{Files: []InputFile{huge}, Policy: "restricted"},
			[]string{"machine-info.json", "9223372036854775807 is not in 0-65535"}},
	} {
		t.Run(name, func(t *testing.T) {
			tc.req.Pod = simulatePod(t, "pod.yaml")
			_, err := Simulate(&tc.req)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
