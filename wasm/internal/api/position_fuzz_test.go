package api

import (
	"strings"
	"testing"

	"github.com/numascope/numascope/internal/fuzzbudget"
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
