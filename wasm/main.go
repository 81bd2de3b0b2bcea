//go:build js && wasm

// Command wasm is the numascope engine compiled to WebAssembly for the
// playground. It only wires JavaScript to Go: it defines one global object,
// numascope, whose call(method, requestJSON) returns a response JSON string
// (see package api for the methods and shapes), and then waits forever.
//
// Build it with:
//
//	GOOS=js GOARCH=wasm go build -ldflags="-s -w" -o numascope.wasm ./wasm
package main

import (
	"syscall/js"
	"time"

	"github.com/numascope/numascope/wasm/internal/api"
)

func main() {
	install(js.Global())
	select {}
}

// install defines the numascope object on global and tells the host page it
// is ready by calling global.numascopeReady when that is a function.
func install(global js.Value) {
	obj := global.Get("Object").New()
	obj.Set("version", api.Version)
	obj.Set("call", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 1 || args[0].Type() != js.TypeString {
			return string(api.Call("", nil))
		}
		began := time.Now()
		var req string
		var contents []string
		if len(args) > 1 && args[1].Type() == js.TypeString {
			req = args[1].String()
		} else if len(args) > 1 && !args[1].IsUndefined() && !args[1].IsNull() {
			// An object was passed: take its JSON text, the files'
			// contents beside it.
			var obj js.Value
			obj, contents = splitContents(global, args[1])
			req = global.Get("JSON").Call("stringify", obj).String()
		}
		copyIn := time.Since(began)
		answer := api.CallContents(args[0].String(), []byte(req), contents)
		began = time.Now()
		out := js.ValueOf(string(answer))
		obj.Set("phases", phasesValue(copyIn, time.Since(began)))
		return out
	}))
	global.Set("numascope", obj)
	if ready := global.Get("numascopeReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
}

// splitContents takes the string contents of req.files[i].content out of
// a request object (into a copy; the caller's object is left as it is) and
// names each by a contentRef: a pasted file then crosses into Go as one
// string, not escaped into the request's JSON and scanned twice more there.
func splitContents(global, req js.Value) (js.Value, []string) {
	if req.Type() != js.TypeObject {
		return req, nil
	}
	files := req.Get("files")
	if !global.Get("Array").Call("isArray", files).Bool() {
		return req, nil
	}
	object := global.Get("Object")
	list := global.Get("Array").New()
	var contents []string
	for i, n := 0, files.Length(); i < n; i++ {
		f := files.Index(i)
		if f.Type() == js.TypeObject && f.Get("content").Type() == js.TypeString && f.Get("contentRef").IsUndefined() {
			c := object.Call("assign", object.New(), f)
			contents = append(contents, f.Get("content").String())
			c.Delete("content")
			c.Set("contentRef", len(contents))
			f = c
		}
		list.Call("push", f)
	}
	copied := object.Call("assign", object.New(), req)
	copied.Set("files", list)
	return copied, contents
}

// phasesValue is the timing of the last call for the page: a flat array of
// name, milliseconds and count for each phase, the engine's (api.Phases)
// after "copy-in" (the request's strings copied from JavaScript into Go)
// and before "copy-out" (the answer copied back).
func phasesValue(copyIn, copyOut time.Duration) js.Value {
	ps := append(append([]api.Phase{{Name: "copy-in", Time: copyIn, Count: 1}}, api.Phases()...), api.Phase{Name: "copy-out", Time: copyOut, Count: 1})
	list := make([]any, 0, 3*len(ps))
	for _, p := range ps {
		list = append(list, p.Name, float64(p.Time.Microseconds())/1000, p.Count)
	}
	return js.ValueOf(list)
}
