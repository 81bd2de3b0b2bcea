package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConsumeCountsTests(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"boom\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestA"}`,
		`{"Action":"pass","Package":"p","Test":"TestB"}`,
		`{"Action":"skip","Package":"p","Test":"TestC"}`,
		`{"Action":"fail","Package":"p","Elapsed":0.1}`,
		`# not json: a build error line`,
	}, "\n")
	var tl tally
	require.True(t, consume(strings.NewReader(in), &tl), "a failing test was not reported as a failure")
	assert.Equal(t, 1, tl.passed, "passed in the tally %+v", tl)
	assert.Equal(t, 1, tl.failed, "failed in the tally %+v", tl)
	assert.Equal(t, 1, tl.skipped, "skipped in the tally %+v", tl)
}

func TestModulesFindsEveryNestedModule(t *testing.T) {
	root, err := moduleRoot()
	require.NoError(t, err)
	var rel []string
	for _, m := range modules(root) {
		r, err := filepath.Rel(root, m)
		require.NoError(t, err)
		rel = append(rel, filepath.ToSlash(r))
	}
	require.NotEmpty(t, rel)
	assert.Equal(t, ".", rel[0], "the main module comes first")
	for _, want := range []string{"examples/agent", "examples/kubectl-numascope", "internal/cluster", "internal/cluster/apiserver", "internal/conformance", "playground"} {
		assert.Contains(t, rel, want, "testall would not run the module in %s", want)
	}
	for _, m := range []string{".", "examples/agent", "examples/kubectl-numascope", "internal/cluster", "playground"} {
		assert.True(t, hasStaticcheck(filepath.Join(root, m)), "staticcheck is not a tool of the module in %s", m)
	}
}
