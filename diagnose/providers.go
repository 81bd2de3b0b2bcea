package diagnose

import (
	"fmt"

	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// toTopomgrPod converts a pod of the evidence.
func toTopomgrPod(p *Pod) *topomgr.Pod {
	conv := func(cs []Container) []topomgr.Container {
		var out []topomgr.Container
		for _, c := range cs {
			tc := topomgr.Container{Name: c.Name, Resources: topomgr.Resources{Requests: map[string]string{}, Limits: map[string]string{}}}
			if c.Restartable {
				tc.RestartPolicy = "Always"
			}
			for r, q := range c.Requests {
				tc.Resources.Requests[r] = q.String()
			}
			for r, q := range c.Limits {
				tc.Resources.Limits[r] = q.String()
			}
			out = append(out, tc)
		}
		return out
	}
	return &topomgr.Pod{Name: p.Name, Namespace: p.Namespace, UID: p.UID, InitContainers: conv(p.InitContainers), Containers: conv(p.Containers), QOSClass: p.QOSClass}
}

// simulateAdmission admits the pod with topomgr's hint providers and
// Topology Manager on the node described by the state files, the machine
// topology and the configuration. It returns nil when the evidence is not
// enough to build the node.
func (d *diagnosis) simulateAdmission(p *Pod, policy, scope string) (*topomgr.NodeAdmission, error) {
	if p == nil || d.ev.Machine == nil || policy == "" {
		return nil, nil
	}
	cfg := topomgr.NodeConfig{Machine: d.ev.Machine.Machine, Policy: policy, Scope: scope, Options: d.policyOptions(), Gates: topomgr.DefaultFeatureGates()}
	states := 0
	if f := d.ev.state(statefile.KindCPU); f != nil && f.CPU != nil {
		cfg.CPU = f.CPU
		states++
	}
	if f := d.ev.state(statefile.KindMemory); f != nil && f.Memory != nil {
		cfg.Memory = f.Memory
		states++
	}
	if f := d.ev.state(statefile.KindDevice); f != nil && f.Device != nil {
		cfg.Devices = f.Device
		states++
	}
	if states == 0 {
		return nil, nil
	}
	if pr := d.ev.PodResources; pr != nil {
		cfg.Allocatable = pr.Allocatable
	}
	if c := d.ev.Config; c != nil {
		if c.ReservedSystemCPUs != "" {
			r, err := cpulist.Parse(c.ReservedSystemCPUs)
			if err != nil {
				return nil, fmt.Errorf("%s: reservedSystemCPUs %q: %w", c.Source, c.ReservedSystemCPUs, err)
			}
			cfg.ReservedCPUs = r
		}
		if v, ok := c.FeatureGates["TopologyManagerPolicyAlphaOptions"]; ok {
			cfg.Gates.TopologyManagerPolicyAlphaOptions = v
		}
		if v, ok := c.FeatureGates["TopologyManagerPolicyBetaOptions"]; ok {
			cfg.Gates.TopologyManagerPolicyBetaOptions = v
		}
	}
	return topomgr.SimulateAdmission(toTopomgrPod(p), cfg)
}

// fromTopomgr converts a simulated admission step into the logged-hints form.
func fromTopomgr(step topomgr.AdmissionStep) *ContainerAdmission {
	c := &ContainerAdmission{Container: step.Container}
	for _, a := range step.Answers {
		ph := ProviderHints{Provider: a.Provider}
		if len(a.Hints) == 0 {
			ph.NoPreference = true
			ph.EmptyMap = a.Hints != nil
		}
		for _, res := range sortedKeys(a.Hints) {
			list := a.Hints[res]
			rh := ResourceHints{Resource: res, NoPreference: list == nil, Impossible: list != nil && len(list) == 0}
			for _, h := range list {
				hh := Hint{Preferred: h.Preferred}
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
		b := Hint{Preferred: step.Merge.BestHint.Preferred}
		if step.Merge.BestHint.HasAffinity {
			b.NUMANodes = step.Merge.BestHint.NUMANodeAffinity.Bits()
		}
		c.BestHint = &b
	}
	return c
}
