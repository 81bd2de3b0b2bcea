package catalog_test

import (
	"fmt"

	"github.com/numascope/numascope/diagnose/evidence/catalog"
)

// A kubelet that will not start: the innermost known error of the chain
// decides the finding, and its remedy names the flag the log names.
func ExampleResolve() {
	line := `E1202 03:15:00.123456    2741 run.go:72] "command failed" err="failed to run Kubelet: failed to parse kubelet flag: unknown flag: --cpu-manager"`
	for _, h := range catalog.Match(line) {
		c, at, ok := catalog.Resolve(&h)
		if !ok {
			continue
		}
		fmt.Println(c.Code, c.Severity, c.Cause)
		fmt.Println(at.Entry.Format)
		fmt.Println(c.Remedy(h)[:62])
	}
	// Output:
	// KubeletFlagInvalid error unknown-flag
	// unknown flag: --%s
	// Remove --cpu-manager from the kubelet's command line or move t
}

// Looking a class up by its entry: every catalogue entry has one.
func ExampleClassify() {
	for _, e := range catalog.Entries() {
		if e.Format != "checkpoint is corrupted" {
			continue
		}
		c, _ := catalog.Classify(e.ID)
		fmt.Println(c.Kind, c.Code, c.Severity)
	}
	// Output:
	// finding CorruptCheckpoint error
}
