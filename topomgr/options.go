package topomgr

import (
	"fmt"
	"slices"
	"strconv"
)

// Policy option names (KubeletConfiguration topologyManagerPolicyOptions)
// and the kubelet's NUMA node limit when max-allowable-numa-nodes is not set.
const (
	PreferClosestNUMANodes       = "prefer-closest-numa-nodes"
	MaxAllowableNUMANodes        = "max-allowable-numa-nodes"
	DefaultMaxAllowableNUMANodes = 8
)

// maturity is the graduation level of a policy option.
type maturity string

// Maturity levels.
const (
	alpha  maturity = "alpha"
	beta   maturity = "beta"
	stable maturity = "GA"
)

// optionMaturity lists every policy option the kubelet 1.37 knows and its
// maturity: both options are GA there.
var optionMaturity = map[string]maturity{
	PreferClosestNUMANodes: stable,
	MaxAllowableNUMANodes:  stable,
}

// FeatureGates are the kubelet feature gates that change what the Topology
// Manager accepts or does.
type FeatureGates struct {
	// TopologyManagerPolicyAlphaOptions allows alpha options (default off).
	TopologyManagerPolicyAlphaOptions bool
	// TopologyManagerPolicyBetaOptions allows beta options (default on).
	TopologyManagerPolicyBetaOptions bool
	// PodLevelResourceManagers makes pods with pod-level resources
	// (spec.resources) go through the pod-level admission paths (beta, default off in 1.37).
	PodLevelResourceManagers bool
	// CPUManagerPolicyAlphaOptions allows the CPU manager's alpha options
	// (align-by-socket, distribute-cpus-across-cores; default off).
	CPUManagerPolicyAlphaOptions bool
	// CPUManagerPolicyBetaOptions allows its beta options
	// (distribute-cpus-across-numa; default on).
	CPUManagerPolicyBetaOptions bool
	// KubeletVersion is the kubelet release whose option table and error
	// texts apply ("1.30", "v1.30.4"; 1.28 to 1.37, "" for the newest). The
	// gates' defaults are the same in all of them.
	KubeletVersion string
}

// DefaultFeatureGates returns the kubelet 1.37 defaults.
func DefaultFeatureGates() FeatureGates {
	return FeatureGates{TopologyManagerPolicyBetaOptions: true, CPUManagerPolicyBetaOptions: true}
}

// PolicyOptions are the parsed Topology Manager policy options.
type PolicyOptions struct {
	// PreferClosestNUMA breaks ties between equally wide masks by the
	// average NUMA distance (best-effort and restricted only).
	PreferClosestNUMA bool
	// MaxAllowableNUMANodes is the largest NUMA node count the kubelet
	// accepts with a policy other than none.
	MaxAllowableNUMANodes int
}

// checkPolicyOptionAvailable returns the kubelet's error for an unknown
// option or one whose maturity gate is off.
func checkPolicyOptionAvailable(option string, gates FeatureGates, rel topologyRelease) error {
	m, ok := rel.options[option]
	if !ok {
		return fmt.Errorf("unknown Topology Manager Policy option: %q", option)
	}
	if m == alpha && !gates.TopologyManagerPolicyAlphaOptions {
		if rel.oldTexts {
			//lint:ignore ST1005 kubelet 1.28 to 1.32 word the error so
			return fmt.Errorf("Topology Manager Policy Alpha-level Options not enabled, but option %q provided", option)
		}
		return fmt.Errorf("topology manager policy alpha-level options not enabled, but option %q provided", option)
	}
	if m == beta && !gates.TopologyManagerPolicyBetaOptions {
		if rel.oldTexts {
			//lint:ignore ST1005 kubelet 1.28 to 1.32 word the error so
			return fmt.Errorf("Topology Manager Policy Beta-level Options not enabled, but option %q provided", option)
		}
		return fmt.Errorf("topology manager policy beta-level options not enabled, but option %q provided", option)
	}
	return nil
}

// NewPolicyOptions parses policy options as the kubelet 1.37 does, with the
// default feature gates, or as the given ones and their KubeletVersion do. Options are checked in name
// order, so with several bad options the error is deterministic (the
// kubelet's is not).
func NewPolicyOptions(options map[string]string, gates ...FeatureGates) (PolicyOptions, error) {
	g := DefaultFeatureGates()
	if len(gates) > 0 {
		g = gates[0]
	}
	return newPolicyOptions(options, g)
}

func newPolicyOptions(options map[string]string, gates FeatureGates) (PolicyOptions, error) {
	opts := PolicyOptions{MaxAllowableNUMANodes: DefaultMaxAllowableNUMANodes}
	rel, err := topologyReleaseOf(gates.KubeletVersion)
	if err != nil {
		return opts, err
	}
	names := make([]string, 0, len(options))
	for k := range options {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		value := options[name]
		if err := checkPolicyOptionAvailable(name, gates, rel); err != nil {
			return opts, err
		}
		switch name {
		case PreferClosestNUMANodes:
			v, err := strconv.ParseBool(value)
			if err != nil {
				return opts, fmt.Errorf("bad value for option %q: %w", name, err)
			}
			opts.PreferClosestNUMA = v
		case MaxAllowableNUMANodes:
			v, err := strconv.Atoi(value)
			if err != nil {
				return opts, fmt.Errorf("unable to convert policy option to integer %q: %w", name, err)
			}
			if v < DefaultMaxAllowableNUMANodes {
				return opts, fmt.Errorf("the minimum value of %q should not be less than %v", name, DefaultMaxAllowableNUMANodes)
			}
			opts.MaxAllowableNUMANodes = v
		}
	}
	return opts, nil
}
