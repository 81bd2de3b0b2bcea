package catalog

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"unicode"

	"github.com/numascope/numascope/diagnose/evidence/catalog"
)

// part is one piece of a resolved text: literal text, a verb of a format
// string, or a hole standing for text computed at run time.
type part struct {
	lit  string
	verb string // "%v", "%d", ...; "" for literal text
	err  bool   // the verb's operand (or the hole's expression) is an error
	dyn  bool   // a hole: no argument fills it
	// src marks literal text taken from the source as it is (a string
	// literal or constant), which a printf call reads as a format.
	src bool
}

// text is a resolved string: its parts in order.
type text []part

// maxAlternatives bounds the texts one expression resolves to (a variable
// assigned in several places, concatenations of such).
const maxAlternatives = 8

// maxDepth bounds how far resolution follows identifiers.
const maxDepth = 8

func lit(s string) text { return text{{lit: s, src: true}} }

func hole(err bool) text { return text{{verb: "%v", dyn: true, err: err}} }

// cross concatenates every alternative of a with every one of b.
func cross(a, b []text) []text {
	var out []text
	for _, x := range a {
		for _, y := range b {
			if len(out) == maxAlternatives {
				return out
			}
			t := make(text, 0, len(x)+len(y))
			out = append(out, append(append(t, x...), y...))
		}
	}
	return out
}

// ctx is where an expression is resolved: its file (for imports and
// package-level values) and its enclosing function (for local variables).
type ctx struct {
	ld    *loader
	f     *file
	fn    *funcInfo
	depth int
}

func (c ctx) deeper() (ctx, bool) {
	if c.depth >= maxDepth {
		return c, false
	}
	c.depth++
	return c, true
}

// inFile is c moved to a package-level value's file: no enclosing function.
func (c ctx) inFile(f *file) ctx { return ctx{ld: c.ld, f: f, depth: c.depth} }

// str resolves an expression used as plain text (a message, an error's
// text, a reason) to its alternatives.
func (c ctx) str(e ast.Expr) []text {
	d, ok := c.deeper()
	if !ok {
		return []text{hole(isErrorish(e))}
	}
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind == token.STRING {
			if s, err := strconv.Unquote(x.Value); err == nil {
				return []text{lit(s)}
			}
		}
		if x.Kind == token.CHAR || x.Kind == token.INT || x.Kind == token.FLOAT {
			return []text{{{lit: x.Value}}}
		}
	case *ast.ParenExpr:
		return d.str(x.X)
	case *ast.BinaryExpr:
		if x.Op == token.ADD {
			return cross(d.str(x.X), d.str(x.Y))
		}
	case *ast.Ident:
		return d.ident(x)
	case *ast.SelectorExpr:
		if v, ok := d.imported(x); ok {
			return v
		}
	case *ast.CallExpr:
		return d.call(x)
	}
	return []text{hole(isErrorish(e))}
}

// ident resolves a local variable (every assignment to it in the enclosing
// function), or a package-level constant or variable.
func (c ctx) ident(id *ast.Ident) []text {
	if d := c.local(id); d != nil {
		vals := d.reaching(id.Pos())
		if len(vals) == 0 || len(vals) > maxAlternatives {
			return []text{hole(isErrorish(id))}
		}
		var out []text
		for _, v := range vals {
			if v.rhs == nil {
				out = append(out, hole(isErrorish(id)))
				continue
			}
			out = append(out, c.str(v.rhs)...)
		}
		return dedupe(out)
	}
	if v, ok := c.f.pkg.values[id.Name]; ok {
		return c.inFile(v.file).str(v.expr)
	}
	return []text{hole(isErrorish(id))}
}

// imported resolves pkg.Name: a constant or variable of another package of
// the sources, or one of the few API constants the kubelet's events use.
func (c ctx) imported(x *ast.SelectorExpr) ([]text, bool) {
	id, ok := x.X.(*ast.Ident)
	if !ok {
		return nil, false
	}
	if c.isLocal(id) {
		return nil, false
	}
	ip, ok := c.f.imports[id.Name]
	if !ok {
		return nil, false
	}
	if ip == "k8s.io/api/core/v1" || ip == "k8s.io/kubernetes/pkg/api/v1" {
		switch x.Sel.Name {
		case "EventTypeWarning":
			return []text{lit("Warning")}, true
		case "EventTypeNormal":
			return []text{lit("Normal")}, true
		}
	}
	p := c.ld.load(ip)
	if p == nil {
		return nil, false
	}
	v, ok := p.values[x.Sel.Name]
	if !ok {
		return nil, false
	}
	return c.inFile(v.file).str(v.expr), true
}

// call resolves fmt.Sprintf and friends, conversions, and the text of an
// error built in place.
func (c ctx) call(x *ast.CallExpr) []text {
	if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
		if pk, ok := sel.X.(*ast.Ident); ok {
			switch ip := c.f.imports[pk.Name]; {
			case ip == "fmt" && (sel.Sel.Name == "Sprintf" || sel.Sel.Name == "Errorf") && len(x.Args) > 0:
				return c.format(x.Args[0], x.Args[1:])
			case ip == "fmt" && (sel.Sel.Name == "Sprint" || sel.Sel.Name == "Sprintln"):
				return c.print(x.Args, sel.Sel.Name == "Sprintln")
			case ip == "errors" && sel.Sel.Name == "New" && len(x.Args) == 1:
				return render(c.str(x.Args[0]))
			case ip != "" && len(x.Args) == 1 && c.isType(sel):
				return c.str(x.Args[0])
			}
		}
		if sel.Sel.Name == "Error" && len(x.Args) == 0 {
			if inner, ok := sel.X.(*ast.CallExpr); ok && c.buildsError(inner) {
				return c.call(inner)
			}
			return []text{hole(true)}
		}
	}
	if id, ok := x.Fun.(*ast.Ident); ok && len(x.Args) == 1 && (id.Name == "string" || c.f.pkg.types[id.Name]) {
		return c.str(x.Args[0])
	}
	return []text{hole(isErrorish(x))}
}

func (c ctx) buildsError(x *ast.CallExpr) bool {
	sel, ok := x.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pk, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	ip := c.f.imports[pk.Name]
	return ip == "fmt" && sel.Sel.Name == "Errorf" || ip == "errors" && sel.Sel.Name == "New"
}

// isType reports whether pkg.Name names a type of a package of the sources.
func (c ctx) isType(sel *ast.SelectorExpr) bool {
	pk := sel.X.(*ast.Ident)
	p := c.ld.load(c.f.imports[pk.Name])
	return p != nil && p.types[sel.Sel.Name]
}

// render marks every literal of ts as printed text rather than format
// source: the text has been through fmt already.
func render(ts []text) []text {
	out := make([]text, len(ts))
	for i, t := range ts {
		r := make(text, len(t))
		for j, p := range t {
			p.src = false
			r[j] = p
		}
		out[i] = r
	}
	return out
}

// format resolves a printf call's format and arguments: the literal
// source text is read as a format string, its verbs matched to the
// arguments to learn which are errors.
func (c ctx) format(f ast.Expr, args []ast.Expr) []text {
	var out []text
	for _, t := range c.str(f) {
		var r text
		argNum := 0
		for _, p := range t {
			if !p.src || p.verb != "" {
				p.src = false
				r = append(r, p)
				continue
			}
			for _, pc := range catalog.ParseFormat(p.lit) {
				if pc.Verb == "" {
					r = append(r, part{lit: pc.Lit})
					continue
				}
				if i := strings.IndexByte(pc.Verb, '['); i >= 0 {
					if n, err := strconv.Atoi(pc.Verb[i+1 : strings.IndexByte(pc.Verb, ']')]); err == nil {
						argNum = n - 1
					}
				}
				argNum += strings.Count(pc.Verb, "*")
				isErr := pc.Char == 'w'
				if argNum >= 0 && argNum < len(args) && isErrorish(args[argNum]) {
					isErr = true
				}
				argNum++
				r = append(r, part{verb: pc.Verb, err: isErr})
			}
		}
		out = append(out, r)
	}
	return out
}

// print resolves fmt.Sprint-style arguments (klog.Info, klog.Error):
// operands printed with %v, a space between two operands when neither is
// a string (always, for the ln forms).
func (c ctx) print(args []ast.Expr, ln bool) []text {
	out := []text{{}}
	prevString := true
	for i, a := range args {
		isString := c.isStringy(a)
		if i > 0 && (ln || !isString && !prevString) {
			out = cross(out, []text{{{lit: " "}}})
		}
		out = cross(out, operand(render(c.str(a))))
		prevString = isString
	}
	return out
}

// operand marks the holes of a print operand as verbs: fmt.Sprint prints
// the value as %v does, so they are not text missing from a format.
func operand(ts []text) []text {
	for _, t := range ts {
		for i := range t {
			t[i].dyn = false
		}
	}
	return ts
}

// isStringy guesses whether an operand is a string (fmt.Sprint puts no
// space next to one): a string literal or constant, or a call that makes one.
func (c ctx) isStringy(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.BasicLit:
		return x.Kind == token.STRING
	case *ast.BinaryExpr:
		return x.Op == token.ADD && (c.isStringy(x.X) || c.isStringy(x.Y))
	case *ast.CallExpr:
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
			n := sel.Sel.Name
			return n == "Sprintf" || n == "Sprint" || n == "Error" || n == "String" || n == "Join"
		}
	case *ast.Ident:
		ts := c.str(x)
		return len(ts) == 1 && len(ts[0]) > 0 && !ts[0][0].dyn && ts[0][0].verb == ""
	}
	return false
}

// intval resolves an integer constant (a V level).
func (c ctx) intval(e ast.Expr) (int, bool) {
	d, ok := c.deeper()
	if !ok {
		return 0, false
	}
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind == token.INT {
			v, err := strconv.Atoi(x.Value)
			return v, err == nil
		}
	case *ast.ParenExpr:
		return d.intval(x.X)
	case *ast.CallExpr: // klog.Level(4)
		if len(x.Args) == 1 {
			return d.intval(x.Args[0])
		}
	case *ast.BinaryExpr:
		a, ok1 := d.intval(x.X)
		b, ok2 := d.intval(x.Y)
		if ok1 && ok2 {
			switch x.Op {
			case token.ADD:
				return a + b, true
			case token.SUB:
				return a - b, true
			}
		}
	case *ast.Ident:
		if l := d.local(x); l != nil {
			if rhs := l.single(); rhs != nil {
				return d.intval(rhs)
			}
			return 0, false
		}
		if v, ok := d.f.pkg.values[x.Name]; ok {
			return d.inFile(v.file).intval(v.expr)
		}
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			if p := d.ld.load(d.f.imports[id.Name]); p != nil {
				if v, ok := p.values[x.Sel.Name]; ok {
					return d.inFile(v.file).intval(v.expr)
				}
			}
		}
	}
	return 0, false
}

// isErrorish guesses whether an expression is an error: a name with "err"
// in it (err, lastErr, utilerrors), or a call of an Error method.
func isErrorish(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if found {
			return false
		}
		switch x := n.(type) {
		case *ast.Ident:
			if strings.Contains(strings.ToLower(x.Name), "err") {
				found = true
			}
		case *ast.CallExpr:
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Errorf" || sel.Sel.Name == "New" && isErrorsPkg(sel.X)) {
				found = true
			}
		case *ast.BasicLit, *ast.FuncLit:
			return false
		}
		return true
	})
	return found
}

func isErrorsPkg(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "errors"
}

func dedupe(ts []text) []text {
	seen := map[string]bool{}
	var out []text
	for _, t := range ts {
		k := t.key()
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, t)
		if len(out) == maxAlternatives {
			break
		}
	}
	return out
}

func (t text) key() string {
	var b strings.Builder
	for _, p := range t {
		if p.verb != "" {
			b.WriteString("\x00" + p.verb)
			if p.dyn {
				b.WriteString("!")
			}
			continue
		}
		b.WriteString("\x01" + p.lit)
		if p.src {
			b.WriteString("\x02")
		}
	}
	return b.String()
}

// formatOf writes a resolved text as the entry's format string: literal
// text with % doubled, verbs as written, holes as %v. It reports the
// indexes of error verbs, whether a hole is in it, and whether any
// constant text is (a letter outside the verbs).
func (t text) formatOf() (format string, errs []int, dynamic, constant bool) {
	var b strings.Builder
	n := 0
	for i, p := range t {
		if p.verb == "" {
			s := p.lit
			if i == len(t)-1 {
				s = strings.TrimSuffix(s, "\n") // klog and Fprintf lines end in one
			}
			b.WriteString(catalog.EscapeFormat(s))
			if !constant && strings.IndexFunc(s, unicode.IsLetter) >= 0 {
				constant = true
			}
			continue
		}
		if p.err {
			errs = append(errs, n)
		}
		if p.dyn {
			dynamic = true
			b.WriteString("%v")
		} else {
			b.WriteString(p.verb)
		}
		n++
	}
	return b.String(), errs, dynamic, constant
}
