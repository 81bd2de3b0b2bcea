// Package legacy proves numascope's verdicts for kubelet v1.36.0 with that
// release's own restore code: it restores every golden checkpoint of
// statefile/testdata/kubelet (the list and configured policies of
// manifest.json) with v1.36.0's cpumanager, memorymanager, devicemanager and dra
// state packages, the way the kubelet does at start, and records each
// verdict and error text in verdicts-v1.36.0.json, which statefile's
// TestReleaseVerdicts compares with Decode under Options.KubeletVersion.
// The file stands for 1.36 (cpu v3 and the CPUManagerCheckpointV2 type name, memory's skipped zero checksum).
//
// Regenerate with `go test -run TestReleaseVerdicts -update-verdicts` here;
// without the flag the test fails when a recorded verdict drifts.
package legacy
