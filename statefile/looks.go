package statefile

import "regexp"

// reCheckpointKey finds a member only kubelet checkpoints have, also
// inside the escaped JSON of a data string (cpu v4, memory v3, DRA crc32),
// or the data string of a DRA checkpoint itself. The DRA spew format's
// DriverName and ClaimUID count in their own case only: a PodResources
// answer names driverName too.
var reCheckpointKey = regexp.MustCompile(`\\?"((?i:policyName|defaultCpuSet|machineState|PodDeviceEntries|RegisteredDevices|ClaimInfoStateList)|DriverName|ClaimUID)\\?"\s*:|\A\s*\{\s*"(Data)"\s*:\s*"`)

// Looks reports whether the start of a document looks like a kubelet
// checkpoint of any kind: it names a member only checkpoints have. why
// says which, for a message ("a kubelet checkpoint (key machineState)").
// It decides nothing about the content: Decode does.
func Looks(head []byte) (why string, ok bool) {
	if m := reCheckpointKey.FindSubmatch(head); m != nil {
		key := m[1]
		if len(key) == 0 {
			key = m[2]
		}
		return "a kubelet checkpoint (key " + string(key) + ")", true
	}
	return "", false
}
