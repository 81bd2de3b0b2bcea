package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The regeneration itself is TestCatalogueIsCurrent in the catalog
// package; here, the command's usage.
func TestRunUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no output file", nil},
		{"an argument", []string{"-out", "x.jsonl", "extra"}},
		{"an unknown flag", []string{"-outt", "x.jsonl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			assert.Equal(t, 2, run(tc.args, &out, &errOut))
			assert.Empty(t, out.String())
			assert.NotEmpty(t, errOut.String())
		})
	}
}
