package main

import (
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
