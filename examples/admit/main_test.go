package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		assert.Equal(t, wantCode, code, "%s: exit code (stderr %q)", file, errs)
		assert.Equal(t, want, strings.TrimSpace(out), "%s: stdout", file)
	}
}

func TestHintsHuman(t *testing.T) {
	code, out, errs := runCmd("--hints", "testdata/needs-two-nodes.json")
	require.Equal(t, 1, code, "exit code, want 1 (not admitted); stderr: %s", errs)
	for _, want := range []string{
		"provider 0   nvidia.com/gpu: {1}* {0,1}",
		"provider 1   cpu: {0,1}*",
		"3 hint lists; the kubelet enumerates 6 combinations; best non-preferred affinity count 2",
		"best hint    NUMA nodes {0,1}, not preferred",
		"rule         non-preferred-at-best-count",
		"restricted rejects it (TopologyAffinityError)",
		"admit        no",
	} {
		assert.Contains(t, out, want, "output")
	}
}

func TestHintsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"numaNodes":[0,1],"policy":"restricted","providers":[{"cpu":[{"numaAffinity":[0],"preferred":"yes"}]}]}`), 0o644))
	code, _, errs := runCmd("--hints", bad)
	assert.Equal(t, 2, code, "exit code for a bad file")
	assert.Contains(t, errs, "bad.json: /providers/0/cpu/0/preferred: must be true or false", "stderr for a bad file")
	code, _, errs = runCmd("--hints", filepath.Join(dir, "missing.json"))
	assert.Equal(t, 2, code, "exit code for a missing file")
	assert.Contains(t, errs, "missing.json", "stderr for a missing file")
	code, _, errs = runCmd()
	assert.Equal(t, 2, code, "no input: exit code; stderr: %s", errs)
	// node flags beside --hints would be ignored: they are refused
	code, _, errs = runCmd("--hints", "testdata/design.json", "--policy", "single-numa-node", "--option", "prefer-closest-numa-nodes=true")
	assert.Equal(t, 2, code, "node flags with --hints: exit code")
	assert.Contains(t, errs, "--option, --policy work only with --pod: with --hints FILE the file gives the NUMA nodes, the policy and the options (set them in testdata/design.json)")
}

// TestHintsNoProviders: a hints file without providers (absent, null or [])
// merges as the kubelet merges zero providers: every NUMA node, preferred,
// admitted (single-numa-node rewrites the default affinity to none).
func TestHintsNoProviders(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, doc, want string }{
		{"absent.json", `{"numaNodes":[0,1],"policy":"single-numa-node"}`, `{"bestHint":{"numaAffinity":null,"preferred":true},"admit":true}`},
		{"null.json", `{"numaNodes":[0,1],"policy":"restricted","providers":null}`, `{"bestHint":{"numaAffinity":[0,1],"preferred":true},"admit":true}`},
		{"empty.json", `{"numaNodes":[0,1],"policy":"best-effort","providers":[]}`, `{"bestHint":{"numaAffinity":[0,1],"preferred":true},"admit":true}`},
	} {
		name, doc := c.name, c.doc
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
		code, out, errs := runCmd("--hints", path, "--json")
		assert.Equal(t, 0, code, "%s: exit code (stderr %q)", name, errs)
		assert.Equal(t, c.want, strings.TrimSpace(out), "%s: stdout", name)
	}
}
