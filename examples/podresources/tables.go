package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/cliout"
	"github.com/numascope/numascope/internal/units"
	"github.com/numascope/numascope/internal/words"
	"github.com/numascope/numascope/podresources"
	"k8s.io/utils/cpuset"
)

// maxSharedRows bounds the shared-pool containers listed, as the text view does.
const maxSharedRows = 20

// writeTables writes the view as two tables, for -o wide (after the text
// view) and -o markdown: what each NUMA node has (allocatable, taken,
// free) and who holds what on it, one row per container and node.
func writeTables(w io.Writer, format cliout.Format, v podresources.NUMAView) error {
	nodes := append([]podresources.NodeView{}, v.Nodes...)
	u := v.Unplaced
	if len(u.CPUs.Allocatable)+len(u.CPUs.Taken)+len(u.Memory)+len(u.Devices)+len(u.Holders) > 0 {
		nodes = append(nodes, u)
	}
	var res, held [][]string
	for _, n := range nodes {
		numa := nodeName(n.ID)
		c := n.CPUs
		if len(c.Allocatable)+len(c.Taken) > 0 {
			res = append(res, []string{numa, "cpus", alloc(v, cpuCount(c.Allocatable)), cpuCount(c.Taken), alloc(v, cpuCount(c.Free))})
		}
		for _, m := range n.Memory {
			taken := human(m.Taken)
			if m.Spanning > 0 {
				taken += " (+" + human(m.Spanning) + " in multi-node blocks)"
			}
			res = append(res, []string{numa, m.Type, alloc(v, human(m.Allocatable)), taken, alloc(v, freeMemory(m))})
		}
		for _, d := range n.Devices {
			res = append(res, []string{numa, d.ResourceName, alloc(v, idCount(d.Allocatable)), idCount(d.Taken), alloc(v, idCount(d.Free))})
		}
		for _, h := range n.Holders {
			container := h.Container
			if container == "" {
				container = "(pod level)"
			}
			var mem, devs []string
			for _, m := range h.Memory {
				s := human(m.Size) + " " + m.Type
				if len(m.NUMANodes) > 1 {
					s += " on nodes " + joinInts(m.NUMANodes)
				}
				mem = append(mem, s)
			}
			for _, d := range h.Devices {
				devs = append(devs, d.ResourceName+" "+strings.Join(d.DeviceIDs, ","))
			}
			for _, r := range h.DynamicResources {
				for _, cr := range r.ClaimResources {
					devs = append(devs, fmt.Sprintf("claim %s/%s %s/%s/%s", r.ClaimNamespace, r.ClaimName, cr.DriverName, cr.PoolName, cr.DeviceName))
				}
				if len(r.ClaimResources) == 0 {
					devs = append(devs, fmt.Sprintf("claim %s/%s", r.ClaimNamespace, r.ClaimName))
				}
			}
			cpus := "-"
			if len(h.CPUIDs) > 0 {
				cpus = cpuset.New(h.CPUIDs...).String()
			}
			held = append(held, []string{numa, h.Pod, container, cpus, orDash(strings.Join(mem, ", ")), orDash(strings.Join(devs, ", "))})
		}
	}
	for i, s := range v.Shared {
		if i == maxSharedRows {
			held = append(held, []string{"shared pool", fmt.Sprintf("and %d more containers", len(v.Shared)-i), "", "", "", ""})
			break
		}
		q := string(s.QOSClass)
		if q == "" {
			q = "QoS class unknown"
		}
		held = append(held, []string{"shared pool", s.Pod, s.Container, "cpus " + s.CPUStatus.Describe() + " (" + q + ")", "memory " + s.MemoryStatus.Describe(), "-"})
	}
	if format == cliout.Markdown {
		fmt.Fprintln(w, "\n### Resources per NUMA node")
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w)
	}
	if err := cliout.Table(w, format, []string{"NUMA", "RESOURCE", "ALLOCATABLE", "TAKEN", "FREE"}, res); err != nil {
		return err
	}
	if format == cliout.Markdown {
		fmt.Fprintln(w, "\n### Held by")
	}
	fmt.Fprintln(w)
	return cliout.Table(w, format, []string{"NUMA", "POD", "CONTAINER", "CPUS", "MEMORY", "DEVICES"}, held)
}

func nodeName(id int) string {
	if id < 0 {
		return "none"
	}
	return strconv.Itoa(id)
}

// alloc is an allocatable or free figure, unknown without an allocatable answer.
func alloc(v podresources.NUMAView, s string) string {
	if !v.HasAllocatable {
		return "unknown"
	}
	return s
}

func cpuCount(list []int) string {
	if len(list) == 0 {
		return "none"
	}
	return fmt.Sprintf("%s (%s)", cpuset.New(list...).String(), words.Count(len(list), "CPU"))
}

func idCount(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ",")
}

// human is a byte count with a binary unit ("64 GiB", "0").
func human(b uint64) string {
	if b == 0 {
		return "0"
	}
	return units.Size(b)
}

// freeMemory is allocatable minus taken, a range when multi-node blocks
// may use part of it.
func freeMemory(m podresources.MemoryUse) string {
	lo, hi := m.FreeRange()
	if lo == hi {
		return human(hi)
	}
	return human(lo) + " to " + human(hi)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
