package statefile

import "regexp"

// reCheckpointKey finds a member only kubelet checkpoints have.
var reCheckpointKey = regexp.MustCompile(`(?i)"(policyName|defaultCpuSet|machineState|PodDeviceEntries|RegisteredDevices|ClaimInfoStateList)"\s*:`)

// Looks reports whether the start of a document looks like a kubelet
// checkpoint of any kind: it names a member only checkpoints have. why
// says which, for a message ("a kubelet checkpoint (key machineState)").
// It decides nothing about the content: Decode does.
func Looks(head []byte) (why string, ok bool) {
	if m := reCheckpointKey.FindSubmatch(head); m != nil {
		return "a kubelet checkpoint (key " + string(m[1]) + ")", true
	}
	return "", false
}
