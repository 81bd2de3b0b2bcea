package api

import (
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
)

// policyFor is the configured policy a checkpoint of the kind is judged
// against: the kind's own field, else
// Policy when its spelling is that kind's ("none"/"static" for cpu,
// "None"/"Static" for memory), else "" (the policy named in the file). A
// memory file is never judged against a CPU policy, nor the other way round.
func (r *InspectRequest) policyFor(kind string) string {
	switch kind {
	case string(statefile.KindCPU):
		if r.CPUPolicy != "" {
			return r.CPUPolicy
		}
		if r.Policy == "none" || r.Policy == "static" {
			return r.Policy
		}
	case string(statefile.KindMemory):
		if r.MemoryPolicy != "" {
			return r.MemoryPolicy
		}
		if r.Policy == "None" || r.Policy == "Static" {
			return r.Policy
		}
	}
	return ""
}

// configRead is the first kubelet configuration among the files: its
// policies, its place and what the door read, so that its view is not
// read again.
type configRead struct {
	policies *ConfigPolicies
	index    int
	item     evidence.Item
	ev       *evidence.Set
}

// configPolicies reads the manager policies of the first kubelet
// configuration among the files (policies nil when there is none).
func configPolicies(files []InputFile) configRead {
	for i, in := range files {
		if strings.TrimSpace(in.Content) == "" || len(in.Content) > MaxFileBytes {
			continue
		}
		// A cheap look first: sniffing a 10 MB checkpoint takes long in a
		// browser, and every configuration form names a manager policy
		// ("cpuManagerPolicy", "--cpu-manager-policy").
		if !strings.Contains(in.Content, "anagerPolicy") && !strings.Contains(in.Content, "anager-policy") {
			continue
		}
		if evidence.SniffKind(head(in.Content)) != kindConfig {
			continue
		}
		ev := &evidence.Set{}
		name := in.Name
		if name == "" {
			name = canonicalName[kindConfig]
		}
		it := ev.Add(name, "", []byte(in.Content))
		if !it.Used() || ev.Config == nil {
			continue
		}
		c := ev.Config
		return configRead{policies: &ConfigPolicies{File: name, CPUManagerPolicy: c.CPUManagerPolicy, MemoryManagerPolicy: c.MemoryManagerPolicy,
			TopologyManagerPolicy: c.TopologyManagerPolicy, TopologyManagerScope: c.TopologyManagerScope}, index: i, item: it, ev: ev}
	}
	return configRead{}
}
