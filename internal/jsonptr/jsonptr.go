// Package jsonptr writes JSON pointers (RFC 6901), the paths numascope's
// errors and evidence references use.
package jsonptr

import "strings"

// Escape escapes one reference token: "~" becomes "~0" and "/" "~1".
func Escape(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// Split splits a JSON pointer ("/a/b~1c") into its unescaped reference
// tokens; ok is false for a string that is no pointer (it does not start
// with "/"). The empty pointer, the whole document, has no token.
func Split(p string) (tokens []string, ok bool) {
	if p == "" {
		return nil, true
	}
	if !strings.HasPrefix(p, "/") {
		return nil, false
	}
	tokens = strings.Split(p[1:], "/")
	for i, s := range tokens {
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return tokens, true
}

// Describe names the place a pointer points at for a sentence: the
// pointer itself, or "the top-level object" for the empty pointer.
func Describe(p string) string {
	if p == "" {
		return "the top-level object"
	}
	return p
}
