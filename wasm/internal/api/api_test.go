package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func init() {
	register("test-panic", "panics, for the test of panic recovery", func(json.RawMessage) (any, error) {
		var m map[string]int
		//lint:ignore SA5000 the nil map write is the point: a real runtime panic
		m["boom"]++
		return nil, nil
	})
}

type envelope struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

func callT(t *testing.T, method, req string) envelope {
	t.Helper()
	var e envelope
	out := Call(method, []byte(req))
	if err := json.Unmarshal(out, &e); err != nil {
		t.Fatalf("Call(%q) returned invalid JSON %q: %v", method, out, err)
	}
	if e.OK == (e.Error != nil) {
		t.Fatalf("Call(%q): ok=%v with error %+v: exactly one of result and error must be set", method, e.OK, e.Error)
	}
	return e
}

func TestCapabilitiesListsEveryMethodSorted(t *testing.T) {
	e := callT(t, "capabilities", "")
	var caps CapabilityList
	require.NoError(t, json.Unmarshal(e.Result, &caps))
	if caps.Version != Version {
		t.Errorf("version %q, want %q", caps.Version, Version)
	}
	seen := map[string]bool{}
	for i, m := range caps.Methods {
		seen[m.Method] = true
		if m.Doc == "" {
			t.Errorf("method %s has no doc", m.Method)
		}
		if i > 0 && caps.Methods[i-1].Method >= m.Method {
			t.Errorf("methods not sorted: %s before %s", caps.Methods[i-1].Method, m.Method)
		}
	}
	for _, want := range []string{"capabilities", "examples"} {
		if !seen[want] {
			t.Errorf("capabilities lacks %q", want)
		}
	}
	assert.Equal(t, Limits{MaxFileBytes: MaxFileBytes, MaxRequestBytes: MaxRequestBytes, MaxFiles: MaxFiles}, caps.Limits, "the limits the page checks its own against")
}

// TestTooManyFiles: every method that takes the page's tabs refuses a
// request with more than MaxFiles files, by count, before it reads any.
func TestTooManyFiles(t *testing.T) {
	files := func(n int) string {
		list := make([]InputFile, n)
		for i := range list {
			list[i] = InputFile{Name: fmt.Sprintf("cpu_manager_state.%d", i), Content: `{"policyName":"none","defaultCpuSet":"0-3","checksum":1}`}
		}
		b, err := json.Marshal(list)
		require.NoError(t, err)
		return string(b)
	}
	for _, tc := range []struct {
		method, extra string
	}{
		{"inspect", ""},
		{"diagnose", ""},
		{"simulate", `"pod":"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}",`},
	} {
		t.Run(tc.method, func(t *testing.T) {
			over := callT(t, tc.method, `{`+tc.extra+`"files":`+files(MaxFiles+1)+`}`)
			require.False(t, over.OK, "%d files accepted", MaxFiles+1)
			assert.Equal(t, "too-large", over.Error.Code)
			assert.Contains(t, over.Error.Message, fmt.Sprintf("%d files, more than the %d", MaxFiles+1, MaxFiles))
			assert.Contains(t, over.Error.Message, "numascope's diagnose command")
			at := callT(t, tc.method, `{`+tc.extra+`"files":`+files(MaxFiles)+`}`)
			if !at.OK {
				assert.NotEqual(t, "too-large", at.Error.Code, "%d files refused by count: %s", MaxFiles, at.Error.Message)
			}
		})
	}
}

func TestErrorsAreValues(t *testing.T) {
	for _, tc := range []struct {
		method, req, code, mention string
	}{
		{"nope", "{}", "unknown-method", "capabilities"},
		{"", "", "unknown-method", "no method"},
		{"capabilities", "{", "bad-request", "not valid JSON"},
		{"capabilities", "[1,", "bad-request", "not valid JSON"},
		{"test-panic", "{}", "panic", "assignment to entry in nil map"},
	} {
		e := callT(t, tc.method, tc.req)
		assert.False(t, e.OK, "Call(%q, %q) OK", tc.method, tc.req)
		if assert.NotNil(t, e.Error, "Call(%q, %q) error", tc.method, tc.req) {
			assert.Equal(t, tc.code, e.Error.Code, "Call(%q, %q) error code", tc.method, tc.req)
			assert.Contains(t, e.Error.Message, tc.mention, "Call(%q, %q) error message", tc.method, tc.req)
		}
	}
}

func TestTooLarge(t *testing.T) {
	big := `"` + strings.Repeat("x", MaxRequestBytes) + `"`
	e := callT(t, "capabilities", big)
	require.False(t, e.OK, "OK")
	require.NotNil(t, e.Error, "error")
	require.Equal(t, "too-large", e.Error.Code, "error code")
}

func TestPanicDoesNotPoisonLaterCalls(t *testing.T) {
	callT(t, "test-panic", "{}")
	if e := callT(t, "capabilities", ""); !e.OK {
		t.Fatalf("capabilities after a panic: %+v", e.Error)
	}
}

func TestExamplesAreComplete(t *testing.T) {
	list, err := Examples()
	require.NoError(t, err)
	ids := map[string]bool{}
	for _, ex := range list.Examples {
		if ids[ex.ID] {
			t.Errorf("duplicate example id %q", ex.ID)
		}
		ids[ex.ID] = true
		if ex.Title["en"] == "" || ex.Title["zh-CN"] == "" {
			t.Errorf("example %s needs an English and a Chinese title", ex.ID)
		}
		if len(ex.Files) == 0 && ex.Admission == nil {
			t.Errorf("example %s has neither files nor an admission scenario", ex.ID)
		}
		for _, f := range ex.Files {
			if it := (&evidence.Set{}).Add(f.Name, "", []byte(f.Content)); !it.Used() {
				t.Errorf("example %s: file %s is not recognised as evidence", ex.ID, f.Name)
			}
		}
		if a := ex.Admission; a != nil && (a.Pod == "") == (len(a.Hints) == 0) {
			t.Errorf("example %s: an admission scenario needs either hints or a pod", ex.ID)
		}
		if a := ex.Admission; a != nil && len(a.Hints) > 0 && !json.Valid(a.Hints) {
			t.Errorf("example %s: the hints are not valid JSON", ex.ID)
		}
	}
	for _, want := range []string{"troubleshooting", "corrupt-cpu", "single-numa-node-rejection"} {
		if !ids[want] {
			t.Errorf("the examples menu lacks %q", want)
		}
	}
}

func TestCallContents(t *testing.T) {
	state := `{"policyName":"none","defaultCpuSet":"4-6","checksum":354655845}`
	inline, err := json.Marshal(InspectRequest{Files: []InputFile{{Name: "cpu_manager_state", Content: state}}})
	require.NoError(t, err)
	want := Call("inspect", inline)
	for _, tc := range []struct {
		name     string
		request  string
		contents []string
		code     string // "" for the inline answer
	}{
		{name: "content given beside the request", request: `{"files":[{"name":"cpu_manager_state","contentRef":1}]}`, contents: []string{state}},
		{name: "contentRef past the contents", request: `{"files":[{"name":"cpu_manager_state","contentRef":2}]}`, contents: []string{state}, code: "bad-request"},
		{name: "both content and contentRef", request: `{"files":[{"name":"a","content":"x","contentRef":1}]}`, contents: []string{state}, code: "bad-request"},
		{name: "contents count towards the limit", request: `{"files":[{"name":"a","contentRef":1}]}`, contents: []string{strings.Repeat("x", MaxRequestBytes)}, code: "too-large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := CallContents("inspect", []byte(tc.request), tc.contents)
			if tc.code == "" {
				assert.JSONEq(t, string(want), string(got))
				return
			}
			var resp Response
			require.NoError(t, json.Unmarshal(got, &resp))
			require.NotNil(t, resp.Error, "response %s", got)
			assert.Equal(t, tc.code, resp.Error.Code)
		})
	}
}
