// Package api is the JSON interface that the numascope WebAssembly module
// exposes to JavaScript: one entry point takes a method name and a JSON
// request and returns a JSON response, with every failure (including a Go
// panic) reported as a value.
//
// It is plain Go so that it builds and is tested natively; the js/wasm main
// in the parent directory only moves strings between JavaScript and Call.
package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
)

// Version is the version of the JSON interface; it changes when a request or
// response shape changes incompatibly.
const Version = "1"

// MaxRequestBytes bounds a request so that a hostile paste cannot make the
// engine allocate without limit.
const MaxRequestBytes = 32 << 20

// MaxFiles bounds the files of one request: the page has at most this many
// tabs (app.js MAX_TABS) and draws a card for each file of an answer, which
// takes the page's thread about a millisecond and a half per file.
const MaxFiles = 64

// Limits are the bounds the engine puts on a request. The page applies the
// same bounds to its inputs before it calls the engine; the capabilities
// answer carries them, so that the page's copy can be checked against them.
type Limits struct {
	MaxFileBytes    int `json:"maxFileBytes"`
	MaxRequestBytes int `json:"maxRequestBytes"`
	MaxFiles        int `json:"maxFiles"`
}

var (
	// callMu serialises calls: sideContents belongs to the call running.
	callMu       sync.Mutex
	sideContents []string
)

// Response is the envelope of every answer: exactly one of Result and Error
// is set.
type Response struct {
	OK     bool   `json:"ok"`
	Result any    `json:"result,omitempty"`
	Error  *Error `json:"error,omitempty"`
}

// Error is a failure returned as a value to JavaScript.
type Error struct {
	// Code is one of "bad-request", "unknown-method", "too-large",
	// "unavailable", "engine" or "panic".
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// method is one entry of the interface: it receives the raw JSON request.
type method struct {
	doc string
	fn  func(req json.RawMessage) (any, error)
}

var methods = map[string]method{}

// register adds a method; it is called from init functions so that each
// method lives next to the engine package it wires.
func register(name, doc string, fn func(req json.RawMessage) (any, error)) {
	if _, dup := methods[name]; dup {
		panic("api: method registered twice: " + name)
	}
	methods[name] = method{doc: doc, fn: fn}
}

func init() {
	register("capabilities", "lists the methods this build offers", func(json.RawMessage) (any, error) {
		return Capabilities(), nil
	})
}

// Capability describes one method of the interface.
type Capability struct {
	Method string `json:"method"`
	Doc    string `json:"doc"`
}

// CapabilityList is the answer of the "capabilities" method.
type CapabilityList struct {
	Version string       `json:"version"`
	Methods []Capability `json:"methods"`
	Limits  Limits       `json:"limits"`
}

// Capabilities lists the methods of this build, sorted by name.
func Capabilities() CapabilityList {
	out := CapabilityList{Version: Version, Limits: Limits{MaxFileBytes: MaxFileBytes, MaxRequestBytes: MaxRequestBytes, MaxFiles: MaxFiles}}
	for name, m := range methods {
		out.Methods = append(out.Methods, Capability{Method: name, Doc: m.doc})
	}
	sort.Slice(out.Methods, func(i, j int) bool { return out.Methods[i].Method < out.Methods[j].Method })
	return out
}

// Call runs method on the JSON request and returns the JSON response
// envelope. It never panics: a panic inside the engine becomes an error
// response with code "panic".
func Call(name string, request []byte) []byte {
	return CallContents(name, request, nil)
}

// CallContents is Call with the contents of the request's files given
// beside it: a file {"name": N, "contentRef": i} has contents[i-1]. The
// contents count towards MaxRequestBytes.
func CallContents(name string, request []byte, contents []string) []byte {
	callMu.Lock()
	defer callMu.Unlock()
	sideContents = contents
	phases, timing = phases[:0], true
	defer func() { sideContents, timing = nil, false }()
	size := len(request)
	for _, c := range contents {
		size += len(c)
	}
	var resp Response
	if size > MaxRequestBytes {
		resp = tooLarge(size)
	} else {
		resp = call(name, request)
	}
	done := track("marshal")
	b, err := json.Marshal(resp)
	done()
	if err != nil {
		b, _ = json.Marshal(Response{Error: &Error{Code: "engine", Message: "encoding the answer failed: " + err.Error()}})
	}
	return b
}

func call(name string, request []byte) (resp Response) {
	defer func() {
		if r := recover(); r != nil {
			stack := string(debug.Stack())
			if i := strings.Index(stack, "panic("); i >= 0 {
				stack = stack[i:]
			}
			if len(stack) > 2000 {
				stack = stack[:2000]
			}
			resp = Response{Error: &Error{Code: "panic", Message: fmt.Sprintf(
				"the numascope engine crashed on this input (%v); please report it with the input attached\n%s", r, stack)}}
		}
	}()
	m, ok := methods[name]
	if !ok {
		names := make([]string, 0, len(methods))
		for n := range methods {
			names = append(names, n)
		}
		sort.Strings(names)
		return Response{Error: &Error{Code: "unknown-method", Message: fmt.Sprintf(
			"no method %q; this build offers: %s", name, strings.Join(names, ", "))}}
	}
	if len(request) > MaxRequestBytes {
		return tooLarge(len(request))
	}
	if len(strings.TrimSpace(string(request))) == 0 {
		request = []byte("{}")
	}
	if !json.Valid(request) {
		return Response{Error: &Error{Code: "bad-request", Message: "the request is not valid JSON"}}
	}
	done := track("engine")
	result, err := m.fn(request)
	done()
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return Response{Error: e}
		}
		return Response{Error: &Error{Code: "engine", Message: err.Error()}}
	}
	return Response{OK: true, Result: result}
}

func tooLarge(size int) Response {
	return Response{Error: &Error{Code: "too-large", Message: fmt.Sprintf(
		"the request is %d bytes, more than the %d-byte limit; paste the state files one at a time or trim them", size, MaxRequestBytes)}}
}

// tooManyFiles refuses a request of method with more than MaxFiles files.
func tooManyFiles(method string, files int) error {
	if files <= MaxFiles {
		return nil
	}
	return &Error{Code: "too-large", Message: fmt.Sprintf(
		"%s: the request has %d files, more than the %d the playground takes; leave out the files that do not matter, or run numascope's diagnose command on all of them", method, files, MaxFiles)}
}

// decode reads a request strictly, naming the method in the error.
func decode(name string, req json.RawMessage, v any) error {
	defer track("request")()
	dec := json.NewDecoder(strings.NewReader(string(req)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &Error{Code: "bad-request", Message: fmt.Sprintf("%s: the request does not match the documented shape: %v", name, err)}
	}
	return nil
}
