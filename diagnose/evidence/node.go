package evidence

import (
	"fmt"
	"strconv"

	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// NodeSettings are the Topology Manager settings a caller gives over the
// evidence (a flag, a field of a request). An empty field takes the kubelet
// configuration's value, then the kubelet's default; a nil map takes the
// configuration's.
type NodeSettings struct {
	// Policy, Scope and Options of the Topology Manager.
	Policy, Scope string
	Options       map[string]string
	// CPUPolicyOptions are the CPU manager's static policy options.
	CPUPolicyOptions map[string]string
	// ReservedCPUs is a reservedSystemCPUs list ("0-1").
	ReservedCPUs string
}

// NodeConfig is the node the evidence describes, for
// topomgr.SimulateAdmission: the machine topology, the first cpu, memory
// and device checkpoints, the PodResources allocatable answer and the
// kubelet configuration's feature gates, with the settings of s first,
// then the configuration's, then the kubelet's defaults. It says nothing
// about whether the kubelet restores the checkpoints: callers that refuse
// such a file check statefile.File.KubeletAccepts. Its only error is a
// reserved CPU list that is not one (over cpulist's bounds included),
// naming the field and the value.
func (e *Set) NodeConfig(s NodeSettings) (topomgr.NodeConfig, error) {
	kc := e.Config
	cfg := topomgr.NodeConfig{Machine: e.Machine, Policy: s.Policy, Scope: s.Scope, Options: s.Options,
		CPUPolicyOptions: s.CPUPolicyOptions, Gates: kc.Gates()}
	if f := e.State(statefile.KindCPU); f != nil {
		cfg.CPU = f.CPU
	}
	if f := e.State(statefile.KindMemory); f != nil {
		cfg.Memory = f.Memory
	}
	if f := e.State(statefile.KindDevice); f != nil {
		cfg.Devices = f.Device
	}
	if e.PodResources != nil {
		cfg.Allocatable = e.PodResources.Allocatable
	}
	reserved := s.ReservedCPUs
	if kc != nil {
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
			return cfg, fmt.Errorf("reservedSystemCPUs %s: %w", quoteShort(reserved), err)
		}
		cfg.ReservedCPUs = set
	}
	return cfg, nil
}

// quoteShort quotes s, cut to 60 bytes when it is longer than 64.
func quoteShort(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:60]) + "..."
	}
	return strconv.Quote(s)
}
