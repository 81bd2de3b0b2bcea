package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const scenario = "../../diagnose/testdata/troubleshooting-page"

func TestRunOnScenarioDirectory(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"--dir", scenario, "--json"}, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d (want 1: the scenario has an error finding); stderr: %s", code, errOut.String())
	}
	var rep struct {
		Schema   string
		Findings []struct {
			Code                  string
			TopologyAffinityError *struct{ Cause string }
		}
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	if rep.Schema != "numascope.diagnose/v1" || len(rep.Findings) == 0 || rep.Findings[0].Code != "TopologyAffinityError" ||
		rep.Findings[0].TopologyAffinityError.Cause != "policy-constraint" {
		t.Errorf("report = %s", out.String())
	}
}

func TestRunWithExplicitFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{
		"--state-dir", scenario,
		"--log", filepath.Join(scenario, "kubelet.log"),
		"--pod", filepath.Join(scenario, "pod.yaml"),
		"--events", filepath.Join(scenario, "describe-pod.txt"),
		"--kubelet-config", filepath.Join(scenario, "kubelet-config.yaml"),
		"--topology", filepath.Join(scenario, "machine-info.json"),
		"--markdown",
	}, &out, &errOut)
	require.Equal(t, 1, code, "exit code (stderr %s)", errOut.String())
	assert.Contains(t, out.String(), "### Error `TopologyAffinityError`", "markdown heading of the finding")
	assert.Contains(t, out.String(), "| memory | 0,1 |", "memory row of the markdown table")
}

func TestRunTextAndCleanExit(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"), 0o644))
	var out, errOut bytes.Buffer
	if code := run([]string{"--kubelet-config", cfg}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.HasPrefix(out.String(), "✓ no findings") {
		t.Errorf("out = %q", out.String())
	}
}

func TestRunBadEvidence(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pod.yaml")
	require.NoError(t, os.WriteFile(p, []byte("kind: Pod\nspec:\n  containers:\n  - name: a\n    resources: {limits: {cpu: x}}\n"), 0o644))
	var out, errOut bytes.Buffer
	code := run([]string{"--pod", p}, &out, &errOut)
	require.Equal(t, 2, code, "exit code for a bad pod (stderr %q)", errOut.String())
	require.Contains(t, errOut.String(), "/spec/containers/0/resources/limits/cpu", "stderr names the field")
	if code := run([]string{"--json", "--markdown"}, &out, &errOut); code != 2 {
		t.Fatalf("exit %d", code)
	}
	if code := run([]string{"stray"}, &out, &errOut); code != 2 {
		t.Fatalf("exit %d", code)
	}
}

// TestRunOnNodeDirectory runs on a copy of what a node engineer collects:
// /var/lib/kubelet, a sysfs snapshot, a PodResources dump, the journal, the pods
// and kubectl describe output.
func TestRunOnNodeDirectory(t *testing.T) {
	node := filepath.Join("testdata", "node")
	kubelet := filepath.Join(node, "var", "lib", "kubelet")
	var out, errOut bytes.Buffer
	code := run([]string{
		"--state-dir", kubelet,
		"--kubelet-config", filepath.Join(kubelet, "config.yaml"),
		"--log", filepath.Join(node, "journal-kubelet.log"),
		"--pod", filepath.Join(node, "pods.yaml"),
		"--events", filepath.Join(node, "describe-infer-7.txt"),
		"--topology", filepath.Join(node, "sys"),
		"--podresources", filepath.Join(node, "podresources"),
		"--json",
	}, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d; stderr %s", code, errOut.String())
	}
	var rep struct {
		Evidence []struct{ Kind string }
		Findings []struct {
			Code                  string
			Pod                   string
			Explanation           string
			TopologyAffinityError *struct {
				Cause     string
				Resources []struct {
					Resource  string
					NUMANodes []int
					Free      string
					Fits      bool
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	kinds := map[string]bool{}
	for _, e := range rep.Evidence {
		kinds[e.Kind] = true
	}
	for _, k := range []string{"state-cpu", "state-device", "kubelet-config", "kubelet-log", "pod", "events", "topology", "podresources"} {
		if !kinds[k] {
			t.Errorf("evidence kind %s not read: %v", k, kinds)
		}
	}
	got := map[string]string{}
	for _, f := range rep.Findings {
		got[f.Code] = f.Pod
	}
	require.Equal(t, "ml/infer-7", got["TopologyAffinityError"], "pod of TopologyAffinityError in %v", got)
	require.Equal(t, "batch/nightly-28391", got["CPUsHeldByCompletedPod"], "pod of CPUsHeldByCompletedPod in %v", got)
	require.Equal(t, "batch/nightly-28391", got["TerminatedPodHoldsResources"], "pod of TerminatedPodHoldsResources in %v", got)
	tae := rep.Findings[0]
	require.NotNil(t, tae.TopologyAffinityError, "TopologyAffinityError analysis of finding 0")
	assert.Equal(t, "policy-constraint", tae.TopologyAffinityError.Cause, "cause")
	assert.Contains(t, tae.Explanation, "CPUs 8-11 on NUMA node(s) 1 are still held by finished pod batch/nightly-28391", "explanation")
	free := map[string]string{}
	for _, r := range tae.TopologyAffinityError.Resources {
		free[r.Resource+"@"+fmt.Sprint(r.NUMANodes)] = r.Free
	}
	assert.Equal(t, "3", free["cpu@[0]"], "free CPUs on node 0 in %v", free)
	assert.Equal(t, "4", free["cpu@[1]"], "free CPUs on node 1 in %v", free)
	assert.Equal(t, "1", free["nvidia.com/gpu@[1]"], "free GPUs on node 1 in %v", free)
	assert.Equal(t, "0", free["nvidia.com/gpu@[0]"], "free GPUs on node 0 in %v", free)
}

// TestRunNeverAborts: one unreadable file of three does not stop the run;
// --json prints the report with the refusal; the exit status follows the
// findings, and is 2 only when no input could be read.
func TestRunNeverAborts(t *testing.T) {
	src := "../../diagnose/testdata/tae-gpu-taken-restricted"
	dir := t.TempDir()
	bad := filepath.Join(dir, "pod-bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("kind: Pod\nspec:\n  containers:\n  - name: a\n    resources: {limits: {cpu: x}}\n"), 0o644))
	prose := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(prose, []byte("The node was rebooted on Monday.\n"), 0o644))
	type item struct{ File, Kind, Status, Error, Given string }
	var rep struct {
		Evidence []item
		Findings []struct{ Code string }
	}
	for name, tc := range map[string]struct {
		args     []string
		code     int
		statuses map[string]string
		stderr   []string
	}{
		"one bad file of three": {
			args: []string{"--json", "--kubelet-config", filepath.Join(src, "kubelet-config.yaml"), "--log", filepath.Join(src, "kubelet.log"), "--pod", bad},
			code: 1, statuses: map[string]string{"kubelet-config.yaml": "read", "kubelet.log": "read", "pod-bad.yaml": "refused"},
			stderr: []string{"diagnose: " + bad + ": /spec/containers/0/resources/limits/cpu"},
		},
		"positional files, kinds detected": {
			args: []string{filepath.Join(src, "kubelet.log"), "--json", filepath.Join(src, "pod.yaml"), prose},
			code: 1, statuses: map[string]string{"kubelet.log": "read", "pod.yaml": "read", "notes.txt": "unused"},
			stderr: []string{"diagnose: " + prose + ": not used: not recognised as kubelet evidence"},
		},
		"a log given as the pod": {
			args: []string{"--json", "--pod", filepath.Join(src, "kubelet.log")},
			code: 1, statuses: map[string]string{"kubelet.log": "read"},
		},
		"nothing readable": {
			args: []string{"--json", "--pod", bad, prose, filepath.Join(dir, "missing.log")},
			code: 2, statuses: map[string]string{"pod-bad.yaml": "refused", "notes.txt": "unused", "missing.log": "refused"},
			stderr: []string{"diagnose: no input could be read"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tc.args, &out, &errOut)
			assert.Equal(t, tc.code, code, "exit code (stderr %s)", errOut.String())
			rep.Evidence, rep.Findings = nil, nil
			require.NoError(t, json.Unmarshal(out.Bytes(), &rep), "the report is printed: %q", out.String())
			got := map[string]string{}
			for _, e := range rep.Evidence {
				got[filepath.Base(e.File)] = e.Status
				if e.Status == "refused" {
					assert.NotEmpty(t, e.Error, "error of %s", e.File)
				}
			}
			assert.Equal(t, tc.statuses, got, "statuses")
			for _, s := range tc.stderr {
				assert.Contains(t, errOut.String(), s, "stderr")
			}
		})
	}
}

func TestRunDirListsWhatItDidNotUse(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"kubelet-config.yaml", "kubelet.log", "pod.yaml"} {
		b, err := os.ReadFile(filepath.Join("../../diagnose/testdata/tae-gpu-taken-restricted", n))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "screenshot-notes.txt"), []byte("see the attached picture\n"), 0o644))
	var out, errOut bytes.Buffer
	code := run([]string{"--dir", dir}, &out, &errOut)
	assert.Equal(t, 1, code, "exit code (stderr %s)", errOut.String())
	assert.Contains(t, out.String(), "Evidence not used (1 of 4 inputs):\n  - "+filepath.Join(dir, "screenshot-notes.txt")+": unused: not recognised as kubelet evidence", "text report")
	assert.Contains(t, out.String(), "[ERROR] TopologyAffinityError", "the finding")
}
