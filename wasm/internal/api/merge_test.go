package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func mergeCall(t *testing.T, req string) (envelope, MergeResult) {
	t.Helper()
	var e envelope
	if err := json.Unmarshal(Call("merge", []byte(req)), &e); err != nil {
		t.Fatal(err)
	}
	var r MergeResult
	if e.OK {
		if err := json.Unmarshal(e.Result, &r); err != nil {
			t.Fatal(err)
		}
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
	if string(b) != `{"admit":true,"bestHint":{"numaAffinity":[0],"preferred":true}}` {
		t.Fatalf("got %s", b)
	}
	if r.Report == nil || r.Report.Rule == "" || r.Why == "" {
		t.Errorf("no explanation: %+v", r.Report)
	}
}

func TestMergeExamples(t *testing.T) {
	list, err := Examples()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"single-numa-node-rejection": false, "restricted-wide": false}
	for _, ex := range list.Examples {
		admit, ok := want[ex.ID]
		if !ok {
			continue
		}
		var req map[string]any
		if err := json.Unmarshal(ex.Admission.Hints, &req); err != nil {
			t.Fatal(err)
		}
		req["policy"] = ex.Admission.Policy
		b, err := json.Marshal(req)
		require.NoError(t, err)
		e, r := mergeCall(t, string(b))
		if !e.OK || r.Admit != admit {
			t.Errorf("example %s: admit %v (error %+v), want %v", ex.ID, r.Admit, e.Error, admit)
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
		e, _ := mergeCall(t, tc.req)
		if e.OK || e.Error.Code != "bad-request" || !strings.Contains(e.Error.Message, tc.mention) {
			t.Errorf("%s: got %+v, want a bad-request naming %q", tc.req, e.Error, tc.mention)
		}
	}
}
