package catalog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// loader parses packages of the sources on demand, by import path, and
// keeps them for the release being read.
type loader struct {
	sources []Source
	fset    *token.FileSet
	pkgs    map[string]*pkg
	errs    []string // files that did not parse
}

// pkg is one parsed package: its files and what resolution needs from
// them.
type pkg struct {
	path  string // import path
	src   *Source
	dir   string
	name  string
	files []*file
	// values are the package-level constants and variables by name.
	values map[string]valueRef
	// types are the names of the package's declared types.
	types map[string]bool
	// loggerFields are struct fields declared as klog.Logger or logr.Logger.
	loggerFields map[string]bool
	// wrappers are the package's printf-like functions and methods: those
	// that pass a format parameter and its arguments on to fmt.Errorf or a
	// klog printf call.
	wrappers map[string]wrapper
	// methods are the Error and Type methods by receiver type name.
	errorMethods map[string]*ast.FuncDecl
	typeMethods  map[string]*ast.FuncDecl
	methodFile   map[*ast.FuncDecl]*file
}

type file struct {
	name    string // path inside the module; prefixed with the module path outside k8s.io/kubernetes
	ast     *ast.File
	imports map[string]string // local name -> import path
	pkg     *pkg
}

type valueRef struct {
	expr ast.Expr
	file *file
}

type wrapper struct {
	kind, level string
	fmtIndex    int // the format parameter's index; the arguments follow it
}

func newLoader(sources []Source) *loader {
	return &loader{sources: sources, fset: token.NewFileSet(), pkgs: map[string]*pkg{}}
}

// source finds the module that holds an import path.
func (l *loader) source(importPath string) (*Source, string) {
	var best *Source
	for i := range l.sources {
		s := &l.sources[i]
		if importPath == s.Path || strings.HasPrefix(importPath, s.Path+"/") {
			if best == nil || len(s.Path) > len(best.Path) {
				best = s
			}
		}
	}
	if best == nil {
		return nil, ""
	}
	dir := strings.TrimPrefix(strings.TrimPrefix(importPath, best.Path), "/")
	if dir == "" {
		dir = "."
	}
	return best, dir
}

// load returns the package at an import path, or nil when no source holds it.
func (l *loader) load(importPath string) *pkg {
	if p, ok := l.pkgs[importPath]; ok {
		return p
	}
	l.pkgs[importPath] = nil // a cycle resolves to nothing
	src, dir := l.source(importPath)
	if src == nil {
		return nil
	}
	p := &pkg{path: importPath, src: src, dir: dir, values: map[string]valueRef{}, types: map[string]bool{},
		loggerFields: map[string]bool{}, wrappers: map[string]wrapper{}, errorMethods: map[string]*ast.FuncDecl{},
		typeMethods: map[string]*ast.FuncDecl{}, methodFile: map[*ast.FuncDecl]*file{}}
	for _, name := range goFiles(src.FS, dir) {
		b, err := fs.ReadFile(src.FS, name)
		if err != nil {
			continue
		}
		display := name
		if src.Path != Kubernetes {
			display = path.Join(src.Path, name)
		}
		af, err := parser.ParseFile(l.fset, display, b, parser.SkipObjectResolution)
		if err != nil {
			l.errs = append(l.errs, display+": "+err.Error())
			continue
		}
		if p.name == "" {
			p.name = af.Name.Name
		} else if af.Name.Name != p.name {
			continue // a second package (a main next to a library): not this one
		}
		f := &file{name: display, ast: af, imports: map[string]string{}, pkg: p}
		for _, is := range af.Imports {
			ip, _ := strconv.Unquote(is.Path.Value)
			if is.Name != nil {
				if is.Name.Name != "_" && is.Name.Name != "." {
					f.imports[is.Name.Name] = ip
				}
				continue
			}
			for _, n := range importNames(ip) {
				f.imports[n] = ip
			}
		}
		p.files = append(p.files, f)
		p.index(f)
	}
	l.pkgs[importPath] = p
	return p
}

// importNames guesses the name an unaliased import is used by: the last
// path element, or the one before a /vN major-version suffix, without a
// .vN suffix or a go- prefix.
func importNames(ip string) []string {
	elems := strings.Split(ip, "/")
	last := elems[len(elems)-1]
	names := []string{last}
	if isMajor(last) && len(elems) > 1 {
		names = append(names, elems[len(elems)-2])
	}
	if i := strings.Index(last, ".v"); i > 0 {
		names = append(names, last[:i])
	}
	if n, ok := strings.CutPrefix(last, "go-"); ok {
		names = append(names, n)
	}
	return names
}

func isMajor(s string) bool {
	if len(s) < 2 || s[0] != 'v' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// index records a file's package-level values, types, logger fields,
// wrappers and Error/Type methods.
func (p *pkg) index(f *file) {
	for _, d := range f.ast.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for i, n := range s.Names {
						if i < len(s.Values) && len(s.Values) == len(s.Names) {
							p.values[n.Name] = valueRef{expr: s.Values[i], file: f}
						}
					}
				case *ast.TypeSpec:
					p.types[s.Name.Name] = true
					if st, ok := s.Type.(*ast.StructType); ok {
						for _, fld := range st.Fields.List {
							if isLoggerType(f, fld.Type) {
								for _, n := range fld.Names {
									p.loggerFields[n.Name] = true
								}
							}
						}
					}
				}
			}
		case *ast.FuncDecl:
			if d.Recv != nil && len(d.Recv.List) == 1 && d.Type.Params.NumFields() == 0 && d.Body != nil {
				t := recvType(d.Recv.List[0].Type)
				switch d.Name.Name {
				case "Error":
					p.errorMethods[t] = d
					p.methodFile[d] = f
				case "Type":
					p.typeMethods[t] = d
					p.methodFile[d] = f
				}
			}
			if w, ok := wrapperOf(f, d); ok {
				p.wrappers[d.Name.Name] = w
			}
		}
	}
}

// isLoggerType reports whether a type expression is klog.Logger or logr.Logger.
func isLoggerType(f *file, t ast.Expr) bool {
	sel, ok := t.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Logger" {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	ip := f.imports[x.Name]
	return isKlog(ip) || ip == "github.com/go-logr/logr"
}

func isKlog(ip string) bool {
	return ip == "k8s.io/klog/v2" || ip == "k8s.io/klog" || ip == "github.com/golang/glog"
}

// recvType is the receiver's type name without * and type parameters.
func recvType(t ast.Expr) string {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}

// funcName names a function declaration as Go's stack traces do:
// "NewManager", "(*manager).Allocate", "manager.String".
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if p, ok := t.(*ast.ParenExpr); ok {
		t = p.X
	}
	if _, ok := t.(*ast.StarExpr); ok {
		return "(*" + recvType(t) + ")." + d.Name.Name
	}
	return recvType(t) + "." + d.Name.Name
}

// wrapperOf recognises a printf-like wrapper: a function whose last
// parameter is variadic and which passes (format, args...) to fmt.Errorf or
// to a klog printf call.
func wrapperOf(f *file, d *ast.FuncDecl) (wrapper, bool) {
	params := d.Type.Params.List
	if d.Body == nil || len(params) == 0 {
		return wrapper{}, false
	}
	lastField := params[len(params)-1]
	if _, ok := lastField.Type.(*ast.Ellipsis); !ok || len(lastField.Names) != 1 {
		return wrapper{}, false
	}
	variadic := lastField.Names[0].Name
	idx := 0
	names := map[string]int{}
	for _, fld := range params {
		for _, n := range fld.Names {
			if id, ok := fld.Type.(*ast.Ident); ok && id.Name == "string" {
				names[n.Name] = idx
			}
			idx++
		}
	}
	var w wrapper
	found := false
	ast.Inspect(d.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found || call.Ellipsis == token.NoPos || len(call.Args) < 2 {
			return !found
		}
		last, ok := call.Args[len(call.Args)-1].(*ast.Ident)
		if !ok || last.Name != variadic {
			return true
		}
		fmtArg, ok := call.Args[len(call.Args)-2].(*ast.Ident)
		if !ok {
			return true
		}
		i, ok := names[fmtArg.Name]
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		switch ip := f.imports[x.Name]; {
		case ip == "fmt" && sel.Sel.Name == "Errorf":
			w, found = wrapper{kind: "error", level: "error", fmtIndex: i}, true
		case isKlog(ip) && strings.HasSuffix(sel.Sel.Name, "f"):
			w, found = wrapper{kind: "log", level: klogLevel(sel.Sel.Name), fmtIndex: i}, true
		}
		return !found
	})
	return w, found
}

// klogLevel is the level of a klog function by its name.
func klogLevel(name string) string {
	switch {
	case strings.HasPrefix(name, "Warning"):
		return "warning"
	case strings.HasPrefix(name, "Error"):
		return "error"
	case strings.HasPrefix(name, "Fatal"), strings.HasPrefix(name, "Exit"):
		return "fatal"
	}
	return "info"
}
