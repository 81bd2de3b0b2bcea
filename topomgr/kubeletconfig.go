package topomgr

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/internal/yamljson"
)

// KubeletConfig is the part of a KubeletConfiguration (the kubelet's
// config.yaml) that decides topology alignment.
type KubeletConfig struct {
	TopologyManagerPolicy        string            `json:"topologyManagerPolicy"`
	TopologyManagerScope         string            `json:"topologyManagerScope"`
	TopologyManagerPolicyOptions map[string]string `json:"topologyManagerPolicyOptions"`
	CPUManagerPolicy             string            `json:"cpuManagerPolicy"`
	MemoryManagerPolicy          string            `json:"memoryManagerPolicy"`
	ReservedSystemCPUs           string            `json:"reservedSystemCPUs"`
	FeatureGates                 map[string]bool   `json:"featureGates"`
}

// ParseKubeletConfig reads a KubeletConfiguration in YAML or JSON and fills
// in the kubelet's defaults: policy none, scope container, CPU manager
// none, memory manager None.
func ParseKubeletConfig(data []byte) (*KubeletConfig, error) {
	js, err := yamljson.ToJSON(data, "kubelet configuration")
	if err != nil {
		return nil, err
	}
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(js, &head); err != nil {
		return nil, fmt.Errorf("not a KubeletConfiguration: %w", err)
	}
	if head.Kind != "" && head.Kind != "KubeletConfiguration" {
		return nil, fmt.Errorf("kind: %q is not a KubeletConfiguration", head.Kind)
	}
	var c KubeletConfig
	if err := json.Unmarshal(js, &c); err != nil {
		return nil, fmt.Errorf("not a KubeletConfiguration: %w", err)
	}
	if c.ReservedSystemCPUs != "" {
		if _, err := cpulist.Parse(c.ReservedSystemCPUs); err != nil {
			return nil, fmt.Errorf("reservedSystemCPUs %s: %w", quoted(c.ReservedSystemCPUs), err)
		}
	}
	if c.TopologyManagerPolicy == "" {
		c.TopologyManagerPolicy = PolicyNone
	}
	if c.TopologyManagerScope == "" {
		c.TopologyManagerScope = ScopeContainer
	}
	if c.CPUManagerPolicy == "" {
		c.CPUManagerPolicy = "none"
	}
	if c.MemoryManagerPolicy == "" {
		c.MemoryManagerPolicy = "None"
	}
	return &c, nil
}

// Gates returns the default feature gates with the configuration's
// overrides for the gates topomgr models.
func (c *KubeletConfig) Gates() FeatureGates {
	g := DefaultFeatureGates()
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

// quoted quotes s for an error message, cut to a readable length.
func quoted(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:60]) + "..."
	}
	return strconv.Quote(s)
}
