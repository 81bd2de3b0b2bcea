package diagnose

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
)

// severityRank orders severities from the most serious: error (a pod was
// rejected, the kubelet will not start, or data is lost), warning
// (something will go wrong, or resources are held for nothing), info
// (context that explains other findings).
func severityRank(s statefile.Severity) int {
	switch s {
	case statefile.SeverityError:
		return 0
	case statefile.SeverityWarning:
		return 1
	}
	return 2
}

// Ref points at the evidence a finding rests on: a file and a line for text
// evidence, a file and a JSON pointer for structured evidence.
type Ref struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Path string `json:"path,omitempty"`
	// Quote is the short piece of evidence, as found.
	Quote string `json:"quote,omitempty"`
}

// String renders "file:line", "file#/json/pointer" or "file".
func (r Ref) String() string {
	switch {
	case r.Line > 0:
		return fmt.Sprintf("%s:%d", r.File, r.Line)
	case r.Path != "":
		return r.File + "#" + r.Path
	}
	return r.File
}

// Finding is one conclusion drawn from the evidence.
type Finding struct {
	Code     string             `json:"code"`
	Severity statefile.Severity `json:"severity"`
	// Title is one line.
	Title string `json:"title"`
	// Pod is "namespace/name" when the finding is about one pod, "" when
	// it is about none or the evidence does not name it (JSON: null).
	Pod string `json:"pod"`
	// Explanation says what happened and why, in plain words.
	Explanation string `json:"explanation"`
	Evidence    []Ref  `json:"evidence"`
	Remedy      string `json:"remedy"`
	// TopologyAffinityError is set on findings with code TopologyAffinityError.
	TopologyAffinityError *AffinityAnalysis `json:"topologyAffinityError,omitempty"`
	// Cause names the inner error of an UnexpectedAdmissionError
	// ("cpus-exhausted", "memory-extend", "device-unhealthy", ...) when
	// numascope knows it.
	Cause string `json:"cause,omitempty"`
	// KnownBugs names the upstream kubelet bugs ("kubernetes/kubernetes#N")
	// that match this finding in the kubelet releases the evidence allows.
	KnownBugs []string `json:"knownBugs,omitempty"`

	// inner is the kubelet's message the finding rests on, for matching
	// known bugs.
	inner string
}

// Causes of a TopologyAffinityError, as the upstream troubleshooting page names them.
const (
	// CauseInsufficientResources: for some requested resource no NUMA node or
	// set of NUMA nodes has enough free CPU, memory, hugepages or devices.
	CauseInsufficientResources = "insufficient-resources"
	// CausePolicyConstraint: every resource can be placed somewhere, but the
	// policy forbids the placement that would fit.
	CausePolicyConstraint = "policy-constraint"
	// CauseUnknown: the evidence does not say which of the two it was.
	CauseUnknown = "unknown"
)

// AffinityAnalysis explains one TopologyAffinityError.
type AffinityAnalysis struct {
	Cause  string `json:"cause"`
	Policy string `json:"policy,omitempty"`
	Scope  string `json:"scope,omitempty"`
	// AdmissibleOnEmptyNode tells whether the request would pass the policy
	// on an empty node of this machine: true means freeing resources helps,
	// false means the request or the policy must change. Absent when unknown.
	AdmissibleOnEmptyNode *bool `json:"admissibleOnEmptyNode,omitempty"`
	// Container is the first container whose merge failed (container scope).
	Container string `json:"container,omitempty"`
	// Resources has one row per requested resource and NUMA node.
	Resources []ResourceRow `json:"resources,omitempty"`
	// Hints as the kubelet logged them for the failing container.
	LoggedHints    []evidence.ProviderHints `json:"loggedHints,omitempty"`
	LoggedBestHint *evidence.Hint           `json:"loggedBestHint,omitempty"`
	// SimulatedHints are the hints numascope computes from the state files
	// when the log has none for this pod.
	SimulatedHints []evidence.ProviderHints `json:"simulatedHints,omitempty"`
	// SimulatedBestHint is the merge of the logged (or computed) hints by
	// numascope's Topology Manager model; Agree compares it with the log.
	SimulatedBestHint *evidence.Hint `json:"simulatedBestHint,omitempty"`
	SimulatedAdmit    *bool          `json:"simulatedAdmit,omitempty"`
	Agree             *bool          `json:"agree,omitempty"`
}

// ResourceRow is requested against free for one resource on one NUMA node (or group).
type ResourceRow struct {
	Resource string `json:"resource"`
	// NUMANodes is one node, or the nodes of a memory group.
	NUMANodes []int  `json:"numaNodes"`
	Requested string `json:"requested"`
	Free      string `json:"free,omitempty"`
	// Fits reports whether this node (or group) alone could hold the request
	// now, as the provider's hints or free amounts show.
	Fits bool `json:"fits"`
	// Source says where the figures come from ("log hints", "state", ...).
	Source string `json:"source"`
	// Note explains a row, for example a node that belongs to a memory group.
	Note string `json:"note,omitempty"`

	// free and req are the figures in base units (CPUs, bytes, devices) when known.
	free, req int64
	known     bool
}

// Summary counts findings by severity.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

// SchemaVersion identifies the JSON report layout.
const SchemaVersion = "numascope.diagnose/v1"

// Report is the result of Run.
type Report struct {
	Schema string `json:"schema"`
	// Evidence lists the evidence that was read.
	Evidence []evidence.Item `json:"evidence"`
	// Kubelet is the kubelet release range the evidence shows ("v1.31 or
	// later", "v1.16 to v1.17") and why; empty when nothing tells.
	Kubelet  string    `json:"kubelet,omitempty"`
	Findings []Finding `json:"findings"`
	// Next says what evidence to add when the given evidence cannot show a
	// problem at all (no pod, event or kubelet log among it); empty otherwise.
	Next    string  `json:"next,omitempty"`
	Summary Summary `json:"summary"`
}

// HasErrors reports whether any finding has severity error.
func (r *Report) HasErrors() bool { return r.Summary.Errors > 0 }

func (r *Report) finish() {
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if severityRank(a.Severity) != severityRank(b.Severity) {
			return severityRank(a.Severity) < severityRank(b.Severity)
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Pod < b.Pod
	})
	r.Summary = Summary{}
	for _, f := range r.Findings {
		switch f.Severity {
		case statefile.SeverityError:
			r.Summary.Errors++
		case statefile.SeverityWarning:
			r.Summary.Warnings++
		default:
			r.Summary.Infos++
		}
		if f.Evidence == nil {
			f.Evidence = []Ref{}
		}
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
}

// MarshalJSON writes the finding with "pod": null when it names no pod.
func (f Finding) MarshalJSON() ([]byte, error) {
	type plain Finding
	var pod *string
	if f.Pod != "" {
		pod = &f.Pod
	}
	return json.Marshal(struct {
		plain
		Pod *string `json:"pod"`
	}{plain(f), pod})
}
