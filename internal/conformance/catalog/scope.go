package catalog

import (
	"go/ast"
	"go/token"
)

// funcInfo resolves the local names of one function declaration (and the
// closures inside it) by lexical scope: a use finds the declaration it
// refers to, and that declaration's values are its initial value and
// every assignment to it. Flow is not followed: all of them are
// alternatives.
type funcInfo struct {
	decls map[string][]*decl
}

// decl is one local variable or parameter.
type decl struct {
	from  token.Pos // visible from here
	scope ast.Node  // to the end of this node
	typ   ast.Expr  // its declared type, if written
	vals  []value
}

// value is one assignment of a local: its expression (nil when it cannot
// be followed: a range variable, one result of a multi-value call) and the
// scopes around the assignment, innermost first.
type value struct {
	rhs    ast.Expr
	pos    token.Pos
	blocks []ast.Node
}

func isScope(n ast.Node) bool {
	switch n.(type) {
	case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause, *ast.FuncLit, *ast.IfStmt, *ast.ForStmt,
		*ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
		return true
	}
	return false
}

// newFuncInfo indexes a function: fn is the *ast.FuncDecl (its receiver
// and parameters are in scope in the whole declaration).
func newFuncInfo(fn *ast.FuncDecl) *funcInfo {
	fi := &funcInfo{decls: map[string][]*decl{}}
	addFields := func(scope ast.Node, fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			for _, n := range f.Names {
				fi.add(n.Name, &decl{from: scope.Pos(), scope: scope, typ: f.Type, vals: []value{{pos: n.Pos()}}})
			}
		}
	}
	addFields(fn, fn.Recv)
	addFields(fn, fn.Type.Params)
	addFields(fn, fn.Type.Results)
	if fn.Body == nil {
		return fi
	}
	// First the declarations, then the plain assignments, which need the
	// declarations to find theirs.
	var assigns []func()
	walkScopes(fn.Body, func(n ast.Node, stack []ast.Node) {
		top := fn.Body
		var topNode ast.Node = top
		if len(stack) > 0 {
			topNode = stack[len(stack)-1]
		}
		blocks := reversed(stack)
		switch s := n.(type) {
		case *ast.FuncLit:
			addFields(s, s.Type.Params)
			addFields(s, s.Type.Results)
		case *ast.AssignStmt:
			for i, l := range s.Lhs {
				id, ok := l.(*ast.Ident)
				if !ok || id.Name == "_" {
					continue
				}
				var rhs ast.Expr
				if len(s.Rhs) == len(s.Lhs) {
					rhs = s.Rhs[i]
				}
				if s.Tok == token.DEFINE && !fi.declaredIn(id.Name, topNode) {
					fi.add(id.Name, &decl{from: s.End(), scope: topNode, vals: []value{{rhs: rhs, pos: s.Pos(), blocks: blocks}}})
					continue
				}
				if s.Tok != token.DEFINE && s.Tok != token.ASSIGN {
					rhs = nil // x += y: not followed
				}
				name, pos := id.Name, s.Pos()
				assigns = append(assigns, func() {
					if d := fi.lookup(name, pos); d != nil {
						d.vals = append(d.vals, value{rhs: rhs, pos: pos, blocks: blocks})
					}
				})
			}
		case *ast.DeclStmt:
			gd, ok := s.Decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				return
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, id := range vs.Names {
					d := &decl{from: s.End(), scope: topNode, typ: vs.Type}
					switch {
					case len(vs.Values) == len(vs.Names):
						d.vals = []value{{rhs: vs.Values[i], pos: s.Pos(), blocks: blocks}}
					case len(vs.Values) > 0:
						d.vals = []value{{pos: s.Pos(), blocks: blocks}}
					}
					fi.add(id.Name, d)
				}
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{s.Key, s.Value} {
				if id, ok := e.(*ast.Ident); ok && s.Tok == token.DEFINE {
					fi.add(id.Name, &decl{from: s.Pos(), scope: s, vals: []value{{pos: s.Pos()}}})
				}
			}
		case *ast.TypeSwitchStmt:
			if a, ok := s.Assign.(*ast.AssignStmt); ok && len(a.Lhs) == 1 {
				if id, ok := a.Lhs[0].(*ast.Ident); ok {
					fi.add(id.Name, &decl{from: s.Pos(), scope: s, vals: []value{{pos: s.Pos()}}})
				}
			}
		}
	})
	for _, a := range assigns {
		a()
	}
	return fi
}

func reversed(s []ast.Node) []ast.Node {
	out := make([]ast.Node, len(s))
	for i, n := range s {
		out[len(s)-1-i] = n
	}
	return out
}

// walkScopes visits every node under root in source order with the scope
// nodes that enclose it (outermost first); a scope node's own visit does
// not count it.
func walkScopes(root ast.Node, visit func(n ast.Node, stack []ast.Node)) {
	var stack []ast.Node
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		for len(stack) > 0 && stack[len(stack)-1].End() <= n.Pos() {
			stack = stack[:len(stack)-1]
		}
		// a TypeSwitchStmt's assignment belongs to the switch, not the
		// enclosing block; it is handled with the switch.
		visit(n, stack)
		if isScope(n) {
			stack = append(stack, n)
		}
		return true
	})
}

func (fi *funcInfo) add(name string, d *decl) { fi.decls[name] = append(fi.decls[name], d) }

func (fi *funcInfo) declaredIn(name string, scope ast.Node) bool {
	for _, d := range fi.decls[name] {
		if d.scope == scope {
			return true
		}
	}
	return false
}

// lookup finds the declaration a name at pos refers to: the innermost
// scope that has one visible there.
func (fi *funcInfo) lookup(name string, pos token.Pos) *decl {
	if fi == nil {
		return nil
	}
	var best *decl
	for _, d := range fi.decls[name] {
		if d.from > pos || pos < d.scope.Pos() || pos >= d.scope.End() {
			continue
		}
		if best == nil || d.scope.Pos() > best.scope.Pos() || d.scope.Pos() == best.scope.Pos() && d.from > best.from {
			best = d
		}
	}
	return best
}

// local returns the declaration an identifier refers to, nil for a
// package-level name.
func (c ctx) local(id *ast.Ident) *decl {
	if c.fn == nil {
		return nil
	}
	return c.fn.lookup(id.Name, id.Pos())
}

// isLocal reports whether an identifier is a local variable or parameter
// (which shadows an import of the same name).
func (c ctx) isLocal(id *ast.Ident) bool { return c.local(id) != nil }

// single returns the one expression a local is assigned, nil if it has
// several or none that can be followed.
func (d *decl) single() ast.Expr {
	if d == nil || len(d.vals) != 1 {
		return nil
	}
	return d.vals[0].rhs
}

// reaching returns the values of d that can reach a use at p, with straight
// flow only: values assigned before p, from the last one that every path
// to p runs (a statement of a block around p) on. Values assigned after p
// reach it only through a loop; they are taken when nothing comes before.
func (d *decl) reaching(p token.Pos) []value {
	if d == nil {
		return nil
	}
	start := -1
	for i, v := range d.vals {
		if v.pos >= p {
			continue
		}
		if len(v.blocks) == 0 || v.blocks[0].Pos() <= p && p < v.blocks[0].End() {
			start = i
		}
	}
	var out []value
	for i, v := range d.vals {
		if v.pos < p && i >= start {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return d.vals
	}
	return out
}
