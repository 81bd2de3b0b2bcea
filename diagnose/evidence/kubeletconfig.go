package evidence

import (
	"fmt"

	"github.com/numascope/numascope/topomgr"
)

// ParseKubeletConfig reads the kubelet's configuration in any form
// topomgr.ParseKubeletConfig detects (a KubeletConfiguration file, its
// wrappers, or the kubelet's command-line flags); name is the Source and
// starts every error.
func ParseKubeletConfig(name string, data []byte) (*topomgr.KubeletConfig, error) {
	if len(data) > maxEvidenceSize {
		return nil, fmt.Errorf("%s: %d bytes is larger than the %d-byte limit for a kubelet configuration", name, len(data), maxEvidenceSize)
	}
	c, err := topomgr.ParseKubeletConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (pass the kubelet's --config file, usually /var/lib/kubelet/config.yaml, /configz output, or its command line from ps auxww or systemctl cat kubelet)", name, err)
	}
	c.Source = name
	return c, nil
}

// mergeKubeletConfig layers next over base (nil when next is the first
// source) with the kubelet's precedence: flags win field by field, map
// flags replace the file's maps, feature gates merge per gate, files over
// files merge like its drop-ins (topomgr.KubeletConfig.Layer).
func mergeKubeletConfig(base, next *topomgr.KubeletConfig) *topomgr.KubeletConfig {
	return base.Layer(next)
}
