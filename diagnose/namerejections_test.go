package diagnose

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
)

func TestNameRejections(t *testing.T) {
	ref := func(f string) []Ref { return []Ref{{File: f}} }
	type out struct{ Pod, Reason, Message string }
	tests := []struct {
		name string
		in   []*rejection
		want []out
	}{
		{"message joins the one named row of the same file",
			[]*rejection{
				{pod: "", reason: "UnexpectedAdmissionError", message: "Allocate failed due to x, which is unexpected", refs: ref("t.txt")},
				{pod: "a", reason: "UnexpectedAdmissionError", refs: ref("t.txt")},
			},
			[]out{{"a", "UnexpectedAdmissionError", "Allocate failed due to x, which is unexpected"}}},
		{"two named rows: the message stays apart, labelled",
			[]*rejection{
				{pod: "", reason: "UnexpectedAdmissionError", message: "m", refs: ref("t.txt")},
				{pod: "a", reason: "UnexpectedAdmissionError", refs: ref("t.txt")},
				{pod: "b", reason: "UnexpectedAdmissionError", refs: ref("t.txt")},
			},
			[]out{{unnamedEventPod, "UnexpectedAdmissionError", "m"}, {"a", "UnexpectedAdmissionError", ""}, {"b", "UnexpectedAdmissionError", ""}}},
		{"a row of another file is another pod",
			[]*rejection{
				{pod: "", reason: "SMTAlignmentError", message: "m", refs: ref("one.txt")},
				{pod: "a", reason: "SMTAlignmentError", refs: ref("two.txt")},
			},
			[]out{{unnamedEventPod, "SMTAlignmentError", "m"}, {"a", "SMTAlignmentError", ""}}},
		{"another reason is another rejection",
			[]*rejection{
				{pod: "", reason: "SMTAlignmentError", message: "m", refs: ref("t.txt")},
				{pod: "a", reason: "TopologyAffinityError", refs: ref("t.txt")},
			},
			[]out{{unnamedEventPod, "SMTAlignmentError", "m"}, {"a", "TopologyAffinityError", ""}}},
		{"a named row that has its own message is not joined",
			[]*rejection{
				{pod: "", reason: "SMTAlignmentError", message: "m", refs: ref("t.txt")},
				{pod: "a", reason: "SMTAlignmentError", message: "n", refs: ref("t.txt")},
			},
			[]out{{unnamedEventPod, "SMTAlignmentError", "m"}, {"a", "SMTAlignmentError", "n"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []out
			for _, r := range nameRejections(tt.in, nil) {
				got = append(got, out{r.pod, r.reason, r.message})
			}
			assert.Empty(t, cmp.Diff(tt.want, got), "nameRejections (-want +got)")
		})
	}
}

func TestLoggedTotals(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		t1, t2 string
		n      int
	}{
		{"go structs, both tables", "{TotalMemSize:100 SystemReserved:1 Allocatable:99 Reserved:0 Free:99} {TotalMemSize:104 SystemReserved:1 Allocatable:103 Reserved:0 Free:103}", "100", "104", 2},
		{"go struct cut in the first table", "{TotalMemSize:100 SystemReserved:1 Alloc> ", "100", "", 1},
		{"json tables", `{"total":5,"systemReserved":0} {"total":6,"systemReserved":0}`, "5", "6", 2},
		{"no table", "", "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t1, t2, n := loggedTotals(tt.text)
			assert.Equal(t, []any{tt.t1, tt.t2, tt.n}, []any{t1, t2, n})
		})
	}
}
