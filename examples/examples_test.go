// Package examples_test builds every example program and runs it against the
// repository's fixtures, so that an example can never rot: each must be listed
// in examples/README.md, exit with its documented status, print human output by
// default and parseable JSON with --json. It also runs the README's cookbook.
package examples_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/numascope/numascope/internal/kubeversion"
	"github.com/numascope/numascope/podresources/podresourcestest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// root is the repository root: the examples run from there, as the READMEs show.
const root = ".."

// run is one invocation of an example.
type run struct {
	args []string
	exit int
	// json: stdout is one or more JSON objects (--json or a JSON-only program).
	json bool
	// want is a substring of stdout, or of stderr when exit is 2.
	want string
}

// runs lists, per example directory, the invocations that prove it works.
// {{socket}} is replaced by a podresourcestest socket serving Sample().
var runs = map[string][]run{
	"inspect": {
		{args: nil, exit: 0, want: "memory_manager_state"}, // the embedded upstream sample: a demonstration, its rejection is explained
		{args: []string{"--json", "statefile/testdata/kubelet/cpu/v4-static.json", "statefile/testdata/kubelet/memory/v3-static.json"}, exit: 0, json: true},
		{args: []string{"--json", "statefile/testdata/kubelet/cpu/v2-checksum-flipped.json"}, exit: 1, json: true},
		{args: []string{"statefile/testdata/kubelet/device/legacy-v1.21.0-device-v2.json"}, exit: 0, want: "device"},
		{args: []string{"--no-such-flag"}, exit: 2},
	},
	"podresources": {
		{args: []string{"--from", "podresources/testdata/offline/numascope"}, exit: 0, want: "3 pods"},
		{args: []string{"--from", "podresources/testdata/offline/numascope", "--json"}, exit: 0, json: true},
		{args: []string{"--socket", "{{socket}}", "--json"}, exit: 0, json: true},
		{args: []string{"--socket", "{{socket}}", "--pod", "default/web"}, exit: 0, want: "1 pod"},
		{args: []string{"--socket", "/nonexistent/kubelet.sock"}, exit: 1},
		{args: []string{"--pod", "no-slash"}, exit: 2},
		{args: []string{"--from", "podresources/testdata/offline/numascope", "-o", "wide"}, exit: 0, want: "CONTAINER"},
		{args: []string{"-o", "csv"}, exit: 2},
	},
	"diagnose": {
		{args: []string{"--dir", "diagnose/testdata/troubleshooting-page"}, exit: 1, want: "TopologyAffinityError"},
		{args: []string{"--dir", "diagnose/testdata/troubleshooting-page", "--json"}, exit: 1, json: true},
		{args: []string{"--dir", "diagnose/testdata/matrix-none", "--json"}, exit: 0, json: true},
		{args: []string{"--dir", "diagnose/testdata/troubleshooting-page", "--markdown"}, exit: 1, want: "TopologyAffinityError"},
		{args: []string{"--state-dir", "examples/agent/testdata/node-bad/kubelet", "--json"}, exit: 1, json: true},
		{args: []string{"--dir", "/nonexistent"}, exit: 2},
		{args: []string{"--dir", "diagnose/testdata/state-cpu-two-owners", "-o", "json"}, exit: 1, json: true, want: `"StateFileProblem"`},
		{args: []string{"--dir", "diagnose/testdata/troubleshooting-page", "-o", "wide"}, exit: 2},
	},
	"admit": {
		{args: []string{"--hints", "examples/admit/testdata/design.json", "--json"}, exit: 0, json: true, want: `"admit":true`},
		{args: []string{"--hints", "examples/admit/testdata/design.json"}, exit: 0, want: "admit"},
		// Not admitted: exit 1, so scripts can branch on it.
		{args: []string{"--hints", "examples/admit/testdata/needs-two-nodes.json", "--json"}, exit: 1, json: true, want: `"admit":false`},
		{args: []string{"--hints", "/nonexistent/hints.json"}, exit: 2},
		{args: nil, exit: 2},
		{args: []string{"--hints", "examples/admit/testdata/design.json", "-o", "json"}, exit: 0, json: true, want: `"admit":true`},
		{args: []string{"--hints", "examples/admit/testdata/design.json"}, exit: 0, want: "✓ admitted"},
	},
	"agent": {
		{args: []string{"--once", "--state-dir", "examples/agent/testdata/node/kubelet", "--sysfs", "examples/agent/testdata/node/sys", "--socket", "{{socket}}"}, exit: 0, json: true, want: `"available":true`},
		{args: []string{"--once", "--state-dir", "examples/agent/testdata/node/kubelet", "--sysfs", "examples/agent/testdata/node/sys", "--snapshot", "podresources/testdata/offline/numascope"}, exit: 0, json: true},
		{args: []string{"--once", "--state-dir", "examples/agent/testdata/node-bad/kubelet", "--sysfs", "none", "--socket", "none"}, exit: 1, json: true, want: "CorruptCheckpoint"},
		{args: []string{"--once", "--state-dir", "examples/agent/testdata/node/kubelet", "--socket", "/nonexistent/kubelet.sock", "--sysfs", "none"}, exit: 0, json: true, want: "PodResourcesUnavailable"},
		{args: []string{"--interval", "0s"}, exit: 2},
	},
	// Runs against a real API server are in kubectl-numascope/cluster_test.go.
	"kubectl-numascope": {
		{args: []string{"--kubeconfig", "/nonexistent/kubeconfig", "diagnose", "pod/guaranteed"}, exit: 2},
		{args: []string{"diagnose", "node/dell8"}, exit: 2},
	},
}

var build struct {
	once sync.Once
	dir  string
	err  error
}

// binaries builds every example into one directory, once.
func binaries(t *testing.T) string {
	t.Helper()
	build.once.Do(func() {
		build.dir, build.err = os.MkdirTemp("", "numascope-examples")
		if build.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", build.dir+string(filepath.Separator), "./examples/...")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			build.err = fmt.Errorf("go build ./examples/...: %v\n%s", err, out)
			return
		}
		// The cluster-facing examples are modules of their own (their
		// dependencies stay out of the SDK's go.mod): each is built inside
		// its module, into the same directory.
		for _, d := range nestedModules() {
			cmd := exec.Command("go", "build", "-o", build.dir+string(filepath.Separator), ".")
			cmd.Dir = d
			if out, err := cmd.CombinedOutput(); err != nil {
				build.err = fmt.Errorf("go build . (in examples/%s, a module of its own): %v\n%s", d, err, out)
				return
			}
		}
	})
	require.NoError(t, build.err)
	return build.dir
}

// nestedModules lists the example directories that hold a go.mod of their own.
func nestedModules() []string {
	var out []string
	entries, _ := os.ReadDir(".")
	for _, e := range entries {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(e.Name(), "go.mod")); err == nil {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

func TestMain(m *testing.M) {
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}

// exampleDirs lists the directories under examples/ that hold a main package.
func exampleDirs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	var dirs []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(e.Name(), "main.go")); err == nil && bytes.Contains(b, []byte("package main")) {
			dirs = append(dirs, e.Name())
		}
	}
	sort.Strings(dirs)
	require.NotEmpty(t, dirs, "no example found")
	return dirs
}

func TestEveryExampleIsListedAndRun(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	for _, d := range exampleDirs(t) {
		assert.True(t, bytes.Contains(readme, []byte("go run ./examples/"+d)) || bytes.Contains(readme, []byte("go -C examples/"+d+" run .")), "examples/README.md does not list `go run ./examples/%s` (or `go -C examples/%s run .` for a module of its own)", d, d)
		assert.NotEmpty(t, runs[d], "examples/%s has no run in examples_test.go: add one with the fixtures it needs", d)
	}
	for d := range runs {
		_, err := os.Stat(filepath.Join(d, "main.go"))
		assert.NoError(t, err, "runs lists %s, which is not an example", d)
	}
}

func TestExamples(t *testing.T) {
	bin := binaries(t)
	srv, err := podresourcestest.StartInDir(podresourcestest.Sample())
	require.NoError(t, err)
	defer srv.Close()
	for _, d := range exampleDirs(t) {
		for i, r := range runs[d] {
			args := make([]string, len(r.args))
			for j, a := range r.args {
				args[j] = strings.ReplaceAll(a, "{{socket}}", srv.Socket())
			}
			name := fmt.Sprintf("%s/%d", d, i)
			t.Run(name, func(t *testing.T) {
				cmd := exec.Command(filepath.Join(bin, d), args...)
				cmd.Dir = root
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				code := 0
				var exit *exec.ExitError
				if errors.As(err, &exit) {
					code = exit.ExitCode()
				} else {
					require.NoError(t, err)
				}
				shown := fmt.Sprintf("go run ./examples/%s %s", d, strings.Join(r.args, " "))
				assert.Equal(t, r.exit, code, "%s: exit code\nstdout: %.2000s\nstderr: %.2000s", shown, stdout.String(), stderr.String())
				if r.exit == 2 {
					assert.NotZero(t, stderr.Len(), "%s: exit 2 without a message on stderr", shown)
					return
				}
				if r.exit != 0 {
					assert.NotZero(t, stdout.Len()+stderr.Len(), "%s: exit %d without saying why (no stdout, no stderr)", shown, code)
				}
				if r.want != "" && code != 2 {
					assert.Contains(t, stdout.String(), r.want, "%s: stdout", shown)
				}
				if r.json {
					n := 0
					dec := json.NewDecoder(&stdout)
					for {
						var v map[string]any
						err := dec.Decode(&v)
						if err == io.EOF {
							break
						}
						require.NoError(t, err, "%s: --json output is not a stream of JSON objects", shown)
						n++
					}
					assert.NotZero(t, n, "%s: no JSON object printed", shown)
				} else if code == 0 {
					assert.NotZero(t, stdout.Len(), "%s: no output", shown)
				}
			})
		}
	}
}

// recipe is one shell block of the README's cookbook and the output it shows.
type recipe struct {
	line    int
	script  string
	want    string
	hasWant bool
}

// cookbook returns the ```sh blocks of the "## Cookbook" section of the
// top-level README, each with the ```text block that follows it, if any.
// Blocks fenced ```sh cluster need a cluster and are not run.
func cookbook(t *testing.T) []recipe {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	defer f.Close()
	var out []recipe
	sc := bufio.NewScanner(f)
	in, n := false, 0
	var cur *recipe
	var block *strings.Builder
	var kind string
	attach := false // a text block right after a sh block shows its output
	for sc.Scan() {
		n++
		l := sc.Text()
		if strings.HasPrefix(l, "## ") {
			in = l == "## Cookbook"
			continue
		}
		if !in {
			continue
		}
		switch {
		case block == nil && strings.HasPrefix(l, "```"):
			kind = strings.TrimPrefix(l, "```")
			block = &strings.Builder{}
			if kind == "sh" {
				cur = &recipe{line: n + 1}
			}
		case block != nil && l == "```":
			switch {
			case kind == "sh":
				cur.script = block.String()
				out = append(out, *cur)
			case kind == "text" && attach:
				out[len(out)-1].want = block.String()
				out[len(out)-1].hasWant = true
			}
			attach = kind == "sh"
			block = nil
		case block != nil:
			block.WriteString(l + "\n")
		case strings.TrimSpace(l) != "":
			attach = false // prose between a command and a text block
		}
	}
	require.NotEmpty(t, out, "README.md has no ## Cookbook section with ```sh blocks")
	return out
}

var reGoRun = regexp.MustCompile(`go run \./examples/([a-z]+)`)

// reGoRunModule is a recipe's command that is a module of its own: it runs
// inside its directory (env -C), as `go -C DIR run .` does.
var reGoRunModule = regexp.MustCompile(`go -C examples/([a-z-]+) run \.`)

func TestCookbook(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		require.Empty(t, os.Getenv("NUMASCOPE_REQUIRE_BROWSER"), "jq is not installed, and CI must run the cookbook recipes (.ci/run installs it)")
		t.Skip("jq is not installed (apt-get install jq)")
	}
	bin := binaries(t)
	for _, r := range cookbook(t) {
		t.Run(fmt.Sprintf("README.md:%d", r.line), func(t *testing.T) {
			script := reGoRun.ReplaceAllString(r.script, filepath.Join(bin, "$1"))
			script = reGoRunModule.ReplaceAllString(script, "env -C examples/$1 "+filepath.Join(bin, "$1"))
			cmd := exec.Command("bash", "-e", "-c", script)
			cmd.Dir = root
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Run(), "README.md:%d:\n%s\nstderr: %s", r.line, r.script, stderr.String())
			if r.hasWant {
				assert.Equal(t, strings.TrimRight(r.want, "\n"), strings.TrimRight(stdout.String(), "\n"), "README.md:%d prints what the README shows", r.line)
			} else {
				assert.NotZero(t, stdout.Len(), "README.md:%d prints nothing", r.line)
			}
		})
	}
}

// TestEveryExampleHelpExitsZero: -h and --help print the usage and exit 0
// in every example, as kubectl and the Go tools do.
func TestEveryExampleHelpExitsZero(t *testing.T) {
	bin := binaries(t)
	for _, d := range exampleDirs(t) {
		for _, flag := range []string{"-h", "--help"} {
			t.Run(d+flag, func(t *testing.T) {
				cmd := exec.Command(filepath.Join(bin, d), flag)
				cmd.Dir = root
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				require.NoError(t, cmd.Run(), "%s %s: stderr %s", d, flag, stderr.String())
				assert.Contains(t, strings.ToLower(stdout.String()+stderr.String()), "usage", "%s %s prints its usage", d, flag)
				if helpWithoutExamples[d] {
					return
				}
				assert.Contains(t, stdout.String(), "Examples:", "%s %s prints examples on stdout, as kubectl does", d, flag)
				assert.Empty(t, stderr.String(), "%s %s: stderr", d, flag)
			})
		}
	}
}

// TestEveryExampleVersion: --version (and -version where the flag package
// reads it) prints each command's name, its module, the Go release it was
// built with and the kubelet releases numascope models, and exits 0, before
// any other flag is checked.
func TestEveryExampleVersion(t *testing.T) {
	bin := binaries(t)
	for _, d := range exampleDirs(t) {
		t.Run(d, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(bin, d), "--version")
			cmd.Dir = root
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Run(), "%s --version: stderr %s", d, stderr.String())
			out := stdout.String()
			assert.True(t, strings.HasPrefix(out, d+" "), "%s --version starts with its name: %q", d, out)
			assert.Regexp(t, `(?m)^  module    github\.com/numascope/numascope(/examples/`+regexp.QuoteMeta(d)+`)? `, out)
			assert.Contains(t, out, "  go        "+runtime.Version()+" ")
			assert.Contains(t, out, "  kubelets  "+kubeversion.Range()+" ")
			assert.Contains(t, out, "  commit    ")
			assert.Empty(t, stderr.String())
		})
	}
}

// helpWithoutExamples lists the examples whose -h has no examples yet.
var helpWithoutExamples = map[string]bool{}

// TestOutputFlag runs every example that prints a report with each -o value
// it takes and with one it does not: json and yaml parse, the aliases give
// the same bytes as -o, and a value the command does not print is a usage
// error (exit 2) that names -o and the values accepted.
func TestOutputFlag(t *testing.T) {
	bin := binaries(t)
	for _, tt := range []struct {
		example string
		args    []string
		exit    int
		formats []string // accepted, besides text
		refused []string
		aliases map[string]string // alias flag -> the -o value it stands for
	}{
		{"diagnose", []string{"--dir", "diagnose/testdata/troubleshooting-page"}, 1, []string{"json", "yaml", "markdown"}, []string{"wide", "table"}, map[string]string{"--json": "json", "--markdown": "markdown"}},
		{"admit", []string{"--hints", "examples/admit/testdata/design.json"}, 0, []string{"json", "yaml"}, []string{"markdown", "wide"}, map[string]string{"--json": "json"}},
		{"podresources", []string{"--from", "podresources/testdata/offline/numascope"}, 0, []string{"json", "yaml", "markdown", "wide"}, []string{"csv"}, map[string]string{"--json": "json", "--markdown": "markdown"}},
	} {
		exec1 := func(t *testing.T, args ...string) (int, string, string) {
			cmd := exec.Command(filepath.Join(bin, tt.example), append(append([]string{}, tt.args...), args...)...)
			cmd.Dir = root
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				return exit.ExitCode(), stdout.String(), stderr.String()
			}
			require.NoError(t, err)
			return 0, stdout.String(), stderr.String()
		}
		outputs := map[string]string{}
		for _, f := range append([]string{"text"}, tt.formats...) {
			t.Run(tt.example+" -o "+f, func(t *testing.T) {
				code, out, errs := exec1(t, "-o", f)
				require.Equal(t, tt.exit, code, "exit code (stderr %s)", errs)
				require.NotEmpty(t, out)
				outputs[f] = out
				switch f {
				case "json":
					var v any
					require.NoError(t, json.Unmarshal([]byte(out), &v), "-o json parses")
				case "yaml":
					var v any
					require.NoError(t, yaml.Unmarshal([]byte(out), &v), "-o yaml parses")
					assert.IsType(t, map[string]any{}, v, "-o yaml is a document, not a scalar")
				}
			})
		}
		for alias, f := range tt.aliases {
			t.Run(tt.example+" "+alias, func(t *testing.T) {
				code, out, errs := exec1(t, alias)
				require.Equal(t, tt.exit, code, "exit code (stderr %s)", errs)
				assert.Equal(t, outputs[f], out, "%s prints what -o %s prints", alias, f)
			})
		}
		for _, f := range tt.refused {
			t.Run(tt.example+" -o "+f, func(t *testing.T) {
				code, out, errs := exec1(t, "-o", f)
				assert.Equal(t, 2, code, "exit code (stderr %s)", errs)
				assert.Empty(t, out)
				assert.Contains(t, errs, "-o")
				assert.Contains(t, errs, strings.Join(tt.formats[:len(tt.formats)-1], ", ")+" or "+tt.formats[len(tt.formats)-1], "the accepted values")
			})
		}
	}
}
