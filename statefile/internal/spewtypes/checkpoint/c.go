// Package checkpoint mirrors pkg/kubelet/cm/devicemanager/checkpoint.
package checkpoint

// DevicesPerNUMA mirrors checkpoint.DevicesPerNUMA.
type DevicesPerNUMA map[int64][]string

// PodDevicesEntry mirrors checkpoint.PodDevicesEntry.
type PodDevicesEntry struct {
	PodUID        string
	ContainerName string
	ResourceName  string
	DeviceIDs     DevicesPerNUMA
	AllocResp     []byte
}

// CheckpointData mirrors the unexported checkpoint.checkpointData.
type CheckpointData struct {
	PodDeviceEntries  []PodDevicesEntry
	RegisteredDevices map[string][]string
}

// PodDevicesEntryV1 mirrors the ≤1.19 entry (flat DeviceIDs).
type PodDevicesEntryV1 struct {
	PodUID        string
	ContainerName string
	ResourceName  string
	DeviceIDs     []string
	AllocResp     []byte
}

// CheckpointDataV1 mirrors the ≤1.19 checkpointData.
type CheckpointDataV1 struct {
	PodDeviceEntries  []PodDevicesEntryV1
	RegisteredDevices map[string][]string
}
