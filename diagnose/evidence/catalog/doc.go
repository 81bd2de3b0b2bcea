// Package catalog is the kubelet's own vocabulary: every log line, error,
// event, admission result and flag-parsing error that the kubelet's
// container manager, its CPU, memory, device, DRA and Topology managers,
// the checkpoint manager, the admission handlers and the kubelet command
// can print, in each release from 1.16 to 1.37, with the format string of
// the source, the structured keys, the level, the releases and the call
// sites. The catalogue is generated from the kubelet's sources (see
// internal/conformance/cmd/kubelet-catalog) and embedded.
//
// Match finds the catalogue's entries in any text: log lines with or
// without klog and journald headers, JSON logs, describe Message fields,
// event rows, an err="..." value inside another line, bare messages. Each
// verb of the format becomes a capture, the structured keys become fields,
// and an error operand (%w, an error printed with %v, the err field) is
// matched in turn, so a hit carries the chain of wrapped errors down to
// the innermost one the kubelet knows:
//
//	for _, h := range catalog.Match(line) {
//		inner := h.Innermost()
//		fmt.Println(h.Entry.Format, "->", inner.Entry.Format, inner.Entry.Releases)
//	}
//
// Matching is linear in the text: the entries' rarest literals are found
// by one pass of a keyed filter, the other literals by one automaton, and
// each proposed entry is checked at its literals.
package catalog
