package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
)

// MemoryState is what the memory manager holds after restoring
// memory_manager_state. Its shape (including nil against empty maps and
// slices) follows the kubelet's own structs, because the checksum depends on it.
type MemoryState struct {
	PolicyName   string                        `json:"policyName"`
	MachineState map[int]*NUMANodeState        `json:"machineState"`
	Entries      map[string]map[string][]Block `json:"entries,omitempty"`
	PodEntries   map[string]PodMemoryEntry     `json:"podEntries,omitempty"`
}

// NUMANodeState is one NUMA node of the memory manager's machine state.
type NUMANodeState struct {
	NumberOfAssignments int                     `json:"numberOfAssignments"`
	MemoryMap           map[string]*MemoryTable `json:"memoryMap"`
	// Cells is the NUMA group the node belongs to (itself when alone).
	Cells []int `json:"cells"`
	// NodesAlias is the group as written under the "nodes" key of the upstream
	// documentation's example. The kubelet ignores that key; numascope uses it
	// for the groups when Cells is empty and says so in a problem.
	NodesAlias []int `json:"-"`
}

// MemoryTable is the accounting of one memory resource on one NUMA node, in bytes.
type MemoryTable struct {
	TotalMemSize   uint64 `json:"total"`
	SystemReserved uint64 `json:"systemReserved"`
	Allocatable    uint64 `json:"allocatable"`
	Reserved       uint64 `json:"reserved"`
	Free           uint64 `json:"free"`
}

// Block is one memory assignment of a container or pod.
type Block struct {
	NUMAAffinity []int  `json:"numaAffinity"`
	Type         string `json:"type"`
	Size         uint64 `json:"size"`
}

// PodMemoryEntry holds the pod-level memory blocks (formats v2 and v3).
type PodMemoryEntry struct {
	MemoryBlocks []Block `json:"memoryBlocks,omitempty"`
}

// --- mirrors of the kubelet's structs ---

type memCheckpointV1 struct {
	PolicyName   string                        `json:"policyName"`
	MachineState map[int]*NUMANodeState        `json:"machineState"`
	Entries      map[string]map[string][]Block `json:"entries,omitempty"`
	Checksum     uint64                        `json:"checksum"`
}

type memCheckpointV2 struct {
	PolicyName   string                        `json:"policyName"`
	MachineState map[int]*NUMANodeState        `json:"machineState"`
	Entries      map[string]map[string][]Block `json:"entries,omitempty"`
	PodEntries   map[string]PodMemoryEntry     `json:"podEntries,omitempty"`
	Checksum     uint64                        `json:"checksum"`
}

type memCheckpointV3 struct {
	memCheckpointV1 `json:",inline"`
	Data            string      `json:"data"`
	DataChecksum    uint64      `json:"dataChecksum"`
	CheckpointData  MemoryState `json:"-"`
}

// --- checksum layouts ---

func memV1Sum(cp *memCheckpointV1) uint64 {
	p := newPrinter()
	p.memHead(cp.PolicyName, cp.MachineState, memEntryList(cp.Entries), cp.Entries == nil)
	p.s(" Checksum:(checksum.Checksum)0}")
	return p.sum()
}

func memV2Sum(cp *memCheckpointV2) uint64 {
	p := newPrinter()
	p.memHead(cp.PolicyName, cp.MachineState, memEntryList(cp.Entries), cp.Entries == nil)
	p.s(" PodEntries:(state.PodMemoryAssignments)")
	p.memPodEntries(cp.PodEntries)
	p.s(" Checksum:(checksum.Checksum)0}")
	return p.sum()
}

// memHead renders the head of the v1 and v2 layouts; entries are the
// file's entries as memEntryList lists them (entriesNil: a nil map).
func (p *printer) memHead(policy string, ms map[int]*NUMANodeState, entries []memPodBlocks, entriesNil bool) {
	p.s("(*state.MemoryManagerCheckpoint){PolicyName:(string)")
	p.s(policy)
	p.s(" MachineState:(state.NUMANodeMap)")
	// go-spew quirk: after a nil pointer printed as the last map value, the
	// next value's type annotation is left out.
	if p.memMachine(ms) {
		p.s(" Entries:")
	} else {
		p.s(" Entries:(state.ContainerMemoryAssignments)")
	}
	if p.nilOr(entriesNil) {
		return
	}
	p.s("map[")
	for i, pd := range entries {
		if i > 0 {
			p.c(' ')
		}
		p.s(pd.pod)
		p.c(':')
		if p.nilOr(pd.nilMap) {
			continue
		}
		p.s("map[")
		for j, c := range pd.conts {
			if j > 0 {
				p.c(' ')
			}
			p.s(c.name)
			p.c(':')
			p.memBlocks(c.blocks)
		}
		p.c(']')
	}
	p.c(']')
}

// memPodBlocks is one pod of the entries of a memory checkpoint, its
// containers in Go string order.
type memPodBlocks struct {
	pod    string
	nilMap bool // the pod's map is nil ("pod": null)
	conts  []memContainer
}

type memContainer struct {
	name   string
	blocks []Block
}

// memEntryList lists entries in Go string order (spew's, and the order
// numascope reports problems in).
func memEntryList(m map[string]map[string][]Block) []memPodBlocks {
	out := make([]memPodBlocks, 0, len(m))
	for _, pod := range sortedKeys(m) {
		cs := m[pod]
		conts := make([]memContainer, 0, len(cs))
		var buf smallKeys
		for _, c := range sortedKeysIn(cs, &buf) {
			conts = append(conts, memContainer{c, cs[c]})
		}
		out = append(out, memPodBlocks{pod, cs == nil, conts})
	}
	return out
}

// memMachine renders the machine state and reports whether it ended with a
// nil pointer (see memHead).
func (p *printer) memMachine(ms map[int]*NUMANodeState) (trailingNil bool) {
	if p.nilOr(ms == nil) {
		return false
	}
	p.s("map[")
	for i, id := range sortedIntKeys(ms) {
		if i > 0 {
			p.c(' ')
		}
		p.i(int64(id))
		p.c(':')
		n := ms[id]
		trailingNil = n == nil
		if p.nilOr(n == nil) {
			continue
		}
		p.s("<*>{NumberOfAssignments:(int)")
		p.i(int64(n.NumberOfAssignments))
		p.s(" MemoryMap:(map[v1.ResourceName]*state.MemoryTable)")
		if p.memMap(n.MemoryMap) {
			p.s(" Cells:")
		} else {
			p.s(" Cells:([]int)")
		}
		p.intSlice(n.Cells, n.Cells == nil)
		p.c('}')
	}
	p.c(']')
	return trailingNil
}

func (p *printer) memMap(m map[string]*MemoryTable) (trailingNil bool) {
	if p.nilOr(m == nil) {
		return false
	}
	p.s("map[")
	for i, k := range sortedKeys(m) {
		if i > 0 {
			p.c(' ')
		}
		p.s(k)
		p.c(':')
		t := m[k]
		trailingNil = t == nil
		if p.nilOr(t == nil) {
			continue
		}
		p.s("<*>{TotalMemSize:(uint64)")
		p.u(t.TotalMemSize)
		p.s(" SystemReserved:(uint64)")
		p.u(t.SystemReserved)
		p.s(" Allocatable:(uint64)")
		p.u(t.Allocatable)
		p.s(" Reserved:(uint64)")
		p.u(t.Reserved)
		p.s(" Free:(uint64)")
		p.u(t.Free)
		p.c('}')
	}
	p.c(']')
	return trailingNil
}

// blockJumps are the constant pieces of a block's text, with the common
// types (memory and the x86 huge page sizes) folded in; a file of 10,000
// containers hashes them 10,000 times.
var blockJumps = sync.OnceValue(func() *[5]*fnvJump {
	return &[5]*fnvJump{
		newFNVJump("{NUMAAffinity:([]int)"),
		newFNVJump(" Type:(v1.ResourceName)"),
		newFNVJump(" Type:(v1.ResourceName)memory Size:(uint64)"),
		newFNVJump(" Type:(v1.ResourceName)hugepages-1Gi Size:(uint64)"),
		newFNVJump(" Type:(v1.ResourceName)hugepages-2Mi Size:(uint64)"),
	}
})

const blockSize = " Size:(uint64)"

func (p *printer) memBlocks(bs []Block) {
	if p.nilOr(bs == nil) {
		return
	}
	j := blockJumps()
	p.c('[')
	for i := range bs {
		if i > 0 {
			p.c(' ')
		}
		p.lit(j[0])
		p.intSlice(bs[i].NUMAAffinity, bs[i].NUMAAffinity == nil)
		switch bs[i].Type {
		case "memory":
			p.lit(j[2])
		case "hugepages-1Gi":
			p.lit(j[3])
		case "hugepages-2Mi":
			p.lit(j[4])
		default:
			p.lit(j[1])
			p.s(bs[i].Type)
			p.s(blockSize)
		}
		p.u(bs[i].Size)
		p.c('}')
	}
	p.c(']')
}

func (p *printer) memPodEntries(m map[string]PodMemoryEntry) {
	spewMap(p, m, func(e PodMemoryEntry) {
		p.s(":{MemoryBlocks:([]state.Block)")
		p.memBlocks(e.MemoryBlocks)
		p.c('}')
	})
}

const (
	layoutMemV3    = "v3-data"
	layoutMemOuter = "v3-outer"
	layoutMemV2    = "v2"
	layoutMemV1    = "v1"

	eraMemV3     = "memory v3 (data + dataChecksum): written by kubelets with the v3 layout, including v1.37.2"
	eraMemOuter  = "memory v3 outer copy (v1 layout, kept for rollback to older kubelets)"
	eraMemV2     = "memory v2 (podEntries): written by kubelets that stored the v2 layout; v1.37.2 still verifies it"
	eraMemV1     = "memory v1: written by kubelets from v1.21 (memory manager alpha) until the v2 layout"
	eraMemZeroV2 = "checksum 0 on a v2 file: the v2 check rejects it, the kubelet falls back to the v1 restore path, which accepts it without checking and drops podEntries"
	eraMemZero   = "checksum 0: the v1 restore path of kubelet v1.37.2 accepts it without checking (kubelets up to at least v1.30 did check it)"
)

func newMemV1() *memCheckpointV1 {
	return &memCheckpointV1{Entries: map[string]map[string][]Block{}, MachineState: map[int]*NUMANodeState{}}
}

func newMemV2() *memCheckpointV2 {
	return &memCheckpointV2{Entries: map[string]map[string][]Block{}, PodEntries: map[string]PodMemoryEntry{}, MachineState: map[int]*NUMANodeState{}}
}

func newMemV3() *memCheckpointV3 {
	return &memCheckpointV3{
		memCheckpointV1: *newMemV1(),
		CheckpointData: MemoryState{
			Entries: map[string]map[string][]Block{}, PodEntries: map[string]PodMemoryEntry{}, MachineState: map[int]*NUMANodeState{},
		},
	}
}

func unmarshalMemV3(blob []byte, cp *memCheckpointV3) error {
	if err := json.Unmarshal(blob, cp); err != nil {
		return fmt.Errorf("failed to deserialize memory manager checkpoint: %w", err)
	}
	if err := json.Unmarshal([]byte(cp.Data), &cp.CheckpointData); err != nil {
		return fmt.Errorf("failed to deserialize memory manager checkpoint data: %w", err)
	}
	return nil
}

type memRestore struct {
	data     MemoryState
	format   Format
	err      error
	checksum ChecksumReport
	// zeroFallback counts the podEntries the older reader drops when a
	// zero checksum sends the kubelet down its fallback.
	zeroFallback int
	hint         *schemaHint // from the fast path
	// entries lists data.Entries in order (memEntryList), when the fast
	// path read them so
	entries []memPodBlocks
	// done, when set, gives back what the fast path lent (its hint reads
	// it until then)
	done func()
}

// restoreMemory follows loadAndMigrateCheckpointV3 → V2 → V1 of kubelet v1.37.2.
func restoreMemory(blob []byte) memRestore {
	var r memRestore
	v3 := newMemV3()
	err := unmarshalMemV3(blob, v3)
	if err == nil && stringChecksum(v3.Data) != v3.DataChecksum {
		err = errCorrupt
	}
	r.checksum.Layouts = memLayouts(blob, v3)
	if err == nil {
		r.format, r.data = FormatV3, v3.CheckpointData
		r.checksum.Stored, r.checksum.Valid = v3.DataChecksum, true
		r.checksum.finish()
		return r
	}
	if len(v3.Data) > 0 || v3.DataChecksum != 0 {
		r.format, r.data = FormatV3, v3.CheckpointData
		r.err = fmt.Errorf("could not load v3 checkpoint: %w", err)
		r.checksum.Stored = v3.DataChecksum
		r.checksum.finish()
		return r
	}
	r.format = detectMemFormat(blob)
	v2 := newMemV2()
	err = json.Unmarshal(blob, v2)
	if err == nil && v2.Checksum != memV2Sum(v2) {
		err = errCorrupt
	}
	if err == nil {
		r.data = MemoryState{PolicyName: v2.PolicyName, MachineState: v2.MachineState, Entries: v2.Entries, PodEntries: v2.PodEntries}
		r.format = FormatV2
		r.checksum.Stored, r.checksum.Valid = v2.Checksum, true
		r.checksum.finish()
		return r
	}
	v1 := newMemV1()
	err = json.Unmarshal(blob, v1)
	zero := err == nil && v1.Checksum == 0
	if err == nil && !zero && v1.Checksum != memV1Sum(v1) {
		err = errCorrupt
	}
	r.data = MemoryState{PolicyName: v1.PolicyName, MachineState: v1.MachineState, Entries: v1.Entries}
	r.checksum.Stored = v1.Checksum
	if err != nil {
		r.err = err
		if r.format == FormatV2 {
			r.checksum.Stored = v2.Checksum
		}
		r.checksum.finish()
		return r
	}
	r.checksum.Valid, r.checksum.ZeroSkipped = true, zero
	r.checksum.finish()
	if zero {
		r.checksum.Era = eraMemZero
		if r.format == FormatV2 {
			// The v2 VerifyChecksum rejects 0; only the v1 fallback accepts
			// the file, and it has no podEntries.
			r.checksum.Valid, r.checksum.Era = false, eraMemZeroV2
			r.zeroFallback = len(v2.PodEntries)
		}
	}
	return r
}

func memLayouts(blob []byte, v3 *memCheckpointV3) []Layout {
	var ls []Layout
	hasData := v3.Data != "" || v3.DataChecksum != 0
	if hasData {
		ls = append(ls, Layout{Name: layoutMemV3, Stored: v3.DataChecksum, Computed: stringChecksum(v3.Data), Era: eraMemV3})
	}
	if v1 := newMemV1(); json.Unmarshal(blob, v1) == nil {
		if hasData {
			ls = append(ls, Layout{Name: layoutMemOuter, Stored: v1.Checksum, Computed: memV1Sum(v1), Era: eraMemOuter})
		}
		ls = append(ls, Layout{Name: layoutMemV1, Stored: v1.Checksum, Computed: memV1Sum(v1), Era: eraMemV1})
	}
	if v2 := newMemV2(); json.Unmarshal(blob, v2) == nil {
		ls = append(ls, Layout{Name: layoutMemV2, Stored: v2.Checksum, Computed: memV2Sum(v2), Era: eraMemV2})
	}
	for i := range ls {
		ls[i].Matched = ls[i].Stored == ls[i].Computed
	}
	return ls
}

func detectMemFormat(blob []byte) Format {
	var probe struct {
		Data         *json.RawMessage `json:"data"`
		DataChecksum *json.RawMessage `json:"dataChecksum"`
		PodEntries   *json.RawMessage `json:"podEntries"`
	}
	_ = json.Unmarshal(blob, &probe)
	switch {
	case probe.Data != nil || probe.DataChecksum != nil:
		return FormatV3
	case probe.PodEntries != nil:
		return FormatV2
	}
	return FormatV1
}

// decodeMemory decodes a memory_manager_state; fast, when set, is the
// restore the fast path made of it (a file without the "nodes" alias).
func decodeMemory(f *checker, blob []byte, opts Options, fast *memRestore) {
	var r memRestore
	if fast != nil {
		r = *fast
	} else {
		r = restoreMemory(blob)
	}
	f.Checksum, f.Format = r.checksum, r.format
	err := r.err
	if err == nil {
		policy := opts.Policy
		if policy == "" {
			policy = r.data.PolicyName
		}
		if policy != r.data.PolicyName {
			err = fmt.Errorf("[memorymanager] configured policy %q differs from state checkpoint policy %q", policy, r.data.PolicyName)
		}
	}
	if err != nil {
		f.Reason = kubeText(fmt.Sprintf("could not restore state from checkpoint: %v, please drain this node and delete the memory manager checkpoint file %q before restarting Kubelet", err, f.Name))
	} else {
		f.KubeletAccepts = true
	}
	st := r.data
	f.Memory = &st
	if fast == nil {
		attachNodesAlias(f, blob, r.format)
	}
	memoryProblems(f, &r, opts)
}

// attachNodesAlias reads the "nodes" group alias (ignored by the kubelet).
func attachNodesAlias(f *checker, blob []byte, format Format) {
	src := blob
	if format == FormatV3 {
		var outer struct {
			Data string `json:"data"`
		}
		if json.Unmarshal(blob, &outer) == nil && outer.Data != "" {
			src = []byte(outer.Data)
		}
	}
	var probe struct {
		MachineState map[string]map[string]json.RawMessage `json:"machineState"`
	}
	if json.Unmarshal(src, &probe) != nil {
		return
	}
	base := ""
	if format == FormatV3 {
		base = "/data"
	}
	for _, id := range sortedKeys(probe.MachineState) {
		raw, ok := probe.MachineState[id]["nodes"]
		if !ok {
			continue
		}
		n, err := strconv.Atoi(id)
		if err != nil {
			continue
		}
		node := f.Memory.MachineState[n]
		if node == nil {
			continue
		}
		var nodes []int
		if json.Unmarshal(raw, &nodes) != nil {
			continue
		}
		node.NodesAlias = nodes
		f.problem(SeverityInfo, base+pointer("machineState", id, "nodes"),
			"kubelets write the group under \"cells\"; renaming \"nodes\" to \"cells\" does not make the stored checksum valid (it was computed over other content): treat such a file as a documentation example, not as kubelet output",
			"NUMA node %s lists its group under \"nodes\", the name used by the upstream documentation; the kubelet reads \"cells\" and ignores \"nodes\" (so for the kubelet this node has no group), numascope uses it as an alias of cells", bname(id))
	}
}

// group returns the group of a node: cells, else the nodes alias.
func (n *NUMANodeState) group() []int {
	if len(n.Cells) > 0 || n.NodesAlias == nil {
		return n.Cells
	}
	return n.NodesAlias
}

func memoryProblems(f *checker, r *memRestore, opts Options) {
	const drain = "drain the node, stop the kubelet, delete memory_manager_state and start the kubelet again (it rebuilds the file)"
	if r.err != nil {
		if errors.Is(r.err, errCorrupt) {
			f.problem(SeverityError, checksumPointer(f.File), drain,
				"the stored checksum %d matches no layout kubelet v1.37.2 verifies for this format; the kubelet refuses to start (%v)", f.Checksum.Stored, r.err)
		} else {
			f.problem(SeverityError, "", drain, "kubelet v1.37.2 cannot load the file: %v", r.err)
		}
	}
	if r.err == nil && r.format == FormatV2 && r.checksum.ZeroSkipped {
		f.problem(SeverityWarning, "/checksum", "let the kubelet rewrite the file (it writes a checksummed v3 checkpoint); restart the pods that relied on pod-level memory",
			"the v2 checksum is 0, which kubelet v1.37.2's v2 check rejects; the kubelet falls back to its v1 reader, which skips a zero checksum but has no podEntries, so it accepts the file and forgets the pod-level memory of %d pods", r.zeroFallback)
	}
	d := f.Memory
	policy := opts.Policy
	if policy == "" {
		policy = d.PolicyName
	}
	if r.err == nil && policy != d.PolicyName {
		f.problem(SeverityError, "/policyName", "configure the kubelet with --memory-manager-policy="+nameText(d.PolicyName)+", or "+drain,
			"[memorymanager] configured policy %s differs from state checkpoint policy %s", qname(policy), qname(d.PolicyName))
	}
	if d.PolicyName != "Static" && d.PolicyName != "None" {
		f.problem(SeverityWarning, "/policyName", "the memory manager policies are None and Static (capitalised)",
			"policy %s is not a memory manager policy", qname(d.PolicyName))
	}
	base := ""
	if f.Format == FormatV3 {
		base = "/data"
	}
	memTableProblems(f, base)
	memGroupProblems(f, base)
	if d.PolicyName == "Static" {
		list := r.entries
		if list == nil {
			list = memEntryList(d.Entries)
		}
		memReplay(f, base, list)
	}
}

func memTableProblems(f *checker, base string) {
	for _, id := range sortedIntKeys(f.Memory.MachineState) {
		n := f.Memory.MachineState[id]
		sid := strconv.Itoa(id)
		if n == nil {
			f.problem(SeverityError, base+pointer("machineState", sid), "delete the file so that the kubelet rebuilds it",
				"NUMA node %d has a null state; the kubelet's start-up check dereferences it and crashes", id)
			continue
		}
		for _, res := range sortedKeys(n.MemoryMap) {
			t := n.MemoryMap[res]
			path := base + pointer("machineState", sid, "memoryMap", res)
			if t == nil {
				f.problem(SeverityError, path, "delete the file so that the kubelet rebuilds it",
					"the %s table of NUMA node %d is null; the kubelet's start-up check dereferences it and crashes", bname(res), id)
				continue
			}
			if t.SystemReserved > t.TotalMemSize {
				f.problem(SeverityError, path+"/systemReserved", "check --reserved-memory against the node's real memory",
					"%s on NUMA node %d: systemReserved %d is larger than total %d", bname(res), id, t.SystemReserved, t.TotalMemSize)
			}
			if res == "memory" {
				// memory's allocatable also excludes the node's hugepages
				var hp uint64
				for r2, t2 := range n.MemoryMap {
					if r2 != "memory" && t2 != nil {
						hp += t2.TotalMemSize
					}
				}
				if t.TotalMemSize-t.SystemReserved-hp != t.Allocatable && t.TotalMemSize-t.SystemReserved != t.Allocatable {
					f.problem(SeverityError, path+"/allocatable", "the file was edited or written for another machine: "+"delete it so the kubelet rebuilds it",
						"memory on NUMA node %d: allocatable %d ≠ total %d − systemReserved %d − hugepages %d (= %d)", id, t.Allocatable, t.TotalMemSize, t.SystemReserved, hp, t.TotalMemSize-t.SystemReserved-hp)
				}
			} else if t.TotalMemSize-t.SystemReserved != t.Allocatable {
				f.problem(SeverityError, path+"/allocatable", "the file was edited or written for another machine: delete it so the kubelet rebuilds it",
					"%s on NUMA node %d: allocatable %d ≠ total %d − systemReserved %d (= %d)", bname(res), id, t.Allocatable, t.TotalMemSize, t.SystemReserved, t.TotalMemSize-t.SystemReserved)
			}
			if t.Allocatable-t.Reserved != t.Free || t.Reserved > t.Allocatable {
				f.problem(SeverityError, path+"/free", "the file was edited or corrupted: delete it so the kubelet rebuilds it",
					"%s on NUMA node %d: free %d ≠ allocatable %d − reserved %d", bname(res), id, t.Free, t.Allocatable, t.Reserved)
			}
		}
	}
}

func memGroupProblems(f *checker, base string) {
	ms := f.Memory.MachineState
	same := sameGroups(ms)
	for _, id := range sortedIntKeys(ms) {
		n := ms[id]
		if n == nil {
			continue
		}
		sid := strconv.Itoa(id)
		g := n.group()
		path := base + pointer("machineState", sid, "cells")
		if len(g) == 0 {
			if n.NodesAlias == nil {
				f.problem(SeverityWarning, path, "the kubelet always writes at least the node itself; delete the file so the kubelet rebuilds it",
					"NUMA node %d has no group (cells is empty)", id)
			}
			continue
		}
		if !containsInt(g, id) {
			f.problem(SeverityError, path, "a node's group always contains the node itself; the file was edited: delete it so the kubelet rebuilds it",
				"NUMA node %d's group %v does not contain node %d", id, groupText(g), id)
		}
		if len(g) > 1 && n.NumberOfAssignments == 0 {
			f.problem(SeverityWarning, path, "the kubelet resets a node's group to itself when its last assignment goes",
				"NUMA node %d is in group %v but has no assignments", id, groupText(g))
		}
		for _, other := range g {
			on, ok := ms[other]
			if !ok || on == nil {
				f.problem(SeverityError, path, "delete the file so that the kubelet rebuilds it",
					"NUMA node %d's group %v names node %d, which is not in the machine state; the kubelet's start-up check crashes on it", id, groupText(g), other)
				continue
			}
			if !same(id, other) {
				f.problem(SeverityError, path, "every node of a group must list the same group; the file was edited or corrupted: delete it so the kubelet rebuilds it",
					"NUMA node %d lists group %v but node %d lists %v: groups must not overlap", id, groupText(g), other, groupText(on.group()))
			}
		}
	}
}

// memReplay runs the static policy's start-up check (validateState in
// cm/memorymanager/policy_static.go) with a machine reconstructed from the
// file's own totals and reservations. If the file disagrees with itself the
// kubelet will not start, whatever the machine.
//
// entries lists f.Memory.Entries (memEntryList).
func memReplay(f *checker, base string, entries []memPodBlocks) {
	d := f.Memory
	if len(d.MachineState) == 0 {
		if len(d.Entries) != 0 {
			f.problem(SeverityError, base+"/machineState", "delete the file so that the kubelet rebuilds it",
				"[memorymanager] machine state can not be empty when it has memory assignments; the kubelet will not start")
		}
		return
	}
	for _, n := range d.MachineState {
		if n == nil {
			return // reported already: the kubelet crashes before comparing
		}
		for _, t := range n.MemoryMap {
			if t == nil {
				return
			}
		}
	}
	// default machine state from the file's totals
	expected := map[int]*NUMANodeState{}
	for id, n := range d.MachineState {
		e := &NUMANodeState{MemoryMap: map[string]*MemoryTable{}, Cells: []int{id}}
		var hp uint64
		for res, t := range n.MemoryMap {
			if res == "memory" {
				continue
			}
			e.MemoryMap[res] = &MemoryTable{TotalMemSize: t.TotalMemSize, SystemReserved: t.SystemReserved,
				Allocatable: t.TotalMemSize - t.SystemReserved, Free: t.TotalMemSize - t.SystemReserved}
			hp += t.TotalMemSize
		}
		if t, ok := n.MemoryMap["memory"]; ok {
			alloc := t.TotalMemSize - t.SystemReserved - hp
			e.MemoryMap["memory"] = &MemoryTable{TotalMemSize: t.TotalMemSize, SystemReserved: t.SystemReserved, Allocatable: alloc, Free: alloc}
		}
		expected[id] = e
	}
	fail := func(path, format string, args ...any) {
		f.problem(SeverityError, path, "the kubelet will not start after a restart with this file (\"Invalid state, please drain node and remove policy state file\"): drain the node and delete memory_manager_state before restarting the kubelet",
			"[memorymanager] the expected machine state is different from the real one: "+format, args...)
	}
	// the blocks name a few nodes and types over and over: nodes 0-63 are
	// looked up in an array, and the last table found is tried first
	var byID [64]*NUMANodeState
	for id, e := range expected {
		if id >= 0 && id < len(byID) {
			byID[id] = e
		}
	}
	var lastNS *NUMANodeState
	var lastType string
	var lastT *MemoryTable
	for _, pd := range entries {
		pod := pd.pod
		for _, ct := range pd.conts {
			c := ct.name
			for bi, b := range ct.blocks {
				size := b.Size
				for _, nid := range b.NUMAAffinity {
					var ns *NUMANodeState
					ok := false
					if nid >= 0 && nid < len(byID) {
						ns = byID[nid]
						ok = ns != nil
					} else {
						ns, ok = expected[nid]
					}
					if !ok {
						f.problem(SeverityError, base+pointer("entries", pod, c, strconv.Itoa(bi), "numaAffinity"),
							"drain the node and delete memory_manager_state before restarting the kubelet",
							"[memorymanager] (pod: %s, container: %s) the memory assignment uses the NUMA that does not exist; the kubelet will not start", bname(pod), bname(c))
						return
					}
					ns.NumberOfAssignments++
					ns.Cells = b.NUMAAffinity
					t := lastT
					if ns != lastNS || b.Type != lastType {
						t, ok = ns.MemoryMap[b.Type]
						lastNS, lastType, lastT = ns, b.Type, t
					}
					if !ok {
						f.problem(SeverityError, base+pointer("entries", pod, c, strconv.Itoa(bi), "type"),
							"drain the node and delete memory_manager_state before restarting the kubelet",
							"[memorymanager] (pod: %s, container: %s) the memory assignment uses memory resource that does not exist; the kubelet will not start", bname(pod), bname(c))
						return
					}
					if size == 0 || t.Free == 0 {
						continue
					}
					if t.Free >= size {
						t.Reserved += size
						t.Free -= size
						size = 0
						continue
					}
					size -= t.Free
					t.Reserved += t.Free
					t.Free = 0
				}
			}
		}
	}
	// areMachineStatesEqual
	if len(d.MachineState) != len(expected) {
		fail(base+"/machineState", "%d nodes against %d", len(d.MachineState), len(expected))
		return
	}
	for _, id := range sortedIntKeys(d.MachineState) {
		n1, n2 := d.MachineState[id], expected[id]
		sid := strconv.Itoa(id)
		if n1.NumberOfAssignments != n2.NumberOfAssignments {
			fail(base+pointer("machineState", sid, "numberOfAssignments"), "NUMA node %d records %d assignments, the entries make %d", id, n1.NumberOfAssignments, n2.NumberOfAssignments)
			return
		}
		if !sameSet(n1.Cells, n2.Cells) {
			if n1.NodesAlias != nil && len(n1.Cells) == 0 {
				fail(base+pointer("machineState", sid, "cells"), "NUMA node %d has no cells for the kubelet (it ignores the \"nodes\" alias %v), the entries make %v", id, groupText(n1.NodesAlias), groupText(n2.Cells))
			} else {
				fail(base+pointer("machineState", sid, "cells"), "NUMA node %d has group %v, the entries make %v", id, groupText(n1.Cells), groupText(n2.Cells))
			}
			return
		}
		if len(n1.MemoryMap) != len(n2.MemoryMap) {
			fail(base+pointer("machineState", sid, "memoryMap"), "NUMA node %d has %d memory types, expected %d", id, len(n1.MemoryMap), len(n2.MemoryMap))
			return
		}
		for _, res := range sortedKeys(n1.MemoryMap) {
			t1 := n1.MemoryMap[res]
			t2, ok := n2.MemoryMap[res]
			path := base + pointer("machineState", sid, "memoryMap", res)
			if !ok {
				fail(path, "NUMA node %d has no %s table in the expected state", id, bname(res))
				return
			}
			if t1.Allocatable != t2.Allocatable {
				fail(path+"/allocatable", "%s on NUMA node %d: allocatable %d, expected %d", bname(res), id, t1.Allocatable, t2.Allocatable)
				return
			}
			var free1, free2, res1, res2 uint64
			for _, cid := range n1.Cells {
				c1, c2 := d.MachineState[cid], expected[cid]
				if c1 == nil || c2 == nil || c1.MemoryMap[res] == nil || c2.MemoryMap[res] == nil {
					f.problem(SeverityError, base+pointer("machineState", sid, "cells"), "drain the node and delete memory_manager_state before restarting the kubelet",
						"NUMA node %d's group names node %d, which has no %s table: the kubelet's start-up check crashes on this file", id, cid, bname(res))
					return
				}
				free1 += c1.MemoryMap[res].Free
				res1 += c1.MemoryMap[res].Reserved
				free2 += c2.MemoryMap[res].Free
				res2 += c2.MemoryMap[res].Reserved
			}
			if free1 != free2 {
				fail(path+"/free", "%s free over group %v is %d, the entries leave %d", bname(res), groupText(n1.Cells), free1, free2)
				return
			}
			if res1 != res2 {
				fail(path+"/reserved", "%s reserved over group %v is %d, the entries make %d", bname(res), groupText(n1.Cells), res1, res2)
				return
			}
		}
	}
}

// sameGroups tells whether two nodes of a machine state list the same
// group (sameSet of their groups), each group sorted once: a group of a
// million ids names the same few nodes over and over.
func sameGroups(ms map[int]*NUMANodeState) func(a, b int) bool {
	keys := map[string]int{}
	group := make(map[int]int, len(ms))
	var key []byte
	for id, n := range ms {
		if n == nil {
			continue
		}
		g := slices.Clone(n.group())
		slices.Sort(g)
		key = key[:0]
		for _, v := range g {
			key = strconv.AppendInt(key, int64(v), 10)
			key = append(key, ',')
		}
		k, ok := keys[string(key)]
		if !ok {
			k = len(keys)
			keys[string(key)] = k
		}
		group[id] = k
	}
	return func(a, b int) bool { return group[a] == group[b] }
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	x := append([]int(nil), a...)
	y := append([]int(nil), b...)
	sort.Ints(x)
	sort.Ints(y)
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}
