package diagnose

import (
	"fmt"
	"maps"
	"slices"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// simulateAdmission admits the pod with topomgr's hint providers and
// Topology Manager on the node described by the state files, the machine
// topology and the configuration. It returns nil when the evidence is not
// enough to build the node.
func (d *diagnosis) simulateAdmission(p *topomgr.Pod, policy, scope string) (*topomgr.NodeAdmission, error) {
	if p == nil || d.ev.Machine == nil || policy == "" {
		return nil, nil
	}
	states := 0
	for _, k := range []statefile.Kind{statefile.KindCPU, statefile.KindMemory, statefile.KindDevice} {
		if f := d.ev.State(k); f != nil && (f.CPU != nil || f.Memory != nil || f.Device != nil) {
			states++
		}
	}
	if states == 0 {
		return nil, nil
	}
	cfg, err := d.ev.NodeConfig(evidence.NodeSettings{Policy: policy, Scope: scope, Options: d.policyOptions()})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.ev.Config.Source, err)
	}
	return topomgr.SimulateAdmission(p, cfg)
}

// fromTopomgr converts a simulated admission step into the logged-hints form.
func fromTopomgr(step topomgr.AdmissionStep) *evidence.ContainerAdmission {
	c := &evidence.ContainerAdmission{Container: step.Container}
	for _, a := range step.Answers {
		ph := evidence.ProviderHints{Provider: a.Provider}
		if len(a.Hints) == 0 {
			ph.NoPreference = true
			ph.EmptyMap = a.Hints != nil
		}
		for _, res := range slices.Sorted(maps.Keys(a.Hints)) {
			list := a.Hints[res]
			rh := evidence.ResourceHints{Resource: res, NoPreference: list == nil, Impossible: list != nil && len(list) == 0}
			for _, h := range list {
				hh := evidence.Hint{Preferred: h.Preferred}
				if h.HasAffinity {
					hh.NUMANodes = h.NUMANodeAffinity.Bits()
				}
				rh.Hints = append(rh.Hints, hh)
			}
			ph.Resources = append(ph.Resources, rh)
		}
		c.Providers = append(c.Providers, ph)
	}
	if step.Merge != nil {
		b := evidence.Hint{Preferred: step.Merge.BestHint.Preferred}
		if step.Merge.BestHint.HasAffinity {
			b.NUMANodes = step.Merge.BestHint.NUMANodeAffinity.Bits()
		}
		c.BestHint = &b
	}
	return c
}
