package diagnose_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	// maxFileLines bounds a non-test Go file of the packages below.
	maxFileLines = 800
	// maxFuncLines bounds a function, from its func keyword to its brace.
	maxFuncLines = 150
)

// sizeCheckedDirs are the package directories TestSourceSize reads,
// relative to this one.
var sizeCheckedDirs = []string{".", "evidence", "../topomgr"}

// dataTableFiles are files that hold only a table of data, which may run
// past maxFileLines (paths as sizeCheckedDirs joins them). Keep it empty
// when possible: code belongs in files split by concern.
var dataTableFiles = map[string]bool{}

// TestSourceSize keeps the files of diagnose, diagnose/evidence and topomgr
// readable: no non-test file over maxFileLines lines and no function over
// maxFuncLines lines.
func TestSourceSize(t *testing.T) {
	fset := token.NewFileSet()
	seen := 0
	for _, dir := range sizeCheckedDirs {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			seen++
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			if n := fset.File(f.Pos()).LineCount(); n > maxFileLines && !dataTableFiles[name] {
				t.Errorf("%s has %d lines, more than %d: split it by concern", name, n, maxFileLines)
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok {
					continue
				}
				if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
					t.Errorf("%s: function %s has %d lines, more than %d: split it into helpers", name, funcName(fd), n, maxFuncLines)
				}
			}
		}
	}
	if seen < 30 {
		t.Fatalf("read only %d files: the directories moved?", seen)
	}
}

// funcName names a function as its declaration does: Type.Method for a
// method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
