package catalog

import "strings"

// Piece is one part of a format string: literal text, or one verb.
type Piece struct {
	// Lit is the literal text (with %% already read as %) when Verb is "".
	Lit string
	// Verb is the whole verb as written ("%v", "%-10s", "%[2]d"); Char is
	// its letter ('v', 's', 'd', ...).
	Verb string
	Char byte
}

// ParseFormat splits a fmt format string into literal pieces and verbs, as
// fmt reads it: flags, width, precision and argument indexes belong to the
// verb, %% is a literal %, and a % at the end stays literal.
func ParseFormat(format string) []Piece {
	var out []Piece
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, Piece{Lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(format); {
		c := format[i]
		if c != '%' {
			j := strings.IndexByte(format[i:], '%')
			if j < 0 {
				j = len(format) - i
			}
			lit.WriteString(format[i : i+j])
			i += j
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("+-# 0", format[j]) >= 0 {
			j++
		}
		// width, precision and [n] argument indexes, in any order fmt accepts.
		for j < len(format) {
			d := format[j]
			switch {
			case d >= '0' && d <= '9' || d == '.' || d == '*':
				j++
				continue
			case d == '[':
				if k := strings.IndexByte(format[j:], ']'); k > 0 {
					j += k + 1
					continue
				}
			}
			break
		}
		if j >= len(format) {
			lit.WriteString(format[i:])
			break
		}
		if format[j] == '%' && j == i+1 {
			lit.WriteByte('%')
			i = j + 1
			continue
		}
		flush()
		// a verb is one rune; the kubelet's are ASCII, and a non-ASCII byte
		// is taken as a verb of its own to stay in step.
		out = append(out, Piece{Verb: format[i : j+1], Char: format[j]})
		i = j + 1
	}
	flush()
	return out
}

// EscapeFormat returns text as a format string that prints it: each % doubled.
func EscapeFormat(text string) string { return strings.ReplaceAll(text, "%", "%%") }

// Verbs returns the verbs of a format string in order.
func Verbs(format string) []string {
	var out []string
	for _, p := range ParseFormat(format) {
		if p.Verb != "" {
			out = append(out, p.Verb)
		}
	}
	return out
}
