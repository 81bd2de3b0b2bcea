package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// simulateFiles reads the simulate example's node: CPUs 0-7 on node 0 and
// 8-15 on node 1, pod "busy" holding CPUs 0-5 and 8 GiB on node 0, one free
// GPU on node 1.
func simulateFiles(t *testing.T, names ...string) []InputFile {
	t.Helper()
	var out []InputFile
	for _, n := range names {
		b, err := examplesFS.ReadFile("examples/scenarios/simulate/" + n)
		require.NoError(t, err)
		out = append(out, InputFile{Name: n, Content: string(b)})
	}
	return out
}

func simulatePod(t *testing.T, name string) string {
	return simulateFiles(t, name)[0].Content
}

func TestSimulate(t *testing.T) {
	node := []string{"cpu_manager_state", "memory_manager_state", "kubelet_internal_checkpoint", "machine-info.json", "allocatable.json"}
	tests := []struct {
		name          string
		pod           string
		files         []string
		policy, scope string
		options       map[string]string
		admit         bool
		reason        string
		want          []string // substrings of the JSON answer
	}{
		{name: "big pod rejected by single-numa-node", pod: "pod.yaml", files: node, policy: "single-numa-node", scope: "container",
			reason: "TopologyAffinityError", want: []string{`"pod":"ml/big"`, `"qos":"Guaranteed"`, "cpu/cpu: no preferred single-NUMA-node placement", `"container":"solver"`}},
		{name: "big pod admitted by best-effort", pod: "pod.yaml", files: node, policy: "best-effort", scope: "container", admit: true,
			want: []string{"admitted under best-effort/container"}},
		{name: "trainer: worker on node 1 with the GPU", pod: "trainer.yaml", files: node, policy: "single-numa-node", scope: "container", admit: true,
			want: []string{`"provider":"device"`, `"provider":"cpu"`, `"provider":"memory"`, `"worker":{"numaAffinity":[1],"preferred":true}`, `"allocatable":"allocatable.json"`}},
		{name: "trainer, pod scope", pod: "trainer.yaml", files: node, policy: "single-numa-node", scope: "pod", admit: true,
			want: []string{`"scope":"pod"`}},
		{name: "restricted with options", pod: "pod.yaml", files: node, policy: "restricted", scope: "container",
			options: map[string]string{"prefer-closest-numa-nodes": "true"}, reason: "TopologyAffinityError"},
		{name: "no CPU state: no CPU hints", pod: "pod.yaml", files: []string{"memory_manager_state", "machine-info.json"}, policy: "single-numa-node", admit: true,
			want: []string{"CPU manager policy none"}},
		{name: "pod tabs are skipped", pod: "pod.yaml", files: append([]string{"trainer.yaml"}, node...), policy: "best-effort", admit: true,
			want: []string{`"skipped":["trainer.yaml"]`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Simulate(&SimulateRequest{Pod: simulatePod(t, tc.pod), Files: simulateFiles(t, tc.files...), Policy: tc.policy, Scope: tc.scope, Options: tc.options})
			require.NoError(t, err)
			assert.Equal(t, tc.admit, res.Admit, "admit")
			assert.Equal(t, tc.reason, res.Reason, "reason")
			assert.NotEmpty(t, res.Steps, "steps")
			assert.NotEmpty(t, res.Account, "account")
			b, err := json.Marshal(res)
			require.NoError(t, err)
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("answer lacks %s:\n%s", w, b)
				}
			}
		})
	}
}

func TestSimulateErrors(t *testing.T) {
	node := simulateFiles(t, "cpu_manager_state", "machine-info.json")
	pod := simulatePod(t, "pod.yaml")
	corrupt := strings.Replace(node[0].Content, `"0-5"`, `"0-4"`, 1)
	tests := []struct {
		name string
		req  string
		want string
	}{
		{"no pod", `{"files":[]}`, "no pod"},
		{"bad pod", `{"pod":"kind: Pod\nspec: 3"}`, "pod:"},
		{"no machine", jsonReq(t, SimulateRequest{Pod: pod, Files: node[:1]}), "no machine topology"},
		{"bad policy", jsonReq(t, SimulateRequest{Pod: pod, Files: node, Policy: "tight"}), "tight"},
		{"two cpu states", jsonReq(t, SimulateRequest{Pod: pod, Files: append(node, InputFile{Name: "other", Content: node[0].Content})}), "both give the cpu"},
		{"corrupt state", jsonReq(t, SimulateRequest{Pod: pod, Files: []InputFile{{Name: "cpu_manager_state", Content: corrupt}, node[1]}}), "would not restore"},
		{"unknown field", `{"pod":"x","colour":1}`, "documented shape"},
		{"bad reserved", jsonReq(t, SimulateRequest{Pod: pod, Files: node, ReservedCPUs: "x-"}), "reservedSystemCPUs \"x-\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var resp Response
			require.NoError(t, json.Unmarshal(Call("simulate", []byte(tc.req)), &resp))
			assert.False(t, resp.OK, "OK")
			if assert.NotNil(t, resp.Error, "error") {
				assert.Equal(t, "bad-request", resp.Error.Code, "error code")
				assert.Contains(t, resp.Error.Message, tc.want, "error message")
			}
		})
	}
}

func jsonReq(t *testing.T, r SimulateRequest) string {
	b, err := json.Marshal(r)
	require.NoError(t, err)
	return string(b)
}

func TestSimulateExample(t *testing.T) {
	list, err := Examples()
	require.NoError(t, err)
	for _, ex := range list.Examples {
		if ex.ID != "simulate-single-numa-node" {
			continue
		}
		res, err := Simulate(&SimulateRequest{Pod: ex.Admission.Pod, Files: ex.Files, Policy: ex.Admission.Policy, Scope: ex.Admission.Scope})
		require.NoError(t, err)
		assert.False(t, res.Admit, "example: admit")
		assert.Equal(t, "TopologyAffinityError", res.Reason, "example: reason")
		assert.Empty(t, res.Skipped, "example: skipped files")
		return
	}
	t.Fatal("no simulate-single-numa-node example")
}
