package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
)

// writeNode writes a two-NUMA-node machine (CPUs 0-7 on node 0, 8-15 on
// node 1, 64 GiB each) and its kubelet state: pod "busy" holds CPUs 0-5 and
// 8 GiB on node 0; one GPU on node 1 is free.
func writeNode(t *testing.T, dir string) {
	t.Helper()
	gib := uint64(1 << 30)
	mem := &statefile.MemoryState{PolicyName: "Static", MachineState: map[int]*statefile.NUMANodeState{},
		Entries: map[string]map[string][]statefile.Block{"busy": {"app": {{NUMAAffinity: []int{0}, Type: "memory", Size: 8 * gib}}}}}
	for n := 0; n < 2; n++ {
		t := &statefile.MemoryTable{TotalMemSize: 64 * gib, SystemReserved: gib, Allocatable: 63 * gib, Free: 63 * gib}
		assignments := 0
		if n == 0 {
			t.Reserved, t.Free = 8*gib, 55*gib
			assignments = 1
		}
		mem.MachineState[n] = &statefile.NUMANodeState{NumberOfAssignments: assignments, MemoryMap: map[string]*statefile.MemoryTable{"memory": t}, Cells: []int{n}}
	}
	cpu := &statefile.CPUState{PolicyName: "static", DefaultCPUSet: cpuset.New(6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
		Entries: map[string]map[string]cpuset.CPUSet{"busy": {"app": cpuset.New(0, 1, 2, 3, 4, 5)}}}
	dev := &statefile.DeviceState{RegisteredDevices: map[string][]string{"nvidia.com/gpu": {"GPU-a"}}}
	write := func(name string, f *statefile.File, format statefile.Format) {
		data, err := statefile.Encode(f, format)
		require.NoError(t, err)
		path := filepath.Join(dir, "state", name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, data, 0o644))
	}
	write("cpu_manager_state", &statefile.File{Kind: statefile.KindCPU, CPU: cpu}, statefile.FormatV2)
	write("memory_manager_state", &statefile.File{Kind: statefile.KindMemory, Memory: mem}, statefile.FormatV1)
	write("device-plugins/kubelet_internal_checkpoint", &statefile.File{Kind: statefile.KindDevice, Device: dev}, statefile.FormatV2)
	type core struct {
		CoreID  int   `json:"core_id"`
		Threads []int `json:"thread_ids"`
		Socket  int   `json:"socket_id"`
	}
	type node struct {
		ID        int      `json:"node_id"`
		Memory    uint64   `json:"memory"`
		Cores     []core   `json:"cores"`
		Distances []uint64 `json:"distances"`
	}
	var topo []node
	for n := 0; n < 2; n++ {
		nd := node{ID: n, Memory: 64 * gib, Distances: []uint64{10, 20}}
		if n == 1 {
			nd.Distances = []uint64{20, 10}
		}
		for c := 0; c < 8; c++ {
			nd.Cores = append(nd.Cores, core{CoreID: c, Threads: []int{n*8 + c}, Socket: n})
		}
		topo = append(topo, nd)
	}
	js, err := json.Marshal(map[string]any{"topology": topo})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "machine.json"), js, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "allocatable.json"), []byte(`{"devices":[{"resourceName":"nvidia.com/gpu","deviceIds":["GPU-a"],"numaNodes":[1]}]}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte(`apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: ml, uid: "1111"}
spec:
  containers:
  - name: worker
    resources:
      limits: {cpu: "4", memory: 4Gi, nvidia.com/gpu: 1}
  - name: sidecar
    resources:
      limits: {cpu: "2", memory: 1Gi}
`), 0o644))
}

func TestNodeMode(t *testing.T) {
	dir := t.TempDir()
	writeNode(t, dir)
	args := func(policy, scope string, extra ...string) []string {
		return append([]string{"--pod", filepath.Join(dir, "pod.yaml"), "--state-dir", filepath.Join(dir, "state"),
			"--topology", filepath.Join(dir, "machine.json"), "--allocatable", filepath.Join(dir, "allocatable.json"),
			"--policy", policy, "--scope", scope}, extra...)
	}
	// Container scope: worker needs 4 CPUs + the GPU, both only on node 1
	// (node 0 has 2 free CPUs); sidecar then needs 2 CPUs: node 0 has 2 free.
	code, out, errs := runCmd(append(args("single-numa-node", "container"), "--json")...)
	require.Equal(t, 0, code, "exit code; stderr: %s", errs)
	var res struct {
		Admit      bool
		Affinities map[string]struct{ NumaAffinity []int }
		Steps      []struct {
			Container string
			Answers   []struct {
				Provider string
				Hints    map[string][]struct {
					NumaAffinity []int
					Preferred    bool
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), "the --json output:\n%s", out)
	require.True(t, res.Admit, "container scope: admit; output:\n%s", out)
	require.Equal(t, []int{1}, res.Affinities["worker"].NumaAffinity, "container scope: worker's NUMA affinity")
	require.Len(t, res.Affinities["sidecar"].NumaAffinity, 1, "container scope: sidecar's NUMA affinity")
	require.Len(t, res.Steps, 2, "steps; output:\n%s", out)
	require.GreaterOrEqual(t, len(res.Steps[0].Answers), 3, "answers of step 0; output:\n%s", out)
	require.Equal(t, "device", res.Steps[0].Answers[0].Provider, "provider of step 0, answer 0")
	require.Equal(t, "cpu", res.Steps[0].Answers[1].Provider, "provider of step 0, answer 1")
	require.Equal(t, "memory", res.Steps[0].Answers[2].Provider, "provider of step 0, answer 2")
	cpuHints := res.Steps[0].Answers[1].Hints["cpu"]
	// node 0 has only 2 free CPUs: hints {1} (preferred) and {0,1}.
	require.Len(t, cpuHints, 2, "cpu hints for worker: %+v", cpuHints)
	require.NotEmpty(t, cpuHints[0].NumaAffinity, "cpu hint 0 for worker")
	require.Equal(t, 1, cpuHints[0].NumaAffinity[0], "first NUMA node of cpu hint 0 for worker")
	require.True(t, cpuHints[0].Preferred, "cpu hint 0 for worker is preferred")
	require.False(t, cpuHints[1].Preferred, "cpu hint 1 for worker is preferred")
	// Pod scope: 6 CPUs + GPU: node 1 has 8 free CPUs, so single-numa-node admits on node 1.
	code, out, errs = runCmd(append(args("single-numa-node", "pod"), "--json")...)
	require.Equal(t, 0, code, "pod scope: exit code; stderr: %s", errs)
	require.Contains(t, out, `"admit":true`, "pod scope")
	// Human output shows the work and the verdict.
	code, out, errs = runCmd(args("restricted", "container")...)
	assert.Equal(t, 0, code, "human output: exit code; stderr: %s", errs)
	for _, want := range []string{"==           worker", "device       nvidia.com/gpu: {1}*", "verdict      admitted under restricted/container", "container worker: best hint NUMA node 1, preferred", "cpu          cpu: {1}* {0,1}"} {
		assert.Contains(t, out, want, "human output")
	}
	// A rejection with its account: a pod needing 10 CPUs and 60 GiB on one node.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big.yaml"), []byte(`{"kind":"Pod","metadata":{"name":"big","namespace":"ml"},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"10","memory":"60Gi"}}}]}}`), 0o644))
	a := args("single-numa-node", "container")
	a[1] = filepath.Join(dir, "big.yaml")
	code, out, errs = runCmd(a...)
	assert.Equal(t, 1, code, "rejection: exit code; stderr: %s", errs)
	for _, want := range []string{"rejected: TopologyAffinityError", "cpu/cpu: no preferred single-NUMA-node placement"} {
		assert.Contains(t, out, want, "rejection")
	}
	assert.True(t, strings.HasPrefix(out, "✗ pod ml/big: rejected: TopologyAffinityError"), "the verdict is the first line: %q", out)
}

func TestNodeModeErrors(t *testing.T) {
	dir := t.TempDir()
	writeNode(t, dir)
	base := []string{"--pod", filepath.Join(dir, "pod.yaml"), "--state-dir", filepath.Join(dir, "state"), "--topology", filepath.Join(dir, "machine.json")}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("kind: Pod\nspec:\n  containers:\n  - name: c\n    resources: {limits: {cpu: two}}\n"), 0o644))
	b := append([]string(nil), base...)
	b[1] = filepath.Join(dir, "bad.yaml")
	for _, tt := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"bad policy", append(base, "--policy", "strict"), `--policy "strict": not a Topology Manager policy: give none, best-effort, restricted or single-numa-node`},
		{"bad scope", append(base, "--policy", "restricted", "--scope", "node"), `--scope "node": not a Topology Manager scope: give container or pod`},
		{"bad reserved", append(base, "--policy", "restricted", "--reserved-cpus", "x"), `--reserved-cpus: reservedSystemCPUs "x"`},
		{"bad option", append(base, "--policy", "restricted", "--option", "max-allowable-numa-nodes=2"), "should not be less than 8"},
		{"no policy", base, "--policy"},
		{"bad pod", append(b, "--policy", "restricted"), "/spec/containers/0/resources/limits/cpu"},
	} {
		code, _, errs := runCmd(tt.args...)
		assert.Equal(t, 2, code, "%s: exit code", tt.name)
		assert.Contains(t, errs, tt.want, "%s: stderr", tt.name)
	}
}

func TestNodeModeKubeletConfig(t *testing.T) {
	dir := t.TempDir()
	writeNode(t, dir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "state", "config.yaml"), []byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\nmemoryManagerPolicy: Static\ntopologyManagerPolicy: single-numa-node\ntopologyManagerScope: pod\n"), 0o644))
	base := []string{"--pod", filepath.Join(dir, "pod.yaml"), "--state-dir", filepath.Join(dir, "state"), "--topology", filepath.Join(dir, "machine.json"), "--allocatable", filepath.Join(dir, "allocatable.json")}
	code, out, errs := runCmd(base...)
	require.Equal(t, 0, code, "config: exit code; stderr: %s", errs)
	require.Contains(t, out, "single-numa-node  scope: pod", "config not used")
	require.Contains(t, out, "==           whole pod", "config not used")
	code, out, errs = runCmd(append(base, "--policy", "restricted")...)
	require.Equal(t, 0, code, "--policy over the config: exit code; stderr: %s", errs)
	require.Contains(t, out, "restricted  scope: pod", "flag does not override the config")
	// The config says the CPU manager runs policy none: the kubelet would refuse the static state.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "state", "config.yaml"), []byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ntopologyManagerPolicy: restricted\n"), 0o644))
	code, _, errs = runCmd(base...)
	require.Equal(t, 2, code, "policy mismatch: exit code; stderr: %s", errs)
	require.Contains(t, errs, "cpu_manager_state: the kubelet would not restore this file", "policy mismatch")
}
