package topomgr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/numascope/numascope/internal/jsonptr"
	"sort"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/cpulist"
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
// Errors name the field with a JSON pointer.
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
	prefix := ""
	if inner, ok := top["kubeletconfig"]; ok && len(top) == 1 { // /configz output
		top = nil
		if err := json.Unmarshal(inner, &top); err != nil || top == nil {
			return nil, fmt.Errorf("/kubeletconfig: want the configuration object of /configz output")
		}
		c.Configz, prefix = true, "/kubeletconfig"
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
			if json.Unmarshal(v, &s) != nil {
				s = strings.TrimSpace(string(v)) // numbers and booleans written bare
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
			if err := json.Unmarshal(v, &b); err != nil {
				var s string
				if json.Unmarshal(v, &s) == nil {
					if pb, perr := strconv.ParseBool(s); perr == nil {
						c.FeatureGates[k] = pb
						continue
					}
				}
				return nil, fmt.Errorf("%s/featureGates/%s: want true or false, got %s", prefix, jsonptr.Escape(k), cutBytes(v))
			}
			c.FeatureGates[k] = b
		}
	}
	if raw, ok := top["reservedMemory"]; ok && !isNull(raw) {
		var list []struct {
			NumaNode *int                       `json:"numaNode"`
			Limits   map[string]json.RawMessage `json:"limits"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("%s/reservedMemory: want a list of {numaNode, limits}", prefix)
		}
		for i, r := range list {
			if r.NumaNode == nil {
				return nil, fmt.Errorf("%s/reservedMemory/%d/numaNode: missing (each entry names a NUMA node)", prefix, i)
			}
			mr := MemoryReservation{NumaNode: *r.NumaNode, Limits: map[string]string{}}
			for k, v := range r.Limits {
				var s string
				if json.Unmarshal(v, &s) != nil {
					s = strings.TrimSpace(string(v))
				}
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
