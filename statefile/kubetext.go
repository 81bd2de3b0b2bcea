package statefile

import (
	"regexp"
	"strings"
)

// encoding/json names the Go struct and field type in its type errors, and
// the kubelet passes that text on. numascope decodes into its own mirrors of
// the kubelet's structs, so kubeText renames them back to the kubelet's names.
var kubeNames = strings.NewReplacer(
	"field cpuCheckpointV1.", "field CPUManagerCheckpointV1.",
	"field cpuCheckpointV2.", "field CPUManagerCheckpointV2.",
	"field cpuCheckpointV3.", "field CPUManagerCheckpointV3.",
	"field cpuCheckpointV4.", "field CPUManagerCheckpoint.",
	"field cpuCheckpointData.", "field CPUManagerCheckpointData.",
	"field cpuPodEntryJSON.", "field podEntryJSON.",
	"field cpuBaseline.", "field ContainerCPUs.",
	"field memCheckpointV1.", "field MemoryManagerCheckpointV1.",
	"field memCheckpointV2.", "field MemoryManagerCheckpointV2.",
	"field memCheckpointV3.", "field MemoryManagerCheckpoint.",
	"field MemoryState.", "field MemoryManagerCheckpointData.",
	"field PodMemoryEntry.", "field PodEntry.",
	"field devCheckpoint.", "field Data.",
	"field devCheckpointData.", "field checkpointData.",
	"field draCheckpoint.", "field Checkpoint.",
	"field draCheckpointData.", "field CheckpointData.",
	"field draClaimCRC.", "field ClaimInfoState.",
	"field DRADevice.", "field Device.",
	"of type map[int64][]string", "of type checkpoint.DevicesPerNUMA",
	"of type map[string]struct {}", "of type sets.Set[string]",
	"of type map[int]*statefile.NUMANodeState", "of type state.NUMANodeMap",
	"of type map[string]map[string][]statefile.Block", "of type state.ContainerMemoryAssignments",
	"of type map[string]statefile.PodMemoryEntry", "of type state.PodMemoryAssignments",
	"of type map[string]*statefile.MemoryTable", "of type map[v1.ResourceName]*state.MemoryTable",
	"of type map[string]statefile.cpuPodEntry", "of type state.PodCPUAssignments",
	"of type map[string]map[string]statefile.cpuBaseline", "of type map[string]map[string]state.ContainerCPUs",
	"of type map[string]statefile.DriverState", "of type map[string]state.DriverState",
	"of type []statefile.draClaimCRC", "of type state.ClaimInfoStateList",
	"of type []statefile.DRADevice", "of type []state.Device",
	"of type []statefile.PodDevicesEntry", "of type []checkpoint.PodDevicesEntry",
	"statefile.MemoryTable", "state.MemoryTable",
	"statefile.NUMANodeState", "state.NUMANodeState",
	"statefile.PodMemoryEntry", "state.PodEntry",
	"statefile.Block", "state.Block",
	"statefile.cpuPodEntry", "state.PodEntry",
	"statefile.cpuBaseline", "state.ContainerCPUs",
	"statefile.devCheckpointData", "checkpoint.checkpointData",
	"statefile.PodDevicesEntry", "checkpoint.PodDevicesEntry",
	"statefile.draClaimCRC", "state.ClaimInfoState",
	"statefile.DriverState", "state.DriverState",
	"statefile.DRADevice", "state.Device",
)

var (
	reChecksumType = regexp.MustCompile(`\.(checksum|dataChecksum|Checksum) of type uint64`)
	reResourceName = regexp.MustCompile(`(Block\.[^ ]*type) of type string`)
	reClaimUID     = regexp.MustCompile(`(ClaimInfoState\.[^ ]*ClaimUID) of type string`)
	reShareID      = regexp.MustCompile(`(Device\.[^ ]*ShareID) of type \*string`)
	reSkipOps      = regexp.MustCompile(`(skipNodeOperations) of type (\[\])?string`)
)

func kubeText(s string) string {
	if !strings.Contains(s, "Go struct field") && !strings.Contains(s, "Go value of type") {
		return s
	}
	s = kubeNames.Replace(s)
	s = reChecksumType.ReplaceAllString(s, ".$1 of type checksum.Checksum")
	s = reResourceName.ReplaceAllString(s, "$1 of type v1.ResourceName")
	s = reClaimUID.ReplaceAllString(s, "$1 of type types.UID")
	s = reShareID.ReplaceAllString(s, "$1 of type *types.UID")
	s = reSkipOps.ReplaceAllString(s, "$1 of type $2v1.SkipNodeOperation")
	return s
}
