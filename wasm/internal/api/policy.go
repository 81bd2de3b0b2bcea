package api

import (
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
)

// policyFor is the configured policy a checkpoint of the kind (as
// guessStateKind names it) is judged against: the kind's own field, else
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

// configPolicies reads the manager policies of the first kubelet
// configuration among the files, or nil when there is none.
func configPolicies(files []InputFile) *ConfigPolicies {
	for _, in := range files {
		if strings.TrimSpace(in.Content) == "" || len(in.Content) > MaxFileBytes {
			continue
		}
		// A cheap look first: sniffing a 10 MB checkpoint takes long in a
		// browser, and every configuration form names a manager policy
		// ("cpuManagerPolicy", "--cpu-manager-policy").
		if !strings.Contains(in.Content, "anagerPolicy") && !strings.Contains(in.Content, "anager-policy") {
			continue
		}
		if evidence.SniffKind([]byte(in.Content)) != kindConfig {
			continue
		}
		ev := &evidence.Set{}
		name := in.Name
		if name == "" {
			name = canonicalName[kindConfig]
		}
		if it := ev.Add(name, "", []byte(in.Content)); !it.Used() || ev.Config == nil {
			continue
		}
		c := ev.Config
		return &ConfigPolicies{File: name, CPUManagerPolicy: c.CPUManagerPolicy, MemoryManagerPolicy: c.MemoryManagerPolicy,
			TopologyManagerPolicy: c.TopologyManagerPolicy, TopologyManagerScope: c.TopologyManagerScope}
	}
	return nil
}
