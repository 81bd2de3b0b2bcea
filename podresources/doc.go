// Package podresources is a plain Go model of the kubelet's PodResources API
// (List, GetAllocatableResources and Get) with a JSON form that never loses NUMA
// node 0 and says when the kubelet does not report a pod's CPUs or memory.
// It also loads snapshots saved by other tools and turns a snapshot into a
// per-NUMA-node view of what is allocatable and what is taken.
//
// The package has no gRPC dependency, so it builds for GOOS=js GOARCH=wasm; the
// client for a live kubelet socket is in the client sub-package and a real gRPC
// test server is in podresourcestest.
//
// # What the kubelet reports
//
// The kubelet lists exclusive CPU ids only for containers that own exclusive
// CPUs (static CPU manager policy, Guaranteed pod, integer CPU request), and
// memory blocks only for containers pinned by the static Memory Manager policy
// (again Guaranteed pods). For every other container those lists are empty even
// though the container runs somewhere: on the shared CPU pool and on any NUMA
// node's memory. The model keeps this visible: [PodResources.CPUStatus] and
// [PodResources.MemoryStatus] tell "assigned" from "none" (a Guaranteed pod with
// nothing exclusive) from "notReportedForQOSClass" (a Burstable or BestEffort
// pod) from "unknown" (an empty list and no QoS class known). The PodResources
// API does not carry the QoS class; set [PodResources.QOSClass] from the pod's status
// when you have it, for example with [Snapshot.SetQOSClasses] and the classes
// evidence.PodQOSClasses reads from `kubectl get pods -o json` ([WithPods] does it
// for a snapshot directory's pods.json). A pod that holds exclusive CPUs or memory is Guaranteed, so
// the class is inferred in that case.
//
// Since Kubernetes 1.37 (KEP-5526, feature gate PodLevelResourceManagers) the
// kubelet can also report exclusive CPUs and memory for the pod as a whole in
// [PodResources.CPUIDs] and [PodResources.Memory]; these overlap the container lists by design.
//
// # JSON form
//
// [Snapshot] marshals to camelCase JSON:
//
//	{"pods":[{"name":"web","namespace":"default","qosClass":"Guaranteed",
//	  "containers":[{"name":"app","cpuIds":[2,3],"cpuIdsStatus":"assigned",
//	    "memory":[{"type":"memory","size":1073741824,"numaNodes":[0]}],"memoryStatus":"assigned",
//	    "devices":[{"resourceName":"example.com/gpu","deviceIds":["gpu0"],"numaNodes":[0]}]}]}],
//	 "allocatable":{"cpuIds":[0,1,2,3],"memory":[…],"devices":[…]}}
//
// Lists are always arrays (never omitted) and NUMA ids are plain numbers, so
// node 0 is always written. The status fields are derived and ignored on input.
// [Decode], [DecodeAllocatable], [DecodePod] and [LoadDir] read this form and
// the protobuf-JSON form other tools save: protojson (camelCase names, int64
// as strings) or encoding/json of the generated Go types (snake_case names).
// Both leave NUMA id 0 out and write the node as {}, which reads as node 0.
package podresources
