package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
)

// writeSMTNode writes a one-NUMA-node machine with 4 cores of 2 threads
// (CPU n and n+4 are siblings), a fresh static CPU state and a pod whose
// one container asks for cpus CPUs.
func writeSMTNode(t *testing.T, dir, cpus string) {
	t.Helper()
	type core struct {
		CoreID  int   `json:"core_id"`
		Threads []int `json:"thread_ids"`
		Socket  int   `json:"socket_id"`
	}
	var cores []core
	for c := 0; c < 4; c++ {
		cores = append(cores, core{CoreID: c, Threads: []int{c, c + 4}})
	}
	js, err := json.Marshal(map[string]any{"num_cores": 8, "topology": []any{map[string]any{"node_id": 0, "memory": 1 << 34, "cores": cores}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "machine.json"), js, 0o644))
	st := &statefile.CPUState{PolicyName: "static", DefaultCPUSet: cpuset.New(0, 1, 2, 3, 4, 5, 6, 7)}
	data, err := statefile.Encode(&statefile.File{Kind: statefile.KindCPU, CPU: st}, statefile.FormatV2)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "state"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "state", "cpu_manager_state"), data, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte(`{"kind":"Pod","metadata":{"name":"dpdk","namespace":"net","uid":"42"},"spec":{"containers":[{"name":"fwd","resources":{"limits":{"cpu":"`+cpus+`","memory":"1Gi"}}}]}}`), 0o644))
}

// TestCPUManagerOptions: admit predicts the kubelet's SMTAlignmentError
// under full-pcpus-only, from --cpu-option or the kubelet configuration's
// cpuManagerPolicyOptions, and refuses options the kubelet refuses.
func TestCPUManagerOptions(t *testing.T) {
	for _, tc := range []struct {
		name, cpus, config string
		args               []string
		code               int
		want               []string // in stdout (exit 0 or 1) or stderr (exit 2)
	}{
		{name: "no options: 3 CPUs admitted", cpus: "3", code: 0, want: []string{"verdict      admitted under restricted/container"}},
		{name: "full-pcpus-only: 3 CPUs not a multiple of 2", cpus: "3", args: []string{"--cpu-option", "full-pcpus-only=true"}, code: 1,
			want: []string{"cpu manager  static  options: full-pcpus-only=true", "rejected: SMTAlignmentError: SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2"}},
		// Under restricted the 7 free CPUs give no hint for 8 (TopologyAffinityError);
		// best-effort admits the merge and the CPU manager refuses.
		{name: "full-pcpus-only: 8 CPUs, the reserved CPU's core is not free", cpus: "8", args: []string{"--cpu-option", "full-pcpus-only=true", "--reserved-cpus", "0", "--policy", "best-effort"}, code: 1,
			want: []string{"rejected: SMTAlignmentError: SMT Alignment Error: not enough free physical CPUs: available physical CPUs = 6, requested CPUs = 8, CPUs per core = 2"}},
		{name: "full-pcpus-only: 6 CPUs fit beside the reserved core", cpus: "6", args: []string{"--cpu-option", "full-pcpus-only=true", "--reserved-cpus", "0"}, code: 0,
			want: []string{"verdict      admitted"}},
		{name: "from the kubelet configuration", cpus: "5", config: "cpuManagerPolicyOptions: {full-pcpus-only: \"true\"}\n", code: 1,
			want: []string{"SMT Alignment Error: requested 5 cpus not multiple cpus per core = 2"}},
		{name: "an alpha option without its gate", cpus: "2", args: []string{"--cpu-option", "align-by-socket=true"}, code: 2,
			want: []string{`CPU Manager Policy Alpha-level Options not enabled, but option "align-by-socket" provided`}},
		{name: "a bad value", cpus: "2", args: []string{"--cpu-option", "full-pcpus-only=yes"}, code: 2,
			want: []string{`bad value for option "full-pcpus-only"`}},
		{name: "options the kubelet cannot combine", cpus: "2", config: "featureGates: {CPUManagerPolicyAlphaOptions: true}\n", args: []string{"--cpu-option", "full-pcpus-only=true", "--cpu-option", "distribute-cpus-across-cores=true"}, code: 2,
			want: []string{"static policy options full-pcpus-only and distribute-cpus-across-cores can not be used at the same time"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeSMTNode(t, dir, tc.cpus)
			cfg := "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\ntopologyManagerPolicy: restricted\n" + tc.config
			require.NoError(t, os.WriteFile(filepath.Join(dir, "state", "config.yaml"), []byte(cfg), 0o644))
			args := append([]string{"--pod", filepath.Join(dir, "pod.yaml"), "--state-dir", filepath.Join(dir, "state"), "--topology", filepath.Join(dir, "machine.json")}, tc.args...)
			code, out, errs := runCmd(args...)
			assert.Equal(t, tc.code, code, "exit code; stdout:\n%s\nstderr:\n%s", out, errs)
			text := out
			if tc.code == 2 {
				text = errs
			}
			for _, w := range tc.want {
				assert.Contains(t, text, w)
			}
		})
	}
	// --json carries the reason and the kubelet's message.
	dir := t.TempDir()
	writeSMTNode(t, dir, "3")
	code, out, errs := runCmd("--pod", filepath.Join(dir, "pod.yaml"), "--state-dir", filepath.Join(dir, "state"), "--topology", filepath.Join(dir, "machine.json"), "--policy", "restricted", "--cpu-option", "full-pcpus-only=true", "--json")
	require.Equal(t, 1, code, "exit code; stderr: %s", errs)
	var res struct {
		Admit           bool
		Reason, Message string
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), "%s", out)
	assert.Equal(t, "SMTAlignmentError", res.Reason, "reason")
	assert.Equal(t, "SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2", res.Message, "message")
}
