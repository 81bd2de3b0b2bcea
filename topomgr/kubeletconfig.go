package topomgr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/internal/jsonptr"
)

// KubeletConfig is the part of a KubeletConfiguration (the kubelet's
// config.yaml, /configz, a wrapper that carries one, or the kubelet's
// command-line flags) that decides resource alignment. Fields the source
// does not set hold the kubelet's defaults; Set tells explicit values from
// defaults.
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

	// Source is the file it was read from (set by the caller); layered
	// sources are joined with ", " (SourceOf names the one of a field).
	Source string `json:"source,omitempty"`
	// Format is the form it was read in: "file" (a KubeletConfiguration),
	// "configz", "configmap", "openshift-kubeletconfig", "talos", "k3s",
	// "kubeadm", "kind", "nodeadm", or command-line flags: "flags", "ps", "cmdline",
	// "systemd", "env-file", "flag-dump". Layered sources join theirs
	// with "+".
	Format string `json:"format,omitempty"`
	// Configz is set when the document was /configz output.
	Configz bool `json:"configz,omitempty"`
	// ConfigFile is the path the command line's --config names.
	ConfigFile string `json:"configFile,omitempty"`
	// KubeletRefuses is the kubelet's own error when it would not start
	// with this source (a file without kind/apiVersion as its --config, a
	// flag value its flag parsing refuses); "" when it would start.
	KubeletRefuses string `json:"kubeletRefuses,omitempty"`
	// Set lists the fields the source sets, sorted (for a file, every
	// top-level key; for flags, the fields they set).
	Set []string `json:"set"`
	// Lines maps each field to its line in the source (1-based).
	Lines map[string]int `json:"lines,omitempty"`
	// Warnings are what the kubelet accepts but ignores or reads otherwise
	// than a reader might expect (a key in another case, a repeated flag,
	// a value a later source overrides), each with its position.
	Warnings []string `json:"warnings,omitempty"`

	fromFlags   bool              // read from a command line: Layer applies flag precedence
	fieldSource map[string]string // field -> Source, after Layer
	tagged      bool              // Warnings start with their source's name (after Layer)
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
	defaultCPUManagerPolicy      = "none"
	defaultMemoryManagerPolicy   = "None"
)

// kubeletConfigAPIVersion is the apiVersion the kubelet reads its
// configuration file in.
const kubeletConfigAPIVersion = "kubelet.config.k8s.io/v1beta1"

// kubeletConfigFields are the fields KubeletConfig reads, as the kubelet
// spells them.
var kubeletConfigFields = []string{"topologyManagerPolicy", "topologyManagerScope", "topologyManagerPolicyOptions",
	"cpuManagerPolicy", "cpuManagerPolicyOptions", "memoryManagerPolicy", "reservedSystemCPUs", "reservedMemory",
	"systemReserved", "kubeReserved", "evictionHard", "featureGates"}

// errNotKubeletConfig is the refusal of a document that holds no kubelet
// configuration where one is carried.
var errNotKubeletConfig = errors.New("not a KubeletConfiguration: no recognised kubelet fields at any known wrapper path " +
	"(a KubeletConfiguration file, /configz output, an OpenShift KubeletConfig's spec.kubeletConfig, a Talos machine.kubelet, " +
	"k3s/RKE2 kubelet-arg, kubeadm's KubeletConfiguration document or kubeletExtraArgs, EKS nodeadm spec.kubelet; or the kubelet's --flags)")

// ParseKubeletConfig reads the kubelet's configuration from what people
// have of it, detected from content:
//   - a KubeletConfiguration in YAML or JSON, read as the kubelet's
//     DecodeKubeletConfiguration does: keys are case-sensitive (a key in
//     another case is ignored, with a warning), unset fields get the
//     kubelet's defaults, and every top-level field the kubelet knows
//     must hold the JSON its Go type accepts (kubeletConfigTable; errors
//     name the field with a JSON pointer). A file without kind or with
//     another apiVersion is read, and KubeletRefuses holds the kubelet's
//     error for it. Only the first YAML document is read, as the kubelet
//     reads it (a "..." or "---" line followed by more is a warning);
//   - the wrappers that carry one: /configz ({"kubeletconfig": ...}, or
//     "componentconfig" before 1.16), an OpenShift KubeletConfig
//     (spec.kubeletConfig), a Talos machine config (machine.kubelet
//     extraConfig and extraArgs), a k3s/RKE2 config (kubelet-arg), kubeadm
//     documents (the KubeletConfiguration document, and
//     nodeRegistration.kubeletExtraArgs as flags), a kind cluster's
//     kubeadmConfigPatches, an EKS nodeadm NodeConfig (spec.kubelet),
//     kubeadm's kubelet-config ConfigMap (data.kubelet), and a kubectl
//     List of any of these;
//   - the kubelet's command line in any pasted form (one line, \
//     continuations, ps output, /proc/PID/cmdline, systemctl cat kubelet,
//     kubeadm-flags.env, minikube --extra-config, the kubelet's FLAG: dump,
//     flags quoted in prose), read with pflag's rules.
//
// Flags are layered over configuration fields as the kubelet does (see
// Layer). Text with none of these is refused.
func ParseKubeletConfig(data []byte) (*KubeletConfig, error) {
	c, mapping, yamlErr, err := parseKubeletDocuments(data)
	if err != nil {
		return nil, err
	}
	if c != nil {
		c.setDefaults()
		c.capWarnings()
		return c, nil
	}
	fc, ferr := parseKubeletFlagText(data)
	if fc != nil {
		if yamlErr != nil && looksLikeConfigYAML(data) {
			fc.Warnings = append(fc.Warnings, fmt.Sprintf("the text also holds KubeletConfiguration fields that could not be read as YAML (%v): only the flags were read; pass the file and the flags as separate sources", yamlErr))
		}
		fc.capWarnings()
		return fc, nil
	}
	switch {
	case mapping != "":
		if mapping != "mapping" {
			return nil, fmt.Errorf("%w; %s", errNotKubeletConfig, mapping)
		}
		return nil, errNotKubeletConfig
	case yamlErr != nil && looksLikeConfigYAML(data):
		return nil, yamlErr
	case yamlErr != nil && strings.Contains(yamlErr.Error(), "YAML mapping"):
		return nil, fmt.Errorf("%w; %v", ferr, yamlErr)
	}
	return nil, ferr
}

// parseConfigObject reads the KubeletConfiguration fields of the JSON
// object obj (prefix is its JSON pointer in the document d).
func parseConfigObject(obj json.RawMessage, prefix string, d *decodedDoc) (*KubeletConfig, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(obj, &top); err != nil || top == nil {
		return nil, fmt.Errorf("%s: a KubeletConfiguration is a YAML mapping", prefix)
	}
	c := &KubeletConfig{}
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
		if _, known := kubeletConfigType(k); known {
			continue
		}
		cased := false
		for i := range kubeletConfigTable {
			if f := kubeletConfigTable[i].Name; strings.EqualFold(k, f) {
				cased = true
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s/%s: the kubelet's decoder is case-sensitive and ignores this key; write %s", prefix, jsonptr.Escape(k), f))
				break
			}
		}
		if !cased {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s/%s: not a KubeletConfiguration field: the kubelet ignores it (it logs \"Using lenient decoding as strict decoding failed\")", prefix, jsonptr.Escape(k)))
		}
	}
	sort.Strings(c.Set)
	sort.Strings(c.Warnings)
	if d != nil {
		c.Lines = fieldLines(d.text, c.Set, prefix != "", d.first)
	}
	return c, nil
}

// maxConfigWarnings bounds the warnings kept of one source.
const maxConfigWarnings = 50

// capWarnings keeps the first warnings and counts the rest.
func (c *KubeletConfig) capWarnings() {
	if n := len(c.Warnings); n > maxConfigWarnings {
		c.Warnings = append(c.Warnings[:maxConfigWarnings-1:maxConfigWarnings-1], fmt.Sprintf("and %d more warnings", n-maxConfigWarnings+1))
	}
}

func (c *KubeletConfig) setDefaults() {
	if c.TopologyManagerPolicy == "" {
		c.TopologyManagerPolicy = DefaultTopologyManagerPolicy
	}
	if c.TopologyManagerScope == "" {
		c.TopologyManagerScope = DefaultTopologyManagerScope
	}
	if c.CPUManagerPolicy == "" {
		c.CPUManagerPolicy = defaultCPUManagerPolicy
	}
	if c.MemoryManagerPolicy == "" {
		c.MemoryManagerPolicy = defaultMemoryManagerPolicy
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
		return defaultCPUManagerPolicy
	}
	return c.CPUManagerPolicy
}

// EffectiveMemoryManagerPolicy returns the memory manager policy, defaulted.
func (c *KubeletConfig) EffectiveMemoryManagerPolicy() string {
	if c == nil || c.MemoryManagerPolicy == "" {
		return defaultMemoryManagerPolicy
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
	if v, ok := c.FeatureGates[cpuManagerPolicyAlphaOptions]; ok {
		g.CPUManagerPolicyAlphaOptions = v
	}
	if v, ok := c.FeatureGates[cpuManagerPolicyBetaOptions]; ok {
		g.CPUManagerPolicyBetaOptions = v
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

// fieldLines finds the line of each key: a YAML line starting with the
// key and a colon, or the first `"key":` of a JSON document; top-level
// only unless nested. first is the line of data's first line.
func fieldLines(data []byte, keys []string, nested bool, first int) map[string]int {
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
			if ok && want[k] && out[k] == 0 && (nested || len(s)-len(strings.TrimLeft(s, " \t")) == 0 || strings.HasPrefix(strings.TrimSpace(s), `"`)) {
				out[k] = first + i
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
