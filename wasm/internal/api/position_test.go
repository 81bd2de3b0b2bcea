package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLocate(t *testing.T) {
	scenario := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "diagnose", "testdata", "troubleshooting-page", name))
		require.NoError(t, err)
		return string(b)
	}
	const state = "{\n  \"policyName\": \"static\",\n  \"entries\": {\n    \"pod-1\": {\"c\": \"0-3\"},\n    \"a/b~c\": {}\n  },\n  \"list\": [1, {\"x\": [true]}],\n  \"checksum\": 1\n}\n"
	for _, tc := range []struct {
		name     string
		content  string
		pointers []string
		want     map[string]Position
	}{
		{"JSON members point at their key", state, []string{"/policyName", "/entries/pod-1/c", "/checksum"},
			map[string]Position{"/policyName": {2, 3}, "/entries/pod-1/c": {4, 15}, "/checksum": {8, 3}}},
		{"JSON array elements point at the value", state, []string{"/list/0", "/list/1/x/0"},
			map[string]Position{"/list/0": {7, 12}, "/list/1/x/0": {7, 22}}},
		{"JSON pointer escapes", state, []string{"/entries/a~1b~0c", ""},
			map[string]Position{"/entries/a~1b~0c": {5, 5}, "": {1, 1}}},
		{"JSON pointers that are not there are left out", state, []string{"/nope", "/list/7", "no-slash"},
			map[string]Position{}},
		{"JSON columns count UTF-16 units", "{\"é😀\": 1, \"k\": 2}", []string{"/k"},
			map[string]Position{"/k": {1, 12}}},
		{"YAML block mapping keys", scenario("pod.yaml"), []string{"/status/reason", "/metadata/namespace", "/spec/containers/0/name", "/spec/containers/0/resources/limits"},
			map[string]Position{"/status/reason": {17, 3}, "/metadata/namespace": {5, 3}, "/spec/containers/0/name": {10, 5}, "/spec/containers/0/resources/limits": {13, 7}}},
		{"YAML keys inside a flow mapping", scenario("kubelet-config.yaml"), []string{"/systemReserved/memory", "/reservedMemory/1/limits/memory", "/spec/containers/0/resources/limits/cpu"},
			map[string]Position{"/systemReserved/memory": {8, 18}, "/reservedMemory/1/limits/memory": {13, 12}}},
		{"YAML top-level keys and sequence items", scenario("kubelet-config.yaml"), []string{"/topologyManagerPolicy", "/reservedMemory/1", "/reservedMemory/2", "/nope"},
			map[string]Position{"/topologyManagerPolicy": {6, 1}, "/reservedMemory/1": {12, 3}}},
		{"YAML: the container resources' flow mapping", scenario("pod.yaml"), []string{"/spec/containers/0/resources/requests/memory"},
			map[string]Position{"/spec/containers/0/resources/requests/memory": {14, 28}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := locate(tc.content, tc.pointers)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("positions (-want +got):\n%s", d)
			}
		})
	}
}

func TestSyntaxPosition(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          Position
	}{
		{"second line", "{\"a\": 1,\n  \"b\": ]\n}", Position{2, 8}},
		{"after a byte order mark", "\ufeff{\"a\" 1}", Position{1, 7}},
		{"first byte", "x", Position{1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			err := json.Unmarshal([]byte(trimBOM(tc.content)), &v)
			require.Error(t, err)
			got, ok := syntaxPosition(tc.content, err)
			assert.True(t, ok)
			assert.Equal(t, tc.want, got)
		})
	}
	_, ok := syntaxPosition("{}", assert.AnError)
	assert.False(t, ok, "an error without a syntax error carries no position")
}

func trimBOM(s string) string {
	if len(s) >= 3 && s[:3] == "\ufeff" {
		return s[3:]
	}
	return s
}
