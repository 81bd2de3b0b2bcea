package api

import (
	"encoding/json"

	"github.com/numascope/numascope/topomgr"
)

// MergeResult is the answer of the "merge" method, whose request is the JSON
// of `go run ./examples/admit --hints FILE` (see topomgr.ParseHintsFile): the
// NUMA nodes, their distances, the policy with its options and the hints of
// each provider. A null provider or a null hint list means "no preference";
// [] means "no possible placement".
type MergeResult struct {
	BestHint topomgr.TopologyHint `json:"bestHint"`
	Admit    bool                 `json:"admit"`
	// Why says in one sentence why the best hint won.
	Why string `json:"why"`
	// Report shows the work: the normalised lists, the best non-preferred
	// count, the number of combinations and the rule that picked the hint.
	Report *topomgr.MergeReport `json:"report"`
}

func init() {
	register("merge", "merges the providers' topology hints exactly as the kubelet's Topology Manager does and says whether the pod is admitted",
		func(raw json.RawMessage) (any, error) { return Merge(raw) })
}

// Merge runs the policy's merge on a hints document.
func Merge(doc []byte) (*MergeResult, error) {
	f, err := topomgr.ParseHintsFile(doc)
	if err != nil {
		return nil, &Error{Code: "bad-request", Message: "merge: " + err.Error()}
	}
	p, err := f.PolicyFor()
	if err != nil {
		return nil, &Error{Code: "bad-request", Message: "merge: " + err.Error()}
	}
	r := p.Explain(f.Providers)
	return &MergeResult{BestHint: r.BestHint, Admit: r.Admit, Why: r.Why(), Report: r}, nil
}
