package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/numascope/numascope/internal/jsonptr"
)

// FuzzLocate resolves arbitrary JSON pointers in arbitrary JSON or YAML
// inputs: never a panic, within the per-input budget, and every position it
// returns lies inside the input (a line that exists, a column on it).
func FuzzLocate(f *testing.F) {
	f.Add("{\"policyName\": \"static\",\n \"entries\": {\"pod\": {\"c\": \"1-3\"}}}", "/entries/pod/c")
	f.Add("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: c\n    resources: {limits: {cpu: 2}}\n", "/spec/containers/0/resources/limits/cpu")
	f.Add("reservedMemory:\n- numaNode: 0\n  limits: {memory: 1Gi}\n", "/reservedMemory/1")
	f.Add("[1, [2, {\"a~b\": 3}]]", "/1/1/a~0b")
	f.Add("{\"a\": ", "/a")
	f.Add("a:\n  - - x\n    - y\n", "/a/0/1")
	f.Fuzz(func(t *testing.T, content, pointer string) {
		fuzzbudget.Run(t, func() {
			got := locate(content, []string{pointer, "", "/0"})
			lines := strings.Split(content, "\n")
			for p, pos := range got {
				if pos.Line < 1 || pos.Line > len(lines) {
					t.Fatalf("pointer %q: line %d outside the input's %d lines", p, pos.Line, len(lines))
				}
				if pos.Column < 1 || pos.Column > len(lines[pos.Line-1])+1 {
					t.Fatalf("pointer %q: column %d outside line %d (%d bytes)", p, pos.Column, pos.Line, len(lines[pos.Line-1]))
				}
			}
		})
	})
}

// FuzzJSONOffsets checks that jsonOffsets, which reads every value no
// wanted pointer is in (and every string) whole, finds exactly what reading
// every token finds (jsonOffsetsRead without reading whole values, the reader it replaced), valid
// JSON or not, for the pointer given and the paths of the first keys.
func FuzzJSONOffsets(f *testing.F) {
	f.Add(`{"a": {"b": [1, {"c": 2}], "a": 3}, "a": {"b": [9]}}`, "/a/b/1/c")
	f.Add(`{"k\u00e9y": 1, "a/b~c": [true, null, "x\"y"], "": {"": 0}}`, "/a~1b~0c/2")
	f.Add(`[[], {}, [[1]], {"x": {}}]`, "/2/0/0")
	f.Add(" \n{\"data\":\"{\\\"machineState\\\":{}}\",\"checksum\":12}\n", "/data/machineState")
	f.Add("{\"\xff\": 1, \"d\": {\"d\": {\"d\": 1}}}", "/d/d/d")
	f.Add(`{"a": {"x": [1, 2}, "b": 1}`, "/b")
	f.Add(`{"a": "unterminated, "b": 1}`, "/b")
	f.Add("\ufeff{\"a\": 1}", "/a")
	f.Fuzz(func(t *testing.T, content, pointer string) {
		fuzzbudget.Run(t, func() {
			pointers := []string{pointer, "", "/0", "/1/0", "/a", "/a/b", "/a/b/1", "/b", "/d/d/d"}
			for _, k := range topKeys(content) {
				pointers = append(pointers, "/"+jsonptr.Escape(k), "/"+jsonptr.Escape(k)+"/0", "/"+jsonptr.Escape(k)+"/"+jsonptr.Escape(k))
			}
			got, ref := jsonOffsets(content, pointers), jsonOffsetsRead(content, pointers, false)
			if diff := cmp.Diff(ref, got); diff != "" {
				t.Fatalf("jsonOffsets differs from reading every token (-tokens +now):\n%s", diff)
			}
		})
	})
}

// topKeys are the names of at most three top-level members of a JSON
// object.
func topKeys(content string) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(content), &m) != nil {
		return nil
	}
	var out []string
	for k := range m {
		if len(out) == 3 {
			break
		}
		out = append(out, k)
	}
	return out
}
