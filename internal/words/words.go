// Package words renders counts in plain English for the reports of every
// numascope command and package: "1 pod", "2 pods", "0 signals".
package words

import (
	"strconv"
	"strings"
)

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

// Or returns s, or def when s is empty.
func Or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Clip cuts s to n bytes, marking the cut with "...".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// Ints lists numbers as "0, 1, 3", or "none".
func Ints(n []int) string {
	if len(n) == 0 {
		return "none"
	}
	s := make([]string, len(n))
	for i, v := range n {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}

// Nodes lists NUMA node ids as "0,1", or "any" for nil (the any-NUMA hint).
func Nodes(n []int) string {
	if n == nil {
		return "any"
	}
	s := make([]string, len(n))
	for i, v := range n {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}
