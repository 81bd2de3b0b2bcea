package api

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDiagnoseAgreesWithTheScenarios feeds every diagnose scenario to the
// "diagnose" method as a person would paste it (file by file, classified by
// content) and expects the findings that package diagnose itself reports
// when it loads the scenario directory.
func TestDiagnoseAgreesWithTheScenarios(t *testing.T) {
	root := filepath.Join("..", "..", "..", "diagnose", "testdata")
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	ran := 0
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		expected, err := os.ReadFile(filepath.Join(dir, "expected.json"))
		if err != nil {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			var files []InputFile
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				name := d.Name()
				if name == "README.md" || strings.HasPrefix(name, "expected.") {
					return nil
				}
				b, err := os.ReadFile(p)
				require.NoError(t, err)
				if runtime.GOOS == "js" && bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
					// The browser build reads no gzip: the page decompresses an
					// opened .gz file before it reaches the engine (readOpened in
					// app.js), and so does this test.
					zr, err := gzip.NewReader(bytes.NewReader(b))
					require.NoError(t, err)
					b, err = io.ReadAll(zr)
					require.NoError(t, err)
				}
				rel, err := filepath.Rel(dir, p)
				if err != nil {
					return err
				}
				files = append(files, InputFile{Name: filepath.ToSlash(rel), Content: string(b)})
				return nil
			})
			if strings.Contains(e.Name(), "sysfs") {
				t.Skip("a sysfs snapshot is a directory tree, which a paste cannot carry")
			}
			res, err := Diagnose(&DiagnoseRequest{Files: files})
			require.NoError(t, err)
			var want struct {
				Findings []struct {
					Code     string `json:"code"`
					Severity string `json:"severity"`
				} `json:"findings"`
			}
			require.NoError(t, json.Unmarshal(expected, &want))
			var got, exp []string
			for _, f := range res.Report.Findings {
				got = append(got, f.Code+"/"+string(f.Severity))
			}
			for _, f := range want.Findings {
				exp = append(exp, f.Code+"/"+f.Severity)
			}
			sort.Strings(got)
			sort.Strings(exp)
			if d := cmp.Diff(exp, got); d != "" {
				t.Errorf("findings differ from package diagnose's own (-diagnose +playground):\n%s\nskipped: %+v", d, res.Skipped)
			}
		})
		ran++
	}
	if ran < 10 {
		t.Fatalf("only %d scenarios found under %s", ran, root)
	}
}

func TestScenarioExamplesDiagnose(t *testing.T) {
	list, err := Examples()
	require.NoError(t, err)
	want := map[string]string{
		"troubleshooting-page":     "TopologyAffinityError",
		"tae-cpu-memory-split":     "TopologyAffinityError",
		"start-corrupt-checkpoint": "CorruptCheckpoint",
		"smt-not-multiple-of-core": "SMTAlignmentError",
	}
	for _, ex := range list.Examples {
		code, ok := want[ex.ID]
		if !ok {
			continue
		}
		delete(want, ex.ID)
		res, err := Diagnose(&DiagnoseRequest{Files: ex.Files})
		require.NoError(t, err)
		found := false
		for _, f := range res.Report.Findings {
			found = found || f.Code == code
		}
		assert.True(t, found, "example %s: want finding %s, got %+v", ex.ID, code, res.Report.Findings)
		assert.Empty(t, res.Skipped, "example %s: skipped files", ex.ID)
	}
	if len(want) > 0 {
		t.Errorf("examples missing: %v", want)
	}
}

// The engine reads an input as the kind the door's formats table gives it.
func TestClassify(t *testing.T) {
	for _, tc := range []struct{ name, content, kind string }{
		{"", "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n", kindConfig},
		{"", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n", kindPod},
		{"", `{"kind":"EventList","items":[]}`, kindEvents},
		{"", "LAST SEEN   TYPE      REASON                   OBJECT        MESSAGE\n1m  Warning  TopologyAffinityError  pod/x  Resources cannot be allocated with Topology locality\n", kindEvents},
		{"", "Name:         guaranteed\nNamespace:    default\nEvents:\n  Type     Reason  Age  From  Message\n", kindEvents},
		{"", `I1129 10:00:00.101010    1234 topology_manager.go:215] "Topology Admit Handler" podUID="u" podNamespace="default" podName="g"`, kindLog},
		{"", `{"hello": "world"}`, ""},
		{"", "just some words", ""},
	} {
		if got := viewKind(evidence.SniffKind([]byte(tc.content))); got != tc.kind {
			t.Errorf("the door's kind of %.40q = %q, want %q", tc.content, got, tc.kind)
		}
	}
}

func TestInspectPlacesCPUsWithMachineInfo(t *testing.T) {
	list, err := Examples()
	require.NoError(t, err)
	var files []InputFile
	for _, ex := range list.Examples {
		if ex.ID == "troubleshooting-page" {
			files = ex.Files
		}
	}
	r := Inspect(&InspectRequest{Files: files})
	var placed bool
	for _, f := range r.Files {
		if f.Holders == nil || f.Holders.CPU == nil {
			continue
		}
		for _, hd := range f.Holders.CPU.Holders {
			if hd.List == "2-5" {
				placed = len(hd.NUMA) == 1 && hd.NUMA[0].Node == 0 && hd.NUMA[0].List == "2-5"
			}
		}
	}
	if !placed {
		t.Errorf("CPUs 2-5 are on NUMA node 0 (machine info 0-23): %+v", r.Files)
	}
	var cpus0 string
	for _, n := range r.NUMA.Nodes {
		if n.ID == 0 && n.CPUs != nil {
			cpus0 = *n.CPUs
		}
	}
	if cpus0 != "0-23" {
		t.Errorf("node 0 CPUs %q, want 0-23", cpus0)
	}
}

// TestDiagnoseSaysWhatEachInputWasReadAs: any paste in any tab is read as
// what its content is; the answer says so per input, and lists the inputs
// that were not read.
func TestDiagnoseSaysWhatEachInputWasReadAs(t *testing.T) {
	events := "LAST SEEN   TYPE      REASON                  OBJECT            MESSAGE\n" +
		"41s         Warning   TopologyAffinityError   pod/trainer-0     Resources cannot be allocated with Topology locality\n"
	log := "```\n$ journalctl -u kubelet\n" +
		`I1129 10:00:00.000000 1 topology_manager.go:192] "Creating topology manager with policy per scope" topologyPolicyName="restricted" topologyScopeName="container"` + "\n```\n"
	res, err := Diagnose(&DiagnoseRequest{Files: []InputFile{
		{Name: "pod.yaml", Content: events},
		{Name: "kubelet-config.yaml", Content: log},
		{Name: "notes", Content: "the node was rebooted on Monday"},
		{Name: "empty", Content: "  "},
	}})
	require.NoError(t, err)
	require.Len(t, res.Files, 4, "one entry per input")
	got := make([]string, len(res.Files))
	for i, f := range res.Files {
		got[i] = f.File + " " + f.Kind + " " + f.Status
	}
	assert.Equal(t, []string{"pod.yaml events read", "kubelet-config.yaml kubelet-log read", "notes unknown unused", "empty unknown unused"}, got, "inputs")
	assert.Contains(t, res.Files[1].Warnings, "line 2: removed shell prompt and command", "normaliser warnings")
	require.Len(t, res.Skipped, 1, "skipped")
	assert.Equal(t, "notes", res.Skipped[0].File, "skipped input")

	// inspect names the kind too, for a fenced, prompted paste.
	ins := Inspect(&InspectRequest{Files: []InputFile{{Name: "x", Content: log}}})
	require.Len(t, ins.Files, 1, "inspected files")
	assert.Equal(t, kindLog, ins.Files[0].Kind, "kind of a fenced log")
	assert.True(t, ins.Files[0].KubeletAccepts, "read")
}
