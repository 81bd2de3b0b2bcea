package catalog

import (
	"go/ast"
	"go/token"
	"path"
	"slices"
	"strings"
)

// found is one entry as one release's sources print it at one site.
type found struct {
	Kind, Level string
	V           int
	Form        string
	Format      string
	Keys        []string
	Reason      string
	Errs        []int
	Dynamic     bool
	Manager     string
	File, Func  string
	Call        string
}

// Unresolved is a call the extractor recognised but whose text holds no
// constant part to match (klog.Fatal(err), an Error method returning a
// field), with why.
type Unresolved struct {
	Manager, File, Func, Call, Why string
}

// extractor walks the scopes of one release.
type extractor struct {
	ld         *loader
	found      []found
	unresolved []Unresolved
}

// Extract reads one release's sources through the scopes and returns what
// they print, and the calls whose text is computed entirely at run time.
func Extract(sources []Source, scopes []Scope) ([]found, []Unresolved, []string) {
	x := &extractor{ld: newLoader(sources)}
	for _, s := range scopes {
		src, _ := x.ld.source(s.Module)
		if src == nil || src.Path != s.Module {
			continue
		}
		for _, dir := range scopeDirs(src.FS, s) {
			ip := s.Module
			if dir != "." {
				ip += "/" + dir
			}
			p := x.ld.load(ip)
			if p == nil {
				continue
			}
			x.pkg(p, s)
		}
	}
	return dropUnknownReasons(x.found), x.unresolved, x.ld.errs
}

// dropUnknownReasons leaves out an admission text with an unknown reason
// when the same text is also found with a known one: the pairing was not
// followed there, and the known reason says it.
func dropUnknownReasons(fs []found) []found {
	known := map[string]bool{}
	for _, f := range fs {
		if f.Kind == "admit" && f.Reason != "?" {
			known[f.Format] = true
		}
	}
	out := fs[:0]
	for _, f := range fs {
		if f.Kind == "admit" && f.Reason == "?" && known[f.Format] {
			continue
		}
		out = append(out, f)
	}
	return out
}

// site is where a call is: its file, enclosing function and scope.
type site struct {
	c       ctx
	fn      string
	manager string
	kinds   []string
}

func (x *extractor) pkg(p *pkg, s Scope) {
	for _, f := range p.files {
		base := path.Base(f.name)
		if len(s.Files) > 0 && !slices.Contains(s.Files, base) || slices.Contains(s.Skip, base) {
			continue
		}
		mgr := s.Manager
		if mgr == "" {
			mgr = managerOf(f.name)
		}
		for _, d := range f.ast.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := funcName(d)
				if len(s.Funcs) > 0 && !slices.Contains(s.Funcs, name) || d.Body == nil {
					continue
				}
				st := site{c: ctx{ld: x.ld, f: f, fn: newFuncInfo(d)}, fn: name, manager: mgr, kinds: s.Kinds}
				x.walk(st, d.Body)
				if d.Recv != nil && d.Name.Name == "Error" && d.Type.Params.NumFields() == 0 {
					x.errorMethod(st, p, d)
				}
			case *ast.GenDecl:
				if d.Tok != token.VAR || len(s.Funcs) > 0 {
					continue
				}
				for _, sp := range d.Specs {
					vs := sp.(*ast.ValueSpec)
					names := make([]string, len(vs.Names))
					for i, n := range vs.Names {
						names[i] = n.Name
					}
					st := site{c: ctx{ld: x.ld, f: f}, fn: "var " + strings.Join(names, ", "), manager: mgr, kinds: s.Kinds}
					for _, v := range vs.Values {
						x.walk(st, v)
					}
				}
			}
		}
	}
}

// walk finds the calls and admission results under a node.
func (x *extractor) walk(st site, n ast.Node) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch e := n.(type) {
		case *ast.CallExpr:
			x.call(st, e)
		case *ast.CompositeLit:
			x.admitLit(st, e)
		}
		return true
	})
}

// emit records the texts of one call; a text without constant part goes
// to the unresolved list.
func (x *extractor) emit(st site, kind, level string, v int, form, call string, texts []text, keys []string, reason string) {
	if len(st.kinds) > 0 && !slices.Contains(st.kinds, kind) {
		return
	}
	if st.c.f.pkg.src.Path == Pflag && (kind == "error" || kind == "log") {
		kind = "flag"
	}
	any := false
	for _, t := range texts {
		format, errs, dyn, constant := t.formatOf()
		if !constant {
			continue
		}
		any = true
		x.found = append(x.found, found{Kind: kind, Level: level, V: v, Form: form, Format: format, Keys: keys,
			Reason: reason, Errs: errs, Dynamic: dyn, Manager: st.manager, File: st.c.f.name, Func: st.fn, Call: call})
	}
	if !any {
		why := "the text is computed at run time"
		if len(texts) > 0 && len(texts[0]) == 1 && texts[0][0].verb != "" {
			why = "the text is one run-time value"
		}
		x.unresolved = append(x.unresolved, Unresolved{Manager: st.manager, File: st.c.f.name, Func: st.fn, Call: call, Why: why})
	}
}

// call classifies one call expression.
func (x *extractor) call(st site, call *ast.CallExpr) {
	c := st.c
	switch fun := call.Fun.(type) {
	case *ast.SelectorExpr:
		name := fun.Sel.Name
		if id, ok := fun.X.(*ast.Ident); ok && !c.isLocal(id) {
			if ip, ok := c.f.imports[id.Name]; ok {
				x.pkgCall(st, ip, name, call)
				return
			}
		}
		// klog.V(n).Infof(...) and a local Verbose value.
		if v, ok := c.klogVerbose(fun.X); ok {
			x.klog(st, "klog.V."+name, name, v, call.Args)
			return
		}
		if isEventMethod(name) && mentionsRecorder(fun.X) {
			x.event(st, name, call.Args)
			return
		}
		if (name == "Info" || name == "Error") && c.isLogger(fun.X) {
			x.logr(st, name, c.loggerV(fun.X), call.Args)
			return
		}
		if w, ok := c.f.pkg.wrappers[name]; ok {
			x.wrapped(st, name, w, call.Args)
		}
	case *ast.Ident:
		if w, ok := c.f.pkg.wrappers[fun.Name]; ok && !c.isLocal(fun) {
			x.wrapped(st, fun.Name, w, call.Args)
		}
	}
}

// pkgCall handles pkg.Func(...) for klog, fmt, errors and grpc status.
func (x *extractor) pkgCall(st site, ip, name string, call *ast.CallExpr) {
	c, args := st.c, call.Args
	switch {
	case isKlog(ip):
		x.klog(st, "klog."+name, name, 0, args)
	case ip == "fmt" && name == "Errorf" && len(args) > 0:
		x.emit(st, "error", "error", 0, "printf", "fmt.Errorf", c.format(args[0], args[1:]), nil, "")
	case ip == "errors" && name == "New" && len(args) == 1:
		x.emit(st, "error", "error", 0, "printf", "errors.New", render(c.str(args[0])), nil, "")
	case ip == "github.com/pkg/errors" && (name == "Errorf" || name == "Wrapf") && len(args) > 0:
		i := 0
		if name == "Wrapf" {
			i = 1
		}
		if len(args) > i {
			x.emit(st, "error", "error", 0, "printf", "errors."+name, c.format(args[i], args[i+1:]), nil, "")
		}
	case ip == "google.golang.org/grpc/status" && name == "Errorf" && len(args) > 1:
		x.emit(st, "error", "error", 0, "printf", "status.Errorf", c.format(args[1], args[2:]), nil, "")
	case ip == "google.golang.org/grpc/status" && name == "Error" && len(args) == 2:
		x.emit(st, "error", "error", 0, "printf", "status.Error", render(c.str(args[1])), nil, "")
	case ip == "fmt" && strings.HasPrefix(name, "Fprint") && len(args) > 0 && c.isStderr(args[0]):
		call := "fmt." + name + "(os.Stderr)"
		switch name {
		case "Fprintf":
			if len(args) > 1 {
				x.emit(st, "log", "error", 0, "printf", call, c.format(args[1], args[2:]), nil, "")
			}
		case "Fprintln", "Fprint":
			x.emit(st, "log", "error", 0, "printf", call, c.print(args[1:], name == "Fprintln"), nil, "")
		}
	}
}

func (c ctx) isStderr(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Stderr" {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && c.f.imports[id.Name] == "os"
}

// klog handles klog's package functions and Verbose methods by name:
// printf (Infof), print (Info), println (Infoln) and structured (InfoS,
// ErrorS), each optionally with a Depth argument first.
func (x *extractor) klog(st site, call, name string, v int, args []ast.Expr) {
	c := st.c
	base := name
	if i := strings.Index(base, "Depth"); i > 0 {
		base = base[:i] + base[i+len("Depth"):]
		if len(args) == 0 {
			return
		}
		args = args[1:]
	}
	level := klogLevel(base)
	switch strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(base, "Info"), "Warning"), "Error"), "Fatal"), "Exit") {
	case "f":
		if len(args) > 0 {
			x.emit(st, "log", level, v, "printf", call, c.format(args[0], args[1:]), nil, "")
		}
	case "":
		if base == "V" || base == "Enabled" || !isKlogLevelName(base) {
			return
		}
		x.emit(st, "log", level, v, "printf", call, c.print(args, false), nil, "")
	case "ln":
		x.emit(st, "log", level, v, "printf", call, c.print(args, true), nil, "")
	case "S":
		if strings.HasPrefix(base, "Error") {
			if len(args) < 2 {
				return
			}
			x.structured(st, call, level, v, args[0], args[1], args[2:])
		} else if len(args) > 0 {
			x.structured(st, call, level, v, nil, args[0], args[1:])
		}
	}
}

func isKlogLevelName(n string) bool {
	switch n {
	case "Info", "Warning", "Error", "Fatal", "Exit":
		return true
	}
	return false
}

// logr handles logger.Info(msg, kv...) and logger.Error(err, msg, kv...).
func (x *extractor) logr(st site, name string, v int, args []ast.Expr) {
	call := "logger." + name
	if v > 0 {
		call = "logger.V." + name
	}
	if name == "Error" {
		if len(args) < 2 {
			return
		}
		x.structured(st, call, "error", v, args[0], args[1], args[2:])
		return
	}
	if len(args) > 0 {
		x.structured(st, call, "info", v, nil, args[0], args[1:])
	}
}

// structured records a structured call: the message and the keys, "err"
// first when an error (not nil) is logged.
func (x *extractor) structured(st site, call, level string, v int, err, msg ast.Expr, kv []ast.Expr) {
	var keys []string
	if err != nil {
		if id, ok := err.(*ast.Ident); !ok || id.Name != "nil" {
			keys = append(keys, "err")
		}
	}
	for i := 0; i < len(kv); i += 2 {
		ts := st.c.str(kv[i])
		if len(ts) == 1 && len(ts[0]) == 1 && ts[0][0].verb == "" {
			keys = append(keys, ts[0][0].lit)
		} else {
			keys = append(keys, "?")
		}
	}
	x.emit(st, "log", level, v, "structured", call, render(st.c.str(msg)), keys, "")
}

func isEventMethod(n string) bool {
	return n == "Event" || n == "Eventf" || n == "AnnotatedEventf" || n == "PastEventf"
}

// mentionsRecorder reports whether a receiver expression names an event
// recorder (recorder, eventRecorder, kl.recorder.WithLogger(logger)).
func mentionsRecorder(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && strings.Contains(strings.ToLower(id.Name), "recorder") {
			found = true
		}
		return !found
	})
	return found
}

// event records recorder.Event(obj, type, reason, message) and the
// Eventf forms, the type and reason resolved.
func (x *extractor) event(st site, name string, args []ast.Expr) {
	c := st.c
	skip := 1 // the object
	switch name {
	case "AnnotatedEventf", "PastEventf":
		skip = 2
	}
	if len(args) < skip+3 {
		return
	}
	level := "warning"
	if ts := c.str(args[skip]); len(ts) == 1 && len(ts[0]) == 1 && ts[0][0].lit == "Normal" {
		level = "info"
	}
	reason := "?"
	if ts := c.str(args[skip+1]); len(ts) == 1 {
		if f, _, _, constant := ts[0].formatOf(); constant {
			reason = f
		}
	}
	var texts []text
	if name == "Event" {
		texts = render(c.str(args[skip+2]))
	} else {
		texts = c.format(args[skip+2], args[skip+3:])
	}
	x.emit(st, "event", level, 0, "printf", "recorder."+name, texts, nil, reason)
}

// wrapped records a call of a printf-like wrapper of the package.
func (x *extractor) wrapped(st site, name string, w wrapper, args []ast.Expr) {
	i := w.fmtIndex
	if len(args) <= i {
		return
	}
	x.emit(st, w.kind, w.level, 0, "printf", name, st.c.format(args[i], args[i+1:]), nil, "")
}

// admitLit records a lifecycle.PodAdmitResult literal that rejects a pod.
func (x *extractor) admitLit(st site, lit *ast.CompositeLit) {
	c := st.c
	switch t := lit.Type.(type) {
	case *ast.SelectorExpr:
		id, ok := t.X.(*ast.Ident)
		if !ok {
			return
		}
		ip := c.f.imports[id.Name]
		switch {
		case t.Sel.Name == "PodAdmitResult" && strings.HasSuffix(ip, "pkg/kubelet/lifecycle"):
		case t.Sel.Name == "PodStatus" && ip == "k8s.io/api/core/v1":
			// the status of a rejected pod: "Pod was rejected: " + message
		default:
			return
		}
	case *ast.Ident:
		if t.Name != "PodAdmitResult" || !strings.HasSuffix(c.f.pkg.path, "pkg/kubelet/lifecycle") {
			return
		}
	default:
		return
	}
	var reason, message ast.Expr
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		k, _ := kv.Key.(*ast.Ident)
		if k == nil {
			continue
		}
		switch k.Name {
		case "Admit":
			if v, ok := kv.Value.(*ast.Ident); ok && v.Name == "true" {
				return
			}
		case "Reason":
			reason = kv.Value
		case "Message":
			message = kv.Value
		}
	}
	if message == nil {
		return
	}
	// Reason and Message are often locals assigned together, branch by
	// branch: pair each message with the reasons assigned next to it.
	if mid, ok := message.(*ast.Ident); ok {
		if rid, ok := reason.(*ast.Ident); ok {
			md, rd := c.local(mid), c.local(rid)
			if md != nil && rd != nil {
				for _, mv := range md.reaching(mid.Pos()) {
					texts := []text{hole(false)}
					if mv.rhs != nil {
						texts = wrapsMessages(render(c.str(mv.rhs)))
					}
					for _, r := range c.reasons(correlated(rd, mv)) {
						x.emit(st, "admit", "error", 0, "printf", "PodAdmitResult", texts, nil, r)
					}
				}
				return
			}
		}
	}
	var rs []ast.Expr
	if reason != nil {
		rs = []ast.Expr{reason}
	}
	for _, r := range c.reasons(rs) {
		x.emit(st, "admit", "error", 0, "printf", "PodAdmitResult", wrapsMessages(render(c.str(message))), nil, r)
	}
}

// wrapsMessages marks the run-time parts of an admission message as
// operands to follow: "Pod was rejected: " + message holds the admission
// handler's own message, which is a kubelet text too.
func wrapsMessages(ts []text) []text {
	for _, t := range ts {
		for i := range t {
			if t[i].dyn {
				t[i].err = true
			}
		}
	}
	return ts
}

// reasons resolves reason expressions to constant reasons; "?" stands for
// one that is not constant, or for none.
func (c ctx) reasons(exprs []ast.Expr) []string {
	var out []string
	add := func(r string) {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	for _, e := range exprs {
		if e == nil {
			add("?")
			continue
		}
		for _, t := range c.str(e) {
			if f, _, dyn, constant := t.formatOf(); constant && !dyn {
				add(f)
			} else {
				add("?")
			}
		}
	}
	if len(out) == 0 {
		out = []string{"?"}
	}
	return out
}

// correlated returns the values of a local assigned next to another
// local's value mv: in mv's block (or blocks inside it), else at the
// statement level of the nearest enclosing block that has one before mv.
func correlated(d *decl, mv value) []ast.Expr {
	if len(mv.blocks) == 0 {
		return nil
	}
	var out []ast.Expr
	b0 := mv.blocks[0]
	for _, v := range d.vals {
		if v.pos >= b0.Pos() && v.pos < b0.End() && len(v.blocks) > 0 {
			out = append(out, v.rhs)
		}
	}
	for _, b := range mv.blocks[1:] {
		if len(out) > 0 {
			break
		}
		for _, v := range d.vals {
			if len(v.blocks) > 0 && v.blocks[0] == b && v.pos < mv.pos {
				out = append(out, v.rhs)
			}
		}
	}
	return out
}

// errorMethod records what an Error method returns, and, when the type
// also has a Type method returning a constant (the container manager's
// admission errors), the admission result the kubelet builds from the two.
func (x *extractor) errorMethod(st site, p *pkg, d *ast.FuncDecl) {
	texts := x.returns(st.c, d.Body)
	x.emit(st, "error", "error", 0, "printf", "Error()", texts, nil, "")
	td, ok := p.typeMethods[recvType(d.Recv.List[0].Type)]
	if !ok {
		return
	}
	tc := ctx{ld: x.ld, f: p.methodFile[td], fn: newFuncInfo(td)}
	for _, r := range x.returns(tc, td.Body) {
		if f, _, dyn, constant := r.formatOf(); constant && !dyn {
			x.emit(st, "admit", "error", 0, "printf", "Type()+Error()", texts, nil, f)
		}
	}
}

// returns resolves the single results of a function body's return
// statements (not those of closures inside it).
func (x *extractor) returns(c ctx, body *ast.BlockStmt) []text {
	var out []text
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(s.Results) == 1 {
				out = append(out, render(c.str(s.Results[0]))...)
			}
		}
		return true
	})
	return dedupe(out)
}

// klogVerbose reports whether e is klog.V(n) or a local variable holding
// one, and n.
func (c ctx) klogVerbose(e ast.Expr) (int, bool) {
	switch x := e.(type) {
	case *ast.CallExpr:
		sel, ok := x.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "V" || len(x.Args) != 1 {
			return 0, false
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok || !isKlog(c.f.imports[id.Name]) || c.isLocal(id) {
			return 0, false
		}
		v, ok := c.intval(x.Args[0])
		if !ok {
			v = -1
		}
		return v, true
	case *ast.Ident:
		if rhs := c.local(x).single(); rhs != nil {
			return c.klogVerbose(rhs)
		}
	}
	return 0, false
}

// isLogger reports whether e is a logr logger: klog.FromContext(ctx) and
// friends, a parameter, variable or field of type klog.Logger or
// logr.Logger, a variable assigned one, a name such as logger, or one of
// these with WithName, WithValues or V applied.
func (c ctx) isLogger(e ast.Expr) bool {
	d, ok := c.deeper()
	if !ok {
		return false
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		return d.isLogger(x.X)
	case *ast.Ident:
		l := c.local(x)
		if _, isImport := c.f.imports[x.Name]; isImport && l == nil {
			return false
		}
		if l != nil {
			if l.typ != nil && isLoggerType(c.f, l.typ) {
				return true
			}
			for _, v := range l.vals {
				if v.rhs != nil && d.isLogger(v.rhs) {
					return true
				}
			}
		}
		n := x.Name
		return n == "logger" || n == "log" || n == "klogger" || strings.HasSuffix(n, "Logger")
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok && !c.isLocal(id) {
			if _, isImport := c.f.imports[id.Name]; isImport {
				return false
			}
		}
		return c.f.pkg.loggerFields[x.Sel.Name] || x.Sel.Name == "logger"
	case *ast.CallExpr:
		sel, ok := x.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		if id, ok := sel.X.(*ast.Ident); ok && !c.isLocal(id) {
			ip := c.f.imports[id.Name]
			if isKlog(ip) {
				switch sel.Sel.Name {
				case "FromContext", "Background", "TODO", "LoggerWithName", "LoggerWithValues", "NewKlogr", "NewContext":
					return sel.Sel.Name != "NewContext"
				}
				return false
			}
			if ip == "github.com/go-logr/logr" {
				return sel.Sel.Name == "FromContextOrDiscard" || sel.Sel.Name == "Discard"
			}
		}
		switch sel.Sel.Name {
		case "WithName", "WithValues", "V", "WithCallDepth":
			return d.isLogger(sel.X)
		}
	}
	return false
}

// loggerV adds up the V levels applied to a logger expression.
func (c ctx) loggerV(e ast.Expr) int {
	v := 0
	for i := 0; i < maxDepth; i++ {
		call, ok := e.(*ast.CallExpr)
		if !ok {
			if id, ok := e.(*ast.Ident); ok {
				if rhs := c.local(id).single(); rhs != nil {
					e = rhs
					continue
				}
			}
			return v
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return v
		}
		if sel.Sel.Name == "V" && len(call.Args) == 1 {
			if n, ok := c.intval(call.Args[0]); ok {
				v += n
			}
		}
		e = sel.X
	}
	return v
}
