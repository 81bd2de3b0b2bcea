package topomgr

import (
	"fmt"
	"maps"
	"sort"
	"strings"
)

// markSet records that field is set, at line (0: unknown).
func (c *KubeletConfig) markSet(field string, line int) {
	if !c.IsSet(field) {
		c.Set = append(c.Set, field)
		sort.Strings(c.Set)
	}
	if line > 0 {
		if c.Lines == nil {
			c.Lines = map[string]int{}
		}
		c.Lines[field] = line
	}
}

// stringField returns the string field named by its JSON name, or nil.
func (c *KubeletConfig) stringField(field string) *string {
	switch field {
	case "topologyManagerPolicy":
		return &c.TopologyManagerPolicy
	case "topologyManagerScope":
		return &c.TopologyManagerScope
	case "cpuManagerPolicy":
		return &c.CPUManagerPolicy
	case "memoryManagerPolicy":
		return &c.MemoryManagerPolicy
	case "reservedSystemCPUs":
		return &c.ReservedSystemCPUs
	}
	return nil
}

// mapField returns the map[string]string field named by its JSON name, or nil.
func (c *KubeletConfig) mapField(field string) *map[string]string {
	switch field {
	case "topologyManagerPolicyOptions":
		return &c.TopologyManagerPolicyOptions
	case "cpuManagerPolicyOptions":
		return &c.CPUManagerPolicyOptions
	case "systemReserved":
		return &c.SystemReserved
	case "kubeReserved":
		return &c.KubeReserved
	case "evictionHard":
		return &c.EvictionHard
	}
	return nil
}

// flagOf names the flag that sets a field.
func flagOf(field string) string {
	for name, f := range kubeletFlags {
		if f.Field == field {
			return "--" + name
		}
	}
	return field
}

// SourceOf returns the source a field's value was read from: after Layer,
// the layer that set it last; otherwise Source.
func (c *KubeletConfig) SourceOf(field string) string {
	if c == nil {
		return ""
	}
	if s, ok := c.fieldSource[field]; ok && s != "" {
		return s
	}
	return c.Source
}

// where describes the source and line of a field, for warnings.
func (c *KubeletConfig) where(field string) string {
	s := c.SourceOf(field)
	if s == "" {
		s = "the configuration"
		if c.fromFlags {
			s = "the command line"
		}
	}
	if l := c.Lines[field]; l > 0 {
		s = fmt.Sprintf("%s line %d", s, l)
	}
	return s
}

func (c *KubeletConfig) clone() *KubeletConfig {
	out := *c
	copyMap := func(m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		return maps.Clone(m)
	}
	out.TopologyManagerPolicyOptions = copyMap(c.TopologyManagerPolicyOptions)
	out.CPUManagerPolicyOptions = copyMap(c.CPUManagerPolicyOptions)
	out.SystemReserved = copyMap(c.SystemReserved)
	out.KubeReserved = copyMap(c.KubeReserved)
	out.EvictionHard = copyMap(c.EvictionHard)
	if c.FeatureGates != nil {
		out.FeatureGates = maps.Clone(c.FeatureGates)
	}
	out.ReservedMemory = nil
	for _, r := range c.ReservedMemory {
		out.ReservedMemory = append(out.ReservedMemory, MemoryReservation{NumaNode: r.NumaNode, Limits: copyMap(r.Limits)})
	}
	out.Set = append([]string(nil), c.Set...)
	out.Warnings = append([]string(nil), c.Warnings...)
	out.Lines = maps.Clone(c.Lines)
	out.fieldSource = maps.Clone(c.fieldSource)
	return &out
}

func fmtMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func fmtReservations(rs []MemoryReservation) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%d:%s", r.NumaNode, strings.Trim(fmtMap(r.Limits), "{}")))
	}
	return strings.Join(parts, ";")
}

// Layer returns the configuration the kubelet runs with when over is
// applied on top of c (c nil: over alone), as the kubelet layers its
// sources: a command line (over read from flags) wins field by field,
// with map flags (--kube-reserved, --system-reserved, --eviction-hard,
// --topology-manager-policy-options, --cpu-manager-policy-options)
// replacing the whole map and --reserved-memory replacing reservedMemory,
// while feature gates merge per gate (kubeletConfigFlagPrecedence); a file
// over a file merges like the kubelet's drop-in JSON merge patch (maps per
// key, lists replaced, null removes). The result's Warnings name each
// value a later source overrode. Neither argument is changed.
func (c *KubeletConfig) Layer(over *KubeletConfig) *KubeletConfig {
	if over == nil {
		return c
	}
	if c == nil {
		return over.clone()
	}
	out := c.clone()
	if out.fieldSource == nil {
		out.fieldSource = map[string]string{}
	}
	for _, f := range out.Set {
		if out.fieldSource[f] == "" {
			out.fieldSource[f] = c.Source
		}
	}
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	by := over.where
	for _, f := range over.Set {
		was := out.IsSet(f)
		switch {
		case over.stringField(f) != nil:
			nv, ov := *over.stringField(f), *out.stringField(f)
			if was && nv != ov {
				note("%s: %q from %s overrides %q from %s", f, nv, by(f), ov, out.where(f))
			}
			*out.stringField(f) = nv
		case over.mapField(f) != nil:
			nm, om := *over.mapField(f), out.mapField(f)
			switch {
			case over.fromFlags:
				if was && !maps.Equal(*om, nm) {
					note("%s: %s from %s replaces the whole map from %s: %s becomes %s (a map flag does not merge with the file)", f, flagOf(f), by(f), out.where(f), fmtMap(*om), fmtMap(nm))
				}
				*om = maps.Clone(nm)
			case nm == nil: // null in a merge patch removes the field
				*om = nil
			default:
				if *om == nil {
					*om = map[string]string{}
				}
				for k, v := range nm {
					if old, ok := (*om)[k]; ok && old != v {
						note("%s/%s: %q from %s overrides %q from %s", f, k, v, by(f), old, out.where(f))
					}
					(*om)[k] = v
				}
			}
		case f == "featureGates":
			if over.FeatureGates == nil && !over.fromFlags {
				out.FeatureGates = nil
				break
			}
			if out.FeatureGates == nil {
				out.FeatureGates = map[string]bool{}
			}
			for k, v := range over.FeatureGates {
				if old, ok := out.FeatureGates[k]; ok && old != v {
					note("featureGates/%s: %t from %s overrides %t from %s", k, v, by(f), old, out.where(f))
				}
				out.FeatureGates[k] = v
			}
		case f == "reservedMemory":
			if was && fmtReservations(out.ReservedMemory) != fmtReservations(over.ReservedMemory) {
				note("reservedMemory: %s from %s replaces %s from %s", fmtReservations(over.ReservedMemory), by(f), fmtReservations(out.ReservedMemory), out.where(f))
			}
			out.ReservedMemory = nil
			for _, r := range over.ReservedMemory {
				out.ReservedMemory = append(out.ReservedMemory, MemoryReservation{NumaNode: r.NumaNode, Limits: maps.Clone(r.Limits)})
			}
		}
		out.fieldSource[f] = over.SourceOf(f)
		if out.Lines != nil {
			delete(out.Lines, f)
		}
		out.markSet(f, over.Lines[f])
	}
	if over.ConfigFile != "" {
		out.ConfigFile = over.ConfigFile
	}
	if out.KubeletRefuses == "" {
		out.KubeletRefuses = over.KubeletRefuses
	}
	out.Configz = out.Configz || over.Configz
	if c.Source != "" && over.Source != "" {
		// name each source's own warnings, now that there are several
		if !c.tagged {
			for i, w := range out.Warnings {
				out.Warnings[i] = c.Source + ": " + w
			}
		}
		ow := make([]string, len(over.Warnings))
		for i, w := range over.Warnings {
			ow[i] = w
			if !over.tagged {
				ow[i] = over.Source + ": " + w
			}
		}
		out.Warnings = append(append(out.Warnings, ow...), notes...)
		out.tagged = true
	} else {
		out.Warnings = append(append(out.Warnings, over.Warnings...), notes...)
	}
	if over.Source != "" && !strings.Contains(", "+out.Source+", ", ", "+over.Source+", ") {
		if out.Source != "" {
			out.Source += ", "
		}
		out.Source += over.Source
	}
	if over.Format != "" && out.Format != over.Format {
		if out.Format != "" {
			out.Format += "+"
		}
		out.Format += over.Format
	}
	out.fromFlags = c.fromFlags && over.fromFlags
	out.capWarnings()
	return out
}
