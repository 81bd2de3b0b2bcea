// Package jsonptr writes JSON pointers (RFC 6901), the paths numascope's
// errors and evidence references use.
package jsonptr

import "strings"

// Escape escapes one reference token: "~" becomes "~0" and "/" "~1".
func Escape(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}
