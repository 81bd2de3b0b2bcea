package api

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPolicyFor(t *testing.T) {
	for _, tc := range []struct {
		name      string
		req       InspectRequest
		cpu, mem  string
		otherKind string
	}{
		{"nothing chosen", InspectRequest{}, "", "", ""},
		{"per kind", InspectRequest{CPUPolicy: "static", MemoryPolicy: "None"}, "static", "None", ""},
		{"a cpu policy never applies to memory", InspectRequest{Policy: "static"}, "static", "", ""},
		{"a memory policy never applies to cpu", InspectRequest{Policy: "Static"}, "", "Static", ""},
		{"per kind wins over the single policy", InspectRequest{Policy: "none", CPUPolicy: "static"}, "static", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.cpu, tc.req.policyFor("cpu"), "cpu")
			assert.Equal(t, tc.mem, tc.req.policyFor("memory"), "memory")
			assert.Equal(t, tc.otherKind, tc.req.policyFor(""), "unknown kind")
		})
	}
}

func scenarioFiles(t *testing.T, name string) []InputFile {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "diagnose", "testdata", name)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files []InputFile
	for _, e := range entries {
		n := e.Name()
		if n == "README.md" || strings.HasPrefix(n, "expected.") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, n))
		require.NoError(t, err)
		files = append(files, InputFile{Name: n, Content: string(b)})
	}
	return files
}

func TestInspectPoliciesPerKind(t *testing.T) {
	files := scenarioFiles(t, "troubleshooting-page")
	var states []InputFile
	for _, f := range files {
		if strings.HasSuffix(f.Name, "_state") {
			states = append(states, f)
		}
	}
	require.Len(t, states, 2)
	accepts := func(r *InspectResult) map[string]bool {
		out := map[string]bool{}
		for _, f := range r.Files {
			if f.Kind == "cpu" || f.Kind == "memory" {
				out[f.Kind] = f.KubeletAccepts
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		req  InspectRequest
		want map[string]bool
	}{
		{"as named in the files", InspectRequest{Files: states}, map[string]bool{"cpu": true, "memory": true}},
		{"a cpu policy leaves the memory file alone", InspectRequest{Files: states, Policy: "static"}, map[string]bool{"cpu": true, "memory": true}},
		{"a memory policy leaves the cpu file alone", InspectRequest{Files: states, Policy: "Static"}, map[string]bool{"cpu": true, "memory": true}},
		{"a cpu policy other than the file's refuses the cpu file only", InspectRequest{Files: states, CPUPolicy: "none"}, map[string]bool{"cpu": false, "memory": true}},
		{"a memory policy other than the file's refuses the memory file only", InspectRequest{Files: states, MemoryPolicy: "None"}, map[string]bool{"cpu": true, "memory": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, accepts(Inspect(&tc.req))); d != "" {
				t.Errorf("kubelet accepts (-want +got):\n%s", d)
			}
		})
	}
	t.Run("the kubelet configuration's policies", func(t *testing.T) {
		r := Inspect(&InspectRequest{Files: files})
		require.NotNil(t, r.Config)
		want := ConfigPolicies{File: "kubelet-config.yaml", CPUManagerPolicy: "static", MemoryManagerPolicy: "Static",
			TopologyManagerPolicy: "single-numa-node", TopologyManagerScope: "container"}
		if d := cmp.Diff(want, *r.Config); d != "" {
			t.Errorf("config (-want +got):\n%s", d)
		}
		assert.Equal(t, map[string]bool{"cpu": true, "memory": true}, accepts(r))
		assert.Nil(t, Inspect(&InspectRequest{Files: states}).Config, "no configuration among the files")
	})
}

func TestDiagnoseLocatesPointers(t *testing.T) {
	res, err := Diagnose(&DiagnoseRequest{Files: scenarioFiles(t, "troubleshooting-page")})
	require.NoError(t, err)
	got := map[string]Position{}
	for _, l := range res.Locations {
		got[l.File+"#"+l.Path] = l.Position
	}
	for ref, want := range map[string]Position{
		"pod.yaml#/status/reason":                    {17, 3},
		"kubelet-config.yaml#/topologyManagerPolicy": {6, 1},
	} {
		assert.Equal(t, want, got[ref], ref)
	}
	for _, f := range res.Report.Findings {
		assert.NotContains(t, f.Remedy, "go run", "finding %s tells a browser user to use Go", f.Code)
	}
}

func TestProblemsCarryPositions(t *testing.T) {
	r := Inspect(&InspectRequest{Files: []InputFile{{Name: "cpu_manager_state", Content: "{\"policyName\": \"static\",\n \"defaultCpuSet\": ]\n}"}}})
	require.Len(t, r.Files, 1)
	require.NotEmpty(t, r.Files[0].Problems)
	p := r.Files[0].Problems[0]
	assert.Equal(t, Position{2, 19}, Position{p.Line, p.Column}, "the syntax error's place: %s", p.Message)
}

func TestCommentedPasteRemedy(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{name: "hash comment", content: "# cpu state from node a\n{\"policyName\": \"none\", \"defaultCpuSet\": \"\", \"checksum\": 1}", want: "line 1 is a comment (#)"},
		{name: "slash comment inside", content: "{\"policyName\": \"none\",\n  // the shared pool\n  \"defaultCpuSet\": \"\", \"checksum\": 1}", want: "line 2 is a comment (//)"},
		{name: "no comment", content: "{\"policyName\": \"static\",\n \"defaultCpuSet\": ]\n}", want: "paste the whole file unchanged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Inspect(&InspectRequest{Files: []InputFile{{Name: "cpu_manager_state", Content: tt.content}}})
			require.Len(t, r.Files, 1)
			require.NotEmpty(t, r.Files[0].Problems)
			assert.Contains(t, r.Files[0].Problems[0].Remedy, tt.want)
		})
	}
}
