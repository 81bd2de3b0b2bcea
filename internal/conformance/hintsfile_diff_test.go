package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	cadvisorapi "github.com/google/cadvisor/lib/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tm "k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager/bitmask"

	"github.com/numascope/numascope/internal/fuzzbudget"
	ns "github.com/numascope/numascope/topomgr"
)

// This file runs whole hints files (examples/admit --hints) through
// numascope's reader and merge and, independently, through the kubelet's
// Topology Manager (k8s.io/kubernetes v1.37.2): NewManager's steps for the
// policy, its options and the NUMA layout, then the policy's Merge. The
// kubelet never reads a hints file, so the test decodes the file itself into
// the values the kubelet would be handed (cadvisor's nodes, the
// configuration's policy and options, the providers' hint maps).
//
// The rules: a file both accept merges to the same best hint and the same
// admit verdict; a file numascope refuses is one the kubelet could not be
// given, for a reason in kubeletCannotBeGiven, and numascope's error points
// at a field that reason names; a file numascope accepts has no such reason.

// hintsCaseBudget bounds the kubelet's enumeration (the product of the hint
// list lengths) so that a fuzz input stays fast; numascope's own bound is
// proven elsewhere.
const hintsCaseBudget = 20000

// kubeletHintsFile is the hints file decoded the way the kubelet's inputs
// are typed: a nil provider is a provider without hints, a nil hint list a
// resource without preference.
type kubeletHintsFile struct {
	NUMANodes *[]int                        `json:"numaNodes"`
	Distances map[string][]uint64           `json:"distances"`
	Policy    *string                       `json:"policy"`
	Options   map[string]string             `json:"options"`
	Providers []map[string]*[]kubeletHintIn `json:"providers"`
}

type kubeletHintIn struct {
	NUMAAffinity *[]int `json:"numaAffinity"`
	Preferred    bool   `json:"preferred"`
}

// cannotGive is one reason the kubelet could not be handed a file's values:
// the field (first JSON pointer segment; "" for the document) and why.
type cannotGive struct{ field, why string }

// decodeForKubelet decodes the file strictly (exact field names, typed
// values, no trailing data). A document that does not decode describes no
// kubelet input at all.
func decodeForKubelet(data []byte) (*kubeletHintsFile, error) {
	if err := exactKeys(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f kubeletHintsFile
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("trailing data")
	}
	return &f, nil
}

// exactKeys checks the field names case-sensitively (encoding/json matches
// struct fields case-insensitively; the format does not) and that the
// document is an object.
func exactKeys(data []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return err
	}
	if top == nil {
		return errors.New("null document")
	}
	for k := range top {
		switch k {
		case "numaNodes", "distances", "policy", "options", "providers":
		default:
			return fmt.Errorf("unknown field %q", k)
		}
	}
	var provs []map[string]json.RawMessage
	if raw, ok := top["providers"]; ok {
		if err := json.Unmarshal(raw, &provs); err != nil {
			return err
		}
	}
	for _, p := range provs {
		for _, raw := range p {
			var hints []map[string]json.RawMessage
			if err := json.Unmarshal(raw, &hints); err != nil {
				return err
			}
			for _, h := range hints {
				if h == nil {
					return errors.New("null hint")
				}
				for k := range h {
					if k != "numaAffinity" && k != "preferred" {
						return fmt.Errorf("unknown hint field %q", k)
					}
				}
			}
		}
	}
	return nil
}

// kubeletSetup is what the kubelet would run the merge with.
type kubeletSetup struct {
	policy    tm.Policy
	providers []map[string][]tm.TopologyHint
}

// kubeletCannotBeGiven lists every reason the kubelet could not be handed
// the decoded file, and otherwise builds its policy exactly as NewManager
// does (the none policy before the options and the NUMA layout are read).
func kubeletCannotBeGiven(f *kubeletHintsFile) ([]cannotGive, *kubeletSetup) {
	var why []cannotGive
	add := func(field, format string, args ...any) {
		why = append(why, cannotGive{field, fmt.Sprintf(format, args...)})
	}
	var ids []int
	if f.NUMANodes == nil || len(*f.NUMANodes) == 0 {
		add("numaNodes", "cadvisor reports at least one NUMA node (a machine without NUMA is node 0)")
	} else {
		ids = *f.NUMANodes
	}
	seen := map[int]bool{}
	for _, id := range ids {
		if id < 0 || id > 63 {
			add("numaNodes", "NUMA node %d: the kubelet's bitmasks hold nodes 0-63 (bitmask.NewBitMask refuses it, DefaultAffinityMask is nil)", id)
		}
		if seen[id] {
			add("numaNodes", "NUMA node %d twice: cadvisor lists each sysfs node directory once", id)
		}
		seen[id] = true
	}
	policy := ""
	if f.Policy != nil {
		policy = *f.Policy
	}
	nodes := map[int][]uint64{}
	for k, row := range f.Distances {
		id, err := strconv.Atoi(k)
		if err != nil || !seen[id] || strconv.Itoa(id) != k {
			add("distances", "row %q: cadvisor attaches each distance row to one of the machine's nodes", k)
			continue
		}
		nodes[id] = row
	}
	var cnodes []cadvisorapi.Node
	for _, id := range ids {
		cnodes = append(cnodes, cadvisorapi.Node{Id: id, Distances: nodes[id]})
	}
	switch policy {
	case tm.PolicyNone, tm.PolicyBestEffort, tm.PolicyRestricted, tm.PolicySingleNumaNode:
	default:
		add("policy", "NewManager: unknown policy: %q (and the configuration's validation refuses it)", policy)
	}
	var kp tm.Policy
	if policy == tm.PolicyNone {
		kp = tm.NewNonePolicy()
	} else {
		opts, err := tm.NewPolicyOptions(logr.Discard(), f.Options)
		if err != nil {
			add("options", "NewManager: %v", err)
		} else {
			info, err := tm.NewNUMAInfo(cnodes, opts)
			if err != nil {
				add("distances", "NewManager: cannot discover NUMA topology: %v", err)
			} else {
				if len(info.Nodes) > opts.MaxAllowableNUMANodes {
					add("numaNodes", "NewManager: unsupported on machines with more than %v NUMA Nodes", opts.MaxAllowableNUMANodes)
				}
				if opts.PreferClosestNUMA {
					maxID := 0
					for _, id := range ids {
						maxID = max(maxID, id)
					}
					for _, id := range ids {
						if len(nodes[id]) <= maxID {
							add("distances", "node %d: a row of %d entries for node IDs up to %d: the kubelet indexes rows by node ID and its closest-NUMA comparison panics (index out of range)", id, len(nodes[id]), maxID)
						}
					}
				}
				switch policy {
				case tm.PolicyBestEffort:
					kp = tm.NewBestEffortPolicy(info, opts)
				case tm.PolicyRestricted:
					kp = tm.NewRestrictedPolicy(info, opts)
				case tm.PolicySingleNumaNode:
					kp = tm.NewSingleNumaNodePolicy(info, opts)
				}
			}
		}
	}
	var providers []map[string][]tm.TopologyHint
	for _, p := range f.Providers {
		if p == nil {
			providers = append(providers, nil)
			continue
		}
		m := map[string][]tm.TopologyHint{}
		for r, hl := range p {
			if hl == nil {
				m[r] = nil
				continue
			}
			hints := []tm.TopologyHint{}
			for _, h := range *hl {
				if h.NUMAAffinity == nil {
					hints = append(hints, tm.TopologyHint{Preferred: h.Preferred})
					continue
				}
				bm, err := bitmask.NewBitMask(*h.NUMAAffinity...)
				if err != nil {
					add("providers", "resource %q: hint over %v: a provider builds hints with bitmask.NewBitMask, which refuses it (%v)", r, *h.NUMAAffinity, err)
					continue
				}
				hints = append(hints, tm.TopologyHint{NUMANodeAffinity: bm, Preferred: h.Preferred})
			}
			m[r] = hints
		}
		providers = append(providers, m)
	}
	if len(why) > 0 {
		return why, nil
	}
	return nil, &kubeletSetup{policy: kp, providers: providers}
}

// kubeletMerge runs the kubelet's merge; a panic is an answer too.
func kubeletMerge(s *kubeletSetup) (hint tm.TopologyHint, admit bool, panicked any) {
	defer func() { panicked = recover() }()
	hint, admit = s.policy.Merge(logr.Discard(), s.providers)
	return hint, admit, nil
}

// combinations is the product of the filtered hint list lengths, capped.
func combinations(providers []ns.ProviderHints) int {
	n := 1
	for _, p := range providers {
		for _, hl := range p {
			n *= max(1, len(hl))
			if n > hintsCaseBudget {
				return n
			}
		}
	}
	return n
}

// hintsFileOutcome says how a file fared; "" kind means a difference.
type hintsFileOutcome struct {
	kind string // "admitted", "rejected", "refused: <field>", "structural", "too large"
	diff string
}

// diffHintsFile runs one file through both sides.
func diffHintsFile(data []byte) hintsFileOutcome {
	hf, nerr := ns.ParseHintsFile(data)
	kf, derr := decodeForKubelet(data)
	if derr != nil {
		// No kubelet input corresponds to the document: numascope must
		// refuse it too.
		if nerr == nil {
			return hintsFileOutcome{diff: fmt.Sprintf("numascope accepts a document that does not decode as a hints file (%v):\n%s", derr, data)}
		}
		return hintsFileOutcome{kind: "structural"}
	}
	why, setup := kubeletCannotBeGiven(kf)
	if nerr != nil {
		if len(why) == 0 {
			return hintsFileOutcome{diff: fmt.Sprintf("numascope refuses a file the kubelet could be given: %v\n%s", nerr, data)}
		}
		var fe *ns.HintsFileError
		if !errors.As(nerr, &fe) {
			return hintsFileOutcome{diff: fmt.Sprintf("numascope's refusal is not a HintsFileError: %v", nerr)}
		}
		seg := strings.SplitN(strings.TrimPrefix(fe.Pointer, "/"), "/", 2)[0]
		for _, w := range why {
			if w.field == seg {
				return hintsFileOutcome{kind: "refused: " + seg}
			}
		}
		return hintsFileOutcome{diff: fmt.Sprintf("numascope refuses at %q (%v), the kubelet could not be given the file for other reasons %v\n%s", fe.Pointer, nerr, why, data)}
	}
	if len(why) > 0 {
		return hintsFileOutcome{diff: fmt.Sprintf("numascope accepts a file the kubelet could not be given: %v\n%s", why, data)}
	}
	if combinations(hf.Providers) > hintsCaseBudget {
		return hintsFileOutcome{kind: "too large"}
	}
	p, err := hf.PolicyFor()
	if err != nil {
		return hintsFileOutcome{diff: fmt.Sprintf("an accepted file has no policy: %v", err)}
	}
	nh, nadmit := p.Merge(hf.Providers)
	kh, kadmit, panicked := kubeletMerge(setup)
	if panicked != nil {
		return hintsFileOutcome{diff: fmt.Sprintf("the kubelet's merge panics (%v) on a file numascope accepts:\n%s", panicked, data)}
	}
	if !nh.IsEqual(nsHintOf(kh)) || nadmit != kadmit {
		return hintsFileOutcome{diff: fmt.Sprintf("kubelet %v admit %v, numascope %v admit %v\n%s", nsHintOf(kh), kadmit, nh, nadmit, data)}
	}
	if nadmit {
		return hintsFileOutcome{kind: "admitted"}
	}
	return hintsFileOutcome{kind: "rejected"}
}

func nsHintOf(h tm.TopologyHint) ns.TopologyHint {
	if h.NUMANodeAffinity == nil {
		return ns.AnyNUMAHint(h.Preferred)
	}
	m, err := ns.NewBitMask(h.NUMANodeAffinity.GetBits()...)
	if err != nil {
		return ns.AnyNUMAHint(!h.Preferred) // never equal to numascope's: reported as a difference
	}
	return ns.NewHint(m, h.Preferred)
}

// randomHintsFile writes a hints file as a user or a script would: mostly
// valid, with every optional form (absent, null and empty providers, null
// providers and hint lists, hints without affinity or preference, masks
// naming nodes the machine lacks) and, now and then, each thing the kubelet
// could not be given or a document that is not a hints file at all.
func randomHintsFile(r *rand.Rand) []byte {
	doc := map[string]any{}
	n := 1 + r.IntN(8)
	if r.IntN(20) == 0 {
		n = 9 + r.IntN(3)
	}
	gap := r.IntN(4) == 0
	var ids []int
	for i := 0; i < n; i++ {
		id := i
		if gap {
			id = 2*i + r.IntN(2)
		}
		ids = append(ids, id)
	}
	switch r.IntN(40) {
	case 0:
		ids = append(ids, ids[0]) // duplicate
	case 1:
		ids[len(ids)-1] = 64 + r.IntN(3)
	case 2:
		ids = []int{}
	case 3:
		ids = nil // absent
	case 4:
		ids[0] = -1
	}
	if ids != nil {
		doc["numaNodes"] = ids
	}
	maxID := 0
	for _, id := range ids {
		maxID = max(maxID, id)
	}
	if r.IntN(3) != 0 && maxID < 64 {
		rows := map[string][]uint64{}
		for _, id := range ids {
			if id < 0 {
				continue
			}
			l := maxID + 1
			if r.IntN(30) == 0 {
				l = len(ids) // one entry per node, as Linux prints it, too short with gaps
			}
			row := make([]uint64, l)
			for j := range row {
				row[j] = uint64(11 + r.IntN(4)*5)
			}
			if id < l {
				row[id] = 10
			}
			if r.IntN(15) != 0 {
				rows[strconv.Itoa(id)] = row
			}
		}
		if r.IntN(40) == 0 {
			rows[strconv.Itoa(maxID+1)] = []uint64{10}
		}
		doc["distances"] = rows
	}
	switch r.IntN(30) {
	case 0: // absent
	case 1:
		doc["policy"] = "strict"
	case 2:
		doc["policy"] = nil
	default:
		doc["policy"] = []string{ns.PolicyNone, ns.PolicyBestEffort, ns.PolicyRestricted, ns.PolicySingleNumaNode}[r.IntN(4)]
	}
	switch r.IntN(10) {
	case 0, 1, 2:
		doc["options"] = map[string]string{ns.PreferClosestNUMANodes: "true"}
	case 3:
		doc["options"] = map[string]string{ns.PreferClosestNUMANodes: []string{"false", "1", "yes", "T"}[r.IntN(4)]}
	case 4:
		doc["options"] = map[string]string{ns.MaxAllowableNUMANodes: []string{"8", "16", "7", "x", "-1", "64"}[r.IntN(6)]}
	case 5:
		doc["options"] = map[string]string{"unknown-option": "true"}
	case 6:
		doc["options"] = nil
	}
	switch r.IntN(8) {
	case 0: // absent
	case 1:
		doc["providers"] = nil
	case 2:
		doc["providers"] = []any{}
	default:
		var provs []any
		for p := 1 + r.IntN(3); p > 0; p-- {
			switch r.IntN(8) {
			case 0:
				provs = append(provs, nil)
				continue
			case 1:
				provs = append(provs, map[string]any{})
				continue
			}
			res := map[string]any{}
			for k := 1 + r.IntN(3); k > 0; k-- {
				name := []string{"cpu", "memory", "nvidia.com/gpu", "hugepages-1Gi", "example.com/nic"}[r.IntN(5)]
				switch r.IntN(10) {
				case 0:
					res[name] = nil
					continue
				case 1:
					res[name] = []any{}
					continue
				}
				var hints []any
				for h := 1 + r.IntN(5); h > 0; h-- {
					hint := map[string]any{}
					switch r.IntN(10) {
					case 0:
						hint["numaAffinity"] = nil
					case 1: // absent: any NUMA node
					case 2:
						hint["numaAffinity"] = []int{}
					default:
						var bits []int
						for _, id := range ids {
							if r.IntN(2) == 0 {
								bits = append(bits, id)
							}
						}
						if r.IntN(16) == 0 {
							bits = append(bits, maxID+1+r.IntN(3))
						}
						if r.IntN(200) == 0 {
							bits = append(bits, 64)
						}
						hint["numaAffinity"] = bits
					}
					if r.IntN(6) != 0 {
						hint["preferred"] = r.IntN(2) == 0
					}
					hints = append(hints, hint)
				}
				res[name] = hints
			}
			provs = append(provs, res)
		}
		doc["providers"] = provs
	}
	data, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	// Now and then damage the document: a value of the wrong type, a
	// field spelled with another case, an unknown field, trailing data.
	switch r.IntN(40) {
	case 0:
		data = bytes.Replace(data, []byte(`"numaNodes"`), []byte(`"NumaNodes"`), 1)
	case 1:
		data = bytes.Replace(data, []byte(`"preferred":true`), []byte(`"preferred":"true"`), 1)
	case 2:
		data = append(bytes.TrimSuffix(data, []byte("}")), []byte(`,"scope":"pod"}`)...)
	case 3:
		data = append(data, []byte(` {}`)...)
	case 4:
		data = bytes.Replace(data, []byte(`"true"`), []byte(`true`), 1)
	case 5:
		data = bytes.Replace(data, []byte(`"numaAffinity"`), []byte(`"numa"`), 1)
	}
	return data
}

// hintsFileCases is the number of random files: a few thousand in CI, more
// with NUMASCOPE_HINTSFILE_CASES=N.
func hintsFileCases(t *testing.T) int {
	n := 3000
	if testing.Short() {
		n = 1000
	}
	if v := os.Getenv("NUMASCOPE_HINTSFILE_CASES"); v != "" {
		c, err := strconv.Atoi(v)
		require.NoError(t, err, "NUMASCOPE_HINTSFILE_CASES")
		n = c
	}
	return n
}

// TestHintsFilesAgreeWithKubelet: random whole hints files, zero
// differences; every kind of outcome must occur.
func TestHintsFilesAgreeWithKubelet(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 2026))
	cases := hintsFileCases(t)
	kinds := map[string]int{}
	for i := 0; i < cases; i++ {
		data := randomHintsFile(r)
		o := diffHintsFile(data)
		require.Empty(t, o.diff, "case %d differs", i)
		kinds[o.kind]++
	}
	for _, k := range []string{"admitted", "rejected", "structural", "refused: numaNodes", "refused: policy", "refused: options", "refused: distances", "refused: providers"} {
		assert.NotZero(t, kinds[k], "no random file reached %q: %v", k, kinds)
	}
	var names []string
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s %d", k, kinds[k]))
	}
	t.Logf("%d hints files, no difference: %s", cases, strings.Join(parts, ", "))
}

// TestHintsFileNoProvidersAgree: absent, null and empty providers lists
// under every policy, on machines of one to eight nodes: the kubelet's
// merge of zero providers.
func TestHintsFileNoProvidersAgree(t *testing.T) {
	for _, policy := range []string{ns.PolicyNone, ns.PolicyBestEffort, ns.PolicyRestricted, ns.PolicySingleNumaNode} {
		for _, nodes := range []string{`[0]`, `[0,1]`, `[0,2,5]`, `[0,1,2,3,4,5,6,7]`} {
			for _, providers := range []string{``, `,"providers":null`, `,"providers":[]`} {
				doc := `{"numaNodes":` + nodes + `,"policy":"` + policy + `"` + providers + `}`
				o := diffHintsFile([]byte(doc))
				assert.Empty(t, o.diff, "%s", doc)
				assert.Equal(t, "admitted", o.kind, "%s", doc)
			}
		}
	}
}

// FuzzHintsFileVsKubelet mutates whole hints files; seeds are random files
// and the corpus in testdata/fuzz/FuzzHintsFileVsKubelet.
func FuzzHintsFileVsKubelet(f *testing.F) {
	r := rand.New(rand.NewPCG(17, 1))
	for i := 0; i < 32; i++ {
		f.Add(randomHintsFile(r))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		fuzzbudget.Run(t, func() {
			o := diffHintsFile(data)
			require.Empty(t, o.diff, "numascope's hints-file reader and merge against the kubelet's")
		})
	})
}
