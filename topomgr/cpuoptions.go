package topomgr

import (
	"fmt"
	"slices"
	"strconv"
)

// The CPU manager static policy options (KubeletConfiguration
// cpuManagerPolicyOptions) of kubelet 1.37, and their maturity there:
// full-pcpus-only, strict-cpu-reservation and
// prefer-align-cpus-by-uncorecache are GA, distribute-cpus-across-numa is
// beta (gate CPUManagerPolicyBetaOptions, default on), align-by-socket and
// distribute-cpus-across-cores are alpha (gate CPUManagerPolicyAlphaOptions,
// default off).
const (
	cpuFullPCPUsOnly             = "full-pcpus-only"
	cpuDistributeAcrossNUMA      = "distribute-cpus-across-numa"
	cpuAlignBySocket             = "align-by-socket"
	cpuDistributeAcrossCores     = "distribute-cpus-across-cores"
	cpuStrictReservation         = "strict-cpu-reservation"
	cpuPreferAlignByUncoreCache  = "prefer-align-cpus-by-uncorecache"
	errorSMTAlignment            = "SMTAlignmentError"
	cpuManagerPolicyAlphaOptions = "CPUManagerPolicyAlphaOptions"
	cpuManagerPolicyBetaOptions  = "CPUManagerPolicyBetaOptions"
)

var cpuOptionMaturity = map[string]maturity{
	cpuFullPCPUsOnly:            stable,
	cpuStrictReservation:        stable,
	cpuPreferAlignByUncoreCache: stable,
	cpuDistributeAcrossNUMA:     beta,
	cpuAlignBySocket:            alpha,
	cpuDistributeAcrossCores:    alpha,
}

// cpuPolicyOptions are the parsed static policy options. What each changes
// in what numascope answers:
//   - full-pcpus-only: admission fails with SMTAlignmentError when the
//     request is not a multiple of the CPUs per core, or when more CPUs are
//     requested than the free CPUs of cores that hold no reserved CPU;
//   - align-by-socket: hints whose NUMA nodes span as few sockets as the
//     request needs are preferred too, and aligned CPUs are taken from the
//     whole sockets of the chosen NUMA nodes;
//   - strict-cpu-reservation: the reserved CPUs are not in the shared pool
//     (a fresh state's defaultCpuSet leaves them out, and a restored one
//     must not hold them);
//   - distribute-cpus-across-numa, distribute-cpus-across-cores,
//     prefer-align-cpus-by-uncorecache: they choose which CPUs are taken,
//     never the hints or whether the pod is admitted (the kubelet's
//     allocation fails on the same count of free CPUs either way).
type cpuPolicyOptions struct {
	FullPhysicalCPUsOnly      bool
	DistributeCPUsAcrossNUMA  bool
	AlignBySocket             bool
	DistributeCPUsAcrossCores bool
	StrictCPUReservation      bool
	PreferAlignByUncoreCache  bool
}

// newCPUPolicyOptions parses the options as the kubelet's
// NewStaticPolicyOptions does, with its error texts. Options are checked
// in name order, so that with several bad options the error is
// deterministic (the kubelet's is not).
func newCPUPolicyOptions(options map[string]string, gates FeatureGates) (cpuPolicyOptions, error) {
	var o cpuPolicyOptions
	names := make([]string, 0, len(options))
	for k := range options {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		m, ok := cpuOptionMaturity[name]
		switch {
		case !ok:
			return o, fmt.Errorf("unknown CPU Manager Policy option: %q", name)
		case m == alpha && !gates.CPUManagerPolicyAlphaOptions:
			return o, fmt.Errorf("CPU Manager Policy Alpha-level Options not enabled, but option %q provided", name)
		case m == beta && !gates.CPUManagerPolicyBetaOptions:
			return o, fmt.Errorf("CPU Manager Policy Beta-level Options not enabled, but option %q provided", name)
		}
		v, err := strconv.ParseBool(options[name])
		if err != nil {
			return o, fmt.Errorf("bad value for option %q: %w", name, err)
		}
		switch name {
		case cpuFullPCPUsOnly:
			o.FullPhysicalCPUsOnly = v
		case cpuDistributeAcrossNUMA:
			o.DistributeCPUsAcrossNUMA = v
		case cpuAlignBySocket:
			o.AlignBySocket = v
		case cpuDistributeAcrossCores:
			o.DistributeCPUsAcrossCores = v
		case cpuStrictReservation:
			o.StrictCPUReservation = v
		case cpuPreferAlignByUncoreCache:
			o.PreferAlignByUncoreCache = v
		}
	}
	conflict := func(a, b string) error {
		return fmt.Errorf("static policy options %s and %s can not be used at the same time", a, b)
	}
	switch {
	case o.FullPhysicalCPUsOnly && o.DistributeCPUsAcrossCores:
		return o, conflict(cpuFullPCPUsOnly, cpuDistributeAcrossCores)
	case o.DistributeCPUsAcrossNUMA && o.DistributeCPUsAcrossCores:
		return o, conflict(cpuDistributeAcrossNUMA, cpuDistributeAcrossCores)
	case o.PreferAlignByUncoreCache && o.DistributeCPUsAcrossCores:
		return o, conflict(cpuPreferAlignByUncoreCache, cpuDistributeAcrossCores)
	case o.PreferAlignByUncoreCache && o.DistributeCPUsAcrossNUMA:
		return o, conflict(cpuPreferAlignByUncoreCache, cpuDistributeAcrossNUMA)
	}
	return o, nil
}

// smtAlignmentError is the kubelet's cpumanager SMTAlignmentError: the
// admission fails with reason SMTAlignmentError and this message.
type smtAlignmentError struct {
	RequestedCPUs         int
	CpusPerCore           int
	AvailablePhysicalCPUs int
	CausedByPhysicalCPUs  bool
}

func (e smtAlignmentError) Error() string {
	if e.CausedByPhysicalCPUs {
		return fmt.Sprintf("SMT Alignment Error: not enough free physical CPUs: available physical CPUs = %d, requested CPUs = %d, CPUs per core = %d", e.AvailablePhysicalCPUs, e.RequestedCPUs, e.CpusPerCore)
	}
	return fmt.Sprintf("SMT Alignment Error: requested %d cpus not multiple cpus per core = %d", e.RequestedCPUs, e.CpusPerCore)
}

// Type is the admission failure reason.
func (e smtAlignmentError) Type() string { return errorSMTAlignment }
