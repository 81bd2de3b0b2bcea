package api

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
)

// decodeStateFile verifies a kubelet checkpoint with package statefile and
// adds what it pins to the NUMA view. looked says the door took the input
// for a checkpoint; for an input it recognised as nothing, the view is nil
// when the input is no checkpoint either (prose, a note: never advise
// deleting a node file because of a paste).
func decodeStateFile(in InputFile, req *InspectRequest, numa *numaBuilder, looked bool) *FileView {
	opts := statefile.Options{Name: in.Name, KubeletVersion: req.KubeletVersion, MaxSize: MaxFileBytes}
	// the policy of the kind the members tell; the decode tells the kind
	opts.Policy = req.policyFor(string(evidence.CheckpointKind(head(in.Content))))
	f, err := decodeCached(in.Content, opts)
	if err == nil {
		if p := req.policyFor(string(f.Kind)); p != opts.Policy {
			opts.Policy = p
			f, err = decodeCached(in.Content, opts)
		}
	}
	if err != nil {
		if errors.Is(err, statefile.ErrUnknownKind) || errors.Is(err, statefile.ErrNotJSON) {
			if looked {
				// Another of the door's readers may take it (a pod or a
				// log that quotes a checkpoint).
				done := track("evidence")
				v, _ := decodeEvidence(in, numa)
				done()
				if v != nil {
					return v
				}
			} else if errors.Is(err, statefile.ErrNotJSON) && !evidence.MayBeCheckpoint(head(in.Content)) {
				return nil
			}
		}
		remedy := "paste the whole file unchanged, from its first { to its last }"
		switch {
		case errors.Is(err, statefile.ErrUnknownKind):
			remedy = "paste a cpu_manager_state, memory_manager_state, device-plugins/kubelet_internal_checkpoint or dra_manager_state file, or a PodResources answer"
		case errors.Is(err, statefile.ErrTooLarge):
			remedy = "check that this is the right file: kubelet checkpoints are a few kilobytes"
		}
		p := Problem{Message: err.Error(), Remedy: remedy, Severity: "error"}
		if pos, ok := syntaxPosition(in.Content, err); ok {
			p.Line, p.Column = pos.Line, pos.Column
			if c := commentAt(in.Content, pos.Line); c != "" {
				p.Remedy = fmt.Sprintf("line %d is a comment (%s): kubelet checkpoints are plain JSON with no comments, so this is a copy someone annotated; delete the comment lines, or paste the file as it is on the node", pos.Line, c)
			}
		}
		return &FileView{File: in.Name, Problems: []Problem{p}}
	}
	v := &FileView{
		File: in.Name, Kind: string(f.Kind), Format: string(f.Format),
		KubeletAccepts: f.KubeletAccepts, OnReject: f.OnReject, Reason: f.Reason,
		Checksum: &ChecksumView{Stored: f.Checksum.Stored, Valid: f.Checksum.Valid, ZeroSkipped: f.Checksum.ZeroSkipped,
			Matched: f.Checksum.Matched, Era: f.Checksum.Era},
	}
	numa.file = f
	for _, l := range f.Checksum.Layouts {
		v.Checksum.Layouts = append(v.Checksum.Layouts, LayoutView{Name: l.Name, Computed: l.Computed, Matched: l.Matched, Era: l.Era})
	}
	for _, p := range f.Problems {
		v.Problems = append(v.Problems, Problem{Path: p.Path, Message: p.Message, Remedy: p.Remedy, Severity: string(p.Severity)})
	}
	sortProblems(v.Problems)
	switch {
	case f.Memory != nil:
		memoryView(v, f.Memory, numa)
	case f.CPU != nil:
		cpuView(v, f.CPU)
	case f.Device != nil:
		deviceView(v, f.Device, numa)
	case f.DRA != nil:
		draView(v, f.DRA)
	}
	return v
}

// severityRank orders problems worst first.
var severityRank = map[string]int{"error": 0, "warning": 1, "info": 2}

// sortProblems orders problems worst first, then by path and message, so the
// same input always reads the same (a share link must reproduce the view).
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if severityRank[a.Severity] != severityRank[b.Severity] {
			return severityRank[a.Severity] < severityRank[b.Severity]
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Message < b.Message
	})
}

func table(name string, t *statefile.MemoryTable) Resource {
	if t == nil {
		return Resource{Name: name}
	}
	return Resource{Name: name, Total: t.TotalMemSize, SystemReserved: t.SystemReserved, Allocatable: t.Allocatable, Reserved: t.Reserved, Free: t.Free}
}

// resourceOrder puts memory first, then hugepages by name.
func resourceOrder(a, b string) bool {
	if (a == "memory") != (b == "memory") {
		return a == "memory"
	}
	return a < b
}

func memoryView(v *FileView, m *statefile.MemoryState, numa *numaBuilder) {
	v.Summary = "policy " + m.PolicyName
	ids := make([]int, 0, len(m.MachineState))
	for id := range m.MachineState {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	groups := m.Groups()
	groupOf := map[int][]int{}
	for _, g := range groups {
		for _, n := range g.Nodes {
			groupOf[n] = g.Nodes
		}
	}
	for _, id := range ids {
		ns := m.MachineState[id]
		node := numa.node(id)
		node.Group = groupOf[id]
		if ns == nil {
			continue
		}
		a := ns.NumberOfAssignments
		node.Assignments = &a
		names := make([]string, 0, len(ns.MemoryMap))
		for name := range ns.MemoryMap {
			names = append(names, name)
		}
		sort.Slice(names, func(i, j int) bool { return resourceOrder(names[i], names[j]) })
		node.Resources = node.Resources[:0]
		for _, name := range names {
			node.Resources = append(node.Resources, table(name, ns.MemoryMap[name]))
		}
	}
	for _, g := range groups {
		gv := GroupView{Nodes: g.Nodes}
		res := append([]statefile.GroupResource(nil), g.Resources...)
		sort.Slice(res, func(i, j int) bool { return resourceOrder(res[i].Name, res[j].Name) })
		for _, r := range res {
			sum := r.Sum
			gv.Resources = append(gv.Resources, table(r.Name, &sum))
		}
		numa.groups = append(numa.groups, gv)
	}
}

func cpuView(v *FileView, c *statefile.CPUState) {
	if !v.KubeletAccepts && c.PolicyName == "" {
		v.Summary = "nothing is restored from this file: the kubelet refuses it"
		return
	}
	def := c.DefaultCPUSet.String()
	if def == "" {
		def = "∅"
	}
	v.Summary = fmt.Sprintf("policy %s · shared pool (defaultCpuSet) %s", c.PolicyName, def)
	if !v.KubeletAccepts {
		v.Summary = "recorded in the file, which the kubelet refuses: " + v.Summary
	}
}

func deviceView(v *FileView, d *statefile.DeviceState, numa *numaBuilder) {
	total := 0
	for _, ids := range d.RegisteredDevices {
		total += len(ids)
	}
	v.Summary = fmt.Sprintf("%d allocation(s), %d registered device(s) in %d resource(s)", len(d.PodDeviceEntries), total, len(d.RegisteredDevices))
	for _, e := range d.PodDeviceEntries {
		keys := make([]int64, 0, len(e.DeviceIDs))
		for k := range e.DeviceIDs {
			if k >= 0 {
				keys = append(keys, k)
			}
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		for _, k := range keys {
			for _, id := range e.DeviceIDs[k] {
				numa.node(int(k)).Devices = append(numa.node(int(k)).Devices, Device{Resource: e.ResourceName, ID: id, Pod: e.PodUID, Container: e.ContainerName})
			}
		}
	}
}

func draView(v *FileView, d *statefile.DRAState) {
	v.Summary = fmt.Sprintf("%d prepared claim(s)", len(d.Claims))
}

// commentAt returns the comment marker ("#" or "//") that starts the given
// 1-based line of content, or "" when the line is no comment.
func commentAt(content string, line int) string {
	for n := 1; n < line; n++ {
		i := strings.IndexByte(content, '\n')
		if i < 0 {
			return ""
		}
		content = content[i+1:]
	}
	if i := strings.IndexByte(content, '\n'); i >= 0 {
		content = content[:i]
	}
	content = strings.TrimSpace(content)
	for _, m := range []string{"#", "//"} {
		if strings.HasPrefix(content, m) {
			return m
		}
	}
	return ""
}
