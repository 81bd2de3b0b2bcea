package main

import (
	"strings"
	"testing"
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
	if !consume(strings.NewReader(in), &tl) {
		t.Fatal("a failing test was not reported as a failure")
	}
	if tl.passed != 1 || tl.failed != 1 || tl.skipped != 1 {
		t.Fatalf("tally = %+v, want 1 passed, 1 failed, 1 skipped", tl)
	}
}
