// Package statefile detects, decodes, verifies and encodes the kubelet's
// checkpoint files (cpu_manager_state, memory_manager_state,
// device-plugins/kubelet_internal_checkpoint and dra_manager_state) in every
// format version, with checksums computed bit for bit as each kubelet era does.
// It answers what kubelet v1.37.2 would do with a file at restart, which
// kubelet wrote it, and everything else that is wrong with it, all at once.
package statefile
