package podresources

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"k8s.io/utils/cpuset"
)

// maxSharedListed bounds how many shared-pool containers WriteText names.
const maxSharedListed = 20

// WriteText writes the view as a table per NUMA node: CPUs, memory and
// devices (allocatable, taken, free) and who holds them, then what has no
// NUMA node and a summary of the containers on the shared CPU pool.
func (v *NUMAView) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	tw := tabwriter.NewWriter(bw, 0, 8, 2, ' ', 0)
	for i := range v.Nodes {
		writeNode(tw, fmt.Sprintf("NUMA node %d", v.Nodes[i].ID), &v.Nodes[i], v.HasAllocatable)
	}
	u := &v.Unplaced
	if len(u.CPUs.Allocatable)+len(u.CPUs.Taken)+len(u.Memory)+len(u.Devices)+len(u.Holders) > 0 {
		writeNode(tw, "no NUMA node (CPUs not in the NUMA map, resources without topology, DRA claims)", u, v.HasAllocatable)
	}
	if !v.HasAllocatable {
		fmt.Fprintln(tw, "(no allocatable answer: allocatable and free resources are unknown)")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writeShared(bw, v.Shared)
	return bw.Flush()
}

func writeNode(tw *tabwriter.Writer, title string, n *NodeView, hasAlloc bool) {
	fmt.Fprintln(tw, title)
	c := n.CPUs
	switch {
	case hasAlloc && len(c.Allocatable)+len(c.Taken) > 0:
		fmt.Fprintf(tw, "  cpus\tallocatable %s\ttaken %s\tfree %s\n", cpus(c.Allocatable), cpus(c.Taken), cpus(c.Free))
	case !hasAlloc && len(c.Taken) > 0:
		fmt.Fprintf(tw, "  cpus\ttaken %s\n", cpus(c.Taken))
	}
	for _, m := range n.Memory {
		taken := byteQuantity(m.Taken)
		if m.Spanning > 0 {
			taken += " (+" + byteQuantity(m.Spanning) + " in multi-node blocks)"
		}
		if !hasAlloc {
			fmt.Fprintf(tw, "  %s\ttaken %s\n", m.Type, taken)
			continue
		}
		fmt.Fprintf(tw, "  %s\tallocatable %s\ttaken %s\tfree %s\n", m.Type, byteQuantity(m.Allocatable), taken, freeMemory(m))
	}
	for _, d := range n.Devices {
		if hasAlloc {
			fmt.Fprintf(tw, "  %s\tallocatable %s\ttaken %s\tfree %s\n", d.ResourceName, ids(d.Allocatable), ids(d.Taken), ids(d.Free))
		} else {
			fmt.Fprintf(tw, "  %s\ttaken %s\n", d.ResourceName, ids(d.Taken))
		}
	}
	if len(n.Holders) == 0 {
		return
	}
	fmt.Fprintln(tw, "  held by")
	for _, h := range n.Holders {
		who := h.Pod + " " + h.Container
		if h.Container == "" {
			who = h.Pod + " (pod level)"
		}
		var parts []string
		if len(h.CPUIDs) > 0 {
			parts = append(parts, "cpus "+cpuset.New(h.CPUIDs...).String())
		}
		for _, m := range h.Memory {
			parts = append(parts, m.Type+" "+byteQuantity(m.Size)+nodesSuffix(m.NUMANodes))
		}
		for _, d := range h.Devices {
			parts = append(parts, d.ResourceName+" "+strings.Join(d.DeviceIDs, ","))
		}
		for _, r := range h.DynamicResources {
			for _, cr := range r.ClaimResources {
				parts = append(parts, fmt.Sprintf("claim %s/%s %s/%s/%s", r.ClaimNamespace, r.ClaimName, cr.DriverName, cr.PoolName, cr.DeviceName))
			}
			if len(r.ClaimResources) == 0 {
				parts = append(parts, fmt.Sprintf("claim %s/%s", r.ClaimNamespace, r.ClaimName))
			}
		}
		fmt.Fprintf(tw, "    %s\t%s\n", who, strings.Join(parts, "; "))
	}
}

// freeMemory is allocatable minus taken, as a range when multi-node blocks
// may use part of it.
func freeMemory(m MemoryUse) string {
	lo, hi := m.FreeRange()
	if lo == hi {
		return byteQuantity(hi)
	}
	return byteQuantity(lo) + " to " + byteQuantity(hi)
}

func nodesSuffix(nodes []int) string {
	if len(nodes) <= 1 {
		return ""
	}
	s := make([]string, len(nodes))
	for i, n := range nodes {
		s[i] = strconv.Itoa(n)
	}
	return " on nodes " + strings.Join(s, ",")
}

func writeShared(w io.Writer, shared []SharedContainer) {
	if len(shared) == 0 {
		return
	}
	byStatus := map[Status]int{}
	for _, s := range shared {
		byStatus[s.CPUStatus]++
	}
	keys := make([]string, 0, len(byStatus))
	for k := range byStatus {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", byStatus[Status(k)], Status(k).Describe()))
	}
	noun := "containers"
	if len(shared) == 1 {
		noun = "container"
	}
	fmt.Fprintf(w, "shared CPU pool: %d %s without exclusive CPUs (%s)\n", len(shared), noun, strings.Join(parts, ", "))
	for i, s := range shared {
		if i == maxSharedListed {
			fmt.Fprintf(w, "  ... and %d more\n", len(shared)-maxSharedListed)
			break
		}
		q := string(s.QOSClass)
		if q == "" {
			q = "QoS class unknown"
		}
		fmt.Fprintf(w, "  %s %s (%s): cpus %s, memory %s\n", s.Pod, s.Container, q, s.CPUStatus.Describe(), s.MemoryStatus.Describe())
	}
}

func cpus(list []int) string {
	if len(list) == 0 {
		return "- (0)"
	}
	return fmt.Sprintf("%s (%d)", cpuset.New(list...).String(), len(list))
}

func ids(list []string) string {
	if len(list) == 0 {
		return "- (0)"
	}
	return fmt.Sprintf("%s (%d)", strings.Join(list, ","), len(list))
}

// byteQuantity formats a byte count the way Kubernetes writes quantities: "4Gi",
// "512Mi", or plain bytes when no binary suffix divides it.
func byteQuantity(b uint64) string {
	if b == 0 {
		return "0"
	}
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"Ei", 60}, {"Pi", 50}, {"Ti", 40}, {"Gi", 30}, {"Mi", 20}, {"Ki", 10}} {
		if b%(1<<u.shift) == 0 {
			return strconv.FormatUint(b>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatUint(b, 10)
}
