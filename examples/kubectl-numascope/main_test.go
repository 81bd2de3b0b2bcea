package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/numascope/numascope/internal/fuzzbudget"
)

// TestParse reads the command line of every command, valid and invalid,
// to the options its Complete and Validate leave (or the help asked for,
// or the usage error, which run reports with exit status 2).
func TestParse(t *testing.T) {
	def, with := defaultFlags, withFlags
	checkParse(t, []parseCase{
		// diagnose
		{"pod/NAME", []string{"diagnose", "pod/guaranteed"}, &diagnoseOptions{cluster: def, output: "text", pod: "guaranteed"}, "", ""},
		{"pods NAME", []string{"diagnose", "pods", "guaranteed"}, &diagnoseOptions{cluster: def, output: "text", pod: "guaranteed"}, "", ""},
		{"po/NAME", []string{"diagnose", "po/g"}, &diagnoseOptions{cluster: def, output: "text", pod: "g"}, "", ""},
		{"a bare NAME", []string{"diagnose", "guaranteed"}, &diagnoseOptions{cluster: def, output: "text", pod: "guaranteed"}, "", ""},
		{"-n and -o, -o's value in any case", []string{"diagnose", "pod/g", "-n", "default", "-o", "JSON"},
			&diagnoseOptions{cluster: with(func(f *clusterFlags) { f.overrides.Context.Namespace = "default" }), output: "json", pod: "g"}, "", ""},
		{"the connection flags before the command", []string{"--kubeconfig", "kc", "--context", "ctx", "--timeout", "30s", "diagnose", "pod/g"},
			&diagnoseOptions{cluster: with(func(f *clusterFlags) {
				f.kubeconfig, f.overrides.CurrentContext, f.timeout = "kc", "ctx", 30*time.Second
			}), output: "text", pod: "g"}, "", ""},
		{"-n's value before the command is not the command", []string{"-n", "nodes", "diagnose", "pod/g"},
			&diagnoseOptions{cluster: with(func(f *clusterFlags) { f.overrides.Context.Namespace = "nodes" }), output: "text", pod: "g"}, "", ""},
		{"every diagnose flag", []string{"diagnose", "-A", "pod/g", "--no-node-access", "--agent-image", "img", "--agent-namespace=agents", "--output=markdown"},
			&diagnoseOptions{cluster: with(func(f *clusterFlags) { f.noNodeAccess, f.agentImage, f.agentNamespace = true, "img", "agents" }), output: "markdown", allNamespaces: true, pod: "g"}, "", ""},
		{"shorthands together", []string{"diagnose", "-An", "kube-system", "pod/g", "-oyaml"},
			&diagnoseOptions{cluster: with(func(f *clusterFlags) { f.overrides.Context.Namespace = "kube-system" }), output: "yaml", allNamespaces: true, pod: "g"}, "", ""},
		{"a value in the shorthand's word", []string{"diagnose", "-ndefault", "-o=json", "pod/g"},
			&diagnoseOptions{cluster: with(func(f *clusterFlags) { f.overrides.Context.Namespace = "default" }), output: "json", pod: "g"}, "", ""},
		{"-- ends the flags", []string{"diagnose", "--", "pod/g"}, &diagnoseOptions{cluster: def, output: "text", pod: "g"}, "", ""},
		{"a node for diagnose", []string{"diagnose", "node/dell8"}, nil, "", "diagnose takes pod/NAME"},
		{"no pod name", []string{"diagnose", "pod/"}, nil, "", "is not a pod name"},
		{"a name with a slash", []string{"diagnose", "pods", "a/b"}, nil, "", `"a/b" is not a pod name`},
		{"no pod", []string{"diagnose"}, nil, "", "takes one pod/NAME"},
		{"two pods", []string{"diagnose", "pod/a", "pod/b"}, nil, "", "takes one pod/NAME"},
		{"-o jsonpath= keeps its template as given", []string{"diagnose", "pod/g", "-o", "JSONPath={.Findings[0].Code}"},
			&diagnoseOptions{cluster: def, output: "jsonpath={.Findings[0].Code}", pod: "g"}, "", ""},
		{"-o go-template= in the shorthand's word", []string{"nodes", "-ogo-template={{range .}}{{.node}} {{end}}"},
			&nodesOptions{cluster: def, output: "go-template={{range .}}{{.node}} {{end}}", parallel: 16, progress: "auto"}, "", ""},
		{"-o jsonpath without a template", []string{"diagnose", "pod/g", "-o", "jsonpath"}, nil, "", "-o jsonpath needs a template after ="},
		{"-o wide for diagnose", []string{"diagnose", "pod/x", "-o", "wide"}, nil, "", `-o "wide": diagnose prints text, json, yaml, markdown, jsonpath=TEMPLATE or go-template=TEMPLATE`},
		{"gather's flag", []string{"diagnose", "pod/x", "--out", "d"}, nil, "", "diagnose does not take --out (gather)"},
		{"nodes' flags, each named", []string{"diagnose", "pod/x", "--parallel", "4", "--progress=never", "--parallel", "5"}, nil, "",
			"diagnose does not take --parallel (nodes), --progress (nodes): each flag goes with the command in brackets"},
		{"a zero --timeout", []string{"diagnose", "pod/x", "--timeout", "0"}, nil, "", "--timeout 0s: give a positive duration"},
		{"a --timeout that is no duration", []string{"diagnose", "pod/x", "--timeout", "soon"}, nil, "", `diagnose: --timeout "soon": give a duration such as 30s or 2m`},
		{"-n without its value", []string{"diagnose", "pod/x", "-n"}, nil, "", "diagnose: flag needs an argument: 'n' in -n"},
		{"a flag no command has", []string{"diagnose", "pod/x", "--bogus"}, nil, "", "unknown flag --bogus: no command takes it"},
		{"a shorthand no command has", []string{"diagnose", "pod/x", "-Ax"}, nil, "", "unknown flag -x: no command takes it"},

		// gather
		{"node/NAME", []string{"gather", "node/dell8", "--out", "d"}, &gatherOptions{cluster: def, dir: "d", node: "dell8"}, "", ""},
		{"no NAME", []string{"gather", "no", "dell8", "--out=d"}, &gatherOptions{cluster: def, dir: "d", node: "dell8"}, "", ""},
		{"every gather flag", []string{"--timeout", "10s", "gather", "--no-node-access", "--agent-image", "img", "--agent-namespace", "agents", "nodes/n", "--out", "d"},
			&gatherOptions{cluster: with(func(f *clusterFlags) {
				f.timeout, f.noNodeAccess, f.agentImage, f.agentNamespace = 10*time.Second, true, "img", "agents"
			}), dir: "d", node: "n"}, "", ""},
		{"a pod for gather", []string{"gather", "pod/x", "--out", "d"}, nil, "", "gather takes node/NAME"},
		{"no --out", []string{"gather", "node/n"}, nil, "", "gather needs --out DIR"},
		{"no node", []string{"gather", "--out", "d"}, nil, "", "gather takes one node/NAME"},
		{"-o for gather", []string{"gather", "node/n", "--out", "d", "-o", "json"}, nil, "", "gather does not take --output (diagnose, nodes, version)"},
		{"-n for gather, as kubectl takes it", []string{"gather", "node/n", "--out", "d", "-n", "x"},
			&gatherOptions{cluster: with(func(f *clusterFlags) { f.overrides.Context.Namespace = "x" }), dir: "d", node: "n"}, "", ""},
		{"-A for gather", []string{"-A", "gather", "node/n", "--out", "d"}, nil, "", "gather does not take --all-namespaces (diagnose)"},
		{"--out without its value", []string{"gather", "node/n", "--out"}, nil, "", "gather: flag needs an argument: --out"},

		// nodes
		{"nodes", []string{"nodes"}, &nodesOptions{cluster: def, output: "text", parallel: 16, progress: "auto"}, "", ""},
		{"every nodes flag", []string{"nodes", "-o", "Wide", "--parallel", "4", "--progress", "never", "--agent-namespace", "agents", "--context", "c"},
			&nodesOptions{cluster: with(func(f *clusterFlags) { f.agentNamespace, f.overrides.CurrentContext = "agents", "c" }), output: "wide", parallel: 4, progress: "never"}, "", ""},
		{"an argument for nodes", []string{"nodes", "x"}, nil, "", `nodes takes no argument (got "x")`},
		{"an unknown -o", []string{"nodes", "-o", "table"}, nil, "", `-o "table": nodes prints text, json, yaml, markdown, wide, jsonpath=TEMPLATE or go-template=TEMPLATE`},
		{"--parallel 0", []string{"nodes", "--parallel", "0"}, nil, "", "--parallel 0: give a number between 1 and 256"},
		{"--parallel 257", []string{"nodes", "--parallel", "257"}, nil, "", "--parallel 257: give a number between 1 and 256"},
		{"a --parallel that is no number", []string{"nodes", "--parallel", "many"}, nil, "", `nodes: --parallel "many": give a whole number`},
		{"an unknown --progress", []string{"nodes", "--progress", "sometimes"}, nil, "", `--progress "sometimes": give auto, always or never`},
		{"a --timeout for nodes", []string{"nodes", "--timeout", "-1s"}, nil, "", "--timeout -1s: give a positive duration"},
		{"-n for nodes, as kubectl takes it", []string{"nodes", "-n", "default"},
			&nodesOptions{cluster: with(func(f *clusterFlags) { f.overrides.Context.Namespace = "default" }), output: "text", parallel: 16, progress: "auto"}, "", ""},
		{"--no-node-access for nodes", []string{"nodes", "--no-node-access"}, nil, "", "nodes does not take --no-node-access (diagnose, gather)"},
		{"--agent-image for nodes", []string{"--agent-image", "img", "nodes"}, nil, "", "nodes does not take --agent-image (diagnose, gather)"},

		// the commands, and help
		{"no command", nil, nil, "", "give a command: diagnose pod/NAME"},
		{"flags only", []string{"--kubeconfig", "kc"}, nil, "", "give a command"},
		{"an unknown command", []string{"explain", "pod/x"}, nil, "", `unknown command "explain"`},
		{"a flag no command has, before the command", []string{"--bogus", "nodes"}, nil, "", "unknown flag --bogus"},
		{"-h", []string{"-h"}, nil, "root", ""},
		{"help", []string{"help"}, nil, "root", ""},
		{"--help with a connection flag", []string{"--kubeconfig", "kc", "--help"}, nil, "root", ""},
		{"help COMMAND", []string{"help", "diagnose"}, nil, "diagnose", ""},
		{"COMMAND -h", []string{"gather", "-h"}, nil, "gather", ""},
		{"-h COMMAND", []string{"-h", "nodes"}, nil, "nodes", ""},
		{"--help before a wrong argument", []string{"nodes", "--help", "x"}, nil, "nodes", ""},
		{"help for no command", []string{"help", "explain"}, nil, "", "help explain: no such command"},
		{"help for two commands", []string{"help", "nodes", "gather"}, nil, "", "help takes one command"},
		{"-h with a flag of another command", []string{"nodes", "-h", "--out", "d"}, nil, "", "nodes does not take --out (gather)"},
	})
}

// TestParseKubeconfigAndVersion: kubectl's kubeconfig flags, which every
// command that reads the cluster takes, and version.
func TestParseKubeconfigAndVersion(t *testing.T) {
	with := withFlags
	checkParse(t, []parseCase{
		// the kubeconfig flags, which every command takes
		{"kubectl's kubeconfig flags", []string{"--as", "ana", "--as-group", "numascope:users", "--as-group=ops", "--as-uid", "1000", "--cluster", "c1",
			"--user", "u1", "--token", "t0k3n", "--server", "https://203.0.113.10:6443", "--certificate-authority", "ca.crt", "--insecure-skip-tls-verify",
			"--request-timeout", "5s", "--tls-server-name", "api.example", "--kubeconfig=kc", "--context", "ctx", "nodes"},
			&nodesOptions{cluster: with(func(f *clusterFlags) {
				f.kubeconfig = "kc"
				f.overrides.CurrentContext, f.overrides.Timeout = "ctx", "5s"
				f.overrides.AuthInfo.Impersonate, f.overrides.AuthInfo.ImpersonateGroups, f.overrides.AuthInfo.ImpersonateUID = "ana", []string{"numascope:users", "ops"}, "1000"
				f.overrides.AuthInfo.Token = "t0k3n"
				f.overrides.Context.Cluster, f.overrides.Context.AuthInfo = "c1", "u1"
				f.overrides.ClusterInfo.Server, f.overrides.ClusterInfo.CertificateAuthority = "https://203.0.113.10:6443", "ca.crt"
				f.overrides.ClusterInfo.InsecureSkipTLSVerify, f.overrides.ClusterInfo.TLSServerName = true, "api.example"
			}), output: "text", parallel: 16, progress: "auto"}, "", ""},
		{"-n namespace/NAME, as kubectl reads it", []string{"diagnose", "pod/g", "-n", "namespaces/kube-system"},
			&diagnoseOptions{cluster: with(func(f *clusterFlags) { f.overrides.Context.Namespace = "kube-system" }), output: "text", pod: "g"}, "", ""},
		{"--request-timeout in seconds", []string{"gather", "node/n", "--out", "d", "--request-timeout", "30"},
			&gatherOptions{cluster: with(func(f *clusterFlags) { f.overrides.Timeout = "30" }), dir: "d", node: "n"}, "", ""},
		{"a --request-timeout that is no duration", []string{"nodes", "--request-timeout", "soon"}, nil, "",
			`--request-timeout "soon": give a duration such as 30s or 2m, a number of seconds, or 0 for no limit`},
		{"a negative --request-timeout", []string{"nodes", "--request-timeout=-1s"}, nil, "", `--request-timeout "-1s": give a duration`},
		{"a --server that is no URL", []string{"nodes", "--server", "https://"}, nil, "", `--server "https://": give the API server's URL, such as https://203.0.113.10:6443`},
		{"a namespace that is no DNS label", []string{"diagnose", "pod/g", "-n", "Bad_NS"}, nil, "", `-n "Bad_NS": a namespace name is a DNS label`},
		{"--as-group without --as", []string{"nodes", "--as-group", "g"}, nil, "", "--as-group and --as-uid need --as USER"},
		{"--password without --username", []string{"nodes", "--password", "p4ss"}, nil, "", "--username and --password go together"},
		{"a bool flag's value", []string{"nodes", "--insecure-skip-tls-verify=maybe"}, nil, "",
			`nodes: --insecure-skip-tls-verify "maybe": give true or false (or the flag alone for true)`},
		{"the plugin's own flags stay with their commands", []string{"nodes", "--agent-image", "img"}, nil, "", "nodes does not take --agent-image (diagnose, gather)"},

		// version
		{"version", []string{"version"}, &versionOptions{output: "text"}, "", ""},
		{"--version alone", []string{"--version"}, &versionOptions{output: "text", flag: true}, "", ""},
		{"--version -o json", []string{"--version", "-o", "json"}, &versionOptions{output: "json", flag: true}, "", ""},
		{"version -o yaml", []string{"version", "-oyaml"}, &versionOptions{output: "yaml"}, "", ""},
		{"version -o wide", []string{"version", "-o", "wide"}, nil, "", `-o "wide": version prints text, json, yaml, jsonpath=TEMPLATE or go-template=TEMPLATE`},
		{"an argument for version", []string{"version", "x"}, nil, "", `version takes no argument (got "x")`},
		{"a kubeconfig flag for version", []string{"version", "--context", "c"}, nil, "", "version does not take --context (diagnose, gather, nodes)"},
		{"--version with another command", []string{"nodes", "--version"}, nil, "", "nodes does not take --version (version)"},
		{"help version", []string{"help", "version"}, nil, "version", ""},
	})
}

// parseCase is one command line and what parse makes of it.
type parseCase struct {
	name string
	args []string
	want runner // the options, with no help and no error
	help string // the command whose help is asked for, "root" for the list
	err  string
}

// defaultFlags are the connection flags of a command line that gives none,
// and withFlags those with a change.
var defaultFlags = clusterFlags{timeout: 2 * time.Minute, agentNamespace: "numascope", overrides: clientcmd.ConfigOverrides{Timeout: "0"}}

func withFlags(change func(*clusterFlags)) clusterFlags {
	f := defaultFlags
	change(&f)
	return f
}

// checkParse runs parse (and run, for an error) on each case.
func checkParse(t *testing.T, cases []parseCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, help, err := parse(tc.args, streams{stdout: io.Discard, stderr: io.Discard})
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				var out, errb bytes.Buffer
				assert.Equal(t, 2, run(context.Background(), tc.args, &out, &errb), "exit status")
				assert.Contains(t, errb.String(), tc.err)
				assert.Empty(t, out.String())
				return
			}
			require.NoError(t, err)
			if tc.help != "" {
				require.True(t, help)
				name := "root"
				if c != nil {
					name = c.name
				}
				assert.Equal(t, tc.help, name)
				return
			}
			require.False(t, help)
			assert.Empty(t, cmp.Diff(tc.want, c.opts, cmp.AllowUnexported(diagnoseOptions{}, gatherOptions{}, nodesOptions{}, versionOptions{}, clusterFlags{}), cmpopts.IgnoreTypes(streams{}), cmpopts.EquateEmpty()))
		})
	}
}

func TestCommandLineErrors(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.kubeconfig")
	require.NoError(t, os.WriteFile(empty, []byte("apiVersion: v1\nkind: Config\n"), 0o600))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"diagnose", "pod/x", "-o", "wide"}, `-o "wide": diagnose prints text, json, yaml, markdown, jsonpath=TEMPLATE or go-template=TEMPLATE`},
		{[]string{"nodes", "-o", "table"}, `-o "table": nodes prints text, json, yaml, markdown, wide, jsonpath=TEMPLATE or go-template=TEMPLATE`},
		{[]string{"gather", "node/n", "--out", "d", "-o", "json"}, "gather does not take --output (diagnose, nodes, version)"},
		{[]string{"diagnose", "pod/x", "--out", "d"}, "diagnose does not take --out (gather)"},
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

// TestHelp: -h lists the commands with the flags they all take; each
// command's help shows its usage, examples and exactly the flags it takes.
func TestHelp(t *testing.T) {
	kubeconfig := []string{"Kubeconfig flags", "--kubeconfig", "--context", "--timeout", "--as string", "--as-group", "--as-uid", "--cluster", "--user", "--token", "--server",
		"--certificate-authority", "--insecure-skip-tls-verify", "--request-timeout", "-n, --namespace"}
	root := append([]string{"Usage:", "Commands:", "Examples:", "\n  diagnose ", "\n  gather ", "\n  nodes ", "\n  version ", "--version", "COMMAND -h"}, kubeconfig[1:]...)
	diagnose := []string{"kubectl numascope diagnose pod/NAME", "Examples:", "-o, --output", "markdown", "-A, --all-namespaces", "-n, --namespace", "--no-node-access", "--agent-image", "--agent-namespace", "Exit status:"}
	diagnose = append(diagnose, kubeconfig...)
	gather := append([]string{"kubectl numascope gather node/NAME --out DIR", "Examples:", "--out string", "--no-node-access", "--agent-image", "--agent-namespace", "Exit status:"}, kubeconfig...)
	nodes := append([]string{"kubectl numascope nodes", "Examples:", "-o, --output", "wide", "--parallel", "--progress", "--agent-namespace", "Exit status:"}, kubeconfig...)
	for _, tc := range []struct {
		args       []string
		want, not  []string
		usageLines int // lines that start with "  kubectl numascope ": usage and examples
	}{
		{[]string{"-h"}, root, []string{"--output", "--all-namespaces", "--agent-image", "--progress"}, 5 + 4},
		{[]string{"--help"}, root, []string{"--output"}, 5 + 4},
		{[]string{"help"}, root, []string{"--output"}, 5 + 4},
		{[]string{"diagnose", "-h"}, diagnose, []string{"--parallel", "--progress", "--out string"}, 1 + 4},
		{[]string{"help", "diagnose"}, diagnose, []string{"--parallel"}, 1 + 4},
		{[]string{"-h", "diagnose", "pod/x"}, diagnose, []string{"--parallel"}, 1 + 4},
		{[]string{"gather", "--help"}, gather, []string{"--output", "--all-namespaces", "--parallel"}, 1 + 2},
		{[]string{"version", "-h"}, []string{"kubectl numascope version [-o text|json|yaml]", "Examples:", "-o, --output", "--version", "reads no kubeconfig", "Exit status:"},
			[]string{"--kubeconfig", "Kubeconfig flags", "--as"}, 1 + 2},
		{[]string{"nodes", "-h"}, nodes, []string{"--no-node-access", "--agent-image", "--all-namespaces", "--out string"}, 1 + 3},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), tc.args, &out, &errb)
		assert.Equal(t, 0, code, "%v: exit code", tc.args)
		for _, w := range tc.want {
			assert.Contains(t, out.String(), w, "%v", tc.args)
		}
		for _, n := range tc.not {
			assert.NotContains(t, out.String(), n, "%v", tc.args)
		}
		assert.Equal(t, tc.usageLines, strings.Count(out.String(), "\n  kubectl numascope "), "%v: the usage lines and the examples", tc.args)
		assert.Empty(t, errb.String(), "%v: stderr", tc.args)
	}
}

// TestNoCommand: the list of commands goes to stderr, with exit status 2.
func TestNoCommand(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), nil, &out, &errb))
	assert.Contains(t, errb.String(), "give a command")
	assert.Contains(t, errb.String(), "Commands:")
	assert.Empty(t, out.String())
}

// FuzzParse: any command line is read without a panic, within the budget,
// to help, a one-line usage error, or options that pass their own checks.
func FuzzParse(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzParse: words split at NUL.
	f.Fuzz(func(t *testing.T, line string) {
		fuzzbudget.Run(t, func() {
			args := strings.Split(line, "\x00")
			if len(args) > 64 {
				return
			}
			c, help, err := parse(args, streams{stdout: io.Discard, stderr: io.Discard})
			switch {
			case err != nil:
				assert.NotEmpty(t, err.Error())
			case help:
				if c != nil {
					var b bytes.Buffer
					c.printHelp(&b)
					assert.Contains(t, b.String(), "kubectl numascope "+c.name)
				}
			default:
				require.NotNil(t, c)
				assert.NoError(t, c.opts.Validate())
			}
		})
	})
}
