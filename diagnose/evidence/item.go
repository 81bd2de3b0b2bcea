package evidence

// Item names one input and what it was read as, or why it was not.
type Item struct {
	File string `json:"file"`
	// Kind is what the input was read as ("kubelet-log", "pod", "events",
	// "kubelet-config", "topology", "state-cpu", ...); for an input that was
	// not read, the kind it was given as or looked like, or "unknown".
	Kind   string `json:"kind"`
	Format string `json:"format,omitempty"`
	// Status is "read", "partial" (read, with parts left out: see
	// Warnings), "unused" (read, but nothing in it is kubelet evidence) or
	// "refused" (not read: see Error).
	Status string `json:"status"`
	// Given is the kind the input was passed as (a typed flag), when that
	// is not the kind it was read as, or when it was refused.
	Given string `json:"given,omitempty"`
	// Note says what was learned from it.
	Note string `json:"note,omitempty"`
	// Error says why the input was not read: the file, the line or field,
	// and what to pass instead.
	Error string `json:"error,omitempty"`
	// Warnings are what was changed or left out on the way, each starting
	// with its position ("line 3: removed shell prompt and command").
	Warnings []string `json:"warnings,omitempty"`
}

// Used reports whether the input was read and contributes to the findings.
func (it Item) Used() bool { return it.Status == "read" || it.Status == "partial" }

// Kubelet admission reasons, as pod status and events carry them.
const (
	ReasonTopologyAffinity = "TopologyAffinityError"
	ReasonSMTAlignment     = "SMTAlignmentError"
	ReasonUnexpected       = "UnexpectedAdmissionError"
)
