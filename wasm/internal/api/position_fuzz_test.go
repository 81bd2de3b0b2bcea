package api

import (
	"encoding/json"
	"io"
	"strconv"
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
// every token finds (tokenOffsetsReference, the reader it replaced), valid
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
			got, ref := jsonOffsets(content, pointers), tokenOffsetsReference(content, pointers)
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

// tokenOffsetsReference is jsonOffsets as it was, reading every token.
func tokenOffsetsReference(content string, pointers []string) map[string]int {
	want := map[string]bool{}
	for _, p := range pointers {
		if _, ok := pointerTokens(p); ok {
			want[p] = true
		}
	}
	found := map[string]int{}
	type frame struct {
		object  bool
		index   int
		wantKey bool
	}
	var stack []frame
	var path []string // the pointer of each open container, "" for the root
	dec := json.NewDecoder(strings.NewReader(content))
	// next is the offset where the next token starts.
	next := func() int {
		off := int(dec.InputOffset())
		for off < len(content) {
			switch content[off] {
			case ' ', '\t', '\r', '\n', ':', ',':
				off++
				continue
			}
			if strings.HasPrefix(content[off:], "\ufeff") {
				off += len("\ufeff")
				continue
			}
			break
		}
		return off
	}
	cur := ""
	for n := 0; n < maxPointerTokens && len(found) < len(want); n++ {
		start := next()
		tok, err := dec.Token()
		if err == io.EOF || err != nil {
			break
		}
		if len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].wantKey {
			// A key: the member's pointer starts here.
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack, path = stack[:len(stack)-1], path[:len(path)-1]
				continue
			}
			k, _ := tok.(string)
			cur = path[len(path)-1] + "/" + jsonptr.Escape(k)
			if want[cur] {
				if _, dup := found[cur]; !dup {
					found[cur] = start
				}
			}
			stack[len(stack)-1].wantKey = false
			continue
		}
		// A value (or the end of an array).
		if d, ok := tok.(json.Delim); ok && (d == ']' || d == '}') {
			stack, path = stack[:len(stack)-1], path[:len(path)-1]
			continue
		}
		here := cur
		if len(stack) == 0 {
			here = ""
			if want[here] {
				found[here] = start
			}
		} else if top := &stack[len(stack)-1]; top.object {
			top.wantKey = true
		} else {
			here = path[len(path)-1] + "/" + strconv.Itoa(top.index)
			top.index++
			if want[here] {
				if _, dup := found[here]; !dup {
					found[here] = start
				}
			}
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, frame{object: d == '{', wantKey: d == '{'})
			path = append(path, here)
		}
	}
	return found
}
