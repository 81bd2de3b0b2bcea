package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAgentFindingsAreTheCLIFindings runs one node's evidence (checkpoints,
// kubelet configuration, sysfs, a PodResources snapshot) through the agent
// and through the CLI's path (evidence.Load and Run, as examples/diagnose
// does with the same files) and compares the findings: the agent diagnoses
// exactly what the CLI diagnoses. The playground's side of the same
// promise is wasm/internal/api's TestPlaygroundReportIsTheCLIReport.
func TestAgentFindingsAreTheCLIFindings(t *testing.T) {
	snap := filepath.Join("..", "..", "podresources", "testdata", "offline", "numascope")
	cfg := filepath.Join(nodeDir, "config.yaml")
	drift := filepath.Join("..", "..", "diagnose", "testdata", "drift-stale-entry")
	group := filepath.Join("..", "..", "diagnose", "testdata", "unexplained-numa-group")
	for _, tc := range []struct {
		name  string
		args  []string
		src   evidence.Sources
		codes int // at least this many findings
	}{
		{
			name:  "checkpoints, config, sysfs and snapshot",
			args:  []string{"--state-dir", nodeDir, "--kubelet-config", cfg, "--sysfs", sysDir, "--snapshot", snap},
			src:   evidence.Sources{StateDir: nodeDir, KubeletConfig: []string{cfg}, Topology: sysDir, PodResources: snap},
			codes: 1,
		},
		{
			name:  "diagnose scenario drift-stale-entry: a checkpoint entry no pod holds",
			args:  []string{"--state-dir", drift, "--kubelet-config", "none", "--sysfs", "none", "--snapshot", filepath.Join(drift, "podresources.json")},
			src:   evidence.Sources{StateDir: drift, PodResources: filepath.Join(drift, "podresources.json")},
			codes: 1,
		},
		{
			name:  "diagnose scenario unexplained-numa-group",
			args:  []string{"--state-dir", group, "--kubelet-config", "none", "--sysfs", "none", "--socket", "none"},
			src:   evidence.Sources{StateDir: group},
			codes: 1,
		},
		{
			name: "checkpoints and config only",
			args: []string{"--state-dir", nodeDir, "--kubelet-config", cfg, "--sysfs", "none", "--socket", "none"},
			src:  evidence.Sources{StateDir: nodeDir, KubeletConfig: []string{cfg}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := evidence.Load(tc.src)
			require.NoError(t, err, "CLI path: Load")
			cli, err := diagnose.Run(context.Background(), ev)
			require.NoError(t, err, "CLI path: Run")

			agent, _, stderr := runOnce(t, tc.args...)
			require.Empty(t, agent.Errors, "agent round errors; stderr: %s", stderr)

			assert.Empty(t, cmp.Diff(asJSON(t, cli.Findings), asJSON(t, agent.Findings)), "findings: CLI (-) vs agent (+)")
			assert.GreaterOrEqual(t, len(cli.Findings), tc.codes, "findings drawn")
			t.Logf("%d findings", len(cli.Findings))
		})
	}
}

// asJSON is v as generic JSON values, so the comparison is over what the
// reports print.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}
