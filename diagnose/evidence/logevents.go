package evidence

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"regexp"
	"sort"
	"strconv"
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

// Signal is a log record that matters for a diagnosis on its own: a start-up
// failure, a restore error, an admission error text, a configuration echo.
type Signal struct {
	Kind   string            `json:"kind"`
	Line   int               `json:"line"`
	Text   string            `json:"text"`
	Fields map[string]string `json:"fields,omitempty"`
}

// Signal kinds recognised in kubelet logs.
const (
	SignalRestoreFailed       = "checkpoint-restore-failed"
	SignalPolicyMismatch      = "policy-mismatch"
	SignalCorruptCheckpoint   = "checkpoint-corrupted"
	SignalMemoryStateMismatch = "memory-state-mismatch"
	SignalMemoryStateDetail   = "memory-state-detail"
	SignalCPUSetMismatch      = "cpuset-mismatch"
	SignalNUMALimit           = "numa-limit"
	SignalSMTAlignment        = "smt-alignment"
	SignalUnexpectedAdmission = "unexpected-admission"
	SignalMemoryExtend        = "memory-extend"
	SignalDevicesUnavailable  = "devices-unavailable"
	SignalDeviceNoTopology    = "device-no-topology"
	SignalDeviceCheckpoint    = "device-checkpoint-unreadable"
	SignalTopologyConfig      = "topology-manager-config"
	SignalMemoryManagerStart  = "memory-manager-start"
	SignalInvalidState        = "invalid-state"
	SignalContainerManager    = "container-manager-failed"
	SignalMaxNUMAWarning      = "max-numa-warning"
	SignalUnknownPolicy       = "unknown-policy"
	// SignalMemoryPlacement: the memory manager pinned a container's memory
	// (cpuset.mems) to NUMA nodes ("Memory affinity").
	SignalMemoryPlacement = "memory-placement"
	// SignalMachine: the kubelet's own lines about the machine (the CPU
	// manager's "Detected CPU topology", cAdvisor's "Machine: {...}");
	// field "line" is the line for topomgr.ParseMachine.
	SignalMachine = "machine"
	// SignalPanic: the kubelet crashed in a Go panic (or a fatal runtime
	// error); fields "panic" (its first line), "frame" (the first frame in
	// the kubelet's code) and "manager" (the container manager's package
	// the frames name: cpumanager, topologymanager, ...).
	SignalPanic = "go-panic"
	// SignalUnit: systemd's line about the kubelet's unit; fields "event"
	// ("exited", "failed", "restart", "start-limit"), "status", "code",
	// "result", "restarts".
	SignalUnit = "unit"
	// SignalCPUPlacement: the CPU manager gave a container exclusive CPUs.
	SignalCPUPlacement = "cpu-placement"
	// SignalNotEnoughCPUs: the static CPU manager could not take the CPUs
	// it had hinted ("not enough cpus available to satisfy request").
	SignalNotEnoughCPUs = "not-enough-cpus"
	// SignalDevicePluginRPC: a device plugin's Allocate (or another call)
	// failed with a gRPC status ("rpc error: code = ... desc = ...").
	SignalDevicePluginRPC = "device-plugin-rpc-error"
	// SignalDeviceEndpointMissing: the device manager has devices of a
	// resource but no plugin endpoint (the plugin has not re-registered).
	SignalDeviceEndpointMissing = "device-endpoint-missing"
)

// KubeletLog is a parsed kubelet log with its admission attempts and signals.
type KubeletLog struct {
	*Log
	Attempts []AdmissionAttempt `json:"attempts"`
	Signals  []Signal           `json:"signals"`
}

var (
	rePolicyMismatch    = regexp.MustCompile(`configured policy "([^"]*)" differs from state checkpoint policy "([^"]*)"`)
	reSMT               = regexp.MustCompile(`SMT Alignment Error: (?:not enough free physical CPUs: available physical CPUs = (\d+), requested CPUs = (\d+), CPUs per core = (\d+)|requested (\d+) cpus not multiple cpus per core = (\d+))`)
	reCPUSetMismatch    = regexp.MustCompile(`current set of available CPUs "([^"]*)" doesn't match with CPUs in state "([^"]*)"`)
	reNUMALimit         = regexp.MustCompile(`unsupported on machines with more than (\d+) NUMA Nodes`)
	reDevUnavailable    = regexp.MustCompile(`requested number of devices unavailable for (\S+)\. Requested: (\d+), Available: (\d+)`)
	reUnexpected        = regexp.MustCompile(`Allocate failed due to (.*), which is unexpected`)
	reUnknownPolicyText = regexp.MustCompile(`unknown policy: \\?"([^"\\]*)\\?"`)
	reCheckpointFile    = regexp.MustCompile(`delete the (CPU|memory) manager checkpoint file "([^"]*)"`)
	reNotEnoughCPUs     = regexp.MustCompile(`not enough cpus available to satisfy request(?:: requested=(\d+), available=(\d+))?`)
	reRPCError          = regexp.MustCompile(`rpc error: code = (\w+) desc = (.*?)(?:, which is unexpected)?$`)
	reEndpointMissing   = regexp.MustCompile(`endpoint not found in cache for a registered resource: (\S+?)(?:[,"\s]|$)`)
)

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
	k, open := in.k, in.open
	attempt, current, closeWith := in.attempt, in.current, in.closeWith
	tmHints := in.tmHints
	msg := r.Message
	if msg == "TopologyHints generated" && !tmHints {
		msg = "TopologyHints"
	}
	switch msg {
	case "Topology Admit Handler", "Topology manager admission check":
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
	case "TopologyHints":
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
	case "Hint Provider has no preference for NUMA affinity with resource", "Hint Provider has no possible NUMA affinities for resource":
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
	case "Topology Affinity for Pod":
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
	case "ContainerTopologyHint", "PodTopologyHint", "Best TopologyHint":
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
	case "Topology Affinity":
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

func (k *KubeletLog) add(kind string, r Record, fields map[string]string) {
	text := r.Message
	if e, ok := r.Get("err"); ok {
		text += ": " + e
	}
	k.Signals = append(k.Signals, Signal{Kind: kind, Line: r.Line, Text: text, Fields: fields})
}

// signalMessages are the messages signals reads by equality, and
// signalLiterals the texts it looks for in a record's text (r.Text()),
// signalFoldLiteral case-insensitively: recordNeeded lets a streamed
// record go when it has none of them. Keep them in step with signals
// (TestSignalLiteralsInStep reads signals' source to check).
var (
	signalMessages = map[string]bool{
		"Creating topology manager with policy per scope":            true,
		"Creating topology manager with none policy":                 true,
		"Starting memorymanager":                                     true,
		"Resource does not have a topology preference":               true,
		"Memory states for the NUMA node and resource are different": true,
		"Node states had different groups":                           true,
		"NUMA node and resource had different memory states":         true,
		"Node state had a different number of memory assignments.":   true,
		"Node states were different":                                 true,
		"Node state didn't have node ID":                             true,
		"Memory affinity":                                            true,
		"Allocated exclusive CPUs":                                   true,
		"Failed to start ContainerManager":                           true,
		"Failed to initialize cpu manager":                           true,
		"Failed to initialize memory manager":                        true,
		"Continue after failing to read checkpoint file. Device allocation info may NOT be up-to-date": true,
		"WARNING: the value of max-allowable-numa-nodes is more than the default recommended value":    true,
	}
	signalLiterals = []string{
		"differs from state checkpoint policy", "could not restore state from checkpoint", "checkpoint is corrupted",
		"the expected machine state is different from the real one", "machine state can not be empty when it has memory assignments",
		"the memory assignment uses the NUMA that does not exist", "doesn't match with CPUs in state",
		"unsupported on machines with more than", "SMT Alignment Error", "which is unexpected",
		"failed to find NUMA nodes to extend the current topology hint", "requested number of devices unavailable for",
		"unknown policy: ", "not enough cpus available to satisfy request", "rpc error: code = ",
		"endpoint not found in cache for a registered resource", "Failed to start ContainerManager",
		"could not restore state from", "manager checkpoint file",
	}
)

const signalFoldLiteral = "invalid state, please drain node and remove policy state file"

func (k *KubeletLog) signals(r Record) {
	switch r.Source {
	case sourceRuntime:
		k.add(SignalPanic, r, panicFields(r.Message))
		return
	case sourceSystemd:
		if f := unitFields(r.Message); f != nil {
			k.add(SignalUnit, r, f)
		}
		return
	}
	t := r.Text()
	if strings.Contains(r.Message, "etected CPU topology") || strings.HasPrefix(r.Message, "Machine: {") {
		k.add(SignalMachine, r, map[string]string{"line": machineLine(&r)})
	}
	switch r.Message {
	case "Creating topology manager with policy per scope":
		f := map[string]string{}
		f["policy"], _ = r.Get("topologyPolicyName")
		f["scope"], _ = r.Get("topologyScopeName")
		f["options"], _ = r.Get("topologyPolicyOptions")
		k.add(SignalTopologyConfig, r, f)
	case "Creating topology manager with none policy":
		k.add(SignalTopologyConfig, r, map[string]string{"policy": "none"})
	case "Starting memorymanager":
		p, _ := r.Get("policy")
		k.add(SignalMemoryManagerStart, r, map[string]string{"policy": p})
	case "Resource does not have a topology preference":
		res, ok := r.Get("resourceName")
		if !ok {
			res, _ = r.Get("resource")
		}
		k.add(SignalDeviceNoTopology, r, map[string]string{"resource": res})
	case "Memory states for the NUMA node and resource are different", "Node states had different groups",
		"NUMA node and resource had different memory states", "Node state had a different number of memory assignments.",
		"Node states were different", "Node state didn't have node ID":
		f := map[string]string{}
		for _, v := range r.Values {
			f[v.Key] = v.Text
		}
		k.add(SignalMemoryStateDetail, r, f)
	case "Memory affinity":
		raw, _ := r.raw("numaNodes")
		c, _ := r.Get("containerName")
		k.add(SignalMemoryPlacement, r, map[string]string{"pod": r.PodRef(), "container": c, "numaNodes": words.Ints(numaSet(raw))})
	case "Allocated exclusive CPUs":
		c, _ := r.Get("containerName")
		cs, _ := r.Get("cpuset")
		k.add(SignalCPUPlacement, r, map[string]string{"pod": r.PodRef(), "container": c, "cpuset": cs})
	case "Continue after failing to read checkpoint file. Device allocation info may NOT be up-to-date":
		k.add(SignalDeviceCheckpoint, r, nil)
	case "WARNING: the value of max-allowable-numa-nodes is more than the default recommended value":
		v, _ := r.Get("max-allowable-numa-nodes")
		k.add(SignalMaxNUMAWarning, r, map[string]string{"max-allowable-numa-nodes": v})
	}
	if m := findIf(t, "differs from state checkpoint policy", rePolicyMismatch); m != nil {
		mgr := "cpu"
		if strings.Contains(t, "[memorymanager]") {
			mgr = "memory"
		}
		k.add(SignalPolicyMismatch, r, map[string]string{"configured": m[1], "checkpoint": m[2], "manager": mgr})
	}
	if strings.Contains(t, "could not restore state from checkpoint") || restoreCut(t) {
		f := map[string]string{}
		if !strings.Contains(t, "could not restore state from checkpoint: ") {
			f["cut"] = "true"
		}
		if m := findIf(t, "checkpoint file", reCheckpointFile); m != nil {
			f["manager"] = strings.ToLower(m[1])
			f["file"] = m[2]
		}
		k.add(SignalRestoreFailed, r, f)
	}
	if strings.Contains(t, "checkpoint is corrupted") && !strings.HasPrefix(r.Message, "Continue after failing to read checkpoint file") {
		var f map[string]string
		if m := findIf(t, "checkpoint file", reCheckpointFile); m != nil {
			f = map[string]string{"manager": strings.ToLower(m[1]), "file": m[2]}
		}
		k.add(SignalCorruptCheckpoint, r, f)
	}
	if strings.Contains(t, "the expected machine state is different from the real one") ||
		strings.Contains(t, "machine state can not be empty when it has memory assignments") ||
		strings.Contains(t, "the memory assignment uses the NUMA that does not exist") {
		k.add(SignalMemoryStateMismatch, r, nil)
	}
	if m := findIf(t, "doesn't match with CPUs in state", reCPUSetMismatch); m != nil {
		k.add(SignalCPUSetMismatch, r, map[string]string{"online": m[1], "state": m[2]})
	}
	if m := findIf(t, "unsupported on machines with more than", reNUMALimit); m != nil {
		k.add(SignalNUMALimit, r, map[string]string{"limit": m[1]})
	}
	if m := findIf(t, "SMT Alignment Error", reSMT); m != nil {
		f := map[string]string{"pod": r.PodRef()}
		if m[1] != "" {
			f["availablePhysicalCPUs"], f["requestedCPUs"], f["cpusPerCore"] = m[1], m[2], m[3]
		} else {
			f["requestedCPUs"], f["cpusPerCore"] = m[4], m[5]
		}
		k.add(SignalSMTAlignment, r, f)
	}
	if m := findIf(t, "which is unexpected", reUnexpected); m != nil {
		k.add(SignalUnexpectedAdmission, r, map[string]string{"pod": r.PodRef(), "cause": m[1]})
	}
	if strings.Contains(t, "failed to find NUMA nodes to extend the current topology hint") {
		k.add(SignalMemoryExtend, r, map[string]string{"pod": r.PodRef()})
	}
	if m := findIf(t, "requested number of devices unavailable for", reDevUnavailable); m != nil {
		k.add(SignalDevicesUnavailable, r, map[string]string{"resource": m[1], "requested": m[2], "available": m[3], "pod": r.PodRef()})
	}
	if m := findIf(t, "unknown policy: ", reUnknownPolicyText); m != nil {
		k.add(SignalUnknownPolicy, r, map[string]string{"policy": m[1]})
	}
	if m := findIf(t, "not enough cpus available to satisfy request", reNotEnoughCPUs); m != nil {
		f := map[string]string{"pod": r.PodRef()}
		if c, ok := r.Get("containerName"); ok {
			f["container"] = c
		}
		if m[1] != "" {
			f["requested"], f["available"] = m[1], m[2]
		}
		k.add(SignalNotEnoughCPUs, r, f)
	}
	if strings.Contains(t, "rpc error: code = ") {
		f := map[string]string{"pod": r.PodRef()}
		// The gRPC status sits in the message or in the err value.
		src := r.Message
		if e, ok := r.Get("err"); ok && strings.Contains(e, "rpc error: code = ") {
			src = e
		} else if e, ok := r.Get("message"); ok && strings.Contains(e, "rpc error: code = ") {
			src = e
		}
		if m := reRPCError.FindStringSubmatch(src); m != nil {
			f["code"], f["desc"] = m[1], m[2]
		}
		if res, ok := r.Get("resourceName"); ok {
			f["resource"] = res
		} else if res, ok := r.Get("resource"); ok {
			f["resource"] = res
		}
		k.add(SignalDevicePluginRPC, r, f)
	}
	if m := findIf(t, "endpoint not found in cache for a registered resource", reEndpointMissing); m != nil {
		k.add(SignalDeviceEndpointMissing, r, map[string]string{"resource": m[1], "pod": r.PodRef()})
	}
	if strings.Contains(strings.ToLower(t), signalFoldLiteral) {
		k.add(SignalInvalidState, r, nil)
	}
	// The CPU and memory managers are built before the container manager
	// starts (NewContainerManager); a failure there stops the kubelet too.
	if r.Message == "Failed to start ContainerManager" || strings.Contains(t, "Failed to start ContainerManager") ||
		r.Message == "Failed to initialize cpu manager" || r.Message == "Failed to initialize memory manager" {
		k.add(SignalContainerManager, r, nil)
	}
}

// restoreCut reports the text of a failed checkpoint restore that a pager or
// a paste cut before its reason: "could not restore state from checkp" at
// the end of a line, or only the advice the kubelet appends to the error
// ("... delete the CPU manager checkpoint file ..."; before 1.20 on a line
// of its own).
func restoreCut(t string) bool {
	if strings.Contains(t, "manager checkpoint file") && reCheckpointFile.MatchString(t) {
		return true
	}
	i := strings.Index(t, "could not restore state from")
	if i < 0 {
		return false
	}
	rest := t[i+len("could not restore state from"):]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	rest = strings.TrimRight(rest, " >…")
	return strings.HasPrefix(" checkpoint", rest)
}

// SignalsOf returns the signals of one kind.
func (k *KubeletLog) SignalsOf(kind string) []Signal {
	var out []Signal
	for _, s := range k.Signals {
		if s.Kind == kind {
			out = append(out, s)
		}
	}
	return out
}

// numaSet decodes a logged set of NUMA nodes: a JSON list ([0,1]) or, for a
// sets.Set[int] rendered as JSON, an object with the nodes as keys ({"0":{}}).
func numaSet(raw string) []int {
	var list []int
	if json.Unmarshal([]byte(raw), &list) == nil {
		sort.Ints(list)
		return list
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &obj) == nil {
		for k := range obj {
			if n, err := strconv.Atoi(k); err == nil {
				list = append(list, n)
			}
		}
		sort.Ints(list)
	}
	return list
}

// findIf runs re only when s contains the literal, which is far cheaper than
// the regular expression on the many records that cannot match.
func findIf(s, literal string, re *regexp.Regexp) []string {
	if !strings.Contains(s, literal) {
		return nil
	}
	return re.FindStringSubmatch(s)
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
