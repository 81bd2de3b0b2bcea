package topomgr

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/utils/cpuset"

	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/statefile"
)

// NodeConfig is a node as the Topology Manager sees it: its topology, the
// restored state of its resource managers and its configuration.
type NodeConfig struct {
	Machine *Machine
	// CPU is the restored cpu_manager_state; nil or policy "none" means the
	// CPU manager offers no hints.
	CPU *statefile.CPUState
	// ReservedCPUs are the CPUs kept out of exclusive assignment
	// (reservedSystemCPUs).
	ReservedCPUs cpuset.CPUSet
	// Memory is the restored memory_manager_state; nil or policy "None"
	// means the memory manager offers no hints.
	Memory *statefile.MemoryState
	// Devices is the restored device checkpoint (may be nil).
	Devices *statefile.DeviceState
	// Allocatable gives the devices' NUMA nodes (may be nil).
	Allocatable *podresources.Allocatable
	Policy      string
	Scope       string
	Options     map[string]string
	Gates       FeatureGates
	// CPUPolicyOptions are the CPU manager's static policy options
	// (cpuManagerPolicyOptions).
	CPUPolicyOptions map[string]string
}

// NodeAdmission is an admission simulated on a node, with the account of why.
type NodeAdmission struct {
	*Admission
	// Account explains the outcome in sentences, most important first.
	Account []string `json:"account"`
	// Notes are caveats about the simulation's inputs.
	Notes []string `json:"notes,omitempty"`
}

// SimulateAdmission admits the pod on the node as the kubelet's Topology
// Manager would: providers in the kubelet's order (device, CPU, memory),
// each container (container scope) or the whole pod (pod scope) merged
// under the policy, allocations applied between containers.
func SimulateAdmission(pod *Pod, cfg NodeConfig) (*NodeAdmission, error) {
	if cfg.Machine == nil {
		return nil, fmt.Errorf("no machine topology: give a sysfs snapshot or a cAdvisor machine-info JSON")
	}
	if cfg.Scope == "" {
		cfg.Scope = ScopeContainer
	}
	if cfg.Policy == "" {
		cfg.Policy = PolicyNone
	}
	m, err := newManager(cfg.Machine.Nodes, cfg.Policy, cfg.Scope, cfg.Options, cfg.Gates)
	if err != nil {
		return nil, err
	}
	na := &NodeAdmission{}
	var ids []int
	for _, n := range cfg.Machine.Nodes {
		ids = append(ids, n.ID)
	}
	if cfg.Devices != nil || cfg.Allocatable != nil {
		dp, err := NewDeviceProvider(ids, cfg.Devices, cfg.Allocatable)
		if err != nil {
			return nil, err
		}
		m.AddHintProvider(dp)
		if cfg.Allocatable == nil {
			na.Notes = append(na.Notes, "no allocatable devices given: only devices named in the device checkpoint's allocations have known NUMA nodes")
		}
	}
	if cfg.CPU != nil && cfg.CPU.PolicyName == "static" {
		cp, err := newStaticCPUProvider(cfg.Machine, cfg.CPU, cfg.ReservedCPUs, cfg.Gates, cfg.CPUPolicyOptions, cfg.Policy)
		if err != nil {
			return nil, err
		}
		m.AddHintProvider(cp)
	} else {
		na.Notes = append(na.Notes, "CPU manager policy none (no static cpu_manager_state): it offers no CPU hints")
	}
	if cfg.Memory != nil && cfg.Memory.PolicyName == "Static" {
		mp, err := NewMemoryProvider(cfg.Memory, cfg.Gates)
		if err != nil {
			return nil, err
		}
		m.AddHintProvider(mp)
	} else {
		na.Notes = append(na.Notes, "memory manager policy None (no Static memory_manager_state): it offers no memory hints")
	}
	na.Admission = m.Admit(pod)
	if len(pod.Containers)+len(pod.InitContainers) > 1 && cfg.Scope == ScopeContainer {
		na.Notes = append(na.Notes, "later containers see the earlier containers' simulated allocations; CPUs within a multi-node affinity are taken from lower-numbered nodes first")
	}
	na.Account = account(na.Admission)
	return na, nil
}

// account turns an admission into sentences: the outcome, then for the
// step that failed which resources could not be satisfied where.
func account(a *Admission) []string {
	var out []string
	if a.Admit {
		out = append(out, fmt.Sprintf("admitted under %s/%s", a.Policy, a.Scope))
	} else {
		out = append(out, fmt.Sprintf("rejected: %s: %s", a.Reason, a.Message))
	}
	for _, s := range a.Steps {
		who := "the pod"
		if s.Container != "" {
			who = "container " + s.Container
		}
		if s.Merge == nil {
			if s.AllocateError != "" {
				out = append(out, fmt.Sprintf("%s: allocation failed: %s", who, s.AllocateError))
			}
			continue
		}
		r := s.Merge
		out = append(out, fmt.Sprintf("%s: best hint %s (%s)", who, r.BestHint.Describe(), r.Rule))
		if !r.Admit || s.AllocateError != "" {
			out = append(out, blockers(r, s.Answers)...)
		}
		if s.AllocateError != "" {
			out = append(out, fmt.Sprintf("%s: allocation failed: %s", who, s.AllocateError))
		}
	}
	return out
}

func nodesText(masks []BitMask) string {
	var parts []string
	for _, m := range masks {
		parts = append(parts, "{"+m.List()+"}")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// blockers says, per hint list, what it could offer and why no aligned
// placement exists.
func blockers(r *MergeReport, answers []ProviderAnswer) []string {
	var out []string
	name := func(l ResourceHints) string {
		p := fmt.Sprint(l.Provider)
		if l.Provider < len(answers) {
			p = answers[l.Provider].Provider
		}
		if l.Resource == "" {
			return p
		}
		return p + "/" + l.Resource
	}
	var prefSets [][]BitMask
	var prefNames []string
	for i, l := range r.Lists {
		hints := l.Hints
		if r.SingleNUMALists != nil {
			hints = r.SingleNUMALists[i]
		}
		switch l.Origin {
		case NoPossiblePlacement:
			out = append(out, fmt.Sprintf("%s: no possible placement on any NUMA node (not enough free)", name(l)))
			continue
		case NoPreferenceProvider, NoPreferenceResource:
			continue
		}
		var pref, other []BitMask
		anyPref := false
		for _, h := range hints {
			switch {
			case !h.HasAffinity && h.Preferred:
				anyPref = true
			case h.HasAffinity && h.Preferred:
				pref = append(pref, h.NUMANodeAffinity)
			case h.HasAffinity:
				other = append(other, h.NUMANodeAffinity)
			}
		}
		if anyPref {
			continue
		}
		if len(pref) == 0 {
			if r.SingleNUMALists != nil {
				out = append(out, fmt.Sprintf("%s: no preferred single-NUMA-node placement (single-numa-node keeps only those); it offered %s", name(l), nodesText(hintMasks(l.Hints))))
			} else {
				out = append(out, fmt.Sprintf("%s: no preferred placement is free; it fits only on %s, wider than the narrowest placement its capacity allows", name(l), nodesText(other)))
			}
			continue
		}
		prefSets = append(prefSets, pref)
		prefNames = append(prefNames, fmt.Sprintf("%s prefers %s", name(l), nodesText(pref)))
	}
	if len(prefSets) > 1 {
		common := map[BitMask]int{}
		for _, s := range prefSets {
			seen := map[BitMask]bool{}
			for _, m := range s {
				if !seen[m] {
					seen[m] = true
					common[m]++
				}
			}
		}
		shared := false
		for _, c := range common {
			if c == len(prefSets) {
				shared = true
			}
		}
		if !shared {
			sort.Strings(prefNames)
			out = append(out, strings.Join(prefNames, "; ")+": no NUMA mask is preferred by all of them")
		}
	}
	return out
}

func hintMasks(hs []TopologyHint) []BitMask {
	var out []BitMask
	for _, h := range hs {
		if h.HasAffinity {
			out = append(out, h.NUMANodeAffinity)
		}
	}
	return out
}
