package evidence

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/numascope/numascope/internal/words"
)

// Set kinds, as Set.Add takes them and Item.Given names
// them. Read evidence carries the reader's own kind in Item.Kind
// ("state-cpu", "kubelet-log", ...).
const (
	KindConfig       = "kubelet-config"
	KindPod          = "pod"
	KindEvents       = "events"
	KindLog          = "kubelet-log"
	KindTopology     = "topology"
	KindState        = "state"
	KindPodResources = "podresources"
)

// kindFlag is the examples/diagnose flag that passes each kind.
var kindFlag = map[string]string{
	KindConfig: "--kubelet-config", KindPod: "--pod", KindEvents: "--events", KindLog: "--log",
	KindTopology: "--topology", KindState: "--state", KindPodResources: "--podresources",
}

// kindAliases are the other names Set.Add takes for a kind.
var kindAliases = map[string]string{
	"log": KindLog, "config": KindConfig, "kubeletconfig": KindConfig, "pods": KindPod, "event": KindEvents,
	"machine": KindTopology, "machine-info": KindTopology, "checkpoint": KindState, "statefile": KindState,
}

func normaliseKind(k string) (string, bool) {
	k = strings.ToLower(strings.TrimLeft(strings.TrimSpace(k), "-"))
	if a, ok := kindAliases[k]; ok {
		return a, true
	}
	_, ok := kindFlag[k]
	return k, ok
}

// candidate is a kind the content suggests, and why.
type candidate struct {
	kind, why string
}

// sniffHead bounds how much of a file the sniffers look at.
const sniffHead = 64 << 10

var (
	reNumascopeReport = regexp.MustCompile(`"schema"\s*:\s*"numascope\.|\A\s*(?:numascope diagnose: |## numascope diagnosis|[✓✗!] (?:no findings\b|[A-Za-z]+: [^\n]* — \d+ (?:error|warning|note)s?(?:, \d+ (?:error|warning|note)s?)*\n))`)
	reCheckpointKey   = regexp.MustCompile(`(?i)"(policyName|defaultCpuSet|machineState|PodDeviceEntries|RegisteredDevices|ClaimInfoStateList)"\s*:`)
	rePodResources    = regexp.MustCompile(`(?i)"(pod_resources|podResources|cpu_ids|cpuIds|allocatable)"\s*:`)
	reKlogHeader      = regexp.MustCompile(`(?m)^.{0,200}?\b[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [\w.-]+:\d+\]`)
	reCutKlogHeader   = regexp.MustCompile(`(?m)^[ \t]*\d{1,10} +[\w.-]+\.go:\d+\] `)
	reSyslogKubelet   = regexp.MustCompile(`(?m)^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ (?:kubelet|hyperkube|k3s|rke2)\[\d+\]:`)
	reJSONLog         = regexp.MustCompile(`(?m)^\s*\{.*"(?:ts|__CURSOR|_SYSTEMD_UNIT)"\s*:.*"(?:msg|MESSAGE)"\s*:`)
	reYAMLKind        = regexp.MustCompile(`(?m)^kind:\s*["']?([A-Za-z]+)`)
	reJSONKind        = regexp.MustCompile(`"kind"\s*:\s*"([A-Za-z]+)"`)
	reItemEvent       = regexp.MustCompile(`(?m)(?:^\s*-?\s*kind:\s*Event\s*$|"kind"\s*:\s*"Event")`)
	rePodsTable       = regexp.MustCompile(`(?m)^\s*(?:NAMESPACE\s+)?NAME\s+READY\s+STATUS\b`)
	reEventsTable     = regexp.MustCompile(`(?m)^\s*(?:NAMESPACE\s+)?LAST SEEN\s+(?:TYPE|FIRST SEEN)\b`)
	reDescribeEvents  = regexp.MustCompile(`(?m)^Events:`)
	reDescribeHeader  = regexp.MustCompile(`(?m)^(?:Name|Namespace|QoS Class|Status|Node):\s+\S`)
	reTopology        = regexp.MustCompile(`(?m)(?:^available: \d+ nodes|^node \d+ cpus:|NUMA node\d+ CPU\(s\):|^\s*CPU\s+NODE\s+SOCKET\b|NUMANode L#\d|"num_cores"\s*:|"node_id"\s*:)`)
	reConfigKey       = regexp.MustCompile(`(?m)^\s*"?(?:cpuManagerPolicy|topologyManagerPolicy|topologyManagerScope|memoryManagerPolicy|reservedSystemCPUs|cpuManagerPolicyOptions|topologyManagerPolicyOptions|reservedMemory|kubeReserved|systemReserved|featureGates|evictionHard)"?\s*:`)
)

// Literal tokens, found with bytes.Contains (much cheaper than a regular
// expression that may start anywhere).
var (
	topologyTokens = []string{"available: ", "cpus:", "NUMA node", "Thread(s) per core:", "CPU NODE", "CPU  NODE", "# CPU,Core,Socket,Node",
		"/sys/devices/system/node/", "/sys/devices/system/cpu/", "NUMANode L#", `"num_cores"`, `"node_id"`}
	plainTopologyTokens = []string{"Thread(s) per core:", "# CPU,Core,Socket,Node", "/sys/devices/system/node/", "/sys/devices/system/cpu/"}
	configFlagTokens    = []string{"cpu-manager-policy", "cpu_manager_policy", "memory-manager-policy", "memory_manager_policy",
		"topology-manager-policy", "topology_manager_policy", "topology-manager-scope", "topology_manager_scope",
		"reserved-cpus", "reserved_cpus", "reserved-memory", "reserved_memory", "kube-reserved", "kube_reserved",
		"system-reserved", "system_reserved", "feature-gates", "feature_gates", "KUBELET_KUBEADM_ARGS", "KUBELET_EXTRA_ARGS",
		"KUBELET_CONFIG_ARGS", "kubelet-arg", "extra-config=kubelet.", `"kubeletconfig"`, "kubeletConfig:"}
	bareMessageTokens = []string{"Resources cannot be allocated with Topology locality", "Topology Affinity Error", "TopologyAffinityError",
		"SMT Alignment Error", "SMTAlignmentError", "UnexpectedAdmissionError", "Allocate failed due to", "not enough cpus available to satisfy request"}
)

func containsAny(b []byte, tokens []string) bool {
	for _, t := range tokens {
		if bytes.Contains(b, []byte(t)) {
			return true
		}
	}
	return false
}

// kindOfObject maps a Kubernetes object kind to the evidence kind that reads it.
func kindOfObject(k string) string {
	switch k {
	case "Pod", "PodList", "List", "Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicaSet", "ReplicationController", "PodTemplate":
		return KindPod
	case "Event", "EventList":
		return KindEvents
	case "KubeletConfiguration", "KubeletConfig", "JoinConfiguration", "InitConfiguration", "Cluster", "MachineConfig", "NodeConfig":
		return KindConfig
	case "NodeResourceTopology", "NodeResourceTopologyList":
		return KindTopology
	}
	return ""
}

// commandKind is the kind the command that printed a paste says it is.
func commandKind(cmd string) (string, bool) {
	c := strings.ToLower(cmd)
	switch {
	case strings.Contains(c, "cpu_manager_state") || strings.Contains(c, "memory_manager_state") ||
		strings.Contains(c, "kubelet_internal_checkpoint") || strings.Contains(c, "dra_manager_state"):
		return KindState, true
	case strings.Contains(c, "journalctl") || strings.Contains(c, "kubelet.log") || strings.HasPrefix(c, "zcat"):
		return KindLog, true
	case strings.Contains(c, "numactl") || strings.Contains(c, "lscpu") || strings.Contains(c, "lstopo") || strings.Contains(c, "/sys/devices/system"):
		return KindTopology, true
	case strings.Contains(c, "configz") || strings.Contains(c, "config.yaml") || strings.Contains(c, "kubeadm-flags") ||
		strings.Contains(c, "systemctl") || strings.HasPrefix(c, "ps ") || strings.Contains(c, "cmdline") || strings.Contains(c, "kubeletconfig"):
		return KindConfig, true
	case strings.Contains(c, "describe") || strings.Contains(c, " events"):
		return KindEvents, true
	case strings.Contains(c, "get po"):
		return KindPod, true
	case strings.Contains(c, "podresources") || strings.Contains(c, "knit"):
		return KindPodResources, true
	}
	return "", false
}

// sniff lists the kinds the content (and the command lines stripped from
// it) suggests, most specific first, each with the reason. It looks at the
// first sniffHead bytes only. notEvidence is set for text that is known not
// to be evidence (a numascope report).
func sniff(text []byte, commands []string) (out []candidate, notEvidence string) {
	head := text
	if len(head) > sniffHead {
		head = head[:sniffHead]
	}
	if reNumascopeReport.Match(head) {
		return nil, "a numascope report, not evidence: pass the files it was made from"
	}
	seen := map[string]bool{}
	add := func(kind, why string) {
		if kind != "" && !seen[kind] {
			seen[kind] = true
			out = append(out, candidate{kind, why})
		}
	}
	for _, c := range commands {
		if k, ok := commandKind(c); ok {
			add(k, "printed by `"+words.Clip(c, 80)+"`")
		}
	}
	trimmed := bytes.TrimSpace(head)
	isJSON := len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
	if m := reCheckpointKey.FindSubmatch(head); m != nil {
		add(KindState, "a kubelet checkpoint (key "+string(m[1])+")")
	}
	if isJSON && rePodResources.Match(head) {
		add(KindPodResources, "a PodResources answer")
	}
	switch {
	case reKlogHeader.Match(head):
		add(KindLog, "klog lines")
	case reSyslogKubelet.Match(head):
		add(KindLog, "journal lines of the kubelet")
	case reCutKlogHeader.Match(head):
		add(KindLog, "klog lines without their date and time")
	case reJSONLog.Match(head):
		add(KindLog, "JSON log records")
	}
	var objKind string
	if m := reYAMLKind.FindSubmatch(head); m != nil {
		objKind = string(m[1])
	} else if m := reJSONKind.FindSubmatch(head); isJSON && m != nil {
		objKind = string(m[1])
	}
	if k := kindOfObject(objKind); k != "" {
		if objKind == "List" && reItemEvent.Match(head) {
			k = KindEvents
		}
		add(k, "a "+objKind+" object")
	}
	if rePodsTable.Match(head) {
		add(KindPod, "a kubectl get pods table")
		add(KindEvents, "a kubectl get pods table")
	}
	if reEventsTable.Match(head) {
		add(KindEvents, "a kubectl get events table")
	}
	if reDescribeEvents.Match(head) && reDescribeHeader.Match(head) {
		add(KindEvents, "kubectl describe output")
	}
	if containsAny(head, plainTopologyTokens) || containsAny(head, topologyTokens) && reTopology.Match(head) {
		add(KindTopology, "a NUMA topology listing")
	}
	if containsAny(head, configFlagTokens) {
		add(KindConfig, "kubelet flags")
	}
	if reConfigKey.Match(head) {
		add(KindConfig, "KubeletConfiguration fields")
	}
	if containsAny(head, bareMessageTokens) {
		add(KindEvents, "a kubelet admission message")
	}
	return out, ""
}

// isGzip reports whether data starts with the gzip magic number.
func isGzip(data []byte) bool {
	return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b
}
