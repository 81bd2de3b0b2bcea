// Package topotext reads a machine's NUMA topology from the text people
// paste: numactl -H, lscpu (plain, -e, -p), sysfs listings printed by grep
// as path:value, the kubelet's start-up "Machine:" line (cAdvisor's %+v)
// and the CPU manager's "Detected CPU topology" line. Formats are detected
// by content. Every reader is bounded: CPU lists go through
// internal/cpulist, node ids and counts are capped, and the %+v parser
// has a depth and value budget.
//
// A reader never guesses: what its format does not say (which CPUs are
// sibling threads, sockets, exact memory) is marked unknown in Topology,
// and what it inferred is a warning.
package topotext

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"

	"github.com/numascope/numascope/internal/cpulist"
	"k8s.io/utils/cpuset"
)

// ErrNoTopology is wrapped when no node-to-CPU mapping can be derived.
var ErrNoTopology = errors.New("no NUMA topology found: expected numactl, lscpu, sysfs, lstopo or cAdvisor machine info")

// Bounds.
const (
	// MaxNodeID is the largest NUMA node id read (Linux allows 1024 nodes).
	MaxNodeID = 1023
	// maxNodes caps the nodes of one topology.
	maxNodes = 1024
	// maxWarnings caps the warnings kept.
	maxWarnings = 20
)

// Node is one NUMA node.
type Node struct {
	ID   int
	CPUs cpuset.CPUSet
	// Memory is the node's memory in bytes, when Topology.MemoryKnown.
	Memory uint64
	// Distances is the node's distance row (nil when not given).
	Distances []uint64
	// HugePages maps a page size in KiB to a number of pages.
	HugePages map[uint64]uint64
}

// CPU is one CPU's place. Core is the lowest id of the CPU's sibling
// threads (the kubelet's core numbering) and -1 when unknown; Socket is
// -1 when unknown.
type CPU struct {
	ID, Core, Socket, NUMA int
}

// Topology is what a text said.
type Topology struct {
	// Format names the source format ("numactl -H", "lscpu", "lscpu -e", ...).
	Format string
	Nodes  []Node
	// CPUs lists every CPU of the nodes, ascending.
	CPUs []CPU
	// CoresKnown is true when the source says which CPUs share a core;
	// SocketsKnown when it says each CPU's socket; MemoryKnown when it gives
	// each node's memory exactly.
	CoresKnown, SocketsKnown, MemoryKnown bool
	// Online is the online CPU list when OnlineKnown.
	Online      cpuset.CPUSet
	OnlineKnown bool
	// NumCPUs is the CPU count the source states (0 when none).
	NumCPUs int
	// FS is set, instead of Nodes and CPUs, for a sysfs listing: a tree
	// of the files it printed, to read as a sysfs snapshot.
	FS fs.FS
	// Warnings say what was skipped or inferred.
	Warnings []string
}

func (t *Topology) warn(format string, args ...any) {
	if len(t.Warnings) < maxWarnings {
		t.Warnings = append(t.Warnings, fmt.Sprintf(format, args...))
	}
}

var (
	ansiRE   = regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]")
	promptRE = regexp.MustCompile(`^(\[[^\]]*\][$#]|\S*[$#]|PS [^>]*>)\s*(sudo\s+)?(cat|grep|numactl|lscpu|lstopo|lstopo-no-graphics|journalctl|kubectl|oc|zcat|head|tail|less|ssh|for|find)\b`)
)

// Lines splits a paste into lines and removes what chat and terminals add:
// CR, ANSI colours, non-breaking spaces, "> " quote prefixes, Markdown
// fences and shell prompt lines (a prompt followed by a known command).
func Lines(data []byte) []string {
	raw := strings.Split(string(data), "\n")
	out := make([]string, 0, len(raw))
	for _, l := range raw {
		l = strings.TrimRight(l, "\r")
		if strings.IndexByte(l, 0x1b) >= 0 {
			l = ansiRE.ReplaceAllString(l, "")
		}
		l = strings.ReplaceAll(l, "\u00a0", " ")
		for {
			t := strings.TrimLeft(l, " \t")
			if !strings.HasPrefix(t, ">") || strings.HasPrefix(t, ">=") {
				break
			}
			l = strings.TrimPrefix(t[1:], " ")
		}
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") || (len(t) < 4096 && promptRE.MatchString(t)) {
			l = ""
		}
		out = append(out, l)
	}
	return out
}

// elided reports whether a line is an elision mark.
func elided(l string) bool {
	switch strings.TrimSpace(l) {
	case "...", "…", "[...]", "<snip>", "(output trimmed)", "[…]":
		return true
	}
	return false
}

// Parse reads a topology from text in any of the formats the package
// knows. The error wraps ErrNoTopology when nothing matches and says what
// the text looked like when it can.
func Parse(data []byte) (*Topology, error) {
	ls := Lines(data)
	if t, ok, err := parseSysfsListing(append(catListing(data), ls...)); ok || err != nil {
		return t, err
	}
	if t, ok, err := parseKubeletLines(ls); ok || err != nil {
		return t, err
	}
	if t, ok, err := parseNumactl(ls); ok || err != nil {
		if err == nil {
			// numactl and lscpu -e/-p pasted together: numactl's distances,
			// lscpu's core layout, when both place the same CPUs.
			if e, ok, eerr := parseLscpuTable(ls); ok && eerr == nil {
				t.merge(e)
			}
		}
		return t, err
	}
	if t, ok, err := parseLscpuTable(ls); ok || err != nil {
		return t, err
	}
	if t, ok, err := parseLscpu(ls); ok || err != nil {
		return t, err
	}
	if t, ok, err := parseLstopo(ls); ok || err != nil {
		return t, err
	}
	return nil, refusal(ls)
}

// refusal names what the text looked like.
func refusal(ls []string) error {
	text := strings.Join(ls, "\n")
	switch {
	case strings.Contains(text, "Capacity:") && strings.Contains(text, "Allocatable:"):
		return fmt.Errorf("%w: this is `kubectl describe node` output, which has node totals but no NUMA placement: run `numactl -H` or `lscpu` on the node (or copy /sys/devices/system/node and /sys/devices/system/cpu) and pass that", ErrNoTopology)
	case strings.Contains(text, "lscpu") || strings.Contains(text, "Thread(s) per core") || strings.Contains(text, "Model name"):
		return fmt.Errorf("%w: this looks like lscpu output without NUMA node lines (\"NUMA node0 CPU(s):\"): pass the full `lscpu` or `numactl -H` output", ErrNoTopology)
	case strings.Contains(text, "Detected CPU topology") || strings.Contains(text, "Machine: {"):
		return fmt.Errorf("%w: the kubelet log line is cut before its topology: pass the whole line, or `numactl -H` output", ErrNoTopology)
	case strings.Contains(text, "/sys/"):
		return fmt.Errorf("%w: the sysfs paths here are not node*/cpulist files: run `grep . /sys/devices/system/node/node*/cpulist /sys/devices/system/node/node*/distance /sys/devices/system/cpu/cpu*/topology/thread_siblings_list`", ErrNoTopology)
	}
	return fmt.Errorf("%w: run `numactl -H` or `lscpu` on the node and pass its output", ErrNoTopology)
}

// parseList parses a CPU list written with commas and ranges or with
// spaces ("0 2 4 6"), bounded by internal/cpulist.
func parseList(s string) (cpuset.CPUSet, error) {
	s = strings.TrimSpace(s)
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' })
	return cpulist.Parse(strings.Join(f, ","))
}

// finish sorts the nodes, fills CPUs from the nodes when a reader gave only
// node lists, and checks that no CPU is on two nodes.
func (t *Topology) finish() error {
	if len(t.Nodes) == 0 {
		return fmt.Errorf("%w: %s output without a node", ErrNoTopology, t.Format)
	}
	sort.Slice(t.Nodes, func(i, j int) bool { return t.Nodes[i].ID < t.Nodes[j].ID })
	place := map[int]CPU{}
	for _, c := range t.CPUs {
		place[c.ID] = c
	}
	seen := map[int]int{}
	total := 0
	var cpus []CPU
	for i, n := range t.Nodes {
		if i > 0 && t.Nodes[i-1].ID == n.ID {
			return fmt.Errorf("%s: NUMA node %d is listed twice", t.Format, n.ID)
		}
		total += n.CPUs.Size()
		if total > cpulist.MaxCPUs {
			return fmt.Errorf("%s: more than %d CPUs in all: %w", t.Format, cpulist.MaxCPUs, cpulist.ErrTooLarge)
		}
		for _, id := range n.CPUs.List() {
			if o, ok := seen[id]; ok {
				return fmt.Errorf("%s: CPU %d is on NUMA node %d and on node %d", t.Format, id, o, n.ID)
			}
			seen[id] = n.ID
			c, ok := place[id]
			if !ok {
				c = CPU{ID: id, Core: -1, Socket: -1}
			}
			c.NUMA = n.ID
			cpus = append(cpus, c)
		}
	}
	sort.Slice(cpus, func(i, j int) bool { return cpus[i].ID < cpus[j].ID })
	t.CPUs = cpus
	for _, c := range cpus {
		if c.Core < 0 {
			t.CoresKnown = false
		}
		if c.Socket < 0 {
			t.SocketsKnown = false
		}
	}
	if t.NumCPUs > 0 && t.NumCPUs != len(cpus) {
		t.warn("the source states %d CPUs but its NUMA nodes hold %d", t.NumCPUs, len(cpus))
	}
	return nil
}

// nodeID parses a NUMA node id.
func nodeID(s string) (int, bool) {
	if s == "" || len(s) > 4 {
		return 0, false
	}
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
		n = n*10 + int(r-'0')
	}
	return n, n <= MaxNodeID
}

type cpusetT = cpuset.CPUSet

func newSet(ids ...int) cpuset.CPUSet { return cpuset.New(ids...) }

const (
	maxCPUID = cpulist.MaxCPUID
	maxCPUs  = cpulist.MaxCPUs
)

// merge takes the core and socket layout of e (lscpu -e/-p) into t
// (numactl) when both put the same CPUs on the same nodes.
func (t *Topology) merge(e *Topology) {
	if !e.CoresKnown || len(e.CPUs) != len(t.CPUs) {
		t.warn("%s in the same paste places other CPUs than %s: it is not used", e.Format, t.Format)
		return
	}
	for i, c := range e.CPUs {
		if t.CPUs[i].ID != c.ID || t.CPUs[i].NUMA != c.NUMA {
			t.warn("%s in the same paste places CPU %d otherwise than %s: it is not used", e.Format, c.ID, t.Format)
			return
		}
	}
	for i, c := range e.CPUs {
		t.CPUs[i].Core = c.Core
		if e.SocketsKnown {
			t.CPUs[i].Socket = c.Socket
		}
	}
	t.CoresKnown, t.SocketsKnown = true, e.SocketsKnown
	t.Format += " + " + e.Format
	kept := t.Warnings[:0]
	for _, w := range t.Warnings {
		if !strings.Contains(w, "core layout is unknown") {
			kept = append(kept, w)
		}
	}
	t.Warnings = kept
	for _, w := range e.Warnings {
		if !strings.Contains(w, "no distance table") {
			t.warn("%s", w)
		}
	}
}

// Literal tokens of the listings Parse reads, found with bytes.Contains
// (much cheaper than a regular expression that may start anywhere).
var (
	looksTokens      = []string{"available: ", "cpus:", "NUMA node", "Thread(s) per core:", "CPU NODE", "CPU  NODE", "# CPU,Core,Socket,Node", "/sys/devices/system/node/", "/sys/devices/system/cpu/", "NUMANode L#", `"num_cores"`, `"node_id"`}
	looksPlainTokens = []string{"Thread(s) per core:", "# CPU,Core,Socket,Node", "/sys/devices/system/node/", "/sys/devices/system/cpu/"}
	reLooks          = regexp.MustCompile(`(?m)(?:^available: \d+ nodes|^node \d+ cpus:|NUMA node\d+ CPU\(s\):|^\s*CPU\s+NODE\s+SOCKET\b|NUMANode L#\d|"num_cores"\s*:|"node_id"\s*:)`)
)

// Looks reports whether the start of a text looks like one of the
// listings Parse reads.
func Looks(head []byte) bool {
	contains := func(tokens []string) bool {
		for _, t := range tokens {
			if bytes.Contains(head, []byte(t)) {
				return true
			}
		}
		return false
	}
	return contains(looksPlainTokens) || contains(looksTokens) && reLooks.Match(head)
}
