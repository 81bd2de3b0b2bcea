package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/utils/cpuset"
)

// CPUState is what the CPU manager holds after restoring cpu_manager_state.
type CPUState struct {
	// PolicyName is "none" or "static".
	PolicyName string
	// DefaultCPUSet is the shared pool.
	DefaultCPUSet cpuset.CPUSet
	// Entries maps podUID → container name → exclusive CPUs (formats v2 to v4).
	Entries map[string]map[string]cpuset.CPUSet
	// ContainerEntries maps containerID → CPUs (format v1 only, kubelet ≤1.17).
	ContainerEntries map[string]cpuset.CPUSet
	// PodEntries maps podUID → pod-level CPUs (formats v3 and v4).
	PodEntries map[string]cpuset.CPUSet
	// Baselines maps podUID → container name → baseline CPUs (format v4).
	Baselines map[string]map[string]cpuset.CPUSet
}

// MarshalJSON renders the cpusets in their kubelet string form ("0-3,7").
func (s *CPUState) MarshalJSON() ([]byte, error) {
	type out struct {
		PolicyName       string                       `json:"policyName"`
		DefaultCPUSet    string                       `json:"defaultCpuSet"`
		Entries          map[string]map[string]string `json:"entries,omitempty"`
		ContainerEntries map[string]string            `json:"containerEntries,omitempty"`
		PodEntries       map[string]string            `json:"podEntries,omitempty"`
		Baselines        map[string]map[string]string `json:"baselines,omitempty"`
	}
	return json.Marshal(out{
		PolicyName:       s.PolicyName,
		DefaultCPUSet:    s.DefaultCPUSet.String(),
		Entries:          setMapMapStrings(s.Entries),
		ContainerEntries: setMapStrings(s.ContainerEntries),
		PodEntries:       setMapStrings(s.PodEntries),
		Baselines:        setMapMapStrings(s.Baselines),
	})
}

func setMapStrings(m map[string]cpuset.CPUSet) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v.String()
	}
	return out
}

func setMapMapStrings(m map[string]map[string]cpuset.CPUSet) map[string]map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]map[string]string, len(m))
	for k, v := range m {
		out[k] = setMapStrings(v)
	}
	return out
}

// --- mirrors of the kubelet's cpu_manager_state structs (same JSON tags and
// Go types, so encoding/json accepts and rejects exactly what it does) ---

type cpuCheckpointV1 struct {
	PolicyName    string            `json:"policyName"`
	DefaultCPUSet string            `json:"defaultCpuSet"`
	Entries       map[string]string `json:"entries,omitempty"`
	Checksum      uint64            `json:"checksum"`
}

type cpuCheckpointV2 struct {
	PolicyName    string                       `json:"policyName"`
	DefaultCPUSet string                       `json:"defaultCpuSet"`
	Entries       map[string]map[string]string `json:"entries,omitempty"`
	Checksum      uint64                       `json:"checksum"`
}

type cpuCheckpointV3 struct {
	PolicyName    string                       `json:"policyName"`
	DefaultCPUSet string                       `json:"defaultCpuSet"`
	Entries       map[string]map[string]string `json:"entries,omitempty"`
	PodEntries    map[string]cpuPodEntry       `json:"podEntries,omitempty"`
	Checksum      uint64                       `json:"checksum"`
}

type cpuBaseline struct {
	Baseline string `json:"baseline"`
}

type cpuCheckpointData struct {
	PolicyName    string                            `json:"policyName"`
	DefaultCPUSet string                            `json:"defaultCpuSet"`
	Entries       map[string]map[string]string      `json:"entries,omitempty"`
	PodEntries    map[string]cpuPodEntry            `json:"podEntries,omitempty"`
	Baselines     map[string]map[string]cpuBaseline `json:"baselines,omitempty"`
	// entryList and baseList, when set, are Entries and Baselines as
	// lists in order, and the maps are nil: the fast path's builder reads
	// the file into them (see entrySets)
	entryList, baseList []cpuPodSets
	listed              bool
}

// cpuNamed is one cpuset of a pod's map, as the file writes it.
type cpuNamed struct{ name, text string }

// cpuPodSets is the cpusets of one pod (of entries or of baselines), by
// container in Go string order.
type cpuPodSets struct {
	pod  string
	sets []cpuNamed
}

// entrySets returns Entries as a list: pods and their containers in Go
// string order (spew's, and the order numascope reports problems in).
func (d *cpuCheckpointData) entrySets() []cpuPodSets {
	if d.listed {
		return d.entryList
	}
	return podSetsOf(d.Entries, func(v string) string { return v })
}

// baselineSets returns Baselines as a list, in the same order.
func (d *cpuCheckpointData) baselineSets() []cpuPodSets {
	if d.listed {
		return d.baseList
	}
	return podSetsOf(d.Baselines, func(v cpuBaseline) string { return v.Baseline })
}

// entriesNil reports whether Entries is a nil map (the file had
// "entries": null).
func (d *cpuCheckpointData) entriesNil() bool { return !d.listed && d.Entries == nil }

// entryPods returns how many pods Entries has.
func (d *cpuCheckpointData) entryPods() int {
	if d.listed {
		return len(d.entryList)
	}
	return len(d.Entries)
}

func podSetsOf[V any](m map[string]map[string]V, text func(V) string) []cpuPodSets {
	out := make([]cpuPodSets, 0, len(m))
	for _, pod := range sortedKeys(m) {
		cs := m[pod]
		sets := make([]cpuNamed, 0, len(cs))
		var buf smallKeys
		for _, c := range sortedKeysIn(cs, &buf) {
			sets = append(sets, cpuNamed{c, text(cs[c])})
		}
		out = append(out, cpuPodSets{pod, sets})
	}
	return out
}

type cpuCheckpointV4 struct {
	cpuCheckpointV2 `json:",inline"`
	Data            string            `json:"data"`
	DataChecksum    uint64            `json:"dataChecksum"`
	CheckpointData  cpuCheckpointData `json:"-"`
}

// cpuPodEntry mirrors state.PodEntry with its custom JSON methods. A decoded
// entry keeps its cpuset as text, checked but not expanded: the CPUs of all
// the entries of a file are expanded under one budget (see cpus).
type cpuPodEntry struct {
	// CPUSet is the set of an entry built in Go (Encode).
	CPUSet cpuset.CPUSet
	// text is the cpuset string as written in the file.
	text string
	// decoded is true when the entry comes from a file: text holds its set.
	decoded bool
}

// cpus returns the entry's set, expanded under b.
func (p cpuPodEntry) cpus(b *cpuBudget) (cpuset.CPUSet, error) {
	if !p.decoded {
		return p.CPUSet, nil
	}
	return b.parse(p.text)
}

type cpuPodEntryJSON struct {
	CPUSet string `json:"cpuSet,omitempty"`
}

func (p cpuPodEntry) MarshalJSON() ([]byte, error) {
	set, err := p.cpus(nil)
	if err != nil {
		return nil, err
	}
	return json.Marshal(cpuPodEntryJSON{CPUSet: set.String()})
}

func (p *cpuPodEntry) UnmarshalJSON(b []byte) error {
	var entry cpuPodEntryJSON
	if err := json.Unmarshal(b, &entry); err != nil {
		return err
	}
	// the kubelet parses the set here; numascope checks it the same way
	// and expands it later, under the file's budget
	if _, bad, err := cpuCount(entry.CPUSet, MaxFileCPUs); err != nil {
		// numascope's own bounds: the kubelet has no text for them
		return fmt.Errorf("failed to parse cpuset %s: %w", quoteShort(entry.CPUSet), err)
	} else if bad {
		if _, err := cpuset.Parse(entry.CPUSet); err != nil {
			return fmt.Errorf("failed to parse cpuset: %w", err)
		}
	}
	p.text, p.decoded = entry.CPUSet, true
	return nil
}

// --- checksum layouts ---

func cpuV2Sum(typeName, policy, def string, entries map[string]map[string]string) uint64 {
	p := newPrinter()
	p.cpuV2(typeName, policy, def, entries)
	return p.sum()
}

func (p *printer) cpuV2(typeName, policy, def string, entries map[string]map[string]string) {
	p.s("(*state.")
	p.s(typeName)
	p.s("){PolicyName:(string)")
	p.s(policy)
	p.s(" DefaultCPUSet:(string)")
	p.s(def)
	p.s(" Entries:(map[string]map[string]string)")
	p.stringMapMap(entries)
	p.s(" Checksum:(checksum.Checksum)0}")
}

func cpuV3Sum(typeName string, cp *cpuCheckpointV3) uint64 {
	p := newPrinter()
	p.cpuV3(typeName, cp)
	return p.sum()
}

func (p *printer) cpuV3(typeName string, cp *cpuCheckpointV3) {
	p.s("(*state.")
	p.s(typeName)
	p.s("){PolicyName:(string)")
	p.s(cp.PolicyName)
	p.s(" DefaultCPUSet:(string)")
	p.s(cp.DefaultCPUSet)
	p.s(" Entries:(map[string]map[string]string)")
	p.stringMapMap(cp.Entries)
	p.s(" PodEntries:(state.PodCPUAssignments)")
	p.cpuPodEntries(cp.PodEntries)
	p.s(" Checksum:(checksum.Checksum)0}")
}

func (p *printer) cpuPodEntries(m map[string]cpuPodEntry) {
	spewMap(p, m, func(e cpuPodEntry) {
		p.s(":{CPUSet:(cpuset.CPUSet){elems:(map[int]struct {})")
		// podEntriesCPUs has checked the sets: each parses, and all of
		// them together are within the budget
		set, _ := e.cpus(nil)
		p.cpuSetElems(set)
		p.s("}}")
	})
}

// podEntriesCPUs checks the pod-level cpusets of a file against one budget,
// as the v3 checksum expands them all. It returns the JSON pointer (below
// base) of the cpuset that goes over it.
func podEntriesCPUs(m map[string]cpuPodEntry, base string) (string, error) {
	used := 0
	for _, pod := range sortedKeys(m) {
		e := m[pod]
		if !e.decoded {
			continue
		}
		n, _, err := cpuCount(e.text, MaxFileCPUs-used)
		if err != nil {
			return base + pointer("podEntries", pod, "cpuSet"), fmt.Errorf("could not expand the cpuset %s of pod %s: %w", quoteShort(e.text), quoteName(pod), err)
		}
		used += n
	}
	return "", nil
}

// badPodEntry returns the JSON pointer (below base) of the pod-level cpuset
// of doc that made err a bounds error, or "".
func badPodEntry(err error, doc []byte, base string) string {
	if !errors.Is(err, errCPUBudget) && !errors.Is(err, errHugeCPUSet) {
		return ""
	}
	var probe struct {
		PodEntries map[string]cpuPodEntryJSON `json:"podEntries"`
	}
	if json.Unmarshal(doc, &probe) == nil {
		for _, pod := range sortedKeys(probe.PodEntries) {
			if _, _, err := cpuCount(probe.PodEntries[pod].CPUSet, MaxFileCPUs); err != nil {
				return base + pointer("podEntries", pod, "cpuSet")
			}
		}
	}
	return base + "/podEntries"
}

// cpuSetElems renders the unexported elems map of a cpuset.CPUSet. Sets made
// by cpuset.New or cpuset.Parse always have a non-nil map; the zero CPUSet{}
// has a nil one.
func (p *printer) cpuSetElems(s cpuset.CPUSet) {
	if s.Size() == 0 && isZeroCPUSet(s) {
		p.s("<nil>")
		return
	}
	p.s("map[")
	for i, c := range s.List() {
		if i > 0 {
			p.c(' ')
		}
		p.i(int64(c))
		p.s(":{}")
	}
	p.c(']')
}

func cpuV1Sum(policy, def string, entries map[string]string) uint64 {
	p := newPrinter()
	p.s("(*state.CPUManagerCheckpoint){PolicyName:(string)")
	p.s(policy)
	p.s(" DefaultCPUSet:(string)")
	p.s(def)
	p.s(" Entries:(map[string]string)")
	p.stringMap(entries)
	p.s(" Checksum:(checksum.Checksum)0}")
	return p.sum()
}

// Eras of the cpu_manager_state checksum layouts.
const (
	eraCPUV4     = "cpu v4 (data + dataChecksum): written by kubelets with the v4 layout, including v1.37.2"
	eraCPUV4Out  = "cpu v4 outer copy (v2 layout, kept for rollback to older kubelets)"
	eraCPUV3     = "cpu v3 (podEntries): written by kubelets that stored the v3 layout; v1.37.2 still verifies it"
	eraCPUV3Raw  = "cpu v3 hashed under the type name CPUManagerCheckpointV3: accepted by v1.37.2, no known writer"
	eraCPUV2     = "cpu v2 (podUID→container→cpuset): written by kubelets from v1.18 until the v3 layout"
	eraCPUV2Raw  = "cpu v2 hashed under the type name CPUManagerCheckpointV2: accepted by v1.37.2 while the PodLevelResourceManagers gate is off (its default), no known writer"
	eraCPUV1     = "cpu v1 (containerID→cpuset): written by kubelets up to v1.17; v1.37.2 no longer reads it"
	eraCPUZero   = "checksum 0: the v2 restore path accepts it without checking"
	eraCPUZeroV3 = "checksum 0 on a v3 file: the v3 check rejects it, the kubelet falls back to the v2 restore path, which accepts it without checking and drops podEntries"
	layoutCPUV4  = "v4-data"
	layoutCPUOut = "v4-outer"
)

// --- restore simulation (pkg/kubelet/cm/cpumanager/state/state_checkpoint.go) ---

type cpuRestore struct {
	data     cpuCheckpointData
	format   Format
	err      error // the restore error before the NewCheckpointState wrapper
	checksum ChecksumReport
	// zeroFallback counts the podEntries the older reader drops when a
	// zero checksum sends the kubelet down its fallback.
	zeroFallback int
	// boundsAt is the JSON pointer of the cpuset that made err a bounds
	// error (errCPUBudget, errHugeCPUSet), "" otherwise.
	boundsAt string
	// the outer (rollback) copy's policy and default set of a v4 file,
	// when outerRead
	outerPolicy, outerDefault string
	outerRead                 bool
	hint                      *schemaHint // from the fast path
	// done, when set, gives back what the fast path lent (its hint reads
	// it until then)
	done func()
}

func newCPUV4() *cpuCheckpointV4 {
	return &cpuCheckpointV4{
		cpuCheckpointV2: cpuCheckpointV2{Entries: map[string]map[string]string{}},
		CheckpointData: cpuCheckpointData{
			Entries:    map[string]map[string]string{},
			PodEntries: map[string]cpuPodEntry{},
			Baselines:  map[string]map[string]cpuBaseline{},
		},
	}
}

func unmarshalCPUV4(blob []byte, cp *cpuCheckpointV4) error {
	if err := json.Unmarshal(blob, cp); err != nil {
		return fmt.Errorf("failed to deserialize cpu manager checkpoint: %w", err)
	}
	if err := json.Unmarshal([]byte(cp.Data), &cp.CheckpointData); err != nil {
		return fmt.Errorf("failed to deserialize cpu manager checkpoint data: %w", err)
	}
	return nil
}

var errCorrupt = errors.New("checkpoint is corrupted")

// decodeCPU decodes a cpu_manager_state; fast, when set, is the restore
// the fast path made of it.
func decodeCPU(f *checker, blob []byte, opts Options, fast *cpuRestore) {
	var r cpuRestore
	if fast != nil {
		r = *fast
	} else {
		r = restoreCPU(blob)
	}
	f.Checksum = r.checksum
	f.Format = r.fileFormat()
	base := ""
	if r.format == FormatV4 {
		base = "/data"
	}
	var overAt string
	var entrySets []cpuBuilt
	f.CPU, overAt, entrySets = cpuStateFrom(&r.data, base)
	err := r.err
	if err == nil {
		policy := opts.Policy
		if policy == "" {
			policy = r.data.PolicyName
		}
		err = cpuValidate(policy, &r.data, entrySets)
	}
	if err != nil {
		f.Reason = kubeText(fmt.Sprintf("could not restore state from checkpoint: %v, please drain this node and delete the CPU manager checkpoint file %q before restarting Kubelet", err, f.Name))
	} else {
		f.KubeletAccepts = true
	}
	if r.format == FormatV1 {
		entrySets = nil // the state shows the v1 sets
		var v1 cpuCheckpointV1
		if json.Unmarshal(blob, &v1) == nil {
			// a v1 file is refused whatever its sets; they are shown
			// when they fit the budget
			var b cpuBudget
			f.CPU.PolicyName, f.CPU.Entries = v1.PolicyName, nil
			f.CPU.DefaultCPUSet, _ = b.parse(v1.DefaultCPUSet)
			f.CPU.ContainerEntries = map[string]cpuset.CPUSet{}
			for _, k := range sortedKeys(v1.Entries) {
				f.CPU.ContainerEntries[k], _ = b.parse(v1.Entries[k])
			}
		}
	}
	cpuProblems(f, blob, &r, opts, entrySets)
	if overAt != "" && !slices.ContainsFunc(f.Problems, func(p Problem) bool { return p.Path == overAt }) {
		f.problem(SeverityWarning, overAt, "check that this is a file a kubelet wrote",
			"the cpusets of the file name more than %d CPUs in all; numascope expanded them up to this one, so the CPU state shown is incomplete", MaxFileCPUs)
	}
}

// fileFormat names the format of the file. The matched checksum layout
// decides where the members alone cannot: a file without entries reads the
// same as v1 and v2, and the kubelets that still read v1 (up to v1.21) took
// it as v1 when the v1 checksum verified.
func (r *cpuRestore) fileFormat() Format {
	switch r.checksum.Matched {
	case layoutCPUV1:
		return FormatV1
	case layoutCPUV2, layoutCPUV2Raw:
		if r.format != FormatV4 {
			return FormatV2
		}
	case layoutCPUV3, layoutCPUV3Raw:
		return FormatV3
	}
	return r.format
}

// restoreCPU follows loadAndMigrateCheckpointV4 → V3 → V2 of kubelet v1.37.2.
func restoreCPU(blob []byte) cpuRestore {
	var r cpuRestore
	v4 := newCPUV4()
	err := unmarshalCPUV4(blob, v4)
	if err == nil {
		sum := stringChecksum(v4.Data)
		if sum != v4.DataChecksum {
			err = errCorrupt
		}
	}
	r.checksum.Layouts = cpuLayouts(blob, v4)
	if err == nil {
		r.format, r.data = FormatV4, v4.CheckpointData
		r.checksum.Stored, r.checksum.Valid = v4.DataChecksum, true
		r.checksum.finish()
		return r
	}
	if len(v4.Data) > 0 || v4.DataChecksum != 0 {
		r.format = FormatV4
		r.boundsAt = badPodEntry(err, []byte(v4.Data), "/data")
		r.err = fmt.Errorf("could not load v4 checkpoint: %w", err)
		r.data = v4.CheckpointData
		r.checksum.Stored = v4.DataChecksum
		r.checksum.finish()
		return r
	}

	v3 := &cpuCheckpointV3{Entries: map[string]map[string]string{}, PodEntries: map[string]cpuPodEntry{}}
	err = json.Unmarshal(blob, v3)
	v3ok := err == nil
	if at := badPodEntry(err, blob, ""); at != "" {
		// a pod-level set numascope does not build: the kubelet would hang
		// or take gigabytes here, before any fallback
		r.format, r.boundsAt = FormatV3, at
		r.err = fmt.Errorf("could not load v3 checkpoint: %w", err)
		r.checksum.Stored = v3.Checksum
		r.checksum.finish()
		return r
	}
	if err == nil {
		if at, berr := podEntriesCPUs(v3.PodEntries, ""); berr != nil {
			// the v3 checksum covers every pod-level CPU: numascope does
			// not build them, so it cannot verify the file
			r.format, r.boundsAt = FormatV3, at
			r.err = fmt.Errorf("could not verify the v3 checkpoint: %w", berr)
			r.checksum.Stored = v3.Checksum
			r.checksum.finish()
			return r
		}
		ck := v3.Checksum
		if ck != cpuV3Sum("CPUManagerCheckpointV3", v3) && ck != cpuV3Sum("CPUManagerCheckpoint", v3) {
			err = errCorrupt
		}
	}
	if err == nil {
		r.format = FormatV3
		r.data = cpuCheckpointData{PolicyName: v3.PolicyName, DefaultCPUSet: v3.DefaultCPUSet,
			Entries: map[string]map[string]string{}, PodEntries: map[string]cpuPodEntry{}, Baselines: map[string]map[string]cpuBaseline{}}
		if len(v3.Entries) > 0 {
			r.data.Entries = v3.Entries
		}
		if len(v3.PodEntries) > 0 {
			r.data.PodEntries = v3.PodEntries
		}
		r.checksum.Stored, r.checksum.Valid = v3.Checksum, true
		r.checksum.finish()
		r.format = FormatV3
		return r
	}

	v2 := &cpuCheckpointV2{Entries: map[string]map[string]string{}}
	err = json.Unmarshal(blob, v2)
	if err == nil && v2.Checksum != 0 {
		// PodLevelResourceManagers is off by default: the raw type name is tried first.
		if v2.Checksum != cpuV2Sum("CPUManagerCheckpointV2", v2.PolicyName, v2.DefaultCPUSet, v2.Entries) &&
			v2.Checksum != cpuV2Sum("CPUManagerCheckpoint", v2.PolicyName, v2.DefaultCPUSet, v2.Entries) {
			err = errCorrupt
		}
	}
	r.checksum.Stored = v2.Checksum
	r.format = detectCPUFormat(blob)
	if err != nil {
		r.err = err
		if errors.Is(err, errCorrupt) {
			// the kubelet loads nothing; the state shows what the file
			// records, as its own reader of that format reads it
			r.data = cpuCheckpointData{PolicyName: v2.PolicyName, DefaultCPUSet: v2.DefaultCPUSet,
				Entries: v2.Entries, PodEntries: map[string]cpuPodEntry{}, Baselines: map[string]map[string]cpuBaseline{}}
			if r.format == FormatV3 && v3ok {
				r.data.Entries = v3.Entries
				r.data.PodEntries = v3.PodEntries
			}
		}
		r.checksum.finish()
		return r
	}
	r.checksum.Valid = true
	r.checksum.ZeroSkipped = v2.Checksum == 0
	r.data = cpuCheckpointData{PolicyName: v2.PolicyName, DefaultCPUSet: v2.DefaultCPUSet,
		Entries: map[string]map[string]string{}, PodEntries: map[string]cpuPodEntry{}, Baselines: map[string]map[string]cpuBaseline{}}
	if len(v2.Entries) > 0 {
		r.data.Entries = v2.Entries
	}
	r.checksum.finish()
	if r.checksum.ZeroSkipped {
		r.checksum.Era = eraCPUZero
		if r.format == FormatV3 {
			// The v3 VerifyChecksum rejects 0; only the v2 fallback accepts
			// the file, and it has no podEntries.
			r.checksum.Valid, r.checksum.Era = false, eraCPUZeroV3
			r.zeroFallback = len(v3.PodEntries)
		}
	}
	return r
}

const (
	layoutCPUV3    = "v3"
	layoutCPUV3Raw = "v3-typename-v3"
	layoutCPUV2    = "v2"
	layoutCPUV2Raw = "v2-typename-v2"
	layoutCPUV1    = "v1"
)

// cpuLayouts computes every layout that some kubelet writes or accepts, each
// over the content as that kubelet's struct would hold it.
func cpuLayouts(blob []byte, v4 *cpuCheckpointV4) []Layout {
	var ls []Layout
	if v4.Data != "" || v4.DataChecksum != 0 {
		ls = append(ls, Layout{Name: layoutCPUV4, Stored: v4.DataChecksum, Computed: stringChecksum(v4.Data), Era: eraCPUV4})
	}
	v3 := &cpuCheckpointV3{Entries: map[string]map[string]string{}, PodEntries: map[string]cpuPodEntry{}}
	v3ok := json.Unmarshal(blob, v3) == nil
	v2 := &cpuCheckpointV2{Entries: map[string]map[string]string{}}
	if json.Unmarshal(blob, v2) == nil {
		if v4.Data != "" || v4.DataChecksum != 0 {
			ls = append(ls, Layout{Name: layoutCPUOut, Stored: v2.Checksum, Computed: cpuV2Sum("CPUManagerCheckpoint", v2.PolicyName, v2.DefaultCPUSet, v2.Entries), Era: eraCPUV4Out})
		}
		ls = append(ls,
			Layout{Name: layoutCPUV2, Stored: v2.Checksum, Computed: cpuV2Sum("CPUManagerCheckpoint", v2.PolicyName, v2.DefaultCPUSet, v2.Entries), Era: eraCPUV2},
			Layout{Name: layoutCPUV2Raw, Stored: v2.Checksum, Computed: cpuV2Sum("CPUManagerCheckpointV2", v2.PolicyName, v2.DefaultCPUSet, v2.Entries), Era: eraCPUV2Raw})
	}
	if _, berr := podEntriesCPUs(v3.PodEntries, ""); v3ok && berr == nil {
		ls = append(ls,
			Layout{Name: layoutCPUV3, Stored: v3.Checksum, Computed: cpuV3Sum("CPUManagerCheckpoint", v3), Era: eraCPUV3},
			Layout{Name: layoutCPUV3Raw, Stored: v3.Checksum, Computed: cpuV3Sum("CPUManagerCheckpointV3", v3), Era: eraCPUV3Raw})
	}
	v1 := &cpuCheckpointV1{Entries: map[string]string{}}
	if json.Unmarshal(blob, v1) == nil {
		ls = append(ls, Layout{Name: layoutCPUV1, Stored: v1.Checksum, Computed: cpuV1Sum(v1.PolicyName, v1.DefaultCPUSet, v1.Entries), Era: eraCPUV1})
	}
	for i := range ls {
		ls[i].Matched = ls[i].Stored == ls[i].Computed
	}
	return ls
}

// finish sets Matched and Era from the layouts: the layout of the kubelet's
// chosen path first, else the first layout that matches.
func (c *ChecksumReport) finish() {
	if c.Layouts == nil {
		c.Layouts = []Layout{}
	}
	for _, l := range c.Layouts {
		if l.Matched && l.Stored == c.Stored && (l.Stored != 0 || l.Computed == 0) {
			c.Matched, c.Era = l.Name, l.Era
			return
		}
	}
}

func detectCPUFormat(blob []byte) Format {
	var probe struct {
		Data         *json.RawMessage `json:"data"`
		DataChecksum *json.RawMessage `json:"dataChecksum"`
		PodEntries   *json.RawMessage `json:"podEntries"`
		Entries      map[string]json.RawMessage
	}
	_ = json.Unmarshal(blob, &probe)
	switch {
	case probe.Data != nil || probe.DataChecksum != nil:
		return FormatV4
	case probe.PodEntries != nil:
		return FormatV3
	}
	for _, v := range probe.Entries {
		if len(v) > 0 && v[0] == '"' {
			return FormatV1
		}
	}
	return FormatV2
}

// cpuValidate is the part of restoreState after loading: policy and cpusets.
//
// sets, when not nil, is what cpuStateFrom built of the entries.
func cpuValidate(policy string, d *cpuCheckpointData, sets []cpuBuilt) error {
	if policy != d.PolicyName {
		return fmt.Errorf("configured policy %q differs from state checkpoint policy %q", policy, d.PolicyName)
	}
	// One budget for every cpuset the kubelet reads: the default set, the
	// entries, and the pod-level sets it read while decoding.
	var b cpuBudget
	if err := b.check(d.DefaultCPUSet); err != nil {
		return fmt.Errorf("could not parse default CPU set %s: %w", setText(d.DefaultCPUSet, err), err)
	}
	// The kubelet walks the maps in Go's random order; numascope reports the
	// first bad cpuset in sorted order (and every one of them as a problem).
	entries := d.entrySets()
	if entrySetCount(entries) != len(sets) {
		sets = nil
	}
	k := -1
	for _, p := range entries {
		for _, c := range p.sets {
			k++
			if err := b.checkBuilt(c.text, sets, k); err != nil {
				return fmt.Errorf("could not parse cpuset %s for container %q in pod %q: %w", setText(c.text, err), c.name, p.pod, err)
			}
		}
	}
	for _, pod := range sortedKeys(d.PodEntries) {
		if err := b.count(d.PodEntries[pod]); err != nil {
			return fmt.Errorf("could not expand the cpuset %s of pod %s: %w", quoteShort(d.PodEntries[pod].text), quoteName(pod), err)
		}
	}
	return nil
}

// cpuStateFrom builds the state the kubelet holds. The sets are expanded in
// the order of cpuValidate under one budget; a set that does not parse or
// does not fit is left empty (its problem is reported), and the pointer of
// the first set over the budget is returned, with the sets of the entries
// in the order of entrySets.
func cpuStateFrom(d *cpuCheckpointData, base string) (*CPUState, string, []cpuBuilt) {
	var b cpuBudget
	over := ""
	// a cpuset named again is the same value (sets are never changed once
	// built): a container's baseline is mostly its own set, and
	// neighbouring containers may share one
	type built = cpuBuilt
	var last built
	last.n = -1
	parse := func(text string, at ...string) built {
		if last.n >= 0 && last.text == text {
			err := b.charge(last.n)
			if err == nil {
				return last
			}
			if errors.Is(err, errCPUBudget) {
				over = base + pointer(at...)
			}
			return built{text, cpuset.New(), -1}
		}
		n, err := b.checkN(text)
		if err != nil {
			if errors.Is(err, errCPUBudget) {
				over = base + pointer(at...)
			}
			return built{text, cpuset.New(), -1}
		}
		// checkN walked every element of text and found none bad
		last = built{text, newCPUSet(n, text), n}
		return last
	}
	s := &CPUState{PolicyName: d.PolicyName}
	s.DefaultCPUSet = parse(d.DefaultCPUSet, "defaultCpuSet").set
	var entries []cpuPodSets
	var sets []built
	if !d.entriesNil() {
		entries = d.entrySets()
		s.Entries = make(map[string]map[string]cpuset.CPUSet, len(entries))
		n := 0
		for _, p := range entries {
			n += len(p.sets)
		}
		sets = make([]built, 0, n)
		for _, p := range entries {
			m := make(map[string]cpuset.CPUSet, len(p.sets))
			for _, c := range p.sets {
				e := parse(c.text, "entries", p.pod, c.name)
				sets = append(sets, e)
				m[c.name] = e.set
			}
			s.Entries[p.pod] = m
		}
	}
	if len(d.PodEntries) > 0 {
		s.PodEntries = make(map[string]cpuset.CPUSet, len(d.PodEntries))
		for _, pod := range sortedKeys(d.PodEntries) {
			e := d.PodEntries[pod]
			if !e.decoded {
				s.PodEntries[pod] = e.CPUSet
				continue
			}
			s.PodEntries[pod] = parse(e.text, "podEntries", pod, "cpuSet").set
		}
	}
	if bs := d.baselineSets(); len(bs) > 0 {
		s.Baselines = make(map[string]map[string]cpuset.CPUSet, len(bs))
		// both lists are in pod, then container order: the entry of
		// each baseline's container is found walking them side by side
		ep, eo := 0, 0 // a pod of entries, and its first set in sets
		for _, p := range bs {
			for ep < len(entries) && entries[ep].pod < p.pod {
				eo += len(entries[ep].sets)
				ep++
			}
			var own []cpuNamed
			if ep < len(entries) && entries[ep].pod == p.pod {
				own = entries[ep].sets
			}
			m := make(map[string]cpuset.CPUSet, len(p.sets))
			ec := 0
			for _, c := range p.sets {
				for ec < len(own) && own[ec].name < c.name {
					ec++
				}
				if ec < len(own) && own[ec].name == c.name && sets[eo+ec].n >= 0 && sets[eo+ec].text == c.text {
					last = sets[eo+ec]
				}
				m[c.name] = parse(c.text, "baselines", p.pod, c.name, "baseline").set
			}
			s.Baselines[p.pod] = m
		}
	}
	return s, over, sets
}

// cpuBuilt is a cpuset cpuStateFrom built, with its CPUs (n; -1 when it did
// not parse or fit).
type cpuBuilt struct {
	text string
	set  cpuset.CPUSet
	n    int
}

// checkBuilt is check for the k-th set of the entries, by the count of
// what cpuStateFrom built of it when it has (the same error and charge).
func (b *cpuBudget) checkBuilt(text string, sets []cpuBuilt, k int) error {
	if k < len(sets) && sets[k].n >= 0 && sets[k].text == text {
		return b.charge(sets[k].n)
	}
	return b.check(text)
}

func entrySetCount(entries []cpuPodSets) int {
	n := 0
	for _, p := range entries {
		n += len(p.sets)
	}
	return n
}

// cpuProblems reports everything wrong, beyond the kubelet's first error.
//
// sets, when not nil, holds what cpuStateFrom built of f.CPU.Entries, in
// the order of entrySets.
func cpuProblems(f *checker, blob []byte, r *cpuRestore, opts Options, sets []cpuBuilt) {
	const drain = "drain the node, stop the kubelet, delete cpu_manager_state and start the kubelet again (it rebuilds the file)"
	if r.err != nil {
		if r.boundsAt != "" {
			f.problem(SeverityError, r.boundsAt, drain, "%v", r.err)
		} else if errors.Is(r.err, errCorrupt) || !f.Checksum.Valid && r.checksum.Stored != 0 {
			f.problem(SeverityError, checksumPointer(f.File), drain,
				"the stored checksum %d matches no layout the kubelet v1.37.2 verifies; the kubelet refuses to start with %q", f.Checksum.Stored, r.err.Error())
		} else {
			f.problem(SeverityError, "", drain, "kubelet v1.37.2 cannot load the file: %v", r.err)
		}
	}
	if r.err == nil && r.format == FormatV3 && r.checksum.ZeroSkipped {
		f.problem(SeverityWarning, "/checksum", "let the kubelet rewrite the file (it writes a checksummed v4 checkpoint); restart the pods that relied on pod-level CPUs",
			"the v3 checksum is 0, which kubelet v1.37.2's v3 check rejects; the kubelet falls back to its v2 reader, which skips a zero checksum but has no podEntries, so it accepts the file and forgets the pod-level CPUs of %d pods", r.zeroFallback)
	}
	if r.format == FormatV1 {
		f.problem(SeverityError, "/entries", drain,
			"this is a v1 cpu_manager_state (entries keyed by container ID, kubelet ≤1.17); kubelet v1.37.2 cannot read it")
	}
	d := &r.data
	policy := opts.Policy
	if policy == "" {
		policy = d.PolicyName
	}
	if r.err == nil && policy != d.PolicyName {
		f.problem(SeverityError, "/policyName", "either configure the kubelet with --cpu-manager-policy="+nameText(d.PolicyName)+", or "+drain,
			"configured policy %s differs from state checkpoint policy %s", qname(policy), qname(d.PolicyName))
	}
	if d.PolicyName != "" && d.PolicyName != "none" && d.PolicyName != "static" {
		f.problem(SeverityWarning, "/policyName", "the CPU manager policies are none and static",
			"policy %s is not a CPU manager policy", qname(d.PolicyName))
	}
	base := ""
	if r.format == FormatV4 {
		base = "/data"
	}
	// the sets in cpuValidate's order, under one budget: the set that goes
	// over it is reported, the ones after it are counted
	// (the sets are the ones cpuStateFrom built in the same order under
	// the same budget)
	var b cpuBudget
	skipped := 0
	def := f.CPU.DefaultCPUSet
	if r.format == FormatV1 {
		def = cpuset.New() // the state shows the v1 sets, d has none
	}
	if err := b.check(d.DefaultCPUSet); err != nil {
		f.problem(SeverityError, base+"/defaultCpuSet", drain, "could not parse default CPU set %s: %v", quoteShort(d.DefaultCPUSet), err)
	}
	// the shared pool as problems write it, made once
	var defShort string
	defText := lazyText(func() string {
		if defShort == "" {
			defShort = setShort(def)
		}
		return defShort
	})
	type owned struct {
		pod, container, text string
		set                  cpuset.CPUSet
	}
	entries := d.entrySets()
	n := entrySetCount(entries)
	if len(sets) != n {
		sets = nil
	}
	all := make([]owned, 0, n)
	k := -1
	for _, ps := range entries {
		pod := ps.pod
		for _, cn := range ps.sets {
			k++
			c, text := cn.name, cn.text
			err := b.checkBuilt(text, sets, k)
			if errors.Is(err, errCPUSkipped) {
				skipped++
				continue
			}
			if err != nil {
				f.problem(SeverityError, base+pointer("entries", pod, c), drain,
					"could not parse cpuset %s for container %s in pod %s: %v", qshort(text), qname(c), qname(pod), err)
				continue
			}
			var s cpuset.CPUSet
			ok := false
			if sets != nil {
				s, ok = sets[k].set, true
			} else {
				s, ok = f.CPU.Entries[pod][c]
			}
			if !ok {
				s, _ = parseCPUSet(text)
			}
			all = append(all, owned{pod, c, text, s})
			shared := false
			if d.PolicyName == "static" && def.Size() > 0 {
				eachCPU(text, func(cpu int) { shared = shared || def.Contains(cpu) })
			}
			if shared {
				f.problem(SeverityError, base+pointer("entries", pod, c),
					"the exclusive CPUs of a container must not be in the shared pool; "+drain,
					"CPUs %s of container %s in pod %s are also in the default (shared) set %s",
					lazyText(func() string { return setShort(s.Intersection(def)) }), qname(c), qname(pod), defText)
			}
		}
	}
	for _, pod := range sortedKeys(d.PodEntries) {
		e := d.PodEntries[pod]
		err := b.count(e)
		if errors.Is(err, errCPUSkipped) {
			skipped++
		} else if err != nil {
			f.problem(SeverityError, base+pointer("podEntries", pod, "cpuSet"), drain,
				"could not expand the cpuset %s of pod %s: %v", qshort(e.text), qname(pod), err)
		}
	}
	if skipped > 0 {
		f.problem(SeverityInfo, "", "fix the cpuset reported above first",
			"%d more cpusets were not checked: the file is over numascope's budget of %d CPUs", skipped, MaxFileCPUs)
	}
	// overlaps between containers, in one pass over the CPUs (each set is
	// walked from its text: the CPUs in order, without sorting a list)
	owner := newCPUOwners(all, func(o owned) string { return o.text })
	reported := map[[2]int]bool{}
	who := func(o owned) string { return "container " + quoteName(o.container) + " of pod " + quoteName(o.pod) }
	var cpus []int
	for i, o := range all {
		cpus = sortedCPUs(cpus[:0], o.text)
		for _, cpu := range cpus {
			j, seen := owner.get(cpu)
			if !seen {
				owner.set(cpu, i)
				continue
			}
			if key := [2]int{j, i}; !reported[key] {
				reported[key] = true
				first := all[j]
				// the CPUs both hold, written only for a problem listed
				both := lazyText(func() string {
					a, b := first.set, o.set
					if b.Size() < a.Size() {
						a, b = b, a
					}
					ov := a.Intersection(b)
					if ov.Size() == 1 {
						return "CPU " + setShort(ov) + " is"
					}
					return "CPUs " + setShort(ov) + " are"
				})
				if f.problem(SeverityError, base+pointer("entries", first.pod, first.container), drain, "%s assigned to both %s and %s", both, lazyText(func() string { return who(first) }), lazyText(func() string { return who(o) })) {
					f.Problems[len(f.Problems)-1].Also = []string{base + pointer("entries", o.pod, o.container)}
				}
			}
		}
	}
	if d.PolicyName == "none" && d.entryPods() > 0 {
		f.problem(SeverityWarning, base+"/entries", "the none policy never assigns exclusive CPUs; the entries were probably written under another policy",
			"policy none with %d pods holding exclusive CPUs", d.entryPods())
	}
	if r.format == FormatV4 && r.err == nil {
		if !r.outerRead {
			var outer cpuCheckpointV2
			if json.Unmarshal(blob, &outer) == nil {
				r.outerPolicy, r.outerDefault, r.outerRead = outer.PolicyName, outer.DefaultCPUSet, true
			}
		}
		if r.outerRead {
			if r.outerPolicy != d.PolicyName || r.outerDefault != d.DefaultCPUSet {
				f.problem(SeverityWarning, "/policyName", "the outer copy is only read by older kubelets after a downgrade; a kubelet restart rewrites it",
					"the outer (rollback) copy differs from the data section the kubelet uses")
			}
			for _, l := range f.Checksum.Layouts {
				if l.Name == layoutCPUOut && !l.Matched {
					f.problem(SeverityWarning, "/checksum", "only matters when downgrading the kubelet; a kubelet restart rewrites it",
						"the outer (rollback) copy's checksum %d does not match its content (%d): an older kubelet would refuse this file", l.Stored, l.Computed)
				}
			}
		}
	}
}

func checksumPointer(f *File) string {
	switch f.Format {
	case FormatV4:
		if f.Kind == KindCPU {
			return "/dataChecksum"
		}
	case FormatV3:
		if f.Kind == KindMemory {
			return "/dataChecksum"
		}
	}
	if f.Kind == KindDevice || f.Kind == KindDRA {
		return "/Checksum"
	}
	return "/checksum"
}

func isZeroCPUSet(s cpuset.CPUSet) bool {
	return reflect.ValueOf(s).Field(0).IsNil()
}

// sortedCPUs appends the CPUs of a cpuset text that check accepted, in
// ascending order and each once (what CPUSet.List returns).
func sortedCPUs(dst []int, text string) []int {
	start := len(dst)
	eachCPU(text, func(cpu int) { dst = append(dst, cpu) })
	out := dst[start:]
	if !slices.IsSorted(out) {
		slices.Sort(out)
	}
	return append(dst[:start], slices.Compact(out)...)
}

// cpuOwners maps a CPU to the first container that holds it: a slice when
// the ids are small, a map otherwise.
type cpuOwners struct {
	dense []int32
	m     map[int]int
}

func newCPUOwners[T any](all []T, text func(T) string) *cpuOwners {
	top := -1
	for _, o := range all {
		for rest, more := text(o), text(o) != ""; more; {
			var r string
			r, rest, more = strings.Cut(rest, ",")
			if _, hi, _, ok := kubeletRange(r); ok && hi > top {
				top = hi
			}
		}
	}
	if top >= 0 && top < 1<<22 {
		d := make([]int32, top+1)
		for i := range d {
			d[i] = -1
		}
		return &cpuOwners{dense: d}
	}
	return &cpuOwners{m: map[int]int{}}
}

func (c *cpuOwners) get(cpu int) (int, bool) {
	if c.dense != nil {
		if cpu < 0 || cpu >= len(c.dense) || c.dense[cpu] < 0 {
			return 0, false
		}
		return int(c.dense[cpu]), true
	}
	j, ok := c.m[cpu]
	return j, ok
}

func (c *cpuOwners) set(cpu, i int) {
	if c.dense != nil && cpu >= 0 && cpu < len(c.dense) {
		c.dense[cpu] = int32(i)
		return
	}
	if c.m == nil {
		c.m = map[int]int{}
	}
	c.m[cpu] = i
}
