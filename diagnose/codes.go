package diagnose

import "github.com/numascope/numascope/statefile"

// Finding codes. They are stable: tools may match on them. Each one has a
// row in codeTable below, which is what Codes returns; the README's findings
// table, the playground's translations and the kubelet message
// catalogue's codes are checked against it.
const (
	CodeTopologyAffinityError       = "TopologyAffinityError"
	CodeSMTAlignmentError           = "SMTAlignmentError"
	CodeMemoryGroupExtension        = "MemoryGroupExtensionFailed"
	CodeDevicesUnavailable          = "DevicesUnavailable"
	CodeUnexpectedAdmission         = "UnexpectedAdmissionError"
	CodeCorruptCheckpoint           = "CorruptCheckpoint"
	CodeCheckpointPolicyMismatch    = "CheckpointPolicyMismatch"
	CodeMemoryStateReplay           = "MemoryStateReplayFailed"
	CodeNUMATotalsChanged           = "NUMATotalsChanged"
	CodeOfflineCPUs                 = "OfflineCPUsInState"
	CodeTooManyNUMANodes            = "TooManyNUMANodes"
	CodePolicyNameCase              = "PolicyNameCase"
	CodeFractionalCPU               = "FractionalCPUGuaranteed"
	CodeDeviceWithoutNUMA           = "DeviceWithoutNUMATopology"
	CodeDeviceCheckpointUnreadable  = "DeviceCheckpointUnreadable"
	CodeStaleStateEntry             = "StaleStateEntry"
	CodeTerminatedPodHoldsResources = "TerminatedPodHoldsResources"
	CodeUnexplainedNUMAGroup        = "UnexplainedNUMAGroup"
	CodeCPUsHeldByFinishedInit      = "CPUsHeldByFinishedInitContainer"
	CodeCPUsHeldByCompletedPod      = "CPUsHeldByCompletedPod"
	CodeKubeletStartFailed          = "KubeletStartFailed"
	CodeEvidenceUnreadable          = "EvidenceUnreadable"
	CodePodAdmitted                 = "PodAdmitted"
	CodeHintNotPreferred            = "HintNotPreferred"

	// Configuration codes.
	CodeInvalidTopologyConfig  = "InvalidTopologyManagerConfig"
	CodeReservationMissing     = "ReservationMissing"
	CodeReservedMemoryMismatch = "ReservedMemoryMismatch"

	// CodePastedCheckpoint is the finding about a checkpoint that arrived
	// as a pasted copy which had to be repaired before it could be read.
	CodePastedCheckpoint = "PastedCheckpointCopy"
	// CodeNRTDisagrees is raised when the NodeResourceTopology object,
	// what topology-aware schedulers see, disagrees with the node's own
	// evidence.
	CodeNRTDisagrees = "NRTDisagreesWithKubelet"
	// CodeStateFileProblem is the finding about a problem statefile found
	// in a checkpoint (a CPU held by two containers, memory totals that
	// disagree with the entries, ...) that no other finding already
	// reports. The file's verdict (a corrupt checksum, a policy mismatch, a
	// failed restore) has its own finding; this one carries the rest, so
	// that diagnose never says less about a state file than inspect does.
	CodeStateFileProblem = "StateFileProblem"

	// Codes of the kubelet's own words (the message catalogue's families)
	// that no finding of its own explains.

	// CodeKubeletError: an error-level kubelet message the catalogue knows,
	// with no more specific finding; it quotes the kubelet's words.
	CodeKubeletError = "KubeletError"
	// CodeKubeletFlagInvalid: the kubelet's command line cannot be parsed.
	CodeKubeletFlagInvalid = "KubeletFlagInvalid"
	// CodeKubeletConfigInvalid: the configuration file, drop-ins, flag
	// values or feature gates fail to load or validate.
	CodeKubeletConfigInvalid = "KubeletConfigInvalid"
	// CodeAdmissionRejected: a pod refused by an admission handler other
	// than the Topology Manager and the resource managers.
	CodeAdmissionRejected = "AdmissionRejected"
	// CodeDevicePluginFailed: a device plugin cannot register, connect or
	// answer outside admission.
	CodeDevicePluginFailed = "DevicePluginFailed"
	// CodeContainerStartFailed: an admitted pod's container fails to start
	// because device, DRA or cgroup set-up failed.
	CodeContainerStartFailed = "ContainerStartFailed"
	// CodeDRAPrepareFailed: preparing a pod's ResourceClaims failed.
	CodeDRAPrepareFailed = "DRAPrepareFailed"
	// CodeDRADriverNotRegistered: a claim's DRA driver is not registered.
	CodeDRADriverNotRegistered = "DRADriverNotRegistered"
	// CodeKubeletPanic: the kubelet crashed in a Go panic.
	CodeKubeletPanic = "KubeletPanic"
	// CodeCheckpointVersionSkew: a checkpoint the release the evidence
	// shows accepts but newer kubelets refuse (an upgrade will stop it).
	CodeCheckpointVersionSkew = "CheckpointVersionSkew"
	// CodeKubeletExited: systemd reports the kubelet's process exited with
	// an error, and no finding says why.
	CodeKubeletExited = "KubeletExited"
)

// CodeInfo describes one finding code.
type CodeInfo struct {
	Name string
	// Severities are the severities findings of the code are reported
	// with, the most serious first.
	Severities []statefile.Severity
	// Family is what the finding is about: "admission" (how a pod was
	// admitted, or why it was refused), "start-up" (the kubelet will not
	// start, or stopped), "runtime" (a failure after admission or outside
	// it: devices, DRA, container start, any other kubelet error), "state"
	// (what the checkpoints hold against the pods, the machine and
	// NodeResourceTopology) or "evidence" (the inputs themselves).
	Family string
	// Means says in one line what a finding of the code means.
	Means string
	// Catalogue is set for a family the kubelet message catalogue defines
	// (findings of the kubelet's words that no rule of diagnose explains);
	// the other codes are diagnose's own, which catalogue rows may name too.
	Catalogue bool
}

var (
	sevE   = []statefile.Severity{statefile.SeverityError}
	sevW   = []statefile.Severity{statefile.SeverityWarning}
	sevI   = []statefile.Severity{statefile.SeverityInfo}
	sevEW  = []statefile.Severity{statefile.SeverityError, statefile.SeverityWarning}
	sevWI  = []statefile.Severity{statefile.SeverityWarning, statefile.SeverityInfo}
	sevEWI = []statefile.Severity{statefile.SeverityError, statefile.SeverityWarning, statefile.SeverityInfo}
)

// codeTable is the one table of finding codes, in the README's order.
var codeTable = []CodeInfo{
	{CodeTopologyAffinityError, sevE, "admission", "a pod rejected by the Topology Manager, with its cause and a per-resource, per-NUMA table", false},
	{CodePodAdmitted, sevWI, "admission", "how a pod given as evidence was admitted (a warning when numascope's model of the merge does not match the log)", false},
	{CodeHintNotPreferred, sevI, "admission", "the log shows a non-preferred merged NUMA hint for a pod but not whether the pod was admitted", false},
	{CodeSMTAlignmentError, sevE, "admission", "full-pcpus-only: not a multiple of the threads per core, or not enough whole free cores", false},
	{CodeMemoryGroupExtension, sevE, "admission", "UnexpectedAdmissionError: the memory manager cannot extend its hint into a NUMA group", false},
	{CodeDevicesUnavailable, sevEW, "admission", "UnexpectedAdmissionError: devices unavailable, typically before the plugin re-registers", false},
	{CodeUnexpectedAdmission, sevE, "admission", "any other allocation failure after admission", false},
	{CodeCheckpointPolicyMismatch, sevE, "start-up", "configured policy differs from the state file's", false},
	{CodeCorruptCheckpoint, sevEW, "start-up", "checksum mismatch: the kubelet will not start (a warning where the manager only drops the file, or for a re-formatted copy)", false},
	{CodeMemoryStateReplay, sevE, "start-up", "memory manager start-up replay fails (groups, assignments)", false},
	{CodeNUMATotalsChanged, sevE, "start-up", "NUMA memory totals in the state differ from the machine", false},
	{CodeOfflineCPUs, sevE, "start-up", "the CPU state covers CPUs that are not online (or misses online ones)", false},
	{CodeTooManyNUMANodes, sevE, "start-up", "more than 8 NUMA nodes without max-allowable-numa-nodes", false},
	{CodePolicyNameCase, sevE, "start-up", "static vs Static (memory) or Static vs static (CPU)", false},
	{CodeInvalidTopologyConfig, sevEWI, "start-up", "a policy, scope, policy option, flag or file header the kubelet refuses (info when the log shows the kubelet running)", false},
	{CodeReservationMissing, sevEWI, "start-up", "static CPU manager without reserved CPUs, Static memory manager without reservedMemory", false},
	{CodeReservedMemoryMismatch, sevEWI, "start-up", "reservedMemory does not add up to systemReserved + kubeReserved + eviction threshold, or names a NUMA node the machine lacks", false},
	{CodeKubeletStartFailed, sevEW, "start-up", "any other container-manager start-up failure", false},
	{CodeDeviceCheckpointUnreadable, sevWI, "state", "the device manager dropped its checkpoint", false},
	{CodeFractionalCPU, sevW, "admission", "Guaranteed pod with fractional CPUs under the static CPU manager", false},
	{CodeDeviceWithoutNUMA, sevW, "state", "a device plugin reports no NUMA nodes", false},
	{CodeStaleStateEntry, sevW, "state", "state entries PodResources does not list", false},
	{CodeTerminatedPodHoldsResources, sevW, "state", "a finished pod still reported with exclusive resources", false},
	{CodeCPUsHeldByCompletedPod, sevW, "state", "a completed (Job) pod still holds CPUs or memory in the state", false},
	{CodeCPUsHeldByFinishedInit, sevW, "state", "a finished init container still holds exclusive CPUs", false},
	{CodeUnexplainedNUMAGroup, sevW, "state", "a memory NUMA group no current assignment explains", false},
	{CodeStateFileProblem, sevEW, "state", "a problem inspect finds in a state file (a CPU held twice, totals that disagree) that no other finding reports", false},
	{CodeNRTDisagrees, sevW, "state", "the NodeResourceTopology schedulers see differs from the node's state files, PodResources or kubelet configuration", false},
	{CodePastedCheckpoint, sevWI, "evidence", "a checkpoint read from a copy: what was repaired, and what its checksum can and cannot prove", false},
	{CodeEvidenceUnreadable, sevEWI, "evidence", "an input no reader could read, or (agent) an evidence source on the node that cannot be read or used", false},
	{CodeCheckpointVersionSkew, sevW, "start-up", "a checkpoint the release the evidence shows accepts but newer kubelets refuse: an upgrade will stop the kubelet", false},
	{CodeKubeletFlagInvalid, sevE, "start-up", "the kubelet's command line does not parse (unknown flag, invalid argument)", true},
	{CodeKubeletConfigInvalid, sevE, "start-up", "the configuration file, drop-ins, flag values or feature gates fail to load or validate", true},
	{CodeKubeletPanic, sevE, "start-up", "the kubelet crashed in a Go panic", false},
	{CodeKubeletExited, sevE, "start-up", "systemd reports the kubelet's unit exiting and nothing in the evidence says why", false},
	{CodeContainerStartFailed, sevEW, "runtime", "an admitted pod's container fails to start: device plugin, device cache, DRA or cgroup set-up", true},
	{CodeDevicePluginFailed, sevEW, "runtime", "a device plugin cannot register, be dialled or answer, outside admission", true},
	{CodeDRAPrepareFailed, sevEW, "runtime", "preparing a pod's ResourceClaims failed (FailedPrepareDynamicResources)", true},
	{CodeDRADriverNotRegistered, sevEW, "runtime", "a claim's DRA driver is not registered on the node", true},
	{CodeAdmissionRejected, sevE, "admission", "a pod refused by an admission handler other than the Topology Manager and the resource managers", true},
	{CodeKubeletError, sevEWI, "runtime", "any other kubelet message the catalogue knows, or a fatal line it does not know: the kubelet's words, what they mean and what to do", true},
}

// Codes returns every finding code package diagnose reports, one row each.
func Codes() []CodeInfo {
	out := make([]CodeInfo, len(codeTable))
	for i, c := range codeTable {
		c.Severities = append([]statefile.Severity(nil), c.Severities...)
		out[i] = c
	}
	return out
}
