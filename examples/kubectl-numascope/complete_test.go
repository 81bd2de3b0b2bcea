package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runPluginEnv makes the test binary run as kubectl-numascope (TestMain),
// so that shells and the helper script can call it by that name.
const runPluginEnv = "NUMASCOPE_TEST_RUN_PLUGIN"

func TestMain(m *testing.M) {
	if os.Getenv(runPluginEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// pluginOnPath puts the test binary on a fresh PATH as kubectl-numascope
// and kubectl_complete-numascope (links), with the helper script as
// kubectl_complete-numascope.sh, and returns that directory.
func pluginOnPath(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.Symlink(self, filepath.Join(dir, "kubectl-numascope")))
	require.NoError(t, os.Symlink(self, filepath.Join(dir, "kubectl_complete-numascope")))
	script, err := os.ReadFile("kubectl_complete-numascope")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kubectl_complete-numascope.sh"), script, 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv(runPluginEnv, "1")
	return dir
}

// TestComplete: __complete answers the commands, the flags, the -o values,
// the kinds and the shells, each line a word (and its description), then
// the directive.
func TestComplete(t *testing.T) {
	noKubeconfig(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{""}, "diagnose\ngather\nnodes\nversion\ncompletion\nhelp\n:4\n"},
		{nil, "diagnose\ngather\nnodes\nversion\ncompletion\nhelp\n:4\n"},
		{[]string{"n"}, "nodes\n:4\n"},
		{[]string{"--context", "c", "g"}, "gather\n:4\n"},
		{[]string{"-n", "default", "di"}, "diagnose\n:4\n"},
		{[]string{"help", "v"}, "version\n:4\n"},
		{[]string{"diagnose", ""}, "pod/\n:6\n"},
		{[]string{"diagnose", "-n", "default", "p"}, "pod/\n:6\n"},
		{[]string{"gather", ""}, "node/\n:6\n"},
		{[]string{"gather", "node/n1", "--out", ""}, ":16\n"},
		{[]string{"nodes", ""}, ":4\n"},
		{[]string{"completion", ""}, "bash\nzsh\nfish\n:4\n"},
		{[]string{"completion", "z"}, "zsh\n:4\n"},
		{[]string{"diagnose", "-o", ""}, "text\njson\nyaml\nmarkdown\njsonpath=\ngo-template=\n:4\n"},
		{[]string{"nodes", "-o", "w"}, "wide\n:4\n"},
		{[]string{"nodes", "-o", "json"}, "json\njsonpath=\n:4\n"},
		{[]string{"nodes", "-o", "jsonp"}, "jsonpath=\n:6\n"},
		{[]string{"version", "--output=y"}, "--output=yaml\n:4\n"},
		{[]string{"nodes", "--output", "=", "ma"}, "markdown\n:4\n"},
		{[]string{"nodes", "--output", "="}, "=text\n=json\n=yaml\n=markdown\n=wide\n=jsonpath=\n=go-template=\n:4\n"},
		{[]string{"nodes", "--progress", ""}, "auto\nalways\nnever\n:4\n"},
		{[]string{"nodes", "--par"}, "--parallel\n:4\n"},
		{[]string{"gather", "--o"}, "--out\n:4\n"},
		{[]string{"diagnose", "--no"}, "--no-node-access\n:4\n"},
		{[]string{"nodes", "--no"}, ":4\n"},
		{[]string{"--vers"}, "--version\n:4\n"},
		{[]string{"--as-"}, "--as-group\n--as-uid\n:4\n"},
		{[]string{"diagnose", "-A"}, "-A\n:4\n"},
		{[]string{"--kubeconfig", ""}, ":0\n"},
		{[]string{"diagnose", "--certificate-authority", "c"}, ":0\n"},
		{[]string{"diagnose", "--token", ""}, ":4\n"},
		{[]string{"explain", ""}, ":4\n"},
		{append(make([]string, maxCompleteWords), ""), ":1\n"},
	} {
		var out bytes.Buffer
		assert.Equal(t, 0, run(context.Background(), append([]string{completeNoDescCmd}, tc.args...), &out, &bytes.Buffer{}))
		assert.Empty(t, cmp.Diff(tc.want, out.String()), "%q", tc.args)
	}
	var out bytes.Buffer
	run(context.Background(), []string{completeCmd, "nodes", "--par"}, &out, &bytes.Buffer{})
	assert.Equal(t, "--parallel\tmost requests in flight at once\n:4\n", out.String(), "with descriptions")
}

// TestCompleteFromTheCluster: pod, node, namespace and context names come
// from the cluster (metadata only, one page) and the kubeconfig of the
// words; a name is never printed with a control character in it.
func TestCompleteFromTheCluster(t *testing.T) {
	var paths []string
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path+" "+r.Header.Get("Accept"))
		list := func(names ...string) {
			w.Header().Set("Content-Type", "application/json")
			var items []string
			for _, n := range names {
				name, _ := json.Marshal(n)
				items = append(items, fmt.Sprintf(`{"metadata":{"name":%s}}`, name))
			}
			fmt.Fprintf(w, `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{},"items":[%s]}`, strings.Join(items, ","))
		}
		switch r.URL.Path {
		case "/api/v1/namespaces/default/pods":
			list("guaranteed", "guaranteed-9", "web-0")
		case "/api/v1/namespaces/kube-system/pods":
			list("etcd-0")
		case "/api/v1/nodes":
			list("dell8", "dell9", "evil\x1b[2Jnode")
		case "/api/v1/namespaces":
			list("default", "kube-system", "numascope")
		default:
			http.NotFound(w, r)
		}
	}))
	defer api.Close()
	kc := tokenKubeconfig(t, api, "t")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kubeconfig", kc, "diagnose", "pod/"}, "pod/guaranteed\npod/guaranteed-9\npod/web-0\n:4\n"},
		{[]string{"diagnose", "--kubeconfig", kc, "pods/g"}, "pods/guaranteed\npods/guaranteed-9\n:4\n"},
		{[]string{"diagnose", "--kubeconfig", kc, "-n", "kube-system", "po", ""}, "etcd-0\n:4\n"},
		{[]string{"gather", "--kubeconfig=" + kc, "node/"}, "node/dell8\nnode/dell9\nnode/evil[2Jnode\n:4\n"},
		{[]string{"--kubeconfig", kc, "diagnose", "-n", "k"}, "kube-system\n:4\n"},
		{[]string{"--kubeconfig", kc, "nodes", "--agent-namespace", ""}, "default\nkube-system\nnumascope\n:4\n"},
		{[]string{"--kubeconfig", kc, "--context", ""}, "fake\n:4\n"},
		{[]string{"--kubeconfig", kc, "nodes", "--user", ""}, "u\n:4\n"},
		{[]string{"--kubeconfig", filepath.Join(t.TempDir(), "none"), "diagnose", "pod/"}, ":4\n"},
	} {
		var out bytes.Buffer
		run(context.Background(), append([]string{completeNoDescCmd}, tc.args...), &out, &bytes.Buffer{})
		assert.Empty(t, cmp.Diff(tc.want, out.String()), "%q", tc.args)
	}
	for _, p := range paths {
		assert.Contains(t, p, "as=PartialObjectMetadataList", "metadata only: %s", p)
	}
}

// TestCompletionScripts: the bash script, sourced in a real bash,
// registers the completion and completes through __complete, split words
// and file names included; kubectl's helper kubectl_complete-numascope
// (the script and a link) answers as __complete does; zsh and fish
// scripts are checked by their shells when those are installed.
func TestCompletionScripts(t *testing.T) {
	noKubeconfig(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	dir := pluginOnPath(t)
	var script bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"completion", "bash"}, &script, &bytes.Buffer{}))
	scriptFile := filepath.Join(dir, "completion.bash")
	require.NoError(t, os.WriteFile(scriptFile, script.Bytes(), 0o644))
	work := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(work, "dell8-dir"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(work, "dell8-file"), nil, 0o644))

	sh := func(body string) string {
		t.Helper()
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", "source "+scriptFile+"\n"+body)
		cmd.Dir = work
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	assert.Equal(t, "complete -F __kubectl_numascope_complete kubectl-numascope\n", sh("complete -p kubectl-numascope"))
	for _, tc := range []struct {
		words string // COMP_WORDS, the last one being completed
		want  string
	}{
		{`kubectl-numascope ""`, "diagnose gather nodes version completion help"},
		{`kubectl-numascope dia`, "diagnose"},
		{`kubectl-numascope nodes -o w`, "wide"},
		{`kubectl-numascope nodes --output = ya`, "yaml"},
		{`kubectl-numascope version --output =`, "=text =json =yaml =jsonpath= =go-template="},
		{`kubectl-numascope diagnose ""`, "pod/"},
		{`kubectl-numascope completion ""`, "bash zsh fish"},
		{`kubectl-numascope gather node/n1 --out dell`, "dell8-dir"},
		{`kubectl-numascope --kubeconfig dell8`, "dell8-dir dell8-file"},
		{`kubectl-numascope nodes --parallel ""`, ""},
	} {
		got := sh("COMP_WORDS=(" + tc.words + "); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))\n" +
			"__kubectl_numascope_complete\necho \"${COMPREPLY[*]}\"")
		if strings.Contains(tc.words, "dell8") { // compgen's order is the directory's
			f := strings.Fields(got)
			slices.Sort(f)
			got = strings.Join(f, " ") + "\n"
		}
		assert.Equal(t, tc.want+"\n", got, tc.words)
	}

	// kubectl's helper: the script, and the program itself under that name.
	for _, helper := range []string{"kubectl_complete-numascope.sh", "kubectl_complete-numascope"} {
		out, err := exec.Command(filepath.Join(dir, helper), "nodes", "-o", "ya").CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Equal(t, "yaml\n:4\n", string(out), helper)
	}

	// zsh: the completion function with zsh's own _describe and _files
	// replaced by stubs that print what they are given (a completion
	// widget needs a terminal); fish: complete -C, as fish completes.
	for _, tc := range []struct {
		shell, run, want string
	}{
		{"zsh", `words=(kubectl-numascope nodes -o w); CURRENT=4; _kubectl_numascope`, "wide\nopts:\n"},
		{"zsh", `words=(kubectl-numascope ve); CURRENT=2; _kubectl_numascope`,
			"version:the plugin's version: module, commit, Go release, the kubelet releases it models\nopts:\n"},
		{"zsh", `words=(kubectl-numascope nodes -o jsonp); CURRENT=4; _kubectl_numascope`, "jsonpath=\nopts:-S\n\n"},
		{"zsh", `words=(kubectl-numascope gather node/x --out d); CURRENT=5; _kubectl_numascope`, "_files -/\n"},
		{"fish", `complete -C "kubectl-numascope dia"`, "diagnose\texplain a pod's admission: why the kubelet rejected it or where it placed it\n"},
		{"fish", `complete -C "kubectl-numascope nodes --output=ya"`, "--output=yaml\n"},
		{"fish", `complete -C "kubectl-numascope gather node/x --out dell8"`, "dell8-dir/\tDirectory\n"},
	} {
		var s bytes.Buffer
		require.Equal(t, 0, run(context.Background(), []string{"completion", tc.shell}, &s, &bytes.Buffer{}))
		assert.Contains(t, s.String(), map[string]string{"zsh": "compdef _kubectl_numascope kubectl-numascope", "fish": "complete -c kubectl-numascope"}[tc.shell])
		p, err := exec.LookPath(tc.shell)
		if err != nil {
			t.Logf("no %s on PATH: its script is not run", tc.shell)
			continue
		}
		f := filepath.Join(dir, "completion."+tc.shell)
		require.NoError(t, os.WriteFile(f, s.Bytes(), 0o644))
		out, err := exec.Command(p, "-n", f).CombinedOutput()
		require.NoError(t, err, "%s -n: %s", tc.shell, out)
		var cmd *exec.Cmd
		if tc.shell == "zsh" {
			cmd = exec.Command(p, "-f", "-c", `compdef() { : }; _describe() { print -rl -- "${(@P)4}" "opts:${@:5}" }; _files() { print -r -- "_files $*" }`+"\nsource "+f+"\n"+tc.run)
		} else {
			cmd = exec.Command(p, "--no-config", "-c", "source "+f+"; "+tc.run)
		}
		cmd.Dir = work
		out, err = cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", tc.run, out)
		assert.Equal(t, tc.want, string(out), "%s: %s", tc.shell, tc.run)
	}

	var out, errb bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"completion", "powershell"}, &out, &errb))
	assert.Contains(t, errb.String(), `completion "powershell": give bash, zsh or fish`)
	assert.Equal(t, 2, run(context.Background(), []string{"completion"}, &out, &errb))
	assert.Contains(t, errb.String(), "completion takes one shell: bash, zsh or fish")
}
