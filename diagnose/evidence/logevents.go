package evidence

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"github.com/numascope/numascope/internal/words"
)

// Hint is a Topology Manager hint as the evidence and the report show it (logged by the
// kubelet or computed by numascope; topomgr.TopologyHint is the merge's own
// form): the NUMA nodes of the affinity mask (nil for "any NUMA node") and whether it is preferred.
type Hint struct {
	NUMANodes []int `json:"numaAffinity"`
	Preferred bool  `json:"preferred"`
}

// hintV1 is Hint as the numascope.diagnose/v1 reports first wrote it: the
// affinity under numaNodes. Reports keep writing it beside numaAffinity,
// since v1 only ever adds fields, and read either.
type hintV1 struct {
	NUMAAffinity []int `json:"numaAffinity"`
	NUMANodes    []int `json:"numaNodes"`
	Preferred    bool  `json:"preferred"`
}

// MarshalJSON writes numaAffinity, the spelling of every hint numascope
// writes, and the v1 report's numaNodes beside it.
func (h Hint) MarshalJSON() ([]byte, error) {
	return json.Marshal(hintV1{NUMAAffinity: h.NUMANodes, NUMANodes: h.NUMANodes, Preferred: h.Preferred})
}

// UnmarshalJSON reads a hint written with either spelling.
func (h *Hint) UnmarshalJSON(b []byte) error {
	var v hintV1
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	h.NUMANodes, h.Preferred = v.NUMAAffinity, v.Preferred
	if h.NUMANodes == nil {
		h.NUMANodes = v.NUMANodes
	}
	return nil
}

// String renders the hint as "{0,1 preferred}" or "{any non-preferred}".
func (h Hint) String() string {
	p := "preferred"
	if !h.Preferred {
		p = "non-preferred"
	}
	return "{" + words.Nodes(h.NUMANodes) + " " + p + "}"
}

type loggedHint struct {
	NUMANodeAffinity *uint64
	Preferred        bool
}

func (l loggedHint) hint() Hint {
	h := Hint{Preferred: l.Preferred}
	if l.NUMANodeAffinity != nil {
		h.NUMANodes = maskBits(*l.NUMANodeAffinity)
	}
	return h
}

func maskBits(m uint64) []int {
	out := []int{}
	for m != 0 {
		b := bits.TrailingZeros64(m)
		out = append(out, b)
		m &^= 1 << b
	}
	return out
}

func decodeHint(raw string) (*Hint, error) {
	var l loggedHint
	if err := json.Unmarshal([]byte(raw), &l); err != nil {
		return nil, err
	}
	h := l.hint()
	return &h, nil
}

// ProviderHints is one hint provider's answer for one container (or
// pod), as logged in a "TopologyHints" record or as simulated.
type ProviderHints struct {
	// Provider is "device", "cpu" or "memory": taken from the resource names
	// when there are any, otherwise from the kubelet's fixed provider order.
	Provider string `json:"provider"`
	// Line is the log line; 0 for hints numascope computed.
	Line int `json:"line,omitempty"`
	// NoPreference is set when the provider returned no hints at all ("any
	// NUMA node"); EmptyMap tells an empty map ({}) from no map (null). The
	// static memory manager returns {} when no NUMA set has enough free memory.
	NoPreference bool `json:"noPreference,omitempty"`
	EmptyMap     bool `json:"emptyMap,omitempty"`
	// Indistinct is set when the log cannot tell nil from empty: kubelets
	// before 1.28 print both a nil and an empty map as map[] (and both
	// lists as []), so NoPreference/EmptyMap (and a resource's
	// NoPreference/Impossible) are the likelier reading, not a certainty.
	Indistinct bool `json:"indistinct,omitempty"`
	// Resources lists, per resource, the hints; a resource whose list is
	// Impossible could not be placed anywhere ("[]"), one with NoPreference
	// accepted any NUMA node ("null").
	Resources []ResourceHints `json:"resources,omitempty"`
}

// ResourceHints are the hints one provider gave for one resource.
type ResourceHints struct {
	Resource     string `json:"resource"`
	Hints        []Hint `json:"hints"`
	NoPreference bool   `json:"noPreference,omitempty"`
	Impossible   bool   `json:"impossible,omitempty"`
	// Indistinct: "[]" in a log before 1.28, read as Impossible, may have
	// been nil ("no preference"); a later "Hint Provider has no ..." line
	// settles it when the log has one.
	Indistinct bool `json:"indistinct,omitempty"`
}

// ContainerAdmission is what the logs say about one container's (or, in pod
// scope, the pod's) pass through the Topology Manager.
type ContainerAdmission struct {
	// Container is empty in pod scope.
	Container string          `json:"container,omitempty"`
	Providers []ProviderHints `json:"providers"`
	BestHint  *Hint           `json:"bestHint,omitempty"`
	BestLine  int             `json:"bestLine,omitempty"`
	// Aligned is set when the "Topology Affinity" record shows the container passed the policy.
	Aligned bool `json:"aligned"`
}

// AdmissionAttempt groups the log records of one admission of one pod.
type AdmissionAttempt struct {
	Pod        string               `json:"pod"`
	PodUID     string               `json:"podUID,omitempty"`
	Scope      string               `json:"scope"`
	StartLine  int                  `json:"startLine"`
	Containers []ContainerAdmission `json:"containers"`
	// Reason and Message are the admission result when the log has it
	// ("Pod admission denied", the event record or the status patch).
	Reason     string `json:"reason,omitempty"`
	Message    string `json:"message,omitempty"`
	ResultLine int    `json:"resultLine,omitempty"`
}

// KubeletLog is a parsed kubelet log with its admission attempts and signals.
type KubeletLog struct {
	*Log
	Attempts []AdmissionAttempt `json:"attempts"`
	Signals  []Signal           `json:"signals"`
}

// admissionReasons are the pod-status reasons kubelet admission produces.
var admissionReasons = map[string]bool{
	"TopologyAffinityError": true, "SMTAlignmentError": true, "UnexpectedAdmissionError": true,
	"EmptyPodSharedPoolError": true, "Topology Affinity Error": true,
}

// interpret groups the records of a log into admission attempts and signals.
func (l *Log) interpret() *KubeletLog {
	in := &logInterp{k: &KubeletLog{Log: l}, open: map[string]int{}}
	// Before 1.17 the CPU manager's line is the only one with hints; from
	// 1.17 the Topology Manager logs every provider's answer and the CPU
	// manager's own line would count the cpu answer twice.
	for _, r := range l.Records {
		if r.Message == "TopologyHints" {
			in.tmHints = true
			break
		}
	}
	lastPods := map[string]string{} // node -> the pod whose admission the node's lines are in
	for _, r := range l.Records {
		in.k.signals(r)
		in.lastPod = lastPods[r.Node]
		in.record(r)
		lastPods[r.Node] = in.lastPod
	}
	return in.k
}

// logInterp groups records into admission attempts.
type logInterp struct {
	k       *KubeletLog
	open    map[string]int // pod -> index into Attempts
	lastPod string         // the pod whose admission the current node's lines are in
	tmHints bool           // the log has the Topology Manager's own TopologyHints lines
	index   attemptIndex
}

// attemptIndex finds the latest attempt of a pod by name or UID without
// a walk over every attempt: a log of a node that rejected many pods at
// the default verbosity has a result line per pod and no admission line
// before it, and walking back for each was quadratic in the pods. Each
// list holds the indexes of the attempts that had the key when it was
// noted, in order; an attempt renamed or given another UID since is
// skipped by the check at look-up.
type attemptIndex struct {
	exact     map[string][]int // the pod as named
	shortAny  map[string][]int // the pod's name without its namespace
	shortBare map[string][]int // the same, of attempts that name no namespace
	uid       map[string][]int
}

// note files attempt i under its pod and UID.
func (x *attemptIndex) note(i int, a *AdmissionAttempt) {
	if x.exact == nil {
		x.exact, x.shortAny, x.shortBare, x.uid = map[string][]int{}, map[string][]int{}, map[string][]int{}, map[string][]int{}
	}
	put := func(m map[string][]int, key string) {
		if l := m[key]; len(l) == 0 || l[len(l)-1] != i {
			m[key] = append(l, i)
		}
	}
	put(x.exact, a.Pod)
	short := a.Pod[strings.LastIndexByte(a.Pod, '/')+1:]
	put(x.shortAny, short)
	if !strings.Contains(a.Pod, "/") {
		put(x.shortBare, short)
	}
	put(x.uid, a.PodUID)
}

// byUID returns the latest attempt whose UID is uid.
func (x *attemptIndex) byUID(atts []AdmissionAttempt, uid string) (int, bool) {
	l := x.uid[uid]
	for j := len(l) - 1; j >= 0; j-- {
		if atts[l[j]].PodUID == uid {
			return l[j], true
		}
	}
	return 0, false
}

// latest returns the latest attempt whose pod has pod's name (sameName)
// or, when uid is not empty, whose UID is uid.
func (x *attemptIndex) latest(atts []AdmissionAttempt, pod, uid string) (int, bool) {
	best := -1
	look := func(l []int, ok func(a *AdmissionAttempt) bool) {
		for j := len(l) - 1; j >= 0 && l[j] > best; j-- {
			if ok(&atts[l[j]]) {
				best = l[j]
				return
			}
		}
	}
	named := func(a *AdmissionAttempt) bool { return SamePod(a.Pod, pod) }
	short := pod[strings.LastIndexByte(pod, '/')+1:]
	if strings.Contains(pod, "/") {
		look(x.exact[pod], named)
		look(x.shortBare[short], named)
	} else {
		look(x.shortAny[short], named)
	}
	if uid != "" {
		look(x.uid[uid], func(a *AdmissionAttempt) bool { return a.PodUID == uid })
	}
	return best, best >= 0
}

// appendAttempt adds an attempt and returns its index.
func (in *logInterp) appendAttempt(a AdmissionAttempt) int {
	in.k.Attempts = append(in.k.Attempts, a)
	i := len(in.k.Attempts) - 1
	in.index.note(i, &in.k.Attempts[i])
	return i
}

// setUID gives attempt i its pod's UID.
func (in *logInterp) setUID(i int, uid string) {
	in.k.Attempts[i].PodUID = uid
	in.index.note(i, &in.k.Attempts[i])
}

func (in *logInterp) attempt(pod string, line int, force bool) *AdmissionAttempt {
	k := in.k
	if i, ok := in.open[pod]; ok && !force {
		return &k.Attempts[i]
	}
	i := in.appendAttempt(AdmissionAttempt{Pod: pod, Scope: "container", StartLine: line})
	in.open[pod] = i
	return &k.Attempts[i]
}

func (in *logInterp) current() *AdmissionAttempt {
	if in.lastPod == "" {
		return nil
	}
	if i, ok := in.open[in.lastPod]; ok {
		return &in.k.Attempts[i]
	}
	return nil
}

func (in *logInterp) closeWith(pod, uid, reason, msg string, line int) {
	k := in.k
	i, ok := in.open[pod]
	if !ok {
		// The latest attempt of this pod, with or without its namespace
		// (1.16 to 1.19 log the name only), or of its UID.
		i, ok = in.index.latest(k.Attempts, pod, uid)
	}
	if !ok {
		i = in.appendAttempt(AdmissionAttempt{Pod: pod, Scope: "", StartLine: line})
	}
	a := &k.Attempts[i]
	if a.Reason != "" && a.ResultLine != 0 {
		return // keep the first result (the denial record comes before the event)
	}
	delete(in.open, a.Pod)
	if strings.Contains(pod, "/") && !strings.Contains(a.Pod, "/") {
		a.Pod = pod // the result names the namespace the hint lines left out (1.16 to 1.19)
	}
	if uid != "" {
		a.PodUID = uid
	}
	in.index.note(i, a)
	a.Reason, a.Message, a.ResultLine = reason, msg, line
	delete(in.open, pod)
}

// record applies one record to the attempts.
func (in *logInterp) record(r Record) {
	closeWith := in.closeWith
	tmHints := in.tmHints
	msg := r.Message
	if msg == "TopologyHints generated" && !tmHints {
		msg = "TopologyHints"
	}
	switch msg {
	case "Topology Admit Handler", "Topology manager admission check":
		in.admitHandler(r)
	case "TopologyHints":
		in.topologyHints(r)
	case "Hint Provider has no preference for NUMA affinity with resource", "Hint Provider has no possible NUMA affinities for resource":
		in.noPreference(r, msg)
	case "Topology Affinity for Pod":
		in.affinityForPod(r)
	case "ContainerTopologyHint", "PodTopologyHint", "Best TopologyHint":
		in.bestHint(r)
	case "Topology Affinity":
		in.topologyAffinity(r)
	case "Pod admission denied":
		uid, _ := r.Get("podUID")
		reason, _ := r.Get("reason")
		msg, _ := r.Get("message")
		closeWith(r.PodRef(), uid, reason, msg, r.Line)
	case "Event occurred":
		reason, _ := r.Get("reason")
		if kind, _ := r.Get("kind"); kind != "" && kind != "Pod" {
			return
		}
		if admissionReasons[reason] {
			m, _ := r.Get("message")
			uid, _ := r.Get("podUID")
			closeWith(r.PodRef(), uid, reason, m, r.Line)
		}
	case "Patch status for pod":
		patch, _ := r.Get("patch")
		var p struct {
			Status struct{ Reason, Message, Phase string }
		}
		if json.Unmarshal([]byte(patch), &p) == nil && admissionReasons[p.Status.Reason] {
			uid, _ := r.Get("podUID")
			m := strings.TrimPrefix(p.Status.Message, "Pod was rejected: ")
			if m == p.Status.Message {
				// Before 1.26 the status message is "Pod " + the admit message.
				m = strings.TrimPrefix(m, "Pod ")
			}
			closeWith(r.PodRef(), uid, p.Status.Reason, m, r.Line)
		}
	}
}

// admitHandler reads the Topology Manager's admission line: it starts a
// new attempt of the pod it names (one naming no pod, 1.16 to 1.26,
// leaves the next lines to say which pod).
func (in *logInterp) admitHandler(r Record) {
	open, attempt := in.open, in.attempt
	pod := r.PodRef()
	if pod == "" {
		// 1.16 to 1.26 name no pod: a new admission starts.
		in.lastPod = ""
		return
	}
	attempt(pod, r.Line, true)
	if uid, ok := r.Get("podUID"); ok {
		in.setUID(open[pod], uid)
	}
	in.lastPod = pod
}

// topologyHints adds one provider's logged hints to the container they
// are for, starting a new attempt when the container comes again.
func (in *logInterp) topologyHints(r Record) {
	open, attempt := in.open, in.attempt
	pod := r.PodRef()
	if pod == "" {
		pod = in.lastPod
	}
	in.lastPod = pod
	cname, hasC := r.Get("containerName")
	a := attempt(pod, r.Line, false)
	if !hasC {
		a.Scope = "pod"
	}
	var c *ContainerAdmission
	if n := len(a.Containers); n > 0 && a.Containers[n-1].Container == cname && a.Containers[n-1].BestHint == nil {
		c = &a.Containers[n-1]
	} else {
		for _, prev := range a.Containers {
			if prev.Container == cname {
				// The same container again: a new admission of the pod.
				a = attempt(pod, r.Line, true)
				if !hasC {
					a.Scope = "pod"
				}
				break
			}
		}
		a.Containers = append(a.Containers, ContainerAdmission{Container: cname})
		c = &a.Containers[len(a.Containers)-1]
	}
	if uid, ok := r.Get("podUID"); ok && a.PodUID == "" {
		in.setUID(open[pod], uid)
	}
	raw, _ := r.raw("hints")
	goSyntax := false
	for _, v := range r.Values {
		if v.Key == "hints" {
			goSyntax = v.goSyntax
		}
	}
	c.Providers = append(c.Providers, decodeProviderHints(raw, r.Line, len(c.Providers), goSyntax))
}

// noPreference settles, from a provider's "no preference" or "no
// possible NUMA affinities" line, what an ambiguous "[]" of the resource
// meant (kubelets before 1.28).
func (in *logInterp) noPreference(r Record, msg string) {
	current := in.current
	// Settles what an ambiguous "[]" meant (kubelets before 1.28).
	a := current()
	res, _ := r.Get("resource")
	if a == nil || len(a.Containers) == 0 || res == "" {
		return
	}
	c := &a.Containers[len(a.Containers)-1]
	for i := len(c.Providers) - 1; i >= 0; i-- {
		for j := range c.Providers[i].Resources {
			rh := &c.Providers[i].Resources[j]
			if rh.Resource == res && rh.Indistinct {
				rh.Indistinct = false
				rh.Impossible = strings.HasPrefix(msg, "Hint Provider has no possible")
				rh.NoPreference = !rh.Impossible
				return
			}
		}
	}
}

// affinityForPod reads the admitted pod's containers and their hints from
// "Topology Affinity for Pod" (1.16 and 1.17).
func (in *logInterp) affinityForPod(r Record) {
	k, open := in.k, in.open
	// 1.16 and 1.17: the admitted pod's containers and their hints.
	uid, _ := r.Get("podUID")
	i, ok := open[in.lastPod]
	if in.lastPod == "" || !ok {
		if i, ok = in.index.byUID(k.Attempts, uid); !ok {
			return
		}
	}
	a := &k.Attempts[i]
	in.setUID(i, uid)
	var aff map[string]json.RawMessage
	raw, _ := r.raw("affinity")
	if json.Unmarshal([]byte(raw), &aff) != nil {
		return
	}
	names := make([]string, 0, len(aff))
	for n := range aff {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		var c *ContainerAdmission
		for i := range a.Containers {
			if a.Containers[i].Container == n {
				c = &a.Containers[i]
			}
		}
		if c == nil {
			a.Containers = append(a.Containers, ContainerAdmission{Container: n})
			c = &a.Containers[len(a.Containers)-1]
		}
		if c.BestHint == nil {
			if h, err := decodeHint(string(aff[n])); err == nil {
				c.BestHint, c.BestLine = h, r.Line
			}
		}
		c.Aligned = true
	}
	delete(open, a.Pod)
}

// bestHint gives a container the best hint a pod- or container-scope
// line logged for it.
func (in *logInterp) bestHint(r Record) {
	k, open, current := in.k, in.open, in.current
	pod := r.PodRef()
	if pod == "" {
		pod = in.lastPod
	}
	a := current()
	if i, ok := open[pod]; ok {
		a = &k.Attempts[i]
	}
	if a == nil || len(a.Containers) == 0 {
		return
	}
	c := &a.Containers[len(a.Containers)-1]
	if name, ok := r.Get("containerName"); ok {
		for i := range a.Containers {
			if a.Containers[i].Container == name {
				c = &a.Containers[i]
			}
		}
	}
	if raw, ok := r.raw("bestHint"); ok {
		if h, err := decodeHint(raw); err == nil {
			c.BestHint, c.BestLine = h, r.Line
		}
	}
}

// topologyAffinity marks as aligned the containers the Topology Manager's
// "Topology Affinity" line admitted.
func (in *logInterp) topologyAffinity(r Record) {
	k, open := in.k, in.open
	if _, ok := r.Get("bestHint"); !ok {
		return // the CPU manager's record of the same name
	}
	pod := r.PodRef()
	if pod == "" {
		// 1.18 and 1.19 name the pod by UID only.
		pod = in.lastPod
		if i, ok := open[pod]; ok {
			if uid, ok := r.Get("podUID"); ok {
				in.setUID(i, uid)
			}
		}
	}
	if i, ok := open[pod]; ok {
		name, _ := r.Get("containerName")
		a := &k.Attempts[i]
		for j := range a.Containers {
			if a.Containers[j].Container == name || a.Scope == "pod" {
				a.Containers[j].Aligned = true
			}
		}
	}
}

// decodeProviderHints reads one provider's logged answer. goSyntax says the
// kubelet printed it with Go's %v (before 1.28), where nil and empty look
// alike: map[] reads as "no preference" and [] as "impossible", both marked
// Indistinct.
func decodeProviderHints(raw string, line, index int, goSyntax bool) ProviderHints {
	order := []string{"device", "cpu", "memory"}
	p := ProviderHints{Line: line}
	if index < len(order) {
		p.Provider = order[index]
	} else {
		p.Provider = fmt.Sprintf("provider-%d", index)
	}
	var m map[string]json.RawMessage
	if raw == "" || raw == "null" || json.Unmarshal([]byte(raw), &m) != nil || len(m) == 0 {
		p.NoPreference = true
		p.EmptyMap = m != nil && !goSyntax
		p.Indistinct = goSyntax && (raw == "{}" || m != nil)
		return p
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		rh := ResourceHints{Resource: name}
		var list []loggedHint
		v := strings.TrimSpace(string(m[name]))
		if v == "null" {
			rh.NoPreference = true
		} else if err := json.Unmarshal(m[name], &list); err == nil {
			rh.Hints = make([]Hint, 0, len(list))
			for _, h := range list {
				rh.Hints = append(rh.Hints, h.hint())
			}
			rh.Impossible = len(list) == 0
			rh.Indistinct = goSyntax && len(list) == 0
		}
		p.Resources = append(p.Resources, rh)
	}
	p.Provider = providerOf(names, p.Provider)
	return p
}

func providerOf(resources []string, fallback string) string {
	for _, r := range resources {
		switch {
		case r == "cpu":
			return "cpu"
		case r == "memory" || strings.HasPrefix(r, "hugepages-"):
			return "memory"
		case strings.Contains(r, "/"):
			return "device"
		}
	}
	return fallback
}

// AllAligned tells whether every container of the attempt passed the policy.
func (a *AdmissionAttempt) AllAligned() bool {
	for _, c := range a.Containers {
		if !c.Aligned {
			return false
		}
	}
	return true
}
