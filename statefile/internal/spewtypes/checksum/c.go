// Package checksum mirrors pkg/kubelet/checkpointmanager/checksum.
package checksum

// Checksum mirrors checksum.Checksum.
type Checksum uint64
