package input

import (
	"errors"
	"fmt"
)

// Budgets for documents decoded into Go values. Decoding JSON or YAML into
// maps, slices and interfaces takes 50-200 bytes a value: a 20 MB array of
// empty objects becomes gigabytes. A value budget bounds that, whatever the
// byte size.
const (
	MaxValues = 1 << 20 // values (objects, arrays, strings, numbers, literals) in one document
	MaxDepth  = 100     // nesting of objects and arrays
)

// ErrTooManyValues is wrapped when a document holds more values, or nests
// deeper, than its budget.
var ErrTooManyValues = errors.New("document over the value budget")

// ValueBudget bounds a document's values and nesting; zero fields mean
// MaxValues and MaxDepth.
type ValueBudget struct {
	MaxValues int
	MaxDepth  int
}

// CheckValues counts the values of a JSON document, or of a YAML document
// in its flow or block form, without decoding it, and refuses one over the
// budget. It is a cheap upper-bound count: for JSON every value is counted
// exactly; for YAML each line, list item, key and flow element counts as at
// least one value. Syntax errors are left to the decoder that follows.
// label names the input in the error.
func CheckValues(data []byte, label string, b ValueBudget) error {
	if b.MaxValues <= 0 {
		b.MaxValues = MaxValues
	}
	if b.MaxDepth <= 0 {
		b.MaxDepth = MaxDepth
	}
	values, depth, maxDepth := 0, 0, 0
	line := 1
	inString, escaped := false, false
	var quote byte
	lineHasValue := false
	for _, c := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\' && quote == '"':
				escaped = true
			case c == quote:
				inString = false
			case c == '\n':
				line++
			}
			continue
		}
		switch c {
		case '"', '\'':
			inString, quote = true, c
			if !lineHasValue {
				values++
				lineHasValue = true
			}
		case '{', '[':
			values++
			depth++
			if depth > maxDepth {
				maxDepth = depth
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		case ',', ':', '-', '&', '*':
			values++
		case '\n':
			line++
			lineHasValue = false
		case ' ', '\t', '\r':
		default:
			if !lineHasValue {
				values++
				lineHasValue = true
			}
		}
		if values > b.MaxValues {
			return fmt.Errorf("%s: line %d: %w: more than %d values; give only the objects that matter (one pod, one node's events)", label, line, ErrTooManyValues, b.MaxValues)
		}
		if maxDepth > b.MaxDepth {
			return fmt.Errorf("%s: line %d: %w: nested deeper than %d levels", label, line, ErrTooManyValues, b.MaxDepth)
		}
	}
	return nil
}
