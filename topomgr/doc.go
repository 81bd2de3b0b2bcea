// Package topomgr reproduces the kubelet's Topology Manager: NUMA bitmasks,
// topology hints, the hint merge, the four policies with their options, and
// the container, pod and none scopes.
//
// Merge answers exactly what the kubelet's policies answer (proven against
// the kubelet's own code in internal/conformance) without enumerating every
// combination of the providers' hints, so it stays fast on machines with many
// NUMA nodes; Explain shows the work behind an answer.
package topomgr
