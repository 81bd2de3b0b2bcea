// Package words renders counts in plain English for the reports of every
// numascope command and package: "1 pod", "2 pods", "0 signals".
package words

import "strconv"

// Count renders n with its noun: one is the singular; many is the plural
// when it is not one+"s" ("1 entry", "3 entries").
func Count(n int, one string, many ...string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + one
	}
	if len(many) > 0 {
		return strconv.Itoa(n) + " " + many[0]
	}
	return strconv.Itoa(n) + " " + one + "s"
}
