package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNPDPlugin: --once --report npd speaks node-problem-detector's custom
// plugin contract: one line of at most 80 bytes, exit 0 OK, 1 NonOK.
func TestNPDPlugin(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a healthy node", []string{"--state-dir", "testdata/node/kubelet", "--sysfs", "testdata/node/sys", "--snapshot", "../../podresources/testdata/offline/numascope"}, npdOK, "numascope: 4 checkpoints accepted, no error finding"},
		{"a corrupt checkpoint", []string{"--state-dir", "testdata/node-bad/kubelet", "--sysfs", "none", "--socket", "none"}, npdNonOK, "numascope: cpu_manager_state rejected by the kubelet, CorruptCheckpoint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), append([]string{"--once", "--report", "npd"}, tc.args...), &out, &errb)
			assert.Equal(t, tc.code, code, errb.String())
			assert.Equal(t, tc.want+"\n", out.String())
			assert.LessOrEqual(t, len(strings.TrimSuffix(out.String(), "\n")), npdMaxMessage)
		})
	}
	var errb bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"--report", "npd"}, &bytes.Buffer{}, &errb))
	assert.Contains(t, errb.String(), "--report npd goes with --once")
}

func TestNPDLine(t *testing.T) {
	msg, code := npdLine(nil)
	assert.Equal(t, npdUnknown, code)
	assert.Equal(t, "numascope: the round was interrupted", msg)
	long := cutMessage("numascope: " + strings.Repeat("é", 60))
	assert.LessOrEqual(t, len(long), npdMaxMessage)
	assert.True(t, strings.HasSuffix(long, "..."))
	assert.NotContains(t, long, "\ufffd")
}

// TestNPDConfig: the example custom plugin monitor config parses, and the
// agent accepts the arguments its rule passes.
func TestNPDConfig(t *testing.T) {
	data, err := os.ReadFile("npd-numascope.json")
	require.NoError(t, err)
	var cfg struct {
		Plugin       string `json:"plugin"`
		PluginConfig struct {
			MaxOutputLength int `json:"max_output_length"`
		} `json:"pluginConfig"`
		Conditions []struct{ Type string } `json:"conditions"`
		Rules      []struct {
			Type, Condition, Path string
			Args                  []string
		} `json:"rules"`
	}
	require.NoError(t, json.Unmarshal(data, &cfg))
	assert.Equal(t, "custom", cfg.Plugin)
	assert.Equal(t, npdMaxMessage, cfg.PluginConfig.MaxOutputLength)
	require.Len(t, cfg.Rules, 1)
	require.Len(t, cfg.Conditions, 1)
	assert.Equal(t, cfg.Conditions[0].Type, cfg.Rules[0].Condition)
	args := append([]string{}, cfg.Rules[0].Args...)
	for i := range args {
		switch args[i] {
		case "/var/lib/kubelet":
			args[i] = "testdata/node/kubelet"
		case "/sys":
			args[i] = "testdata/node/sys"
		}
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), append(args, "--socket", "none"), &out, &errb)
	assert.Equal(t, npdOK, code, errb.String())
	assert.Equal(t, "numascope: 4 checkpoints accepted, no error finding\n", out.String())
}
