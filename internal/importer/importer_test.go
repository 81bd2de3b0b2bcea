// Package importer_test proves what a program pays for importing the SDK: a
// throwaway module that imports statefile, topomgr, podresources, diagnose
// and diagnose/evidence (with a replace to this checkout) must not find the
// cluster-facing dependencies in its module graph. They belong to the nested
// modules (examples/agent, examples/kubectl-numascope, internal/cluster,
// playground, internal/conformance); a require of one of them in the root
// go.mod puts it in every importer's graph.
package importer_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// banned are module path prefixes no importer of the SDK may get.
var banned = []string{
	"k8s.io/client-go",
	"sigs.k8s.io/controller-runtime",
	"github.com/chromedp/",
	"github.com/prometheus/",
	"k8s.io/kubernetes",
	"k8s.io/apiserver",
}

const importer = `package main

import (
	_ "github.com/numascope/numascope/diagnose"
	_ "github.com/numascope/numascope/diagnose/evidence"
	_ "github.com/numascope/numascope/podresources"
	_ "github.com/numascope/numascope/statefile"
	_ "github.com/numascope/numascope/topomgr"
)

func main() {}
`

func TestImporterModuleGraph(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.com/importer\n\ngo 1.26.0\n\n" +
		"require github.com/numascope/numascope v0.0.0-00010101000000-000000000000\n\n" +
		"replace github.com/numascope/numascope => " + filepath.ToSlash(root) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(importer), 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		// GOPROXY and the caches come from the environment; GOWORK=off
		// keeps a workspace of the caller out of the importer's graph.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	goCmd("mod", "tidy")
	mods := strings.Fields(goCmd("list", "-m", "-f", "{{.Path}}", "all"))
	t.Logf("the importer's module graph holds %d modules (go list -m all)", len(mods))
	for _, m := range mods {
		for _, b := range banned {
			if m == strings.TrimSuffix(b, "/") || strings.HasPrefix(m, b) {
				t.Errorf("an importer of the SDK gets %s in its module graph: move what needs it into a nested module (go mod why -m %s in the root says who)", m, m)
			}
		}
	}
	// The build itself must not reach them either.
	for _, p := range strings.Fields(goCmd("list", "-deps", "-f", "{{if .Module}}{{.Module.Path}}{{end}}", ".")) {
		for _, b := range banned {
			if p == strings.TrimSuffix(b, "/") || strings.HasPrefix(p, b) {
				t.Errorf("the importer's build uses module %s", p)
			}
		}
	}
}
