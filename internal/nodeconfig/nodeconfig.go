// Package nodeconfig assembles a topomgr.NodeConfig from what is known of a
// node, the one way examples/admit, the playground's simulation and
// diagnose's admission simulation do it: explicit values first, then the
// kubelet configuration's, then the kubelet's defaults.
package nodeconfig

import (
	"fmt"
	"strconv"

	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// Input is what is known of the node. Empty fields take the kubelet
// configuration's value; a nil Kubelet means the kubelet's defaults.
type Input struct {
	Machine *topomgr.Machine
	Kubelet *topomgr.KubeletConfig
	// Policy, Scope and Options of the Topology Manager.
	Policy, Scope string
	Options       map[string]string
	// CPUPolicyOptions are the CPU manager's static policy options.
	CPUPolicyOptions map[string]string
	// ReservedCPUs is a reservedSystemCPUs list ("0-1").
	ReservedCPUs string
	CPU          *statefile.CPUState
	Memory       *statefile.MemoryState
	Devices      *statefile.DeviceState
	Allocatable  *podresources.Allocatable
}

// Build returns the node's configuration. Its only error is a reserved CPU
// list that is not one (over cpulist's bounds included); it names the field
// and the value.
func Build(in Input) (topomgr.NodeConfig, error) {
	cfg := topomgr.NodeConfig{Machine: in.Machine, Policy: in.Policy, Scope: in.Scope, Options: in.Options,
		CPU: in.CPU, Memory: in.Memory, Devices: in.Devices, Allocatable: in.Allocatable, Gates: in.Kubelet.Gates(),
		CPUPolicyOptions: in.CPUPolicyOptions}
	reserved := in.ReservedCPUs
	if kc := in.Kubelet; kc != nil {
		if cfg.Policy == "" {
			cfg.Policy = kc.TopologyManagerPolicy
		}
		if cfg.Scope == "" {
			cfg.Scope = kc.TopologyManagerScope
		}
		if cfg.Options == nil {
			cfg.Options = kc.TopologyManagerPolicyOptions
		}
		if cfg.CPUPolicyOptions == nil {
			cfg.CPUPolicyOptions = kc.CPUManagerPolicyOptions
		}
		if reserved == "" {
			reserved = kc.ReservedSystemCPUs
		}
	}
	if cfg.Policy == "" {
		cfg.Policy = topomgr.DefaultTopologyManagerPolicy
	}
	if cfg.Scope == "" {
		cfg.Scope = topomgr.DefaultTopologyManagerScope
	}
	if reserved != "" {
		set, err := cpulist.Parse(reserved)
		if err != nil {
			return cfg, fmt.Errorf("reservedSystemCPUs %s: %w", quote(reserved), err)
		}
		cfg.ReservedCPUs = set
	}
	return cfg, nil
}

func quote(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:60]) + "..."
	}
	return strconv.Quote(s)
}
