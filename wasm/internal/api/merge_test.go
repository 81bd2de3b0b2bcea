package api

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mergeCall(t *testing.T, req string) (envelope, MergeResult) {
	t.Helper()
	var e envelope
	require.NoError(t, json.Unmarshal(Call("merge", []byte(req)), &e))
	var r MergeResult
	if e.OK {
		require.NoError(t, json.Unmarshal(e.Result, &r))
	}
	return e, r
}

func TestMergeContractExample(t *testing.T) {
	// The example of DESIGN.md's contract 2.
	e, r := mergeCall(t, `{"numaNodes":[0,1], "distances":{"0":[10,20],"1":[20,10]}, "policy":"restricted",
		"options":{"prefer-closest-numa-nodes":"true"}, "providers":[{"cpu":[{"numaAffinity":[0],"preferred":true}], "memory":null}, null]}`)
	if !e.OK {
		t.Fatalf("%+v", e.Error)
	}
	b, err := json.Marshal(map[string]any{"bestHint": r.BestHint, "admit": r.Admit})
	require.NoError(t, err)
	require.Equal(t, `{"admit":true,"bestHint":{"numaAffinity":[0],"preferred":true}}`, string(b))
	if assert.NotNil(t, r.Report, "report") {
		assert.NotEmpty(t, r.Report.Rule, "rule of the report")
	}
	assert.NotEmpty(t, r.Why, "explanation")
}

func TestMergeExamples(t *testing.T) {
	list, err := Examples()
	require.NoError(t, err)
	want := map[string]bool{"single-numa-node-rejection": false, "restricted-wide": false}
	for _, ex := range list.Examples {
		admit, ok := want[ex.ID]
		if !ok {
			continue
		}
		var req map[string]any
		require.NoError(t, json.Unmarshal(ex.Admission.Hints, &req))
		req["policy"] = ex.Admission.Policy
		b, err := json.Marshal(req)
		require.NoError(t, err)
		e, r := mergeCall(t, string(b))
		if assert.True(t, e.OK, "example %s: error %+v", ex.ID, e.Error) {
			assert.Equal(t, admit, r.Admit, "example %s: admit", ex.ID)
		}
		delete(want, ex.ID)
	}
	if len(want) > 0 {
		t.Errorf("examples missing: %v", want)
	}
}

func TestMergeRejectsBadRequests(t *testing.T) {
	for _, tc := range []struct{ req, mention string }{
		{`{"policy":"restricted","providers":[]}`, "/numaNodes"},
		{`{"numaNodes":[0,1],"providers":[]}`, "/policy"},
		{`{"numaNodes":[0,1],"policy":"strict","providers":[]}`, "/policy"},
		{`{"numaNodes":[0,0],"policy":"restricted","providers":[]}`, "twice"},
		{`{"numaNodes":[0,1],"distances":{"2":[10,20]},"policy":"restricted","providers":[]}`, "/distances/2"},
		{`{"numaNodes":[0,1],"policy":"restricted","options":{"bogus":"true"},"providers":[]}`, "/options"},
		{`{"numaNodes":[0,1],"policy":"restricted","providers":[],"extra":1}`, "extra"},
	} {
		e, _ := mergeCall(t, tc.req) // the result of a refused request is empty; only the error counts
		assert.False(t, e.OK, "%s: OK", tc.req)
		if assert.NotNil(t, e.Error, "%s: error", tc.req) {
			assert.Equal(t, "bad-request", e.Error.Code, "%s: error code", tc.req)
			assert.Contains(t, e.Error.Message, tc.mention, "%s: error message", tc.req)
		}
	}
}
