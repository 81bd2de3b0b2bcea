// Package state mirrors the cpumanager and memorymanager state packages.
package state

import (
	"github.com/numascope/numascope/statefile/internal/spewtypes/checksum"
	v1 "github.com/numascope/numascope/statefile/internal/spewtypes/v1"
	"k8s.io/utils/cpuset"
)

// CPUManagerCheckpoint mirrors the cpu v2 checkpoint under its hashed name.
type CPUManagerCheckpoint struct {
	PolicyName    string
	DefaultCPUSet string
	Entries       map[string]map[string]string
	Checksum      checksum.Checksum
}

// CPUManagerCheckpointV2 mirrors the v1.37.2 V2 struct.
type CPUManagerCheckpointV2 CPUManagerCheckpoint

// CPUManagerCheckpointV1 mirrors the ≤1.17 struct.
type CPUManagerCheckpointV1 struct {
	PolicyName    string
	DefaultCPUSet string
	Entries       map[string]string
	Checksum      checksum.Checksum
}

// PodEntry mirrors the cpumanager PodEntry.
type PodEntry struct{ CPUSet cpuset.CPUSet }

// PodCPUAssignments mirrors state.PodCPUAssignments.
type PodCPUAssignments map[string]PodEntry

// CPUManagerCheckpointV3 mirrors the v3 struct.
type CPUManagerCheckpointV3 struct {
	PolicyName    string
	DefaultCPUSet string
	Entries       map[string]map[string]string
	PodEntries    PodCPUAssignments
	Checksum      checksum.Checksum
}

// MemoryTable mirrors state.MemoryTable.
type MemoryTable struct {
	TotalMemSize   uint64
	SystemReserved uint64
	Allocatable    uint64
	Reserved       uint64
	Free           uint64
}

// NUMANodeState mirrors state.NUMANodeState.
type NUMANodeState struct {
	NumberOfAssignments int
	MemoryMap           map[v1.ResourceName]*MemoryTable
	Cells               []int
}

// NUMANodeMap mirrors state.NUMANodeMap.
type NUMANodeMap map[int]*NUMANodeState

// Block mirrors state.Block.
type Block struct {
	NUMAAffinity []int
	Type         v1.ResourceName
	Size         uint64
}

// ContainerMemoryAssignments mirrors state.ContainerMemoryAssignments.
type ContainerMemoryAssignments map[string]map[string][]Block

// MemPodEntry mirrors the memorymanager PodEntry (renamed in tests).
type MemPodEntry struct{ MemoryBlocks []Block }

// PodMemoryAssignments mirrors state.PodMemoryAssignments.
type PodMemoryAssignments map[string]MemPodEntry

// MemoryManagerCheckpoint mirrors the v1 layout under its hashed name.
type MemoryManagerCheckpoint struct {
	PolicyName   string
	MachineState NUMANodeMap
	Entries      ContainerMemoryAssignments
	Checksum     checksum.Checksum
}

// MemoryManagerCheckpointV2 mirrors the v2 layout (renamed when hashed).
type MemoryManagerCheckpointV2 struct {
	PolicyName   string
	MachineState NUMANodeMap
	Entries      ContainerMemoryAssignments
	PodEntries   PodMemoryAssignments
	Checksum     checksum.Checksum
}
