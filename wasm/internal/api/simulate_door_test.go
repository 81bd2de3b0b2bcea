package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Simulate reads its tabs through the door, as diagnose does: what the
// door says of an input is what the simulation does with it.
func TestSimulateReadsThroughTheDoor(t *testing.T) {
	node := simulateFiles(t, "cpu_manager_state", "memory_manager_state", "machine-info.json")
	nrt := InputFile{Name: "nrt.yaml", Content: "apiVersion: topology.node.k8s.io/v1alpha2\nkind: NodeResourceTopology\nmetadata:\n  name: worker-1\nzones:\n- name: node-0\n  type: Node\n  resources:\n  - name: cpu\n    capacity: \"8\"\n    allocatable: \"8\"\n    available: \"2\"\n"}
	pasted := InputFile{Name: "cpu paste", Content: "$ sudo cat /var/lib/kubelet/cpu_manager_state\n" + node[0].Content}
	list := InputFile{Name: "list.json", Content: `{"pods":[]}`}
	unnamed := InputFile{Content: node[2].Content}
	for _, tc := range []struct {
		name    string
		files   []InputFile
		wantErr string
		used    map[string]string
		skipped []string
	}{
		{name: "a NodeResourceTopology is no machine topology", files: []InputFile{nrt, node[0]}, wantErr: "no machine topology"},
		{name: "a NodeResourceTopology beside machine info", files: append([]InputFile{nrt}, node...),
			used:    map[string]string{"cpu": "cpu_manager_state", "memory": "memory_manager_state", "machine": "machine-info.json"},
			skipped: []string{"nrt.yaml"}},
		{name: "a repaired paste of a checkpoint is not the node's file", files: []InputFile{pasted, node[2]}, wantErr: "cpu paste: the kubelet would not restore this file"},
		{name: "a List answer without allocatable devices", files: append([]InputFile{list}, node...),
			used:    map[string]string{"cpu": "cpu_manager_state", "memory": "memory_manager_state", "machine": "machine-info.json"},
			skipped: []string{"list.json"}},
		{name: "an unnamed tab is named as inspect names it", files: []InputFile{node[0], unnamed},
			used: map[string]string{"cpu": "cpu_manager_state", "machine": "machine-info.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Simulate(&SimulateRequest{Pod: simulatePod(t, "pod.yaml"), Files: tc.files, Policy: "best-effort"})
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.used, res.Used, "used")
			assert.Equal(t, tc.skipped, res.Skipped, "skipped")
		})
	}
}
