package topomgr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/numascope/numascope/internal/jsonptr"

	"strconv"
)

// HintsFile is the input of a standalone merge (examples/admit --hints): a
// machine, a policy with options, and the providers' answers in provider
// order.
type HintsFile struct {
	NUMANodes []int `json:"numaNodes"`
	// Distances maps a NUMA node ID to its distance row (indexed by node ID).
	Distances map[int][]uint64  `json:"distances,omitempty"`
	Policy    string            `json:"policy"`
	Options   map[string]string `json:"options,omitempty"`
	// Providers are the providers' answers in order, an entry nil for "no
	// preference". Absent, null and [] all mean no providers.
	Providers []ProviderHints `json:"providers"`
}

// HintsFileError is a problem in a hints file, located by a JSON pointer.
type HintsFileError struct {
	// Pointer is the JSON pointer of the offending value ("" for the document).
	Pointer string
	Msg     string
	Err     error
}

func (e *HintsFileError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", p, e.Msg, e.Err)
	}
	return fmt.Sprintf("%s: %s", p, e.Msg)
}

func (e *HintsFileError) Unwrap() error { return e.Err }

func ferr(ptr, format string, args ...any) error {
	return &HintsFileError{Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
}

// maxHintsFileSize bounds the size of a hints file ParseHintsFile accepts.
const maxHintsFileSize = 64 << 20

// ParseHintsFile decodes and checks a hints file:
//
//	{"numaNodes":[0,1], "distances":{"0":[10,20],"1":[20,10]},
//	 "policy":"restricted", "options":{"prefer-closest-numa-nodes":"true"},
//	 "providers":[{"cpu":[{"numaAffinity":[0],"preferred":true}], "memory":null}, null]}
//
// A null provider or null hint list means "no preference", [] "no possible
// placement", and a null numaAffinity the any-NUMA hint. Errors name the
// offending field by JSON pointer and say what to change.
func ParseHintsFile(data []byte) (*HintsFile, error) {
	if len(data) > maxHintsFileSize {
		return nil, ferr("", "the file is larger than %d bytes", maxHintsFileSize)
	}
	var top map[string]json.RawMessage
	if err := strictUnmarshal(data, &top); err != nil {
		return nil, &HintsFileError{Msg: "not a JSON object", Err: err}
	}
	if top == nil {
		return nil, ferr("", "the document is null: give an object with numaNodes, policy and providers")
	}
	for k := range top {
		switch k {
		case "numaNodes", "distances", "policy", "options", "providers":
		default:
			return nil, ferr("/"+jsonptr.Escape(k), "unknown field: the fields are numaNodes, distances, policy, options and providers")
		}
	}
	f := &HintsFile{}
	// numaNodes
	raw, ok := top["numaNodes"]
	if !ok || isNull(raw) {
		return nil, ferr("/numaNodes", "missing: list the machine's NUMA node IDs, e.g. [0,1]")
	}
	if err := strictUnmarshal(raw, &f.NUMANodes); err != nil {
		return nil, &HintsFileError{Pointer: "/numaNodes", Msg: "must be an array of NUMA node IDs (integers 0-63)", Err: err}
	}
	if len(f.NUMANodes) == 0 {
		return nil, ferr("/numaNodes", "empty: list at least one NUMA node")
	}
	seen := map[int]bool{}
	for i, id := range f.NUMANodes {
		if id < 0 || id > maxNUMANodeID {
			return nil, ferr(fmt.Sprintf("/numaNodes/%d", i), "NUMA node %d is outside 0-63, the range the kubelet's bitmasks hold", id)
		}
		if seen[id] {
			return nil, ferr(fmt.Sprintf("/numaNodes/%d", i), "NUMA node %d is listed twice", id)
		}
		seen[id] = true
	}
	// policy
	raw, ok = top["policy"]
	if !ok || isNull(raw) {
		return nil, ferr("/policy", "missing: give none, best-effort, restricted or single-numa-node")
	}
	if err := strictUnmarshal(raw, &f.Policy); err != nil {
		return nil, &HintsFileError{Pointer: "/policy", Msg: "must be a string", Err: err}
	}
	switch f.Policy {
	case PolicyNone, PolicyBestEffort, PolicyRestricted, PolicySingleNumaNode:
	default:
		return nil, ferr("/policy", "unknown policy %q: use none, best-effort, restricted or single-numa-node", f.Policy)
	}
	// options
	if raw, ok := top["options"]; ok && !isNull(raw) {
		var opts map[string]json.RawMessage
		if err := strictUnmarshal(raw, &opts); err != nil {
			return nil, &HintsFileError{Pointer: "/options", Msg: "must be an object of option names to string values", Err: err}
		}
		f.Options = map[string]string{}
		for k, v := range opts {
			var s string
			if err := strictUnmarshal(v, &s); err != nil {
				return nil, &HintsFileError{Pointer: "/options/" + jsonptr.Escape(k), Msg: "option values are strings, as in the kubelet configuration (e.g. \"true\", \"16\")", Err: err}
			}
			f.Options[k] = s
		}
	}
	// The kubelet's NewManager returns the none policy before it reads the
	// options or the NUMA layout: under none, options and distances the
	// other policies refuse are ignored, as the kubelet ignores them.
	opts, err := f.policyOptions(DefaultFeatureGates())
	if err != nil {
		return nil, &HintsFileError{Pointer: "/options", Msg: "the kubelet would refuse these options", Err: err}
	}
	// distances
	if raw, ok := top["distances"]; ok && !isNull(raw) {
		var rows map[string]json.RawMessage
		if err := strictUnmarshal(raw, &rows); err != nil {
			return nil, &HintsFileError{Pointer: "/distances", Msg: "must be an object from NUMA node ID to its distance row", Err: err}
		}
		f.Distances = map[int][]uint64{}
		for k, v := range rows {
			ptr := "/distances/" + jsonptr.Escape(k)
			id, err := strconv.Atoi(k)
			if err != nil || !seen[id] {
				return nil, ferr(ptr, "%q is not one of numaNodes", k)
			}
			var row []uint64
			if err := strictUnmarshal(v, &row); err != nil {
				return nil, &HintsFileError{Pointer: ptr, Msg: "must be an array of non-negative integers", Err: err}
			}
			f.Distances[id] = row
		}
	}
	nodes := f.Nodes()
	if _, err := NewNUMAInfo(nodes, opts); err != nil {
		return nil, &HintsFileError{Pointer: "/distances", Msg: "the kubelet cannot use these distances", Err: err}
	}
	if f.Policy != PolicyNone && len(nodes) > opts.MaxAllowableNUMANodes {
		return nil, ferr("/numaNodes", "%d NUMA nodes: the kubelet refuses to start with more than %d; set options.%s", len(nodes), opts.MaxAllowableNUMANodes, MaxAllowableNUMANodes)
	}
	// providers
	// An absent or null providers list is "no providers", as [] is: the
	// kubelet merges zero providers into the preferred any-NUMA hint.
	raw, ok = top["providers"]
	if !ok || isNull(raw) {
		return f, nil
	}
	var provs []json.RawMessage
	if err := strictUnmarshal(raw, &provs); err != nil {
		return nil, &HintsFileError{Pointer: "/providers", Msg: "must be an array with one entry (object or null) per hint provider", Err: err}
	}
	for i, pr := range provs {
		ptr := fmt.Sprintf("/providers/%d", i)
		if isNull(pr) {
			f.Providers = append(f.Providers, nil)
			continue
		}
		var res map[string]json.RawMessage
		if err := strictUnmarshal(pr, &res); err != nil {
			return nil, &HintsFileError{Pointer: ptr, Msg: "a provider is an object from resource name to hint list, or null", Err: err}
		}
		ph := ProviderHints{}
		for name, hl := range res {
			rptr := ptr + "/" + jsonptr.Escape(name)
			if isNull(hl) {
				ph[name] = nil
				continue
			}
			var items []json.RawMessage
			if err := strictUnmarshal(hl, &items); err != nil {
				return nil, &HintsFileError{Pointer: rptr, Msg: "a hint list is an array of hints, or null", Err: err}
			}
			hints := []TopologyHint{}
			for j, it := range items {
				h, err := parseHint(it, fmt.Sprintf("%s/%d", rptr, j))
				if err != nil {
					return nil, err
				}
				hints = append(hints, h)
			}
			ph[name] = hints
		}
		f.Providers = append(f.Providers, ph)
	}
	return f, nil
}

func parseHint(raw json.RawMessage, ptr string) (TopologyHint, error) {
	var obj map[string]json.RawMessage
	if err := strictUnmarshal(raw, &obj); err != nil || obj == nil {
		return TopologyHint{}, &HintsFileError{Pointer: ptr, Msg: `a hint is an object {"numaAffinity":[...]|null,"preferred":true|false}`, Err: err}
	}
	var h TopologyHint
	for k, v := range obj {
		switch k {
		case "numaAffinity":
			if isNull(v) {
				continue
			}
			var ids []int
			if err := strictUnmarshal(v, &ids); err != nil {
				return h, &HintsFileError{Pointer: ptr + "/numaAffinity", Msg: "must be an array of NUMA node IDs, or null for any NUMA node", Err: err}
			}
			m, err := NewBitMask(ids...)
			if err != nil {
				return h, &HintsFileError{Pointer: ptr + "/numaAffinity", Msg: "NUMA node IDs are 0-63", Err: err}
			}
			h.NUMANodeAffinity, h.HasAffinity = m, true
		case "preferred":
			if err := strictUnmarshal(v, &h.Preferred); err != nil {
				return h, &HintsFileError{Pointer: ptr + "/preferred", Msg: "must be true or false", Err: err}
			}
		default:
			return h, ferr(ptr+"/"+jsonptr.Escape(k), "unknown field: a hint has numaAffinity and preferred")
		}
	}
	return h, nil
}

// Nodes returns the machine layout with distance rows attached.
func (f *HintsFile) Nodes() []NUMANode {
	var out []NUMANode
	for _, id := range f.NUMANodes {
		out = append(out, NUMANode{ID: id, Distances: f.Distances[id]})
	}
	return out
}

// PolicyFor builds the file's policy on the file's machine. Under the none
// policy the options and distances are not read, as in the kubelet. gates
// (at most one) are the kubelet's feature gates and release; the default
// ones of the newest release when none is given.
func (f *HintsFile) PolicyFor(gates ...FeatureGates) (*Policy, error) {
	g := DefaultFeatureGates()
	if len(gates) > 0 {
		g = gates[0]
	}
	opts, err := f.policyOptions(g)
	if err != nil {
		return nil, err
	}
	numa, err := NewNUMAInfo(f.Nodes(), opts)
	if err != nil {
		return nil, err
	}
	return NewPolicy(f.Policy, numa, opts)
}

// policyOptions parses the options as the kubelet's NewManager does: not at
// all under the none policy (whose defaults then leave distances unread).
func (f *HintsFile) policyOptions(gates FeatureGates) (PolicyOptions, error) {
	if f.Policy == PolicyNone {
		return newPolicyOptions(nil, gates)
	}
	return newPolicyOptions(f.Options, gates)
}

func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// strictUnmarshal decodes one JSON value and rejects trailing data.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	if _, err := dec.Token(); err == nil {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}
