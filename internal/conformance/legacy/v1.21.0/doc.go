// Package legacy writes the golden checkpoints that only older kubelets
// produce, with kubelet v1.21.0's own code: CPU manager v1 checkpoints
// (kubelet 1.17 and older, container ID keys), and v1.21.0's own v2 CPU,
// v1 memory and 1.20+ device checkpoints, each checked against v1.21.0's
// restore path. The files go to statefile/testdata/kubelet with a list in
// legacy-v1.21.0.json; internal/conformance then records what kubelet
// v1.37.2 decides for each.
package legacy
