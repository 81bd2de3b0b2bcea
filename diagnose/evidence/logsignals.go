package evidence

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/words"
)

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
	k.messageSignals(r)
	k.stateSignals(r, t)
	k.admissionSignals(r, t)
}

// messageSignals adds the signal of a record the kubelet logs with a message
// of its own (read by equality).
func (k *KubeletLog) messageSignals(r Record) {
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
}

// stateSignals adds the signals of a policy, checkpoint or machine state
// the kubelet refuses, found in the text of a record.
func (k *KubeletLog) stateSignals(r Record, t string) {
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
}

// admissionSignals adds the signals of an admission, allocation or start
// failure, found in the text of a record.
func (k *KubeletLog) admissionSignals(r Record, t string) {
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
