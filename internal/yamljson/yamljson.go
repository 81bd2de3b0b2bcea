// Package yamljson turns an untrusted YAML or JSON document into JSON for
// encoding/json, with a value budget first: sigs.k8s.io/yaml.YAMLToJSON
// builds a generic tree of the whole document, 50-200 bytes a value, so a
// document is counted before it is converted, and JSON input is passed
// through untouched to be decoded straight into typed structs.
package yamljson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/numascope/numascope/internal/input"
	"sigs.k8s.io/yaml"
)

// ToJSON checks data's value budget (input.CheckValues, with label naming
// the input) and returns it as JSON: unchanged when it already is a JSON
// object or array, converted from YAML otherwise. Errors start with label.
func ToJSON(data []byte, label string) ([]byte, error) {
	if err := input.CheckValues(data, label, input.ValueBudget{}); err != nil {
		return nil, err
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t) { // YAML flow style ({a: 1}) is not JSON
		return t, nil
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not YAML or JSON: %w", label, err)
	}
	return js, nil
}

var (
	reYAMLKind  = regexp.MustCompile(`(?m)^kind:\s*["']?([A-Za-z]+)`)
	reJSONKind  = regexp.MustCompile(`"kind"\s*:\s*"([A-Za-z]+)"`)
	reItemEvent = regexp.MustCompile(`(?m)(?:^\s*-?\s*kind:\s*Event\s*$|"kind"\s*:\s*"Event")`)
)

// ObjectKind is the kind of the Kubernetes object a document starts with
// (its first top-level `kind:` in YAML, or its first "kind" in JSON), ""
// when it names none; events tells whether a List holds Events.
func ObjectKind(head []byte) (kind string, events bool) {
	if m := reYAMLKind.FindSubmatch(head); m != nil {
		kind = string(m[1])
	} else if t := bytes.TrimSpace(head); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		if m := reJSONKind.FindSubmatch(head); m != nil {
			kind = string(m[1])
		}
	}
	return kind, kind == "List" && reItemEvent.Match(head)
}
