// Package legacy writes the golden checkpoints that only older kubelets
// produce, with kubelet v1.30.0's own code: device manager checkpoints in the
// layout of kubelet 1.19 and older (DeviceIDs as a plain list, written by
// v1.30.0's DataV1, whose checksum reproduces what 1.19 computed) and DRA
// manager checkpoints of the spew-checksum era, with resource handles
// (v1.30.0's DRAManagerCheckpoint) and without them (the upstream unit
// tests' vectors from the releases before resource handles), each checked
// against v1.30.0's restore path. The files go to statefile/testdata/kubelet
// with a list in legacy-v1.30.0.json; internal/conformance then records what
// kubelet v1.37.2 decides for each.
//
// TestReleaseVerdicts (the shared module ../verdicts, with this release's
// restore calls from restore_test.go) restores every golden checkpoint with v1.30.0's own
// restore code and records the verdicts in verdicts-v1.30.0.json, which
// statefile's tests compare with Decode under Options.KubeletVersion "1.30".
package legacy
