// Package diagnose turns the evidence found on a Kubernetes node (kubelet logs,
// state files, PodResources snapshots, the pod, its events and the kubelet
// configuration) into findings that say what the Topology Manager and the
// CPU, Memory and Device managers did, why, and what to do about it.
//
// Every finding has a stable code, a severity, an explanation in plain words,
// references to the evidence it rests on (file and line, or JSON path) and a
// remedy; Run collects them into a Report that renders as text, JSON or Markdown.
package diagnose
