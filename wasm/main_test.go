//go:build js && wasm

package main

import (
	"encoding/json"
	"syscall/js"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type envelope struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func callJS(t *testing.T, args ...any) envelope {
	t.Helper()
	out := js.Global().Get("numascope").Call("call", args...)
	if out.Type() != js.TypeString {
		t.Fatalf("call returned a %s, want a string", out.Type())
	}
	var e envelope
	if err := json.Unmarshal([]byte(out.String()), &e); err != nil {
		t.Fatalf("call returned invalid JSON %q: %v", out.String(), err)
	}
	return e
}

func TestInstall(t *testing.T) {
	called := false
	cb := js.FuncOf(func(js.Value, []js.Value) any { called = true; return nil })
	defer cb.Release()
	js.Global().Set("numascopeReady", cb)
	install(js.Global())
	if !called {
		t.Error("install did not call numascopeReady")
	}
	if v := js.Global().Get("numascope").Get("version").String(); v == "" {
		t.Error("numascope.version is empty")
	}
}

func TestCallCapabilities(t *testing.T) {
	install(js.Global())
	e := callJS(t, "capabilities", "")
	require.True(t, e.OK, "capabilities: %+v", e.Error)
	require.Contains(t, string(e.Result), `"capabilities"`, "capabilities result")
}

func TestCallErrorsAreValues(t *testing.T) {
	install(js.Global())
	for _, tc := range []struct {
		name string
		args []any
		code string
	}{
		{"no arguments", nil, "unknown-method"},
		{"method not a string", []any{42}, "unknown-method"},
		{"unknown method", []any{"nope", "{}"}, "unknown-method"},
		{"invalid JSON", []any{"capabilities", "{"}, "bad-request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := callJS(t, tc.args...)
			require.False(t, e.OK, "OK")
			require.NotNil(t, e.Error, "error")
			require.Equal(t, tc.code, e.Error.Code, "error code")
		})
	}
}

func TestCallAcceptsAnObject(t *testing.T) {
	install(js.Global())
	obj := js.Global().Get("Object").New()
	e := callJS(t, "capabilities", obj)
	if !e.OK {
		t.Fatalf("capabilities with an object request: %+v", e)
	}
}

// TestInspectUnderWasm runs a real inspection through the glue, so that the
// engine's packages are proven to work in a js/wasm build, not only natively.
func TestInspectUnderWasm(t *testing.T) {
	install(js.Global())
	req := `{"files":[{"name":"cpu_manager_state","content":"{\"policyName\":\"none\",\"defaultCpuSet\":\"4-6\",\"checksum\":354655845}"}]}`
	e := callJS(t, "inspect", req)
	if !e.OK {
		t.Fatalf("inspect: %+v", e.Error)
	}
	var r struct {
		Files []struct {
			Kind           string `json:"kind"`
			KubeletAccepts bool   `json:"kubeletAccepts"`
			Checksum       struct {
				Valid bool `json:"valid"`
			} `json:"checksum"`
		} `json:"files"`
	}
	require.NoError(t, json.Unmarshal(e.Result, &r))
	require.Len(t, r.Files, 1, "files in %s", e.Result)
	assert.Equal(t, "cpu", r.Files[0].Kind, "kind")
	assert.True(t, r.Files[0].KubeletAccepts, "accepted")
	assert.True(t, r.Files[0].Checksum.Valid, "checksum valid")
}

func TestDiagnoseAndMergeUnderWasm(t *testing.T) {
	install(js.Global())
	e := callJS(t, "diagnose", `{"files":[{"name":"cpu_manager_state","content":"{\"policyName\":\"static\",\"defaultCpuSet\":\"0-3\",\"checksum\":1}"}]}`)
	if assert.True(t, e.OK, "diagnose: %+v", e.Error) {
		assert.Contains(t, string(e.Result), "CorruptCheckpoint", "diagnose finding")
	}
	e = callJS(t, "merge", `{"numaNodes":[0,1],"policy":"single-numa-node","providers":[{"cpu":[{"numaAffinity":[0],"preferred":true}]},{"memory":[{"numaAffinity":[1],"preferred":true}]}]}`)
	if assert.True(t, e.OK, "merge: %+v", e.Error) {
		assert.Contains(t, string(e.Result), `"admit":false`, "merge decision")
	}
}

func TestSimulateUnderWasm(t *testing.T) {
	install(js.Global())
	// One NUMA node with 2 CPUs, a static CPU manager with all CPUs shared:
	// a 4-CPU pod cannot be placed, so single-numa-node rejects it.
	req := `{"pod":"{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"cpu\":\"4\",\"memory\":\"1Gi\"}}}]}}",` +
		`"files":[{"name":"machine-info.json","content":"{\"topology\":[{\"node_id\":0,\"memory\":1073741824,\"cores\":[{\"core_id\":0,\"thread_ids\":[0],\"socket_id\":0},{\"core_id\":1,\"thread_ids\":[1],\"socket_id\":0}]}]}"},` +
		`{"name":"cpu_manager_state","content":"{\"policyName\":\"static\",\"defaultCpuSet\":\"0-1\"}"}],"policy":"single-numa-node"}`
	e := callJS(t, "simulate", req)
	if assert.True(t, e.OK, "simulate: %+v", e.Error) {
		assert.Contains(t, string(e.Result), `"admit":false`, "simulate decision")
		assert.Contains(t, string(e.Result), "TopologyAffinityError", "simulate reason")
	}
}

// TestObjectRequestFilesCrossAsStrings: an object request's file contents
// reach the engine beside the JSON (contentRef) and give the answer the same
// request as JSON text gives; the caller's object is left unchanged.
func TestObjectRequestFilesCrossAsStrings(t *testing.T) {
	install(js.Global())
	text := `{"files":[{"name":"cpu_manager_state","content":"{\"policyName\":\"none\",\"defaultCpuSet\":\"4-6\",\"checksum\":354655845}"},{"name":"notes.txt","content":"plain words"}]}`
	obj := js.Global().Get("JSON").Call("parse", text)
	fromText := callJS(t, "inspect", text)
	fromObject := callJS(t, "inspect", obj)
	require.True(t, fromText.OK, "inspect from text: %+v", fromText.Error)
	require.True(t, fromObject.OK, "inspect from an object: %+v", fromObject.Error)
	assert.JSONEq(t, string(fromText.Result), string(fromObject.Result))
	assert.Equal(t, text, js.Global().Get("JSON").Call("stringify", obj).String(), "the caller's object is not changed")

	bad := callJS(t, "inspect", `{"files":[{"name":"x","contentRef":3}]}`)
	require.NotNil(t, bad.Error, "a contentRef that names no content is an error")
	assert.Equal(t, "bad-request", bad.Error.Code)
	assert.Contains(t, bad.Error.Message, "contentRef 3 names no content")
}
