package topomgr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/internal/jsonptr"
	"github.com/numascope/numascope/internal/yamljson"
)

// KubeletConfig is the part of a KubeletConfiguration (the kubelet's
// config.yaml, or the "kubeletconfig" object of /configz) that decides
// resource alignment. Fields the document does not set hold the kubelet's
// defaults; Set tells explicit values from defaults.
type KubeletConfig struct {
	TopologyManagerPolicy        string              `json:"topologyManagerPolicy"`
	TopologyManagerScope         string              `json:"topologyManagerScope"`
	TopologyManagerPolicyOptions map[string]string   `json:"topologyManagerPolicyOptions,omitempty"`
	CPUManagerPolicy             string              `json:"cpuManagerPolicy"`
	CPUManagerPolicyOptions      map[string]string   `json:"cpuManagerPolicyOptions,omitempty"`
	MemoryManagerPolicy          string              `json:"memoryManagerPolicy"`
	ReservedSystemCPUs           string              `json:"reservedSystemCPUs,omitempty"`
	ReservedMemory               []MemoryReservation `json:"reservedMemory,omitempty"`
	SystemReserved               map[string]string   `json:"systemReserved,omitempty"`
	KubeReserved                 map[string]string   `json:"kubeReserved,omitempty"`
	EvictionHard                 map[string]string   `json:"evictionHard,omitempty"`
	FeatureGates                 map[string]bool     `json:"featureGates,omitempty"`

	// Evidence: where the configuration was read and what it says itself.

	// Source is the file it was read from (set by the caller).
	Source string `json:"source,omitempty"`
	// Configz is set when the document was /configz output.
	Configz bool `json:"configz,omitempty"`
	// Set lists the top-level fields the document sets, sorted.
	Set []string `json:"set"`
	// Lines maps each top-level field to its line in the document (1-based).
	Lines map[string]int `json:"lines,omitempty"`
	// Warnings are what the kubelet accepts but ignores: a field written
	// in another case (the kubelet's decoder is case-sensitive and drops it).
	Warnings []string `json:"warnings,omitempty"`
}

// MemoryReservation is one reservedMemory entry.
type MemoryReservation struct {
	NumaNode int               `json:"numaNode"`
	Limits   map[string]string `json:"limits"`
}

// The kubelet's defaults (v1beta1 defaulting) for the fields KubeletConfig reads.
const (
	DefaultTopologyManagerPolicy = PolicyNone
	DefaultTopologyManagerScope  = ScopeContainer
	DefaultCPUManagerPolicy      = "none"
	DefaultMemoryManagerPolicy   = "None"
)

// kubeletConfigAPIVersion is the apiVersion the kubelet reads its
// configuration file in.
const kubeletConfigAPIVersion = "kubelet.config.k8s.io/v1beta1"

// kubeletConfigFields are the fields KubeletConfig reads, as the kubelet
// spells them.
var kubeletConfigFields = []string{"topologyManagerPolicy", "topologyManagerScope", "topologyManagerPolicyOptions",
	"cpuManagerPolicy", "cpuManagerPolicyOptions", "memoryManagerPolicy", "reservedSystemCPUs", "reservedMemory",
	"systemReserved", "kubeReserved", "evictionHard", "featureGates"}

// ParseKubeletConfig reads a KubeletConfiguration in YAML or JSON as the
// kubelet's DecodeKubeletConfiguration does: kind KubeletConfiguration and
// apiVersion kubelet.config.k8s.io/v1beta1 are required, keys are
// case-sensitive (a key written in another case is ignored, with a
// warning), and unset fields get the kubelet's defaults. /configz output
// ({"kubeletconfig": {...}}, which has no kind) is read the same way.
// Every top-level field the kubelet knows, also those numascope does not
// read, must hold the JSON its Go type accepts (kubeletConfigTypes): the
// kubelet refuses to start otherwise. Errors name the field with a JSON
// pointer.
func ParseKubeletConfig(data []byte) (*KubeletConfig, error) {
	js, err := yamljson.ToJSON(data, "kubelet configuration")
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(js, &top); err != nil || top == nil {
		return nil, fmt.Errorf("a KubeletConfiguration is a YAML mapping (pass the kubelet's --config file, usually /var/lib/kubelet/config.yaml)")
	}
	c := &KubeletConfig{}
	prefix, obj := "", json.RawMessage(js)
	if inner, ok := top["kubeletconfig"]; ok && len(top) == 1 { // /configz output
		top = nil
		if err := json.Unmarshal(inner, &top); err != nil || top == nil {
			return nil, fmt.Errorf("/kubeletconfig: want the configuration object of /configz output")
		}
		c.Configz, prefix, obj = true, "/kubeletconfig", inner
	} else {
		kind, version := stringField(top, "kind"), stringField(top, "apiVersion")
		switch {
		case kind == "":
			return nil, fmt.Errorf("/kind: missing: the kubelet refuses a configuration file without kind: KubeletConfiguration")
		case kind != "KubeletConfiguration":
			return nil, fmt.Errorf("/kind: %q is not KubeletConfiguration", kind)
		case version != kubeletConfigAPIVersion:
			return nil, fmt.Errorf("/apiVersion: %q: the kubelet reads only %s (it refuses to start otherwise)", version, kubeletConfigAPIVersion)
		}
	}
	if err := checkKubeletTypes(obj, prefix); err != nil {
		return nil, err
	}
	str := func(key string, dst *string) error {
		raw, ok := top[key]
		if !ok || isNull(raw) {
			return nil
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return fmt.Errorf("%s/%s: want a string", prefix, key)
		}
		return nil
	}
	strMap := func(key string, dst *map[string]string) error {
		raw, ok := top[key]
		if !ok || isNull(raw) {
			return nil
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("%s/%s: want a mapping of names to values", prefix, key)
		}
		*dst = map[string]string{}
		for k, v := range m {
			var s string
			if err := json.Unmarshal(v, &s); err != nil { // checkKubeletTypes refused it already
				return fmt.Errorf("%s/%s/%s: want a string", prefix, key, jsonptr.Escape(k))
			}
			(*dst)[k] = s
		}
		return nil
	}
	for _, err := range []error{
		str("topologyManagerPolicy", &c.TopologyManagerPolicy),
		str("topologyManagerScope", &c.TopologyManagerScope),
		str("cpuManagerPolicy", &c.CPUManagerPolicy),
		str("memoryManagerPolicy", &c.MemoryManagerPolicy),
		str("reservedSystemCPUs", &c.ReservedSystemCPUs),
		strMap("topologyManagerPolicyOptions", &c.TopologyManagerPolicyOptions),
		strMap("cpuManagerPolicyOptions", &c.CPUManagerPolicyOptions),
		strMap("systemReserved", &c.SystemReserved),
		strMap("kubeReserved", &c.KubeReserved),
		strMap("evictionHard", &c.EvictionHard),
	} {
		if err != nil {
			return nil, err
		}
	}
	if c.ReservedSystemCPUs != "" {
		if _, err := cpulist.Parse(c.ReservedSystemCPUs); err != nil {
			return nil, fmt.Errorf("reservedSystemCPUs %s: %w", quoteCut(c.ReservedSystemCPUs), err)
		}
	}
	if raw, ok := top["featureGates"]; ok && !isNull(raw) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("%s/featureGates: want a mapping of gate names to true/false", prefix)
		}
		c.FeatureGates = map[string]bool{}
		for k, v := range m {
			var b bool
			if err := json.Unmarshal(v, &b); err != nil { // checkKubeletTypes refused it already
				return nil, fmt.Errorf("%s/featureGates/%s: want true or false, got %s", prefix, jsonptr.Escape(k), cutBytes(v))
			}
			c.FeatureGates[k] = b
		}
	}
	if raw, ok := top["reservedMemory"]; ok && !isNull(raw) {
		// Keys by exact case, as the kubelet's decoder reads them
		// (encoding/json would match NumaNode to numaNode).
		var list []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("%s/reservedMemory: want a list of {numaNode, limits}", prefix)
		}
		for i, r := range list {
			var node int32
			if v, ok := r["numaNode"]; ok {
				if err := json.Unmarshal(v, &node); err != nil {
					return nil, fmt.Errorf("%s/reservedMemory/%d/numaNode: %s is not a NUMA node (an int32): the kubelet refuses to start", prefix, i, cutBytes(v))
				}
			} // a missing numaNode (or a null entry) is NUMA node 0, as the kubelet reads it
			var limits map[string]json.RawMessage
			if v, ok := r["limits"]; ok {
				if err := json.Unmarshal(v, &limits); err != nil {
					return nil, fmt.Errorf("%s/reservedMemory/%d/limits: %s is not a mapping of resource names to quantities: the kubelet refuses to start", prefix, i, cutBytes(v))
				}
			}
			mr := MemoryReservation{NumaNode: int(node), Limits: map[string]string{}}
			for k, v := range limits {
				// As resource.Quantity's UnmarshalJSON: null is zero, quotes
				// are cut off (escapes are not decoded), spaces trimmed.
				s := string(v)
				if s == "null" {
					s = "0"
				} else if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
					s = s[1 : len(s)-1]
				}
				s = strings.TrimSpace(s)
				if _, err := ParseQuantity(s); err != nil {
					return nil, fmt.Errorf("%s/reservedMemory/%d/limits/%s: %w", prefix, i, jsonptr.Escape(k), err)
				}
				mr.Limits[k] = s
			}
			c.ReservedMemory = append(c.ReservedMemory, mr)
		}
	}
	for k := range top {
		c.Set = append(c.Set, k)
		for _, f := range kubeletConfigFields {
			if k != f && strings.EqualFold(k, f) {
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s/%s: the kubelet's decoder is case-sensitive and ignores this key; write %s", prefix, jsonptr.Escape(k), f))
			}
		}
	}
	sort.Strings(c.Set)
	sort.Strings(c.Warnings)
	c.Lines = topLevelLines(data, c.Set)
	c.setDefaults()
	return c, nil
}

func (c *KubeletConfig) setDefaults() {
	if c.TopologyManagerPolicy == "" {
		c.TopologyManagerPolicy = DefaultTopologyManagerPolicy
	}
	if c.TopologyManagerScope == "" {
		c.TopologyManagerScope = DefaultTopologyManagerScope
	}
	if c.CPUManagerPolicy == "" {
		c.CPUManagerPolicy = DefaultCPUManagerPolicy
	}
	if c.MemoryManagerPolicy == "" {
		c.MemoryManagerPolicy = DefaultMemoryManagerPolicy
	}
}

// IsSet reports whether the document sets the top-level field.
func (c *KubeletConfig) IsSet(field string) bool {
	i := sort.SearchStrings(c.Set, field)
	return i < len(c.Set) && c.Set[i] == field
}

// Line returns the line of a top-level field in the document, or 0.
func (c *KubeletConfig) Line(field string) int { return c.Lines[field] }

// EffectiveTopologyPolicy returns the topology manager policy; a nil
// configuration has the kubelet's default.
func (c *KubeletConfig) EffectiveTopologyPolicy() string {
	if c == nil || c.TopologyManagerPolicy == "" {
		return DefaultTopologyManagerPolicy
	}
	return c.TopologyManagerPolicy
}

// EffectiveTopologyScope returns the topology manager scope, defaulted.
func (c *KubeletConfig) EffectiveTopologyScope() string {
	if c == nil || c.TopologyManagerScope == "" {
		return DefaultTopologyManagerScope
	}
	return c.TopologyManagerScope
}

// EffectiveCPUManagerPolicy returns the CPU manager policy, defaulted.
func (c *KubeletConfig) EffectiveCPUManagerPolicy() string {
	if c == nil || c.CPUManagerPolicy == "" {
		return DefaultCPUManagerPolicy
	}
	return c.CPUManagerPolicy
}

// EffectiveMemoryManagerPolicy returns the memory manager policy, defaulted.
func (c *KubeletConfig) EffectiveMemoryManagerPolicy() string {
	if c == nil || c.MemoryManagerPolicy == "" {
		return DefaultMemoryManagerPolicy
	}
	return c.MemoryManagerPolicy
}

// Gates returns the default feature gates with the configuration's
// overrides for the gates topomgr models.
func (c *KubeletConfig) Gates() FeatureGates {
	g := DefaultFeatureGates()
	if c == nil {
		return g
	}
	if v, ok := c.FeatureGates["TopologyManagerPolicyAlphaOptions"]; ok {
		g.TopologyManagerPolicyAlphaOptions = v
	}
	if v, ok := c.FeatureGates["TopologyManagerPolicyBetaOptions"]; ok {
		g.TopologyManagerPolicyBetaOptions = v
	}
	if v, ok := c.FeatureGates["PodLevelResourceManagers"]; ok {
		g.PodLevelResourceManagers = v
	}
	return g
}

func stringField(top map[string]json.RawMessage, key string) string {
	var s string
	if raw, ok := top[key]; ok {
		if json.Unmarshal(raw, &s) != nil {
			s = strings.TrimSpace(string(raw))
		}
	}
	return s
}

// topLevelLines finds the line of each top-level key: a YAML line starting
// with the key and a colon, or the first `"key":` of a JSON document.
func topLevelLines(data []byte, keys []string) map[string]int {
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	out := map[string]int{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		s := string(line)
		t := strings.TrimLeft(s, " \t{,")
		for _, q := range []string{`"`, `'`, ""} {
			if !strings.HasPrefix(t, q) {
				continue
			}
			rest := t[len(q):]
			k, _, ok := strings.Cut(rest, q+":")
			if q == "" {
				k, _, ok = strings.Cut(rest, ":")
			}
			if ok && want[k] && out[k] == 0 && (len(s)-len(strings.TrimLeft(s, " \t")) == 0 || strings.HasPrefix(strings.TrimSpace(s), `"`)) {
				out[k] = i + 1
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func cutBytes(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

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
// against kubeletConfigTypes: a value the field's Go type does not accept
// makes the kubelet refuse to start, in its strict and its lenient pass.
// Unknown keys are left alone (the lenient pass ignores them).
func checkKubeletTypes(obj []byte, prefix string) error {
	return eachMember(obj, func(key string, val json.RawMessage) error {
		t, ok := kubeletConfigTypes[key]
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
