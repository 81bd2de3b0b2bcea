package diagnose

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/topomgr"
)

// simulation is numascope's Topology Manager model run on the hints the
// kubelet logged for one container (or pod).
type simulation struct {
	best     evidence.Hint
	admit    bool
	agree    *bool // nil when the log has no best hint to compare with
	inferred bool  // NUMA nodes taken from the hints, not from the machine
	report   *topomgr.MergeReport
}

// policyOptions returns the Topology Manager policy options from the
// configuration or from the kubelet's start-up log line.
func (d *diagnosis) policyOptions() map[string]string {
	if c := d.ev.Config; c != nil {
		return c.TopologyManagerPolicyOptions
	}
	for _, l := range d.ev.Logs {
		for _, s := range l.SignalsOf(evidence.SignalTopologyConfig) {
			var o struct {
				PreferClosestNUMA     bool
				MaxAllowableNUMANodes int
			}
			if json.Unmarshal([]byte(s.Fields["options"]), &o) == nil {
				m := map[string]string{}
				if o.PreferClosestNUMA {
					m[topomgr.PreferClosestNUMANodes] = "true"
				}
				if o.MaxAllowableNUMANodes > topomgr.DefaultMaxAllowableNUMANodes {
					m["max-allowable-numa-nodes"] = fmt.Sprint(o.MaxAllowableNUMANodes)
				}
				return m
			}
		}
	}
	return nil
}

// simulate merges the logged provider hints with the given policy. It
// returns nil when the policy or the NUMA layout is unknown.
func (d *diagnosis) simulate(policy string, c *evidence.ContainerAdmission) (*simulation, error) {
	if policy == "" || c == nil || len(c.Providers) == 0 {
		return nil, nil
	}
	var nodes []topomgr.NUMANode
	inferred := false
	if m := d.ev.Machine; m != nil {
		for _, n := range m.Nodes {
			nodes = append(nodes, topomgr.NUMANode{ID: n.ID, Distances: n.Distances})
		}
	} else {
		seen := map[int]bool{}
		for _, p := range c.Providers {
			for _, r := range p.Resources {
				for _, h := range r.Hints {
					for _, n := range h.NUMANodes {
						seen[n] = true
					}
				}
			}
		}
		if len(seen) == 0 {
			return nil, nil
		}
		ids := make([]int, 0, len(seen))
		for n := range seen {
			ids = append(ids, n)
		}
		sort.Ints(ids)
		for _, n := range ids {
			nodes = append(nodes, topomgr.NUMANode{ID: n})
		}
		inferred = true
	}
	opts, err := topomgr.NewPolicyOptions(d.policyOptions())
	if err != nil {
		return nil, err
	}
	if inferred {
		opts.PreferClosestNUMA = false // distances are unknown without the machine
	}
	info, err := topomgr.NewNUMAInfo(nodes, opts)
	if err != nil {
		return nil, err
	}
	pol, err := topomgr.NewPolicy(policy, info, opts)
	if err != nil {
		return nil, err
	}
	var providers []topomgr.ProviderHints
	for _, p := range c.Providers {
		if p.NoPreference {
			providers = append(providers, nil)
			continue
		}
		ph := topomgr.ProviderHints{}
		for _, r := range p.Resources {
			switch {
			case r.NoPreference:
				ph[r.Resource] = nil
			default:
				list := []topomgr.TopologyHint{}
				for _, h := range r.Hints {
					if h.NUMANodes == nil {
						list = append(list, topomgr.AnyNUMAHint(h.Preferred))
						continue
					}
					mask, err := topomgr.NewBitMask(h.NUMANodes...)
					if err != nil {
						return nil, err
					}
					list = append(list, topomgr.NewHint(mask, h.Preferred))
				}
				ph[r.Resource] = list
			}
		}
		providers = append(providers, ph)
	}
	rep := pol.Explain(providers)
	s := &simulation{admit: rep.Admit, inferred: inferred, report: rep}
	s.best = evidence.Hint{Preferred: rep.BestHint.Preferred}
	if rep.BestHint.HasAffinity {
		s.best.NUMANodes = rep.BestHint.NUMANodeAffinity.Bits()
		if s.best.NUMANodes == nil {
			s.best.NUMANodes = []int{}
		}
	}
	if c.BestHint != nil {
		agree := c.BestHint.Preferred == s.best.Preferred && sameNodes(c.BestHint.NUMANodes, s.best.NUMANodes)
		s.agree = &agree
	}
	return s, nil
}

func sameNodes(a, b []int) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return sameInts(a, b)
}
