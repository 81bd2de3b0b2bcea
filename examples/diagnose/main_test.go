package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
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
	if code != 1 || !strings.Contains(out.String(), "### Error `TopologyAffinityError`") || !strings.Contains(out.String(), "| memory | 0,1 |") {
		t.Fatalf("exit %d, stderr %s, out:\n%s", code, errOut.String(), out.String())
	}
}

func TestRunTextAndCleanExit(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"--kubelet-config", cfg}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.HasPrefix(out.String(), "numascope diagnose: no findings") {
		t.Errorf("out = %q", out.String())
	}
}

func TestRunBadEvidence(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pod.yaml")
	if err := os.WriteFile(p, []byte("kind: Pod\nspec:\n  containers:\n  - name: a\n    resources: {limits: {cpu: x}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"--pod", p}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "/spec/containers/0/resources/limits/cpu") {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
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
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
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
	if got["TopologyAffinityError"] != "ml/infer-7" || got["CPUsHeldByCompletedPod"] != "batch/nightly-28391" || got["TerminatedPodHoldsResources"] != "batch/nightly-28391" {
		t.Fatalf("findings = %v", got)
	}
	tae := rep.Findings[0]
	if tae.TopologyAffinityError.Cause != "policy-constraint" || !strings.Contains(tae.Explanation, "CPUs 8-11 on NUMA node(s) 1 are still held by finished pod batch/nightly-28391") {
		t.Errorf("explanation = %s", tae.Explanation)
	}
	free := map[string]string{}
	for _, r := range tae.TopologyAffinityError.Resources {
		free[r.Resource+"@"+fmt.Sprint(r.NUMANodes)] = r.Free
	}
	if free["cpu@[0]"] != "3" || free["cpu@[1]"] != "4" || free["nvidia.com/gpu@[1]"] != "1" || free["nvidia.com/gpu@[0]"] != "0" {
		t.Errorf("free table = %v", free)
	}
}
