package main

import (
	"os"
	"regexp"
	"testing"
)

// diagnoseCodes reads the finding codes that package diagnose declares.
func diagnoseCodes(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../diagnose/finding.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^\s+Code\w+\s*=\s*"(\w+)"`).FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	if len(out) < 10 {
		t.Fatalf("found only %d codes in diagnose/finding.go", len(out))
	}
	return out
}
