package api

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/cpulist"
	"github.com/numascope/numascope/internal/holdings"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// MaxFileBytes bounds one input file. Kubelet state files are usually a
// few kilobytes, but a node with 10,000 containers writes a memory
// checkpoint of about 10 MB, which the engine decodes in well under the
// page's 10 s limit per run; 12 MiB leaves room for such a file
// pretty-printed.
const MaxFileBytes = 12 << 20

// InspectRequest is the request of the "inspect" method.
type InspectRequest struct {
	// Files are the pasted or dropped files, in the order of the page's tabs.
	Files []InputFile `json:"files"`
	// Policy is the kubelet's configured CPU or memory manager policy; empty
	// means "the policy named in the file". A lower-case name ("none",
	// "static") applies to cpu_manager_state only, a capitalised one
	// ("None", "Static") to memory_manager_state only; CPUPolicy and
	// MemoryPolicy, when set, win over it.
	Policy string `json:"policy,omitempty"`
	// CPUPolicy and MemoryPolicy are the configured policies per kind of
	// checkpoint. Empty means the policy of a kubelet configuration among
	// the files, else the one named in the file.
	CPUPolicy    string `json:"cpuPolicy,omitempty"`
	MemoryPolicy string `json:"memoryPolicy,omitempty"`
	// KubeletVersion is the node's kubelet release ("1.30", "v1.30.4"; 1.28
	// to 1.37): the verdicts are that release's. Empty means the newest, or
	// for diagnose the release the evidence shows.
	KubeletVersion string `json:"kubeletVersion,omitempty"`
}

// InspectResult is the answer of the "inspect" method: one entry per file and
// the NUMA view that all files together describe.
type InspectResult struct {
	Files []FileView `json:"files"`
	NUMA  *NUMAView  `json:"numa,omitempty"`
	// Config is what a kubelet configuration among the files sets, when
	// there is one: the state files are judged against its policies.
	Config *ConfigPolicies `json:"config,omitempty"`
}

// ConfigPolicies are the manager policies of a kubelet configuration input.
type ConfigPolicies struct {
	File                  string `json:"file"`
	CPUManagerPolicy      string `json:"cpuManagerPolicy,omitempty"`
	MemoryManagerPolicy   string `json:"memoryManagerPolicy,omitempty"`
	TopologyManagerPolicy string `json:"topologyManagerPolicy,omitempty"`
	TopologyManagerScope  string `json:"topologyManagerScope,omitempty"`
}

// FileView is what the page shows for one file.
type FileView struct {
	File   string `json:"file"`
	Kind   string `json:"kind"` // memory, cpu, device, dra, podresources, or "" when unknown
	Format string `json:"format,omitempty"`
	// Checksum is nil for inputs that carry none (PodResources answers).
	Checksum       *ChecksumView `json:"checksum,omitempty"`
	KubeletAccepts bool          `json:"kubeletAccepts"`
	// OnReject is what the kubelet does when it refuses the file:
	// "refuses-to-start" or "discards-data".
	OnReject string    `json:"onReject,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	Problems []Problem `json:"problems"`
	// Summary is one line about the content, such as the policy and shared pool.
	Summary string `json:"summary,omitempty"`
	// Assignments are what a PodResources answer says each container
	// holds; a checkpoint's holders are in Holders, one model for all.
	Assignments []Assignment `json:"assignments,omitempty"`
	// Holders is who holds what in a kubelet checkpoint, per NUMA node,
	// the model inspect prints (package internal/holdings): with the
	// machine topology of a machine-info or sysfs input of the same
	// request, a cpu_manager_state's CPUs are placed on NUMA nodes.
	Holders *holdings.Holdings `json:"holders,omitempty"`
	// HoldersOmitted is set when Holders is a summary of a checkpoint
	// with thousands of memory blocks: what it left out (see
	// summariseHolders).
	HoldersOmitted *OmittedHolders `json:"holdersOmitted,omitempty"`
}

// ChecksumView is the checksum verdict of a state file.
type ChecksumView struct {
	Stored      uint64       `json:"stored"`
	Valid       bool         `json:"valid"`
	ZeroSkipped bool         `json:"zeroSkipped,omitempty"`
	Matched     string       `json:"matched,omitempty"`
	Era         string       `json:"era,omitempty"`
	Layouts     []LayoutView `json:"layouts,omitempty"`
}

// LayoutView is one checksum layout tried on a file.
type LayoutView struct {
	Name     string `json:"name"`
	Computed uint64 `json:"computed"`
	Matched  bool   `json:"matched"`
	Era      string `json:"era,omitempty"`
}

// Problem is one problem of a file, with a JSON pointer and a remedy.
type Problem struct {
	Path     string `json:"path,omitempty"`
	Message  string `json:"message"`
	Remedy   string `json:"remedy,omitempty"`
	Severity string `json:"severity"` // error, warning or info
	// Line and Column (1-based, UTF-16 units) are where the problem is in
	// the input, when known: the place of Path, or of a syntax error.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

// Assignment is one thing a pod's container holds in a PodResources
// answer: CPUs, a memory block or devices, with the NUMA nodes when they
// are known.
type Assignment struct {
	Pod       string `json:"pod"`
	Container string `json:"container"`
	Resource  string `json:"resource"`
	NUMA      []int  `json:"numa,omitempty"`
	Bytes     uint64 `json:"bytes,omitempty"`
	Amount    string `json:"amount,omitempty"` // CPU set or device IDs
	Source    string `json:"source"`           // the file it comes from
}

// NUMAView is the machine seen per NUMA node and per memory-manager group.
type NUMAView struct {
	Nodes  []NodeView  `json:"nodes"`
	Groups []GroupView `json:"groups"`
}

// NodeView is one NUMA node.
type NodeView struct {
	ID          int        `json:"id"`
	Assignments *int       `json:"assignments,omitempty"`
	Group       []int      `json:"group,omitempty"`
	Resources   []Resource `json:"resources,omitempty"`
	CPUs        *string    `json:"cpus,omitempty"`
	// MachineMemory is the node's memory as the machine info reports it.
	MachineMemory uint64   `json:"machineMemory,omitempty"`
	Devices       []Device `json:"devices,omitempty"`
}

// Resource is one row of the memory manager's table, in bytes.
type Resource struct {
	Name           string `json:"name"`
	Total          uint64 `json:"total"`
	SystemReserved uint64 `json:"systemReserved"`
	Allocatable    uint64 `json:"allocatable"`
	Reserved       uint64 `json:"reserved"`
	Free           uint64 `json:"free"`
}

// Device is one device on a NUMA node, with its holder when allocated.
type Device struct {
	Resource  string `json:"resource"`
	ID        string `json:"id"`
	Pod       string `json:"pod,omitempty"`
	Container string `json:"container,omitempty"`
}

// GroupView is a set of NUMA nodes the memory manager treats as one, with
// each resource summed over the group.
type GroupView struct {
	Nodes     []int      `json:"nodes"`
	Resources []Resource `json:"resources"`
}

// canonicalName is the usual file name of each kind of input.
var canonicalName = map[string]string{
	"cpu":          statefile.KindCPU.FileName(),
	"memory":       statefile.KindMemory.FileName(),
	"device":       statefile.KindDevice.FileName(),
	"dra":          statefile.KindDRA.FileName(),
	"podresources": "podresources.json",
	kindMachine:    "machine-info.json",
	kindConfig:     "kubelet-config.yaml",
	kindPod:        "pod.yaml",
	kindEvents:     "events",
	kindLog:        "kubelet.log",
}

// numaBuilder collects what every file says about the NUMA nodes.
type numaBuilder struct {
	nodes  map[int]*NodeView
	groups []GroupView
	// file is the checkpoint the last decode read, nil when it read none.
	file *statefile.File
	// machine is the topology of a machine-info or sysfs input.
	machine *topomgr.Machine
}

func (b *numaBuilder) node(id int) *NodeView {
	if b.nodes == nil {
		b.nodes = map[int]*NodeView{}
	}
	n, ok := b.nodes[id]
	if !ok {
		n = &NodeView{ID: id}
		b.nodes[id] = n
	}
	return n
}

// merge adds what o collected to b.
func (b *numaBuilder) merge(o *numaBuilder) {
	for id, n := range o.nodes {
		m := b.node(id)
		if n.Assignments != nil {
			m.Assignments = n.Assignments
		}
		if n.Group != nil {
			m.Group = n.Group
		}
		if n.Resources != nil {
			m.Resources = n.Resources
		}
		if n.CPUs != nil {
			m.CPUs = n.CPUs
		}
		if n.MachineMemory != 0 {
			m.MachineMemory = n.MachineMemory
		}
		m.Devices = append(m.Devices, n.Devices...)
	}
	b.groups = append(b.groups, o.groups...)
	if o.machine != nil && b.machine == nil {
		b.machine = o.machine
	}
}

func (b *numaBuilder) view() *NUMAView {
	if len(b.nodes) == 0 {
		return nil
	}
	v := &NUMAView{Groups: b.groups}
	ids := make([]int, 0, len(b.nodes))
	for id := range b.nodes {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	inGroup := map[int]bool{}
	for _, g := range b.groups {
		for _, n := range g.Nodes {
			inGroup[n] = true
		}
	}
	for _, id := range ids {
		v.Nodes = append(v.Nodes, *b.nodes[id])
		if !inGroup[id] {
			v.Groups = append(v.Groups, GroupView{Nodes: []int{id}, Resources: b.nodes[id].Resources})
		}
	}
	sort.SliceStable(v.Groups, func(i, j int) bool { return v.Groups[i].Nodes[0] < v.Groups[j].Nodes[0] })
	return v
}

func init() {
	register("inspect", "decodes and verifies state files and PodResources answers: kind, format, checksum verdict, problems, pinning and the NUMA view",
		func(raw json.RawMessage) (any, error) {
			var req InspectRequest
			if err := decode("inspect", raw, &req); err != nil {
				return nil, err
			}
			if err := tooManyFiles("inspect", len(req.Files)); err != nil {
				return nil, err
			}
			return Inspect(&req), nil
		})
}

// Inspect decodes every file of the request.
func Inspect(req *InspectRequest) *InspectResult {
	if out, ok := inspect(req, true); ok {
		return out
	}
	out, _ := inspect(req, false) // without guesses it always finishes
	return out
}

// inspect decodes every file of the request. An unnamed paste is named after
// the kind it turns out to be, so that messages read like the kubelet's own:
// it is read under a neutral name, then again under its kind's name. With
// guess, a paste whose kind the door tells before reading it (see
// pasteName) is read once, under that kind's name, which gives the same
// view because a paste's kind does not depend on its name; when the kind
// read is not the one told, inspect gives up (ok false) and the caller
// reads the request again without guesses.
func inspect(req *InspectRequest, guess bool) (out *InspectResult, ok bool) {
	cfg := configPolicies(req.Files)
	out = &InspectResult{Files: []FileView{}, Config: cfg.policies}
	if c := out.Config; c != nil {
		r := *req
		if r.CPUPolicy == "" {
			r.CPUPolicy = c.CPUManagerPolicy
		}
		if r.MemoryPolicy == "" {
			r.MemoryPolicy = c.MemoryManagerPolicy
		}
		req = &r
	}
	var numa numaBuilder
	// the checkpoint of each file, for its holders once every input (the
	// machine topology among them) has been read
	states := make([]*statefile.File, 0, len(req.Files))
	for i, in := range req.Files {
		numa.file = nil
		kind := evidence.SniffKind(head(in.Content))
		read := func(in InputFile, numa *numaBuilder) FileView {
			if cfg.policies != nil && i == cfg.index && in.Name == cfg.policies.File {
				return inspectRead(in, evidenceView(in, cfg.item, cfg.ev, numa))
			}
			return inspectOne(in, req, numa, kind)
		}
		if in.Name != "" {
			out.Files = append(out.Files, read(in, &numa))
			states = append(states, numa.file)
			continue
		}
		if name := pasteName(kind, in.Content); guess && name != "" {
			in.Name = name
			v := read(in, &numa)
			if canonicalName[v.Kind] != name {
				return nil, false
			}
			out.Files = append(out.Files, v)
			states = append(states, numa.file)
			continue
		}
		in.Name = fmt.Sprintf("file %d", i+1)
		var probe numaBuilder
		v := read(in, &probe)
		if name := canonicalName[v.Kind]; name != "" {
			in.Name = name
			v = read(in, &numa)
		} else {
			numa.merge(&probe)
			numa.file = probe.file
		}
		out.Files = append(out.Files, v)
		states = append(states, numa.file)
	}
	done := track("holders")
	for i, f := range states {
		if f != nil {
			out.Files[i].Holders, out.Files[i].HoldersOmitted = summariseHolders(holdings.Build(f, numa.machine))
		}
	}
	done()
	out.NUMA = numa.view()
	placeCPUs(out)
	return out, true
}

// pasteName is the name an unnamed paste of the kind the door sniffed is
// read under: the usual file name of that kind (of a checkpoint's kind, as
// its members tell), or "" when the door cannot tell it before reading.
func pasteName(kind, content string) string {
	switch kind {
	case "":
		return ""
	case evidence.KindState:
		return canonicalName[string(evidence.CheckpointKind(head(content)))]
	case evidence.KindPodResources:
		return canonicalName[kind]
	}
	return canonicalName[viewKind(kind)]
}

// placeCPUs fills in the NUMA nodes of a PodResources answer's CPU
// assignments when machine info says which CPUs each node holds (a
// checkpoint's CPUs are placed by holdings.Build).
func placeCPUs(r *InspectResult) {
	if r.NUMA == nil {
		return
	}
	nodeOf := map[int]int{}
	for _, n := range r.NUMA.Nodes {
		if n.CPUs == nil {
			continue
		}
		set, err := cpulist.Parse(*n.CPUs)
		if err != nil {
			continue
		}
		for _, c := range set.List() {
			nodeOf[c] = n.ID
		}
	}
	if len(nodeOf) == 0 {
		return
	}
	for i := range r.Files {
		for j := range r.Files[i].Assignments {
			a := &r.Files[i].Assignments[j]
			if a.Resource != "cpu" || len(a.NUMA) > 0 {
				continue
			}
			set, err := cpulist.Parse(a.Amount)
			if err != nil {
				continue
			}
			seen := map[int]bool{}
			for _, c := range set.List() {
				if n, ok := nodeOf[c]; ok && !seen[n] {
					seen[n] = true
					a.NUMA = append(a.NUMA, n)
				}
			}
			sort.Ints(a.NUMA)
		}
	}
}

// inspectOne reads one input of the kind the door sniffed ("" when it
// recognises none) and places its problems.
func inspectOne(in InputFile, req *InspectRequest, numa *numaBuilder, kind string) FileView {
	if len(in.Content) > MaxFileBytes {
		return unreadable(in.Name, "", fmt.Sprintf("%s is %d bytes, more than the playground's %d-byte limit for one file", in.Name, len(in.Content), MaxFileBytes),
			"check that this is the right file, or run numascope's inspect on it on the node (inspect FILE)")
	}
	if strings.TrimSpace(strings.TrimPrefix(in.Content, "\ufeff")) == "" {
		return unreadable(in.Name, "", in.Name+" is empty", "paste the content of a kubelet state file")
	}
	return inspectRead(in, readInput(in, req, numa, kind))
}

// inspectRead completes the view of one input read.
func inspectRead(in InputFile, v *FileView) FileView {
	if v == nil {
		return unreadable(in.Name, "", in.Name+" is not recognised as kubelet evidence",
			"paste a kubelet state file, a PodResources answer, a kubelet log, kubectl describe or get output, a pod, the kubelet's flags or configuration, or machine info")
	}
	if v.Problems == nil {
		v.Problems = []Problem{}
	}
	done := track("positions")
	placeProblems(in.Content, v.Problems)
	done()
	return *v
}

// readInput reads one input with the reader of the kind the door sniffed:
// a checkpoint with statefile (which also tries a text the door
// recognises as nothing: a DRA checkpoint, JSON of no known kind), a
// PodResources answer with podresources, anything else through the door.
// nil means the input is not recognised as evidence.
func readInput(in InputFile, req *InspectRequest, numa *numaBuilder, kind string) *FileView {
	switch kind {
	case evidence.KindPodResources:
		defer track("evidence")()
		return decodePodResources(in, numa)
	case evidence.KindState, "":
		return decodeStateFile(in, req, numa, kind == evidence.KindState)
	}
	done := track("evidence")
	v, it := decodeEvidence(in, numa)
	done()
	switch {
	case v != nil:
		return v
	case strings.HasPrefix(it.Kind, "state-"):
		// another reader's row came first, the checkpoint reader took it
		return decodeStateFile(in, req, numa, false)
	case it.Kind == evidence.KindPodResources && it.Used():
		return decodePodResources(in, numa)
	}
	return nil
}

func unreadable(name, kind, msg, remedy string) FileView {
	return FileView{File: name, Kind: kind, KubeletAccepts: false,
		Problems: []Problem{{Message: msg, Remedy: remedy, Severity: "error"}}}
}
