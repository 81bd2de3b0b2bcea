package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
)

func TestSampleHuman(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(nil, &out, &errb)
	s := out.String()
	require.Equal(t, 0, code, "exit code, want 0 (the sample is a demonstration); stderr: %s", errb.String())
	first, _, _ := strings.Cut(s, "\n")
	assert.Equal(t, "✗ memory_manager_state (memory, v1, policy Static): kubelet v1.37.2 refuses to start — checkpoint is corrupted", first, "the verdict is the first line")
	for _, want := range []string{
		"0,1   fa9bdd38…  guaranteed  memory  150 GiB", // who holds the memory, on which NUMA nodes
		"0,1    0     memory    125.7 GiB  3 GiB",
		"matches no layout any kubelet computes",
		"Why the sample's checksum matches nothing",
		"hugepages-1Gi: 0 on every node",
	} {
		assert.Contains(t, s, want, "output")
	}
	assert.NotContains(t, s, "hugepages-1Gi   ", "no all-zero rows")
}

func writeFixtures(t *testing.T) (good, bad, junk string) {
	dir := t.TempDir()
	f := &statefile.File{Kind: statefile.KindCPU, CPU: &statefile.CPUState{PolicyName: "static", DefaultCPUSet: cpuset.New(0, 1),
		Entries: map[string]map[string]cpuset.CPUSet{"pod": {"app": cpuset.New(2, 3)}}}}
	data, err := statefile.Encode(f, statefile.FormatV4)
	require.NoError(t, err)
	good = filepath.Join(dir, "cpu_manager_state")
	bad = filepath.Join(dir, "tampered")
	junk = filepath.Join(dir, "junk")
	require.NoError(t, os.WriteFile(good, data, 0o644))
	require.NoError(t, os.WriteFile(bad, bytes.Replace(data, []byte(`"dataChecksum":`), []byte(`"dataChecksum":1`), 1), 0o644))
	require.NoError(t, os.WriteFile(junk, []byte("not json"), 0o644))
	return
}

func TestJSONContract(t *testing.T) {
	good, bad, junk := writeFixtures(t)
	var out, errb bytes.Buffer
	code := run([]string{"--json", good, bad, junk}, &out, &errb)
	require.Equal(t, 1, code, "exit code; stderr: %s", errb.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3, "output lines:\n%s", out.String())
	type line struct {
		File     string `json:"file"`
		Kind     string `json:"kind"`
		Format   string `json:"format"`
		Checksum struct {
			Stored *uint64 `json:"stored"`
			Valid  *bool   `json:"valid"`
		} `json:"checksum"`
		KubeletAccepts *bool             `json:"kubeletAccepts"`
		OnReject       *string           `json:"onReject"`
		Problems       []json.RawMessage `json:"problems"`
	}
	var ls []line
	for _, l := range lines {
		var x line
		require.NoError(t, json.Unmarshal([]byte(l), &x))
		require.NotNil(t, x.Checksum.Stored, "checksum.stored in %s", l)
		require.NotNil(t, x.Checksum.Valid, "checksum.valid in %s", l)
		require.NotNil(t, x.KubeletAccepts, "kubeletAccepts in %s", l)
		require.NotNil(t, x.OnReject, "onReject in %s", l)
		require.NotNil(t, x.Problems, "problems in %s", l)
		ls = append(ls, x)
	}
	require.Len(t, ls, 3, "lines")
	assert.Equal(t, good, ls[0].File, "good: file")
	assert.True(t, *ls[0].KubeletAccepts, "good: kubeletAccepts")
	assert.Equal(t, "cpu", ls[0].Kind, "good: kind")
	assert.Equal(t, "v4", ls[0].Format, "good: format")
	assert.Empty(t, *ls[0].OnReject, "good: onReject")
	assert.Equal(t, bad, ls[1].File, "bad: file")
	assert.False(t, *ls[1].KubeletAccepts, "bad: kubeletAccepts")
	assert.Equal(t, "refuses-to-start", *ls[1].OnReject, "bad: onReject")
	assert.False(t, *ls[1].Checksum.Valid, "bad: checksum.valid")
	assert.Equal(t, junk, ls[2].File, "junk: file")
	assert.False(t, *ls[2].KubeletAccepts, "junk: kubeletAccepts")
	assert.Len(t, ls[2].Problems, 1, "junk: problems")
}

func TestPolicyFlag(t *testing.T) {
	good, _, _ := writeFixtures(t)
	var out, errb bytes.Buffer
	code := run([]string{"--policy", "static", good}, &out, &errb)
	require.Equal(t, 0, code, "exit code with the matching policy; output: %s", out.String())
	out.Reset()
	code = run([]string{"--policy", "none", good}, &out, &errb)
	assert.Equal(t, 1, code, "exit code with a mismatched policy")
	assert.Contains(t, out.String(), `configured policy "none" differs`, "output with a mismatched policy")
}

// TestUnknownFlagValues: a policy or kind the kubelet does not have is a
// usage error naming the flag, before any file is read.
func TestUnknownFlagValues(t *testing.T) {
	good, _, _ := writeFixtures(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{args: []string{"--policy", "bogus", good}, want: `--policy "bogus": give the kubelet's policy name, none or static`},
		{args: []string{"--policy", "STATIC", good}, want: `--policy "STATIC"`},
		{args: []string{"--kind", "cpu_manager_state", good}, want: `--kind "cpu_manager_state": give cpu, memory, device or dra`},
	} {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			assert.Equal(t, 2, run(tc.args, &out, &errb), "exit code")
			assert.Contains(t, errb.String(), tc.want)
			assert.Empty(t, out.String(), "no file is read")
		})
	}
}

// TestUnreadableFileRemedy: a file that cannot be read gets advice about
// the path or the permission, not the advice for a corrupt checkpoint.
func TestUnreadableFileRemedy(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "cpu_manager_state")
	var out, errb bytes.Buffer
	assert.Equal(t, 1, run([]string{"--json", missing}, &out, &errb), "exit code")
	var line struct {
		File     string              `json:"file"`
		Problems []statefile.Problem `json:"problems"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &line), "output %s", out.String())
	require.Len(t, line.Problems, 1)
	assert.Equal(t, missing, line.File)
	assert.Contains(t, line.Problems[0].Remedy, "check the path: the kubelet keeps cpu_manager_state")
	assert.NotContains(t, line.Problems[0].Remedy, "cannot read it either")
	out.Reset()
	assert.Equal(t, 1, run([]string{missing}, &out, &errb), "exit code (text)")
	assert.Contains(t, out.String(), "what to do: check the path")
}

// TestHostileInputs runs inspect on inputs that once hung it or took
// gigabytes: each ends with exit 1 and a line naming the input, and the
// good file given after them still gets its line.
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	wide := strings.TrimSuffix(strings.Repeat("0-1048575,", 64), ",")
	var entries []string
	for i := range 64 {
		entries = append(entries, fmt.Sprintf(`"pod%02d":{"c":"1-1048575"}`, i))
	}
	good, _, _ := writeFixtures(t)
	overBudget := fmt.Sprintf("more than %d CPUs in all", statefile.MaxFileCPUs)
	tests := []struct {
		name, path, message string
	}{
		{"64 ranges of 2^20 CPUs", write("default64", `{"policyName":"none","defaultCpuSet":"`+wide+`","checksum":0}`), overBudget},
		{"many entries near the cap", write("entries64", `{"policyName":"static","defaultCpuSet":"","entries":{`+strings.Join(entries, ",")+`},"checksum":0}`), overBudget},
		{"a range to the largest int", write("hugeid", `{"policyName":"none","defaultCpuSet":"0-9223372036854775807","checksum":0}`), "never ends"},
		{"/dev/zero", "/dev/zero", "it is a character device"},
		{"/dev/urandom", "/dev/urandom", "it is a character device"},
		{"a FIFO", fifo, "it is a FIFO"},
		{"a directory without checkpoints", dir, "no kubelet checkpoint in this directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run([]string{"--json", tt.path, good}, &out, &errb)
			assert.Equal(t, 1, code)
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			require.Len(t, lines, 2, out.String())
			var first, second jsonLine
			require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
			require.NoError(t, json.Unmarshal([]byte(lines[1]), &second))
			assert.Equal(t, tt.path, first.File)
			assert.False(t, first.KubeletAccepts)
			require.NotEmpty(t, first.Problems)
			assert.Contains(t, first.Problems[0].Message, tt.message)
			assert.Contains(t, first.Problems[0].Message, tt.path)
			assert.NotEmpty(t, first.Problems[0].Remedy)
			assert.Equal(t, good, second.File)
			assert.True(t, second.KubeletAccepts)

			out.Reset()
			assert.Equal(t, 1, run([]string{tt.path}, &out, &errb))
			assert.Contains(t, out.String(), tt.message)
		})
	}
}
