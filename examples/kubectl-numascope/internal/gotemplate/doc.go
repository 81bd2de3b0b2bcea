// Package gotemplate is Go's text/template (go1.26) for kubectl-numascope's
// -o go-template=TEMPLATE, with one change: a template's field names
// are never looked up as methods. text/template calls reflect's
// MethodByName with the name, and a program that may do that keeps every
// exported method of every type it has, which for a client-go program is
// 18 MB of binary (32.7 MB without, 51.2 MB with). The plugin's templates
// run on JSON data (maps, lists, strings, numbers, booleans), which has no
// methods, so they print what text/template prints.
//
// exec.go and eval.go are text/template's exec.go (split in two), funcs.go,
// template.go and option.go are its own, with the package name changed;
// sort.go stands for internal/fmtsort. The files are under Go's BSD
// licence, as their headers say.
package gotemplate
