// Package state (directory dstate) mirrors the spew-era DRA state package.
package state

import (
	"github.com/numascope/numascope/statefile/internal/spewtypes/checksum"
	"github.com/numascope/numascope/statefile/internal/spewtypes/sets"
	"github.com/numascope/numascope/statefile/internal/spewtypes/types"
	"github.com/numascope/numascope/statefile/internal/spewtypes/v1alpha2"
)

// ClaimInfoState mirrors the v1.30 ClaimInfoState.
type ClaimInfoState struct {
	DriverName      string
	ClassName       string
	ClaimUID        types.UID
	ClaimName       string
	Namespace       string
	PodUIDs         sets.Set[string]
	ResourceHandles []v1alpha2.ResourceHandle
	CDIDevices      map[string][]string
}

// ClaimInfoState128 mirrors the v1.28/v1.29 ClaimInfoState.
type ClaimInfoState128 struct {
	DriverName      string
	ClassName       string
	ClaimUID        types.UID
	ClaimName       string
	Namespace       string
	PodUIDs         sets.Set[string]
	ResourceHandles []v1alpha2.ResourceHandle128
	CDIDevices      map[string][]string
}

// ClaimInfoStateWithoutResourceHandles mirrors the fallback layout.
type ClaimInfoStateWithoutResourceHandles struct {
	DriverName string
	ClassName  string
	ClaimUID   types.UID
	ClaimName  string
	Namespace  string
	PodUIDs    sets.Set[string]
	CDIDevices map[string][]string
}

// ClaimInfoStateList mirrors state.ClaimInfoStateList.
type ClaimInfoStateList []ClaimInfoState

// ClaimInfoStateList128 is the v1.28 list (renamed in tests).
type ClaimInfoStateList128 []ClaimInfoState128

// ClaimInfoStateListWithoutResourceHandles mirrors the fallback list.
type ClaimInfoStateListWithoutResourceHandles []ClaimInfoStateWithoutResourceHandles

// DRAManagerCheckpoint mirrors the spew-era checkpoint.
type DRAManagerCheckpoint struct {
	Version  string
	Entries  ClaimInfoStateList
	Checksum checksum.Checksum
}

// DRAManagerCheckpoint128 mirrors the v1.28 checkpoint (renamed in tests).
type DRAManagerCheckpoint128 struct {
	Version  string
	Entries  ClaimInfoStateList128
	Checksum checksum.Checksum
}

// DRAManagerCheckpointWithoutResourceHandles mirrors the fallback checkpoint.
type DRAManagerCheckpointWithoutResourceHandles struct {
	Version  string
	Entries  ClaimInfoStateListWithoutResourceHandles
	Checksum checksum.Checksum
}
