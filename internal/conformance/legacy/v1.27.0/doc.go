// Package legacy writes the golden DRA manager checkpoints of the first
// spew-checksum era, before resource handles, with kubelet v1.27.0's own
// code, and checks each against v1.27.0's restore path. The files go to
// statefile/testdata/kubelet with a list in legacy-v1.27.0.json;
// internal/conformance then records what kubelet v1.37.2 decides for each.
package legacy
