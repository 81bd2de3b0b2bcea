package conformance

import "strings"

// knownDisagreement is a difference between numascope and the kubelet that
// the differential tests found and statefile has not fixed yet. Tests skip
// (golden files) or count without failing (random states) exactly the
// differences listed here, and say which bug each one is.
type knownDisagreement struct {
	kind     string // checkpoint kind, "" for any
	contains string // substring of the difference's text
	bug      string
}

var knownDisagreements = []knownDisagreement{}

// knownBug returns the bug a difference is known as, or "".
func knownBug(kind, diff string) string {
	for _, k := range knownDisagreements {
		if (k.kind == "" || k.kind == kind) && strings.Contains(diff, k.contains) {
			return k.bug
		}
	}
	return ""
}
