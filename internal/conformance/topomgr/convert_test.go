package topomgr

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	cadvisorapi "github.com/google/cadvisor/lib/model"
	tm "k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager/bitmask"

	ns "github.com/numascope/numascope/topomgr"
)

var discard = logr.Discard()

// kHint converts a numascope hint to the kubelet's.
func kHint(h ns.TopologyHint) tm.TopologyHint {
	if !h.HasAffinity {
		return tm.TopologyHint{Preferred: h.Preferred}
	}
	m, err := bitmask.NewBitMask(h.NUMANodeAffinity.Bits()...)
	if err != nil {
		panic(err)
	}
	return tm.TopologyHint{NUMANodeAffinity: m, Preferred: h.Preferred}
}

// nsHint converts a kubelet hint to numascope's.
func nsHint(h tm.TopologyHint) ns.TopologyHint {
	if h.NUMANodeAffinity == nil {
		return ns.AnyNUMAHint(h.Preferred)
	}
	m, err := ns.NewBitMask(h.NUMANodeAffinity.GetBits()...)
	if err != nil {
		panic(err)
	}
	return ns.NewHint(m, h.Preferred)
}

func kProviders(ps []ns.ProviderHints) []map[string][]tm.TopologyHint {
	var out []map[string][]tm.TopologyHint
	for _, p := range ps {
		if p == nil {
			out = append(out, nil)
			continue
		}
		m := map[string][]tm.TopologyHint{}
		for r, hints := range p {
			if hints == nil {
				m[r] = nil
				continue
			}
			l := []tm.TopologyHint{}
			for _, h := range hints {
				l = append(l, kHint(h))
			}
			m[r] = l
		}
		out = append(out, m)
	}
	return out
}

func cadvisorNodes(nodes []ns.NUMANode) []cadvisorapi.Node {
	var out []cadvisorapi.Node
	for _, n := range nodes {
		out = append(out, cadvisorapi.Node{Id: n.ID, Distances: n.Distances})
	}
	return out
}

// kubeletPolicy builds the kubelet's policy as NewManager would.
func kubeletPolicy(nodes []ns.NUMANode, policy string, options map[string]string) (tm.Policy, error) {
	opts, err := tm.NewPolicyOptions(discard, options)
	if err != nil {
		return nil, err
	}
	info, err := tm.NewNUMAInfo(cadvisorNodes(nodes), opts)
	if err != nil {
		return nil, err
	}
	switch policy {
	case ns.PolicyNone:
		return tm.NewNonePolicy(), nil
	case ns.PolicyBestEffort:
		return tm.NewBestEffortPolicy(info, opts), nil
	case ns.PolicyRestricted:
		return tm.NewRestrictedPolicy(info, opts), nil
	case ns.PolicySingleNumaNode:
		return tm.NewSingleNumaNodePolicy(info, opts), nil
	}
	return nil, fmt.Errorf("unknown policy %q", policy)
}

// numascopePolicy builds numascope's policy from the same input.
func numascopePolicy(nodes []ns.NUMANode, policy string, options map[string]string) (*ns.Policy, error) {
	opts, err := ns.NewPolicyOptions(options)
	if err != nil {
		return nil, err
	}
	info, err := ns.NewNUMAInfo(nodes, opts)
	if err != nil {
		return nil, err
	}
	return ns.NewPolicy(policy, info, opts)
}

func describe(nodes []ns.NUMANode, policy string, options map[string]string, providers []ns.ProviderHints) string {
	var b strings.Builder
	fmt.Fprintf(&b, "policy %s options %v\nnodes:", policy, options)
	for _, n := range nodes {
		fmt.Fprintf(&b, " %d%v", n.ID, n.Distances)
	}
	for i, p := range providers {
		fmt.Fprintf(&b, "\nprovider %d:", i)
		if p == nil {
			b.WriteString(" nil")
			continue
		}
		var names []string
		for r := range p {
			names = append(names, r)
		}
		sort.Strings(names)
		for _, r := range names {
			if p[r] == nil {
				fmt.Fprintf(&b, " %s=nil", r)
				continue
			}
			fmt.Fprintf(&b, " %s=%v", r, p[r])
		}
	}
	return b.String()
}

// diffMerge merges with both and returns a description of any difference.
func diffMerge(nodes []ns.NUMANode, policy string, options map[string]string, providers []ns.ProviderHints) string {
	kp, kerr := kubeletPolicy(nodes, policy, options)
	np, nerr := numascopePolicy(nodes, policy, options)
	if (kerr == nil) != (nerr == nil) {
		return fmt.Sprintf("%s\nkubelet error %v, numascope error %v", describe(nodes, policy, options, providers), kerr, nerr)
	}
	if kerr != nil {
		if !strings.HasPrefix(nerr.Error(), kerr.Error()) && !strings.Contains(nerr.Error(), kerr.Error()) {
			return fmt.Sprintf("%s\nkubelet error %q, numascope error %q", describe(nodes, policy, options, providers), kerr, nerr)
		}
		return ""
	}
	kh, kadmit := kp.Merge(discard, kProviders(providers))
	nh, nadmit := np.Merge(providers)
	if !nh.IsEqual(nsHint(kh)) || kadmit != nadmit {
		return fmt.Sprintf("%s\nkubelet %v admit %v\nnumascope %v admit %v", describe(nodes, policy, options, providers), nsHint(kh), kadmit, nh, nadmit)
	}
	return ""
}
