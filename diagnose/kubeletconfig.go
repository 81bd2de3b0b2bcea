package diagnose

import (
	"encoding/json"
	"fmt"
	"github.com/numascope/numascope/topomgr"
	"sort"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/internal/yamljson"
)

// KubeletConfig is the part of a KubeletConfiguration that decides resource
// alignment. Fields hold the values as written; Set records which top-level
// fields the file sets, so defaults can be told apart from explicit values.
type KubeletConfig struct {
	Source                       string              `json:"source"`
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
	// Set lists the top-level fields present in the file, sorted.
	Set []string `json:"set"`
}

// MemoryReservation is one reservedMemory entry.
type MemoryReservation struct {
	NumaNode int               `json:"numaNode"`
	Limits   map[string]string `json:"limits"`
}

// Defaults of the kubelet when a field is not set.
const (
	DefaultTopologyManagerPolicy = "none"
	DefaultTopologyManagerScope  = "container"
	DefaultCPUManagerPolicy      = "none"
	DefaultMemoryManagerPolicy   = "None"
)

// IsSet reports whether the file sets the top-level field.
func (c *KubeletConfig) IsSet(field string) bool {
	for _, f := range c.Set {
		if f == field {
			return true
		}
	}
	return false
}

// ParseKubeletConfig reads a KubeletConfiguration in YAML or JSON (the file
// passed with --config, or the "kubeletconfig" object of /configz output).
func ParseKubeletConfig(name string, data []byte) (*KubeletConfig, error) {
	if len(data) > maxEvidenceSize {
		return nil, fmt.Errorf("%s: %d bytes is larger than the %d-byte limit for a kubelet configuration", name, len(data), maxEvidenceSize)
	}
	js, err := yamljson.ToJSON(data, name)
	if err != nil {
		return nil, fmt.Errorf("%w (pass the kubelet's --config file, usually /var/lib/kubelet/config.yaml)", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(js, &top); err != nil || top == nil {
		return nil, fmt.Errorf("%s: a KubeletConfiguration must be a YAML mapping (pass the kubelet's --config file, usually /var/lib/kubelet/config.yaml)", name)
	}
	if inner, ok := top["kubeletconfig"]; ok { // /configz output
		if err := json.Unmarshal(inner, &top); err != nil {
			return nil, fmt.Errorf("%s: /kubeletconfig: %w", name, err)
		}
	}
	if k, ok := top["kind"]; ok {
		var kind string
		_ = json.Unmarshal(k, &kind)
		if kind != "KubeletConfiguration" {
			return nil, fmt.Errorf("%s: /kind: %q is not KubeletConfiguration", name, kind)
		}
	}
	c := &KubeletConfig{Source: name}
	str := func(key string, dst *string) error {
		raw, ok := top[key]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return fmt.Errorf("%s: /%s: want a string: %w", name, key, err)
		}
		return nil
	}
	strMap := func(key string, dst *map[string]string) error {
		raw, ok := top[key]
		if !ok || string(raw) == "null" {
			return nil
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("%s: /%s: want a mapping of names to values: %w", name, key, err)
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
	for _, f := range []error{
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
		if f != nil {
			return nil, f
		}
	}
	if c.ReservedSystemCPUs != "" {
		if _, err := cpulist.Parse(c.ReservedSystemCPUs); err != nil {
			return nil, fmt.Errorf("%s: reservedSystemCPUs %s: %w", name, strconv.Quote(cutForError(c.ReservedSystemCPUs)), err)
		}
	}
	if raw, ok := top["featureGates"]; ok && string(raw) != "null" {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("%s: /featureGates: want a mapping of gate names to true/false: %w", name, err)
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
				return nil, fmt.Errorf("%s: /featureGates/%s: want true or false, got %s", name, jsonPointerEscape(k), v)
			}
			c.FeatureGates[k] = b
		}
	}
	if raw, ok := top["reservedMemory"]; ok && string(raw) != "null" {
		var list []struct {
			NumaNode *int                       `json:"numaNode"`
			Limits   map[string]json.RawMessage `json:"limits"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("%s: /reservedMemory: want a list of {numaNode, limits}: %w", name, err)
		}
		for i, r := range list {
			if r.NumaNode == nil {
				return nil, fmt.Errorf("%s: /reservedMemory/%d/numaNode: missing (each entry names a NUMA node)", name, i)
			}
			mr := MemoryReservation{NumaNode: *r.NumaNode, Limits: map[string]string{}}
			for k, v := range r.Limits {
				var s string
				if json.Unmarshal(v, &s) != nil {
					s = strings.TrimSpace(string(v))
				}
				if _, err := topomgr.ParseQuantity(s); err != nil {
					return nil, fmt.Errorf("%s: /reservedMemory/%d/limits/%s: %w", name, i, jsonPointerEscape(k), err)
				}
				mr.Limits[k] = s
			}
			c.ReservedMemory = append(c.ReservedMemory, mr)
		}
	}
	for k := range top {
		c.Set = append(c.Set, k)
	}
	sort.Strings(c.Set)
	return c, nil
}

// EffectiveTopologyPolicy returns the topology manager policy, defaulted.
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

// cutForError cuts a value quoted in an error to a readable length.
func cutForError(s string) string {
	if len(s) > 64 {
		return s[:60] + "..."
	}
	return s
}
