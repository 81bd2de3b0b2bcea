package api

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/numascope/numascope/topomgr"
)

// MergeRequest is the request of the "merge" method: the NUMA nodes, their
// distances, the policy with its options and the hints of each provider, in
// the JSON form of `go run ./examples/admit --hints FILE`. A null provider or
// a null hint list means "no preference"; [] means "no possible placement".
type MergeRequest struct {
	NUMANodes []int                   `json:"numaNodes"`
	Distances map[string][]uint64     `json:"distances,omitempty"`
	Policy    string                  `json:"policy"`
	Options   map[string]string       `json:"options,omitempty"`
	Providers []topomgr.ProviderHints `json:"providers"`
}

// MergeResult is the answer of the "merge" method.
type MergeResult struct {
	BestHint topomgr.TopologyHint `json:"bestHint"`
	Admit    bool                 `json:"admit"`
	// Report shows the work: the normalised lists, the best non-preferred
	// count, the number of combinations and the rule that picked the hint.
	Report *topomgr.MergeReport `json:"report"`
}

func init() {
	register("merge", "merges the providers' topology hints exactly as the kubelet's Topology Manager does and says whether the pod is admitted",
		func(raw json.RawMessage) (any, error) {
			var req MergeRequest
			if err := decode("merge", raw, &req); err != nil {
				return nil, err
			}
			return Merge(&req)
		})
}

func badMerge(format string, args ...any) error {
	return &Error{Code: "bad-request", Message: fmt.Sprintf(format, args...)}
}

// Merge runs the policy's merge on the request.
func Merge(req *MergeRequest) (*MergeResult, error) {
	if len(req.NUMANodes) == 0 {
		return nil, badMerge("/numaNodes: list the machine's NUMA node ids, for example [0, 1]")
	}
	if req.Policy == "" {
		return nil, badMerge("/policy: name the Topology Manager policy: none, best-effort, restricted or single-numa-node")
	}
	for key := range req.Distances {
		id, err := strconv.Atoi(key)
		if err != nil || !containsInt(req.NUMANodes, id) {
			return nil, badMerge("/distances/%s: not one of the NUMA nodes %v", key, req.NUMANodes)
		}
	}
	ids := append([]int(nil), req.NUMANodes...)
	sort.Ints(ids)
	nodes := make([]topomgr.NUMANode, 0, len(ids))
	for i, id := range ids {
		if i > 0 && ids[i-1] == id {
			return nil, badMerge("/numaNodes: NUMA node %d is listed twice", id)
		}
		n := topomgr.NUMANode{ID: id}
		if d, ok := req.Distances[strconv.Itoa(id)]; ok {
			if len(d) != len(ids) {
				return nil, badMerge("/distances/%d: %d distances for %d NUMA nodes; give one per node, in node order", id, len(d), len(ids))
			}
			n.Distances = d
		}
		nodes = append(nodes, n)
	}
	opts, err := topomgr.NewPolicyOptions(req.Options)
	if err != nil {
		return nil, badMerge("/options: %v", err)
	}
	numa, err := topomgr.NewNUMAInfo(nodes, opts)
	if err != nil {
		return nil, badMerge("/numaNodes: %v", err)
	}
	policy, err := topomgr.NewPolicy(req.Policy, numa, opts)
	if err != nil {
		return nil, badMerge("/policy: %v", err)
	}
	for i, p := range req.Providers {
		for res, hints := range p {
			for j, h := range hints {
				for _, b := range h.NUMANodeAffinity.Bits() {
					if h.HasAffinity && !containsInt(ids, b) {
						return nil, badMerge("/providers/%d/%s/%d/numaAffinity: NUMA node %d is not one of %v", i, res, j, b, ids)
					}
				}
			}
		}
	}
	report := policy.Explain(req.Providers)
	return &MergeResult{BestHint: report.BestHint, Admit: report.Admit, Report: report}, nil
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
