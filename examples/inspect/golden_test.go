package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/statefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/cpuset"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden outputs in testdata/")

// kubeletFiles are kubelet-written checkpoints of every kind from the
// golden corpus (statefile/testdata/kubelet), with hugepages, pod-level
// entries, baselines, devices without topology and both DRA eras.
var kubeletFiles = []string{
	"statefile/testdata/kubelet/cpu/v4-static.json",
	"statefile/testdata/kubelet/memory/v2-static.json",
	"statefile/testdata/kubelet/memory/v3-static.json",
	"statefile/testdata/kubelet/device/legacy-v1.21.0-device-v2.json",
	"statefile/testdata/kubelet/device/v2-random-0.json",
	"statefile/testdata/kubelet/dra/crc32-random-0.json",
	"statefile/testdata/kubelet/dra/legacy-v1.30.0-dra-spew-handles-0.json",
}

// TestGolden compares inspect's human output with testdata/*.txt
// (regenerate with go test ./examples/inspect -run TestGolden -update).
func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{name: "sample", args: nil},
		{name: "sample-wide", args: []string{"-o", "wide"}},
		{name: "sample-markdown", args: []string{"--markdown"}},
		{name: "kubelet-files", args: kubeletFiles, code: 1},
		{name: "kubelet-files-wide", args: append([]string{"-o", "wide"}, kubeletFiles...), code: 1},
		{name: "kubelet-files-markdown", args: append([]string{"-o", "markdown"}, kubeletFiles...), code: 1},
		{name: "cpu-sysfs-topology", args: []string{"--topology", "examples/agent/testdata/node/sys", "statefile/testdata/kubelet/cpu/v4-static.json"}},
		{name: "cpu-sysfs-topology-wide", args: []string{"-o", "wide", "--topology", "examples/agent/testdata/node/sys", "statefile/testdata/kubelet/cpu/v4-static.json"}},
		{name: "cpu-machine-info", args: []string{"--topology", "diagnose/testdata/troubleshooting-page/machine-info.json", "statefile/testdata/kubelet/cpu/v2-static.json"}},
		{name: "rejected-and-unreadable", args: []string{"statefile/testdata/kubelet/cpu/v2-checksum-flipped.json", "statefile/testdata/kubelet/device/v2-truncated.json", "statefile/testdata/kubelet/memory/v3-policy-mismatch.json", "statefile/testdata/kubelet/device/legacy-v1.30.0-device-v1-0.json", "/nonexistent/cpu_manager_state"}, code: 1},
		{name: "verbose", args: []string{"-v", "statefile/testdata/kubelet/cpu/v3-static.json"}},
	}
	t.Chdir(filepath.Join("..", "..")) // the names in the output are as a user gives them from the repository root
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tt.args, &out, &errb)
			require.Equal(t, tt.code, code, "exit code; stderr: %s", errb.String())
			golden := filepath.Join("examples", "inspect", "testdata", tt.name+".txt")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run with -update to create it")
			if diff := cmp.Diff(string(want), out.String()); diff != "" {
				t.Errorf("inspect %s (-%s +got):\n%s", strings.Join(tt.args, " "), golden, diff)
			}
		})
	}
}

// TestOutputFormats: -o json is --json (one object per file and line, with
// the holders), -o yaml the same documents, and every format names the
// upstream sample's holder.
func TestOutputFormats(t *testing.T) {
	good, bad, _ := writeFixtures(t)
	var jsonOut, aliasOut, yamlOut, errb bytes.Buffer
	require.Equal(t, 1, run([]string{"-o", "json", good, bad}, &jsonOut, &errb), "stderr %s", errb.String())
	require.Equal(t, 1, run([]string{"--json", good, bad}, &aliasOut, &errb), "stderr %s", errb.String())
	assert.Equal(t, jsonOut.String(), aliasOut.String(), "--json is -o json")
	lines := strings.Split(strings.TrimSpace(jsonOut.String()), "\n")
	require.Len(t, lines, 2, "one line per file")
	require.Equal(t, 1, run([]string{"-o", "yaml", good, bad}, &yamlOut, &errb), "stderr %s", errb.String())
	docs := strings.Split(yamlOut.String(), "\n---\n")
	require.Len(t, docs, 2, "one YAML document per file")
	for i, doc := range docs {
		fromYAML, err := yaml.YAMLToJSON([]byte(doc))
		require.NoError(t, err)
		var a, b any
		require.NoError(t, json.Unmarshal(fromYAML, &a))
		require.NoError(t, json.Unmarshal([]byte(lines[i]), &b))
		if diff := cmp.Diff(b, a); diff != "" {
			t.Errorf("file %d: YAML differs from JSON (-json +yaml):\n%s", i, diff)
		}
	}
	var first jsonLine
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	require.NotNil(t, first.Holders)
	require.NotNil(t, first.Holders.CPU)
	assert.Equal(t, "2-3", first.Holders.CPU.Holders[0].List, "holders in JSON")
	assert.Equal(t, "kubelet v1.37.2 restores it", first.Verdict)

	for _, format := range []string{"text", "wide", "markdown", "json", "yaml"} {
		var out bytes.Buffer
		require.Equal(t, 0, run([]string{"-o", format}, &out, &errb), format)
		assert.Contains(t, out.String(), "guaranteed", "%s names the container", format)
		if format == "wide" || format == "json" || format == "yaml" {
			assert.Contains(t, out.String(), "fa9bdd38-6df9-4cf9-aa67-8c4814da37a8", "%s: the full pod UID", format)
			assert.Contains(t, out.String(), "161061273600", "%s: the exact bytes", format)
		} else {
			assert.Contains(t, out.String(), "fa9bdd38…", "%s: the short pod UID", format)
			assert.Contains(t, out.String(), "150 GiB", "%s: the size in binary units", format)
		}
	}
}

// TestUsage: -h and --help print the usage with examples to stdout and
// exit 0; a wrong flag or value is a usage error naming it.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}} {
		var out, errb bytes.Buffer
		require.Equal(t, 0, run(args, &out, &errb), "%v", args)
		for _, want := range []string{"usage: inspect", "Examples:", "sudo inspect /var/lib/kubelet\n", "--topology", "-o json", "| jq", "Exit status"} {
			assert.Contains(t, out.String(), want, "%v", args)
		}
		assert.Empty(t, errb.String(), "%v: nothing on stderr", args)
	}
	good, _, _ := writeFixtures(t)
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{args: []string{"-o", "xml", good}, want: []string{`invalid value "xml" for flag -o`, "give text, json, yaml, markdown or wide", "inspect --help"}},
		{args: []string{"--json", "-o", "yaml", good}, want: []string{"-o yaml asks for yaml but --json already asked for json"}},
		{args: []string{"--no-such-flag"}, want: []string{"-no-such-flag", "inspect --help"}},
		{args: []string{"--topology", "/nonexistent/machine-info.json", good}, want: []string{"--topology /nonexistent/machine-info.json", "what to do: give cAdvisor machine-info JSON"}},
		{args: []string{"--topology", "/dev/zero", good}, want: []string{"--topology /dev/zero", "character device"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			assert.Equal(t, 2, run(tt.args, &out, &errb), "exit code")
			for _, w := range tt.want {
				assert.Contains(t, errb.String(), w)
			}
			assert.Empty(t, out.String(), "no file is read")
		})
	}
}

// manyContainers writes a cpu_manager_state of n containers, each with one
// exclusive CPU, and a machine-info JSON placing the CPUs on 4 NUMA nodes.
func manyContainers(t testing.TB, n int) (state, machine string) {
	dir := t.TempDir()
	s := &statefile.CPUState{PolicyName: "static", DefaultCPUSet: cpuset.New(0, 1), Entries: map[string]map[string]cpuset.CPUSet{}}
	for i := range n {
		s.Entries[fmt.Sprintf("%08x-1111-4222-8333-444444444444", i)] = map[string]cpuset.CPUSet{"app": cpuset.New(2 + i)}
	}
	data, err := statefile.Encode(&statefile.File{Kind: statefile.KindCPU, CPU: s}, statefile.FormatV4)
	require.NoError(t, err)
	state = filepath.Join(dir, "cpu_manager_state")
	require.NoError(t, os.WriteFile(state, data, 0o644))
	var nodes []string
	per := (n + 2 + 3) / 4
	for node := range 4 {
		var cores []string
		for c := node * per; c < (node+1)*per; c++ {
			cores = append(cores, fmt.Sprintf(`{"core_id":%d,"socket_id":0,"thread_ids":[%d]}`, c, c))
		}
		nodes = append(nodes, fmt.Sprintf(`{"node_id":%d,"memory":1073741824,"cores":[%s]}`, node, strings.Join(cores, ",")))
	}
	machine = filepath.Join(dir, "machine-info.json")
	require.NoError(t, os.WriteFile(machine, []byte(fmt.Sprintf(`{"num_cores":%d,"num_sockets":1,"topology":[%s]}`, 4*per, strings.Join(nodes, ","))), 0o644))
	return state, machine
}

// TestManyContainers: a file of 10,000 containers prints a bounded text
// report (at most maxRows holders per NUMA node, the rest summed), every
// holder in wide and JSON.
func TestManyContainers(t *testing.T) {
	const n = 10000
	state, machine := manyContainers(t, n)
	for _, tt := range []struct {
		name     string
		args     []string
		minLines int
		maxLines int
		want     string
	}{
		{name: "text", args: []string{state}, maxLines: maxRows + 20, want: fmt.Sprintf("… %d more", n-maxRows)},
		{name: "text with topology", args: []string{"--topology", machine, state}, maxLines: 4*(maxRows+1) + 30, want: "… 2471 more"},
		{name: "markdown", args: []string{"-o", "markdown", "--topology", machine, state}, maxLines: 4*(maxRows+1) + 40, want: "| 3 | … 2469 more |"},
		{name: "wide", args: []string{"-o", "wide", "--topology", machine, state}, minLines: n, maxLines: n + 30},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			require.Equal(t, 0, run(tt.args, &out, &errb), "stderr %s", errb.String())
			lines := strings.Count(out.String(), "\n")
			assert.LessOrEqual(t, lines, tt.maxLines, "lines")
			assert.GreaterOrEqual(t, lines, tt.minLines, "lines")
			for _, l := range strings.Split(out.String(), "\n") {
				require.LessOrEqual(t, len(l), 400, "a bounded line: %.200s", l)
			}
			if tt.want != "" {
				assert.Contains(t, out.String(), tt.want)
			}
		})
	}
	var out, errb bytes.Buffer
	require.Equal(t, 0, run([]string{"--json", state}, &out, &errb))
	var line jsonLine
	require.NoError(t, json.Unmarshal(out.Bytes(), &line))
	require.NotNil(t, line.Holders)
	assert.Len(t, line.Holders.CPU.Holders, n, "JSON lists every holder")
}

func BenchmarkManyContainersText(b *testing.B) {
	state, machine := manyContainers(b, 10000)
	for b.Loop() {
		if code := run([]string{"--topology", machine, state}, io.Discard, io.Discard); code != 0 {
			b.Fatal(code)
		}
	}
}

// TestHostileNames: names with terminal escapes, line breaks or C1 controls
// are printed escaped, on one line.
func TestHostileNames(t *testing.T) {
	s := &statefile.CPUState{PolicyName: "static", DefaultCPUSet: cpuset.New(0),
		Entries: map[string]map[string]cpuset.CPUSet{"pod\x1b[2J\nx": {"c\x07\u0085": cpuset.New(1)}}}
	data, err := statefile.Encode(&statefile.File{Kind: statefile.KindCPU, CPU: s}, statefile.FormatV2)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "cpu_manager_state")
	require.NoError(t, os.WriteFile(file, data, 0o644))
	for _, format := range []string{"text", "wide", "markdown"} {
		var out, errb bytes.Buffer
		run([]string{"-o", format, file}, &out, &errb)
		assert.NotContains(t, out.String(), "\x1b", format)
		assert.NotContains(t, out.String(), "\x07", format)
		assert.Contains(t, out.String(), `pod\x1b[2J\x0ax`, format)
		assert.Contains(t, out.String(), `c\x07`, format)
	}
}
