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

// findingsOf runs the command and returns its JSON report's findings.
func findingsOf(t *testing.T, args ...string) (json.RawMessage, int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append(args, "--json"), &out, &errOut)
	var rep struct{ Findings json.RawMessage }
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), "stdout: %s", out.String())
	return rep.Findings, code, errOut.String()
}

// TestLargeLogStreams pads the scenario's kubelet log with other
// components' lines past the size from which a log is streamed, and wants
// the findings of the log alone; --log-limit bounds what is streamed.
func TestLargeLogStreams(t *testing.T) {
	dir := t.TempDir()
	entries, err := os.ReadDir(scenario)
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(scenario, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600))
	}
	log := filepath.Join(dir, "kubelet.log")
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	var b strings.Builder
	for i := 0; b.Len() < 17<<20; i++ {
		fmt.Fprintf(&b, "Nov 29 10:%02d:%02d worker-1 kubelet[1234]: I1129 10:%02d:%02d.000000    1234 kubelet.go:2482] \"SyncLoop (PLEG): event for pod\" pod=\"team/web-%d\" event={\"ID\":\"%08d-0000-4000-8000-000000000000\",\"Type\":\"ContainerStarted\"}\n",
			i/60%60, i%60, i/60%60, i%60, i%500, i%500)
		fmt.Fprintf(&b, "Nov 29 10:%02d:%02d worker-1 kubelet[1234]: I1129 10:%02d:%02d.000000    1234 status_manager.go:877] \"Patch status for pod\" pod=\"team/web-%d\" patch=\"{\\\"status\\\":{\\\"conditions\\\":[{\\\"type\\\":\\\"Ready\\\",\\\"status\\\":\\\"True\\\"}]}}\"\n",
			i/60%60, i%60, i/60%60, i%60, i%500)
	}
	_, err = f.WriteString(b.String())
	require.NoError(t, err)
	require.NoError(t, f.Close())

	want, wantCode, _ := findingsOf(t, "--dir", scenario)
	got, code, stderr := findingsOf(t, "--dir", dir)
	assert.Equal(t, wantCode, code, stderr)
	assert.JSONEq(t, strings.ReplaceAll(string(want), scenario, dir), string(got))

	tests := []struct {
		name   string
		limit  string
		code   int
		stderr string
	}{
		{name: "limit above the log", limit: "1GiB", code: 1},
		{name: "no limit", limit: "none", code: 1},
		{name: "limit below the log", limit: "16MiB", code: 2, stderr: "the log is larger than 16 MiB"},
		{name: "not a size", limit: "lots", code: 2, stderr: `flag -log-limit: "lots": not a size`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run([]string{"--log-limit", tt.limit, "--log", log}, &out, &errOut)
			assert.Equal(t, tt.code, code, errOut.String())
			assert.Contains(t, errOut.String(), tt.stderr)
		})
	}
}

// TestLogLimitFlag checks --log-limit's refusals through the command; the
// sizes it accepts are internal/units' (TestParseSize there).
func TestLogLimitFlag(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"0", "--log-limit 0: give a positive size such as 512MiB, or none for no limit"},
		{"lots", `invalid value "lots" for flag -log-limit: "lots": not a size`},
		{"-5MiB", "not a number with a unit (give a byte count such as"},
		{"1.5B", "not a whole number of bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run([]string{"--log-limit", tt.in, "x.log"}, &out, &errb)
			assert.Equal(t, 2, code)
			assert.Contains(t, errb.String(), tt.want)
		})
	}
}
