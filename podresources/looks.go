package podresources

import (
	"bytes"
	"regexp"
)

// rePodResources finds a member of a PodResources answer: one of the
// protobuf-JSON names, or numascope's list of pods ({"pods": [...]}).
var rePodResources = regexp.MustCompile(`(?i)"(?:pod_resources|podResources|cpu_ids|cpuIds|allocatable)"\s*:|"pods"\s*:\s*\[`)

// Looks reports whether the start of a document looks like a PodResources
// answer (List, GetAllocatableResources or Get, in numascope's JSON or the
// protobuf JSON form): a JSON document naming their members. Decode reads it.
func Looks(head []byte) (why string, ok bool) {
	t := bytes.TrimSpace(head)
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') && rePodResources.Match(head) {
		return "a PodResources answer", true
	}
	return "", false
}
