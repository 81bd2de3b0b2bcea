package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
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
}

type cpuCheckpointV4 struct {
	cpuCheckpointV2 `json:",inline"`
	Data            string            `json:"data"`
	DataChecksum    uint64            `json:"dataChecksum"`
	CheckpointData  cpuCheckpointData `json:"-"`
}

// cpuPodEntry mirrors state.PodEntry with its custom JSON methods.
type cpuPodEntry struct {
	CPUSet cpuset.CPUSet
	// text is the cpuset string as written in the file.
	text string
}

type cpuPodEntryJSON struct {
	CPUSet string `json:"cpuSet,omitempty"`
}

func (p cpuPodEntry) MarshalJSON() ([]byte, error) {
	return json.Marshal(cpuPodEntryJSON{CPUSet: p.CPUSet.String()})
}

func (p *cpuPodEntry) UnmarshalJSON(b []byte) error {
	var entry cpuPodEntryJSON
	if err := json.Unmarshal(b, &entry); err != nil {
		return err
	}
	cset, err := parseCPUSet(entry.CPUSet)
	if err != nil {
		return fmt.Errorf("failed to parse cpuset: %w", err)
	}
	p.CPUSet = cset
	p.text = entry.CPUSet
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
		p.cpuSetElems(e.CPUSet)
		p.s("}}")
	})
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

func decodeCPU(f *File, blob []byte, opts Options) {
	r := restoreCPU(blob)
	f.Checksum = r.checksum
	f.Format = r.fileFormat()
	err := r.err
	if err == nil {
		policy := opts.Policy
		if policy == "" {
			policy = r.data.PolicyName
		}
		err = cpuValidate(policy, &r.data)
	}
	if err != nil {
		f.Reason = kubeText(fmt.Sprintf("could not restore state from checkpoint: %v, please drain this node and delete the CPU manager checkpoint file %q before restarting Kubelet", err, f.Name))
	} else {
		f.KubeletAccepts = true
	}
	f.CPU = cpuStateFrom(&r.data)
	if r.format == FormatV1 {
		var v1 cpuCheckpointV1
		if json.Unmarshal(blob, &v1) == nil {
			f.CPU.PolicyName, f.CPU.Entries = v1.PolicyName, nil
			f.CPU.DefaultCPUSet, _ = parseCPUSet(v1.DefaultCPUSet)
			f.CPU.ContainerEntries = map[string]cpuset.CPUSet{}
			for k, v := range v1.Entries {
				f.CPU.ContainerEntries[k], _ = parseCPUSet(v)
			}
		}
	}
	cpuProblems(f, blob, &r, opts)
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
		r.err = fmt.Errorf("could not load v4 checkpoint: %w", err)
		r.data = v4.CheckpointData
		r.checksum.Stored = v4.DataChecksum
		r.checksum.finish()
		return r
	}

	v3 := &cpuCheckpointV3{Entries: map[string]map[string]string{}, PodEntries: map[string]cpuPodEntry{}}
	err = json.Unmarshal(blob, v3)
	if err == nil {
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
	if v3ok {
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
func cpuValidate(policy string, d *cpuCheckpointData) error {
	if policy != d.PolicyName {
		return fmt.Errorf("configured policy %q differs from state checkpoint policy %q", policy, d.PolicyName)
	}
	if _, err := parseCPUSet(d.DefaultCPUSet); err != nil {
		return fmt.Errorf("could not parse default CPU set %q: %w", d.DefaultCPUSet, err)
	}
	// The kubelet walks the maps in Go's random order; numascope reports the
	// first bad cpuset in sorted order (and every one of them as a problem).
	for _, pod := range sortedKeys(d.Entries) {
		for _, container := range sortedKeys(d.Entries[pod]) {
			s := d.Entries[pod][container]
			if _, err := parseCPUSet(s); err != nil {
				return fmt.Errorf("could not parse cpuset %q for container %q in pod %q: %w", s, container, pod, err)
			}
		}
	}
	return nil
}

func cpuStateFrom(d *cpuCheckpointData) *CPUState {
	s := &CPUState{PolicyName: d.PolicyName}
	s.DefaultCPUSet, _ = parseCPUSet(d.DefaultCPUSet)
	if d.Entries != nil {
		s.Entries = make(map[string]map[string]cpuset.CPUSet, len(d.Entries))
		for pod, cs := range d.Entries {
			s.Entries[pod] = make(map[string]cpuset.CPUSet, len(cs))
			for c, v := range cs {
				s.Entries[pod][c], _ = parseCPUSet(v)
			}
		}
	}
	if len(d.PodEntries) > 0 {
		s.PodEntries = make(map[string]cpuset.CPUSet, len(d.PodEntries))
		for pod, e := range d.PodEntries {
			s.PodEntries[pod] = e.CPUSet
		}
	}
	if len(d.Baselines) > 0 {
		s.Baselines = make(map[string]map[string]cpuset.CPUSet, len(d.Baselines))
		for pod, cs := range d.Baselines {
			s.Baselines[pod] = make(map[string]cpuset.CPUSet, len(cs))
			for c, v := range cs {
				s.Baselines[pod][c], _ = parseCPUSet(v.Baseline)
			}
		}
	}
	return s
}

// cpuProblems reports everything wrong, beyond the kubelet's first error.
func cpuProblems(f *File, blob []byte, r *cpuRestore, opts Options) {
	const drain = "drain the node, stop the kubelet, delete cpu_manager_state and start the kubelet again (it rebuilds the file)"
	if r.err != nil {
		if errors.Is(r.err, errCorrupt) || !f.Checksum.Valid && r.checksum.Stored != 0 {
			f.problem(SeverityError, checksumPointer(f), drain,
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
		f.problem(SeverityError, "/policyName", "either configure the kubelet with --cpu-manager-policy="+d.PolicyName+", or "+drain,
			"configured policy %q differs from state checkpoint policy %q", policy, d.PolicyName)
	}
	if d.PolicyName != "" && d.PolicyName != "none" && d.PolicyName != "static" {
		f.problem(SeverityWarning, "/policyName", "the CPU manager policies are none and static",
			"policy %q is not a CPU manager policy", d.PolicyName)
	}
	base := ""
	if r.format == FormatV4 {
		base = "/data"
	}
	def, err := parseCPUSet(d.DefaultCPUSet)
	if err != nil {
		f.problem(SeverityError, base+"/defaultCpuSet", drain, "could not parse default CPU set %q: %v", d.DefaultCPUSet, err)
	}
	type owned struct {
		who string
		set cpuset.CPUSet
	}
	var all []owned
	for _, pod := range sortedKeys(d.Entries) {
		for _, c := range sortedKeys(d.Entries[pod]) {
			s, err := parseCPUSet(d.Entries[pod][c])
			if err != nil {
				f.problem(SeverityError, base+pointer("entries", pod, c), drain,
					"could not parse cpuset %q for container %q in pod %q: %v", d.Entries[pod][c], c, pod, err)
				continue
			}
			all = append(all, owned{fmt.Sprintf("container %q of pod %q", c, pod), s})
			if ov := s.Intersection(def); ov.Size() > 0 && d.PolicyName == "static" {
				f.problem(SeverityError, base+pointer("entries", pod, c),
					"the exclusive CPUs of a container must not be in the shared pool; "+drain,
					"CPUs %s of container %q in pod %q are also in the default (shared) set %s", ov, c, pod, def)
			}
		}
	}
	// overlaps between containers, in one pass over the CPUs
	owner := map[int]int{}
	reported := map[[2]int]bool{}
	for i, o := range all {
		for _, cpu := range o.set.List() {
			j, seen := owner[cpu]
			if !seen {
				owner[cpu] = i
				continue
			}
			if key := [2]int{j, i}; !reported[key] {
				reported[key] = true
				ov := all[j].set.Intersection(o.set)
				f.problem(SeverityError, "", drain, "CPUs %s are assigned to both %s and %s", ov, all[j].who, o.who)
			}
		}
	}
	if d.PolicyName == "none" && len(d.Entries) > 0 {
		f.problem(SeverityWarning, base+"/entries", "the none policy never assigns exclusive CPUs; the entries were probably written under another policy",
			"policy none with %d pods holding exclusive CPUs", len(d.Entries))
	}
	if r.format == FormatV4 && r.err == nil {
		var outer cpuCheckpointV2
		if json.Unmarshal(blob, &outer) == nil {
			if outer.PolicyName != d.PolicyName || outer.DefaultCPUSet != d.DefaultCPUSet {
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

// maxParsedCPUs bounds the CPUs numascope expands from one cpuset range.
// cpuset.Parse adds a range CPU by CPU, so the kubelet hangs or runs out of
// memory on a range like "0-9223372036854775806"; numascope refuses it instead.
const maxParsedCPUs = 1 << 20

// errHugeCPUSet reports such a range.
var errHugeCPUSet = errors.New("the range is so wide that the kubelet would hang or run out of memory building it CPU by CPU")

// parseCPUSet is cpuset.Parse with a bound on range widths.
func parseCPUSet(s string) (cpuset.CPUSet, error) {
	for _, r := range strings.Split(s, ",") {
		if i := strings.IndexByte(r, '-'); i >= 0 {
			a, err1 := strconv.Atoi(r[:i])
			b, err2 := strconv.Atoi(r[i+1:])
			if err1 == nil && err2 == nil && a <= b && uint64(b-a) >= maxParsedCPUs {
				return cpuset.New(), fmt.Errorf("cpuset range %q: %w", r, errHugeCPUSet)
			}
		}
	}
	return cpuset.Parse(s)
}
