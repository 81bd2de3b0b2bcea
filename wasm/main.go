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
		var req string
		if len(args) > 1 && args[1].Type() == js.TypeString {
			req = args[1].String()
		} else if len(args) > 1 && !args[1].IsUndefined() && !args[1].IsNull() {
			// An object was passed: take its JSON text.
			req = global.Get("JSON").Call("stringify", args[1]).String()
		}
		return string(api.Call(args[0].String(), []byte(req)))
	}))
	global.Set("numascope", obj)
	if ready := global.Get("numascopeReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
}
