package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestHintsJSON(t *testing.T) {
	for file, want := range map[string]string{
		"testdata/design.json":             `{"bestHint":{"numaAffinity":[0],"preferred":true},"admit":true}`,
		"testdata/needs-two-nodes.json":    `{"bestHint":{"numaAffinity":[0,1],"preferred":false},"admit":false}`,
		"testdata/real-log-rejection.json": `{"bestHint":{"numaAffinity":null,"preferred":false},"admit":false}`,
	} {
		code, out, errs := runCmd("--hints", file, "--json")
		wantCode := 1 // not admitted
		if strings.Contains(want, `"admit":true`) {
			wantCode = 0
		}
		if code != wantCode || strings.TrimSpace(out) != want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %s", file, code, out, errs, want)
		}
	}
}

func TestHintsHuman(t *testing.T) {
	code, out, _ := runCmd("--hints", "testdata/needs-two-nodes.json")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (not admitted)", code)
	}
	for _, want := range []string{
		"provider 0   nvidia.com/gpu: {1}* {0,1}",
		"provider 1   cpu: {0,1}*",
		"the kubelet enumerates 6 combination(s); best non-preferred affinity count 2",
		"best hint    NUMA nodes {0,1}, not preferred",
		"rule         non-preferred-at-best-count",
		"restricted rejects it (TopologyAffinityError)",
		"admit        no",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestHintsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"numaNodes":[0,1],"policy":"restricted","providers":[{"cpu":[{"numaAffinity":[0],"preferred":"yes"}]}]}`), 0o644)
	code, _, errs := runCmd("--hints", bad)
	if code != 2 || !strings.Contains(errs, "bad.json: /providers/0/cpu/0/preferred: must be true or false") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCmd("--hints", filepath.Join(dir, "missing.json"))
	if code != 2 || !strings.Contains(errs, "missing.json") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if code, _, _ := runCmd(); code != 2 {
		t.Errorf("no input: exit %d, want 2", code)
	}
}
