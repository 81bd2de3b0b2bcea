package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		cmd, name, err string
	}{
		{args: []string{"diagnose", "pod/guaranteed"}, cmd: "diagnose", name: "guaranteed"},
		{args: []string{"diagnose", "pods", "guaranteed"}, cmd: "diagnose", name: "guaranteed"},
		{args: []string{"diagnose", "po/g"}, cmd: "diagnose", name: "g"},
		{args: []string{"diagnose", "guaranteed"}, cmd: "diagnose", name: "guaranteed"},
		{args: []string{"gather", "node/dell8"}, cmd: "gather", name: "dell8"},
		{args: []string{"gather", "no", "dell8"}, cmd: "gather", name: "dell8"},
		{args: []string{"nodes"}, cmd: "nodes"},
		{args: []string{"nodes", "x"}, err: "nodes takes no argument"},
		{args: []string{"diagnose", "node/dell8"}, err: "diagnose takes pod/NAME"},
		{args: []string{"gather", "pod/x"}, err: "gather takes node/NAME"},
		{args: []string{"diagnose", "pod/"}, err: "is not a pod name"},
		{args: []string{"diagnose"}, err: "takes one pod/NAME"},
		{args: []string{"explain"}, err: "unknown command"},
	} {
		cmd, name, err := parseTarget(tc.args)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, "%v", tc.args)
			continue
		}
		require.NoError(t, err, "%v", tc.args)
		assert.Equal(t, tc.cmd, cmd, "%v", tc.args)
		assert.Equal(t, tc.name, name, "%v", tc.args)
	}
}

func TestCommandLineErrors(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.kubeconfig")
	require.NoError(t, os.WriteFile(empty, []byte("apiVersion: v1\nkind: Config\n"), 0o600))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"diagnose", "pod/x", "-o", "wide"}, `-o "wide": diagnose prints text, json, yaml or markdown`},
		{[]string{"nodes", "-o", "table"}, `-o "table": nodes prints text, json, yaml, markdown or wide`},
		{[]string{"gather", "node/n", "--out", "d", "-o", "json"}, "gather writes a directory (--out DIR), not a report: leave out -o"},
		{[]string{"diagnose", "pod/x", "--out", "d"}, "diagnose does not take --out (gather)"},
		{[]string{"nodes", "-n", "default"}, "nodes does not take --namespace (diagnose)"},
		{[]string{"diagnose", "pod/x", "--parallel", "4"}, "diagnose does not take --parallel (nodes)"},
		{[]string{"nodes", "--parallel", "0"}, "--parallel 0: give a number between 1 and 256"},
		{[]string{"nodes", "--timeout", "0"}, "--timeout 0s: give a positive duration"},
		{[]string{"nodes", "--progress", "sometimes"}, `--progress "sometimes": give auto, always or never`},
		{[]string{"explain", "pod/x"}, `unknown command "explain"`},
		{[]string{"--bogus", "nodes"}, "bogus"},
		{[]string{"--kubeconfig", empty, "nodes"}, "loading the kubeconfig"},
		{[]string{"--kubeconfig", empty, "--context", "nowhere", "nodes"}, `context "nowhere" does not exist`},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), tc.args, &out, &errb)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, errb.String(), tc.want, "%v", tc.args)
		assert.Empty(t, out.String())
	}
}

func TestIsDirListing(t *testing.T) {
	assert.True(t, isDirListing([]byte("<!doctype html>\n<meta name=\"viewport\" content=\"width=device-width\">\n<pre>\n<a href=\"journal/\">journal/</a>\n</pre>\n")))
	assert.False(t, isDirListing([]byte("Nov 29 09:50:00 dell8 kubelet[2101]: I1129 09:50:00.100000 ...\n")))
	assert.False(t, isDirListing(nil))
}

func TestHelp(t *testing.T) {
	for _, h := range []string{"-h", "--help"} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{h}, &out, &errb)
		assert.Equal(t, 0, code, "%s: exit code", h)
		assert.Contains(t, out.String(), "Usage:", h)
		assert.Contains(t, out.String(), "Examples:", h)
		assert.GreaterOrEqual(t, strings.Count(out.String(), "\n  kubectl numascope "), 3+3, "%s: the usage lines and at least three examples", h)
		assert.Contains(t, out.String(), "--output", "%s: the flags", h)
		assert.Empty(t, errb.String(), "%s: stderr", h)
	}
}
