package evidence

import (
	"fmt"

	"github.com/numascope/numascope/internal/nrt"
	"github.com/numascope/numascope/internal/words"
	"github.com/numascope/numascope/topomgr"
)

// setNRT keeps a NodeResourceTopology for the comparison with the
// kubelet's evidence. It is not the machine topology: it counts CPUs per
// NUMA node but names none. ok is false when text is not one (the
// topology readers then say why).
func (e *Set) setNRT(name string, text []byte) (Item, bool) {
	if !nrt.Looks(text) {
		return Item{}, false
	}
	m, err := topomgr.ParseMachine(text)
	if err != nil || m.Format != "NodeResourceTopology" {
		return Item{}, false
	}
	o, count, err := nrt.Parse(text)
	if err != nil {
		return Item{}, false
	}
	var warns []string
	if e.nrt != nil {
		warns = append(warns, "replaces the NodeResourceTopology read from "+e.nrtName)
	}
	if count > 1 {
		warns = append(warns, fmt.Sprintf("%d NodeResourceTopology objects: only the first (%s) is compared; pass the node's own", count, words.Clip(o.Metadata.Name, 63)))
	}
	e.nrt, e.nrtName = o, name
	it := Item{Kind: KindTopology, Format: m.Format, Status: "read",
		Note:     m.Summary() + "; compared with the kubelet's evidence (what topology-aware schedulers see), not used as the machine topology",
		Warnings: warns}
	if len(it.Warnings) > 0 {
		it.Status = "partial"
	}
	return it, true
}
