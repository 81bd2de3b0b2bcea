// Package state declares the CPU manager checkpoint of kubelet 1.17 and
// older (the format later releases call v1). The kubelet's checksum hashes a
// go-spew rendering that includes the package and type names, so the type
// lives in a package named state, as it did in the kubelet, and keeps the
// name CPUManagerCheckpoint.
package state

import "k8s.io/kubernetes/pkg/kubelet/checkpointmanager/checksum"

// CPUManagerCheckpoint is the v1 CPU manager checkpoint: container ID to
// cpuset, as kubelet 1.17 and older wrote it.
type CPUManagerCheckpoint struct {
	PolicyName    string            `json:"policyName"`
	DefaultCPUSet string            `json:"defaultCpuSet"`
	Entries       map[string]string `json:"entries,omitempty"`
	Checksum      checksum.Checksum `json:"checksum"`
}
