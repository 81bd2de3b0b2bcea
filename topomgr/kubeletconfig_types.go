package topomgr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/numascope/numascope/internal/jsonptr"
)

// jsonKind is the JSON a Go type of the kubelet's configuration accepts.
type jsonKind uint8

const (
	kindString   jsonKind = iota + 1 // a JSON string
	kindBool                         // true or false
	kindInteger                      // a JSON integer in the range of an int of Bits (Unsigned: uint)
	kindNumber                       // any JSON number a float of Bits holds
	kindObject                       // a struct or a map; a map's values are Elem
	kindArray                        // a slice; its elements are Elem
	kindDuration                     // metav1.Duration: a string time.ParseDuration accepts
	kindQuantity                     // resource.Quantity: a string or number ParseQuantity accepts
)

// kubeletType is the JSON one field (or one map value or slice element) of
// the kubelet's KubeletConfiguration accepts, as encoding/json (the
// kubelet's sigs.k8s.io/json) decodes it into the field's Go type.
// kubeletField is one row of kubeletConfigTable: a table of static data,
// not a map, so that the browser engine carries no code to build it.
type kubeletField struct {
	Name string
	Type kubeletType
}

// kubeletConfigType finds a top-level KubeletConfiguration field by its
// exact JSON name.
func kubeletConfigType(name string) (*kubeletType, bool) {
	i := sort.Search(len(kubeletConfigTable), func(i int) bool { return kubeletConfigTable[i].Name >= name })
	if i < len(kubeletConfigTable) && kubeletConfigTable[i].Name == name {
		return &kubeletConfigTable[i].Type, true
	}
	return nil, false
}

type kubeletType struct {
	Kind jsonKind
	// Go is the Go type, as the kubelet's error names it (pointers removed).
	Go string
	// Pointer: the Go type is a pointer (null leaves it nil, even for a
	// Duration, whose UnmarshalJSON refuses null otherwise).
	Pointer bool
	// Bits and Unsigned give an integer's or float's range.
	Bits     int
	Unsigned bool
	// Elem describes a map's values and a slice's elements (nil for structs).
	Elem *kubeletType
}

// checkKubeletTypes checks each member of the configuration object obj
// (duplicates included, in order, as the kubelet's decoder sees them)
// against kubeletConfigTable: a value the field's Go type does not accept
// makes the kubelet refuse to start, in its strict and its lenient pass.
// Unknown keys are left alone (the lenient pass ignores them).
func checkKubeletTypes(obj []byte, prefix string) error {
	return eachMember(obj, func(key string, val json.RawMessage) error {
		t, ok := kubeletConfigType(key)
		if !ok {
			return nil
		}
		return t.check(val, prefix+"/"+jsonptr.Escape(key), key)
	})
}

// check checks val against t; path names it, field is the top-level field
// the kubelet's error names.
func (t *kubeletType) check(val json.RawMessage, path, field string) error {
	val = bytes.TrimSpace(val)
	if len(val) == 0 {
		return nil
	}
	refuse := func(what, reason string) error {
		return fmt.Errorf("%s: %s is not %s: the kubelet refuses to start (%q)", path, cutBytes(val), what, reason)
	}
	mismatch := func(what, value string) error {
		return refuse(what, fmt.Sprintf("json: cannot unmarshal %s into Go struct field KubeletConfiguration.%s of type %s", value, field, t.Go))
	}
	var got string
	switch val[0] {
	case 'n':
		if t.Kind == kindDuration && !t.Pointer {
			return refuse("a duration", `time: invalid duration ""`)
		}
		return nil // null leaves the field as it is
	case '"':
		got = "string"
	case 't', 'f':
		got = "bool"
	case '{':
		got = "object"
	case '[':
		got = "array"
	default:
		got = "number"
	}
	switch t.Kind {
	case kindString:
		if got != "string" {
			return mismatch("a string", got)
		}
	case kindBool:
		if got != "bool" {
			return mismatch("true or false", got)
		}
	case kindInteger:
		if got != "number" {
			return mismatch("an integer", got)
		}
		var err error
		if t.Unsigned {
			_, err = strconv.ParseUint(string(val), 10, t.Bits)
		} else {
			_, err = strconv.ParseInt(string(val), 10, t.Bits)
		}
		if err != nil {
			return mismatch(fmt.Sprintf("an integer that fits %s", t.Go), "number "+string(val))
		}
	case kindNumber:
		if got != "number" {
			return mismatch("a number", got)
		}
		if _, err := strconv.ParseFloat(string(val), t.Bits); err != nil {
			return mismatch(fmt.Sprintf("a number that fits %s", t.Go), "number "+string(val))
		}
	case kindDuration:
		if got != "string" {
			return refuse("a duration", fmt.Sprintf("json: cannot unmarshal %s into Go struct field KubeletConfiguration.%s of type string", got, field))
		}
		var s string
		if err := json.Unmarshal(val, &s); err != nil {
			return refuse("a duration", err.Error())
		}
		if _, err := time.ParseDuration(s); err != nil {
			return refuse("a duration", err.Error())
		}
	case kindQuantity:
		s := string(val)
		if got == "string" {
			if err := json.Unmarshal(val, &s); err != nil {
				return refuse("a quantity", err.Error())
			}
		} else if got != "number" {
			return refuse("a quantity", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
		}
		if _, err := ParseQuantity(strings.TrimSpace(s)); err != nil {
			return refuse("a quantity", err.Error())
		}
	case kindObject:
		if got != "object" {
			return mismatch("a mapping", got)
		}
		if t.Elem != nil {
			return eachMember(val, func(key string, v json.RawMessage) error {
				return t.Elem.check(v, path+"/"+jsonptr.Escape(key), field)
			})
		}
	case kindArray:
		if got != "array" {
			return mismatch("a list", got)
		}
		if t.Elem != nil {
			return eachElement(val, func(i int, v json.RawMessage) error {
				return t.Elem.check(v, fmt.Sprintf("%s/%d", path, i), field)
			})
		}
	}
	return nil
}

// eachMember calls fn for each member of the JSON object obj, in order,
// duplicate keys included.
func eachMember(obj []byte, fn func(key string, val json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil // not an object: the callers refuse it themselves
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil
		}
		if err := fn(key, val); err != nil {
			return err
		}
	}
	return nil
}

// eachElement calls fn for each element of the JSON array arr.
func eachElement(arr []byte, fn func(i int, val json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(arr))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil
	}
	for i := 0; dec.More(); i++ {
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil
		}
		if err := fn(i, val); err != nil {
			return err
		}
	}
	return nil
}
