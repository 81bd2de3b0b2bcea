package diagnose

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
)

const nrtNumactl = `available: 2 nodes (0-1)
node 0 cpus: 0 1 2 3 4 5 6 7
node 0 size: 32114 MB
node 1 cpus: 8 9 10 11 12 13 14 15
node 1 size: 32253 MB
node distances:
node   0   1
  0:  10  21
  1:  21  10
`

const nrtConfig = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
reservedSystemCPUs: "0-1"
memoryManagerPolicy: Static
topologyManagerPolicy: single-numa-node
topologyManagerScope: container
`

// nrtDoc is a NodeResourceTopology as resource-topology-exporter writes it
// (v1alpha2: attributes, zones of type Node with capacity, allocatable and
// available), with the given extra resources per zone.
func nrtDoc(attrs string, cpu0, cpu1 string, extra0, extra1 string) string {
	return `apiVersion: topology.node.k8s.io/v1alpha2
kind: NodeResourceTopology
metadata:
  name: worker-1
` + attrs + `zones:
- name: node-0
  type: Node
  costs: [{name: node-0, value: 10}, {name: node-1, value: 21}]
  resources:
  - {name: cpu, capacity: "8", allocatable: "6", available: "` + cpu0 + `"}
` + extra0 + `- name: node-1
  type: Node
  costs: [{name: node-0, value: 21}, {name: node-1, value: 10}]
  resources:
  - {name: cpu, capacity: "8", allocatable: "8", available: "` + cpu1 + `"}
` + extra1
}

const nrtAttrs = `attributes:
- {name: topologyManagerPolicy, value: single-numa-node}
- {name: topologyManagerScope, value: container}
`

// cpuState encodes a static cpu_manager_state with worker on 4-7 (node 0).
func cpuState(t *testing.T) []byte {
	t.Helper()
	f := &statefile.File{Kind: statefile.KindCPU, CPU: &statefile.CPUState{PolicyName: "static",
		DefaultCPUSet: cpuset.New(0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15),
		Entries:       map[string]map[string]cpuset.CPUSet{"11111111-0000-4000-8000-000000000016": {"worker": cpuset.New(4, 5, 6, 7)}}}}
	b, err := statefile.Encode(f, statefile.FormatV2)
	require.NoError(t, err)
	return b
}

// memState encodes a Static memory_manager_state with free memory per node.
func memState(t *testing.T, free0, free1 uint64) []byte {
	t.Helper()
	table := func(free uint64) map[string]*statefile.MemoryTable {
		return map[string]*statefile.MemoryTable{
			"memory":        {TotalMemSize: 32 << 30, SystemReserved: 1 << 30, Allocatable: 31 << 30, Reserved: 31<<30 - free, Free: free},
			"hugepages-1Gi": {},
		}
	}
	f := &statefile.File{Kind: statefile.KindMemory, Memory: &statefile.MemoryState{PolicyName: "Static",
		MachineState: map[int]*statefile.NUMANodeState{
			0: {MemoryMap: table(free0), Cells: []int{0}},
			1: {MemoryMap: table(free1), Cells: []int{1}},
		}}}
	b, err := statefile.Encode(f, statefile.FormatV1)
	require.NoError(t, err)
	return b
}

func podRes(pods, devices string) string {
	return `{"pods": [` + pods + `], "allocatable": {"cpuIds": [2,3,4,5,6,7,8,9,10,11,12,13,14,15], "memory": [], "devices": [` + devices + `]}}`
}

const prWorker = `{"name": "batch-1", "namespace": "jobs", "containers": [{"name": "worker", "cpuIds": [4,5,6,7], "memory": [], "devices": []}]}`

func TestNRTVersusKubelet(t *testing.T) {
	gpu0 := `  - {name: example.com/gpu, capacity: "2", allocatable: "2", available: "%s"}
`
	mem := func(free string) string {
		return `  - {name: memory, capacity: "32Gi", allocatable: "31Gi", available: "` + free + `"}
`
	}
	tests := []struct {
		name string
		// files are name -> content, added in order with kind detection.
		files []struct{ name, data string }
		want  []string // substrings of the finding's explanation; nil: no finding
		refs  []string
	}{
		{
			name: "agree",
			files: files("nrt.yaml", nrtDoc(nrtAttrs, "2", "8", mem("21Gi"), mem("31Gi")), "topology.txt", nrtNumactl,
				"kubelet-config.yaml", nrtConfig, "cpu_manager_state", string(cpuState(t)),
				"memory_manager_state", string(memState(t, 21<<30, 31<<30)), "podresources.json", podRes(prWorker, "")),
		},
		{
			name:  "cpu available stale against cpu_manager_state",
			files: files("nrt.yaml", nrtDoc(nrtAttrs, "6", "8", "", ""), "topology.txt", nrtNumactl, "cpu_manager_state", string(cpuState(t))),
			want:  []string{"NUMA node 0 cpu: NodeResourceTopology says 6 CPUs available, the kubelet (6 allocatable, 4 exclusive in cpu_manager_state) leaves 2 CPUs", "places pods the kubelet then rejects"},
			refs:  []string{"nrt.yaml#/zones/0/resources/0/available"},
		},
		{
			name:  "cpu available lower than the kubelet's",
			files: files("nrt.yaml", nrtDoc(nrtAttrs, "2", "4", "", ""), "topology.txt", nrtNumactl, "cpu_manager_state", string(cpuState(t))),
			want:  []string{"NUMA node 1 cpu: NodeResourceTopology says 4 CPUs available", "leaves 8 CPUs", "keeps pods away"},
			refs:  []string{"nrt.yaml#/zones/1/resources/0/available"},
		},
		{
			name:  "unknown NUMA mapping says nothing",
			files: files("nrt.yaml", nrtDoc(nrtAttrs, "6", "8", "", ""), "cpu_manager_state", string(cpuState(t)), "podresources.json", podRes(prWorker, "")),
		},
		{
			name: "memory free differs from memory_manager_state",
			files: files("nrt.yaml", nrtDoc(nrtAttrs, "2", "8", mem("31Gi"), mem("31Gi")),
				"memory_manager_state", string(memState(t, 21<<30, 31<<30))),
			want: []string{"NUMA node 0 memory: NodeResourceTopology says 31Gi available, memory_manager_state leaves 21Gi"},
			refs: []string{"nrt.yaml#/zones/0/resources/1/available"},
		},
		{
			name: "devices per zone differ from PodResources",
			files: files("nrt.yaml", nrtDoc(nrtAttrs, "2", "8", fmt.Sprintf(gpu0, "2"), ""),
				"podresources.json", podRes(`{"name": "train", "namespace": "ml", "containers": [{"name": "t", "cpuIds": [], "memory": [], "devices": [{"resourceName": "example.com/gpu", "deviceIds": ["gpu-0"], "numaNodes": [0]}]}]}`,
					`{"resourceName": "example.com/gpu", "deviceIds": ["gpu-0", "gpu-1"], "numaNodes": [0]}`)),
			want: []string{"NUMA node 0 example.com/gpu: NodeResourceTopology says 2 available, PodResources leaves 1"},
			refs: []string{"nrt.yaml#/zones/0/resources/1/available"},
		},
		{
			name:  "policy attributes differ from the configuration",
			files: files("nrt.yaml", nrtDoc("attributes:\n- {name: topologyManagerPolicy, value: best-effort}\n- {name: topologyManagerScope, value: pod}\n", "6", "8", "", ""), "kubelet-config.yaml", nrtConfig),
			want:  []string{"topologyManagerPolicy best-effort, the kubelet's is single-numa-node", "topologyManagerScope pod, the kubelet's is container", "restart it"},
			refs:  []string{"nrt.yaml#/attributes/0/value", "nrt.yaml#/attributes/1/value"},
		},
		{
			name:  "v1alpha1 topologyPolicies differ from the configuration",
			files: files("nrt.yaml", nrtDoc("topologyPolicies: [SingleNUMANodePodLevel]\n", "6", "8", "", ""), "kubelet-config.yaml", nrtConfig),
			want:  []string{"topologyManagerScope pod, the kubelet's is container"},
			refs:  []string{"nrt.yaml#/topologyPolicies/0"},
		},
		{
			name:  "v1alpha1 topologyPolicies agree",
			files: files("nrt.yaml", nrtDoc("topologyPolicies: [SingleNUMANodeContainerLevel]\n", "6", "8", "", ""), "kubelet-config.yaml", nrtConfig),
		},
		{
			name:  "exclusive CPUs in PodResources absent from the NRT",
			files: files("nrt.yaml", nrtDoc(nrtAttrs, "6", "8", "", ""), "topology.txt", nrtNumactl, "podresources.json", podRes(prWorker, "")),
			want:  []string{"NUMA node 0: PodResources shows 4 exclusive CPUs in use (jobs/batch-1 (4)), NodeResourceTopology counts 0"},
			refs:  []string{"nrt.yaml#/zones/0/resources/0/available"},
		},
		{
			name: "pod-level CPU ids overlapping the containers' count once",
			files: files("nrt.yaml", nrtDoc(nrtAttrs, "2", "8", "", ""), "topology.txt", nrtNumactl,
				"podresources.json", podRes(`{"name": "batch-1", "namespace": "jobs", "cpuIds": [4,5,6,7], "containers": [{"name": "worker", "cpuIds": [4,5,6,7], "memory": [], "devices": []}]}`, "")),
		},
		{
			name:  "a configuration without the scope means the default",
			files: files("nrt.yaml", nrtDoc(nrtAttrs+"", "6", "8", "", ""), "kubelet-config.yaml", "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ntopologyManagerPolicy: best-effort\n"),
			want:  []string{"topologyManagerPolicy single-numa-node, the kubelet's is best-effort (kubelet-config.yaml)"},
			refs:  []string{"nrt.yaml#/attributes/0/value"},
		},
		{
			name:  "policy from the default",
			files: files("nrt.yaml", nrtDoc(nrtAttrs, "6", "8", "", ""), "kubelet-config.yaml", "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"),
			want:  []string{"topologyManagerPolicy single-numa-node, the kubelet's is none (kubelet-config.yaml does not set it: the default)"},
			refs:  []string{"nrt.yaml#/attributes/0/value"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := &evidence.Set{}
			for _, f := range tt.files {
				it := ev.Add(f.name, "", []byte(f.data))
				require.True(t, it.Used(), "%s: %+v", f.name, it)
			}
			o, _ := ev.NRT()
			require.NotNil(t, o, "the NRT is kept")
			rep, err := Run(context.Background(), ev)
			require.NoError(t, err)
			var got []Finding
			for _, f := range rep.Findings {
				if f.Code == CodeNRTDisagrees {
					got = append(got, f)
				}
			}
			if tt.want == nil {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			f := got[0]
			assert.Equal(t, statefile.SeverityWarning, f.Severity)
			for _, w := range tt.want {
				assert.Contains(t, f.Explanation+" "+f.Remedy, w)
			}
			var refs []string
			for _, r := range f.Evidence {
				refs = append(refs, r.String())
			}
			assert.Equal(t, tt.refs, refs)
			assert.Contains(t, f.Remedy, "--kubelet-state-dir")
		})
	}
}

func files(kv ...string) []struct{ name, data string } {
	var out []struct{ name, data string }
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, struct{ name, data string }{kv[i], kv[i+1]})
	}
	return out
}

// TestNRTEvidenceKeepsMachine: an NRT given beside a topology that names
// CPUs does not replace it, and is listed as read.
func TestNRTEvidenceKeepsMachine(t *testing.T) {
	ev := &evidence.Set{}
	require.True(t, ev.Add("topology.txt", "", []byte(nrtNumactl)).Used())
	it := ev.Add("nrt.yaml", "", []byte(nrtDoc(nrtAttrs, "2", "8", "", "")))
	assert.Equal(t, "read", it.Status, "%+v", it)
	assert.True(t, strings.Contains(it.Note, "not used as the machine topology"), it.Note)
	require.NotNil(t, ev.Machine)
	assert.Equal(t, "topology.txt", ev.Machine.Source)
}

// TestNRTReadmeRow keeps the README's findings table row for
// NRTDisagreesWithKubelet naming scenarios that exist and prove the code.
func TestNRTReadmeRow(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	var row string
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "| `"+CodeNRTDisagrees+"` |") {
			row = line
		}
	}
	require.NotEmpty(t, row, "README.md's findings table has no row for %s", CodeNRTDisagrees)
	cells := strings.Split(row, "|")
	require.Len(t, cells, 6, row)
	assert.Equal(t, "warning", strings.TrimSpace(cells[2]))
	for _, sc := range strings.Split(cells[4], ",") {
		dir := strings.Trim(strings.TrimSpace(sc), "`")
		b, err := os.ReadFile(filepath.Join("testdata", dir, "README.md"))
		require.NoError(t, err, "scenario %s", dir)
		assert.Contains(t, string(b), "codes: "+CodeNRTDisagrees, "scenario %s", dir)
	}
}
