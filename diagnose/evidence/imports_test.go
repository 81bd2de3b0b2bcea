package evidence_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/numascope/numascope/"

// importRules are the import rules ARCHITECTURE.md states, as prefixes of
// package paths (relative to the module): a package under from must not
// import (directly) any package under one of banned.
var importRules = []struct {
	from   string
	banned []string
	why    string
}{
	{"statefile", []string{"podresources", "topomgr", "diagnose", "wasm", "examples", "playground"}, "statefile is a leaf"},
	{"podresources", []string{"statefile", "topomgr", "diagnose", "wasm", "examples", "playground"}, "podresources is a leaf"},
	{"topomgr", []string{"diagnose", "wasm", "examples", "playground"}, "topomgr owns the node model; the evidence and the rules sit above it"},
	{"diagnose/evidence", []string{"=diagnose", "wasm", "examples", "playground"}, "the door reads evidence; the rules of diagnose sit above it"},
	{"diagnose", []string{"wasm", "examples", "playground"}, "the faces wire the packages, not the reverse"},
	// The faces read evidence through the door, never through a reader's
	// internals.
	{"wasm", []string{"internal/topotext", "internal/poddoc", "internal/jsonrepair", "internal/yamljson", "internal/sysfs", "internal/paste"}, "faces read evidence through diagnose/evidence"},
	{"examples", []string{"internal/topotext", "internal/poddoc", "internal/jsonrepair", "internal/yamljson", "internal/paste", "wasm"}, "faces read evidence through diagnose/evidence"},
}

// under reports whether rel (a path relative to the module) is prefix or
// below it; a prefix written "=path" matches that package only.
func under(rel, prefix string) bool {
	if exact, ok := strings.CutPrefix(prefix, "="); ok {
		return rel == exact
	}
	return rel == prefix || strings.HasPrefix(rel, prefix+"/")
}

// TestImportRules lists the imports of every package of the product (the
// root module and the nested modules under examples/ and playground/, not
// the conformance modules, which import the kubelet by design) and checks
// them against importRules.
func TestImportRules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over every module; skipped under -short")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	dirs := []string{root}
	for _, top := range []string{"examples", "playground", "wasm"} {
		filepath.WalkDir(filepath.Join(root, top), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == "go.mod" {
				dirs = append(dirs, filepath.Dir(p))
			}
			return nil
		})
	}
	checked := 0
	for _, dir := range dirs {
		cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "go list in %s: %s", dir, stderr.String())
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			fields := strings.Fields(line)
			if len(fields) == 0 || !strings.HasPrefix(fields[0], module) {
				continue
			}
			pkg := strings.TrimPrefix(fields[0], module)
			if under(pkg, "internal/conformance") {
				continue
			}
			checked++
			for _, imp := range fields[1:] {
				if !strings.HasPrefix(imp, module) {
					continue
				}
				rel := strings.TrimPrefix(imp, module)
				for _, r := range importRules {
					if !under(pkg, r.from) {
						continue
					}
					for _, b := range r.banned {
						assert.False(t, under(rel, b), "%s imports %s: %s", pkg, rel, r.why)
					}
				}
			}
		}
	}
	t.Logf("%d packages in %d modules checked", checked, len(dirs))
	assert.Greater(t, checked, 30, "too few packages listed")
}
