// Package topomgr runs numascope's Topology Manager side by side with the
// kubelet's own topologymanager package: the policies' merges, the policy
// options, the NUMA layout checks and the scopes' admission, on the
// upstream test inputs, on thousands of random cases and under a fuzzer,
// with zero differences allowed; and benchmarks of both merges.
package topomgr
