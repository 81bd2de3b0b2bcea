// Package topomgr reproduces the kubelet's Topology Manager: NUMA bitmasks,
// topology hints, the hint merge, the four policies with their options, the
// container, pod and none scopes, and the CPU, memory and device hint
// providers computed from a node's checkpoint files and topology.
//
// Merge answers exactly what the kubelet's policies answer (proven against
// the kubelet's own code in internal/conformance) without enumerating every
// combination of the providers' hints, so it stays fast on machines with many
// NUMA nodes; Explain and SimulateAdmission show the work behind an answer.
package topomgr
