package api

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/diagnose/evidence"
)

// Evidence kinds besides the kubelet checkpoints (whose kinds are those of
// package statefile) and "podresources".
const (
	kindMachine = "machine-info"
	kindConfig  = "kubelet-config"
	kindPod     = "pod"
	kindEvents  = "events"
	kindLog     = "kubelet-log"
)

// decodeEvidence reads a log, pod, events, kubelet configuration or
// machine-info input through the door (its formats table decides what the
// input is, after the paste normaliser) and describes it; its findings
// come from the "diagnose" method. The view is nil when the door read no
// such evidence: it is then a checkpoint or a PodResources answer (the
// item's kind says so), or nothing the door reads.
func decodeEvidence(in InputFile, numa *numaBuilder) (*FileView, evidence.Item) {
	ev := &evidence.Set{}
	it := ev.Add(in.Name, "", []byte(in.Content))
	return evidenceView(in, it, ev, numa), it
}

// evidenceView is the view of an input the door read as it (into ev), or
// nil when it is no evidence of the kinds viewKind names.
func evidenceView(in InputFile, it evidence.Item, ev *evidence.Set, numa *numaBuilder) *FileView {
	kind := viewKind(it.Kind)
	if it.Status == "unused" || kind == "" {
		return nil
	}
	v := &FileView{File: in.Name, Kind: kind, Format: it.Format, Summary: it.Note, KubeletAccepts: it.Used()}
	if !it.Used() {
		v.Problems = []Problem{{Message: it.Error, Severity: "error", Remedy: remedyFor(kind)}}
		return v
	}
	for _, w := range it.Warnings {
		v.Problems = append(v.Problems, Problem{Message: in.Name + ": " + w, Severity: "info"})
	}
	if kind == kindMachine && ev.Machine != nil {
		if numa.machine == nil {
			numa.machine = ev.Machine
		}
		for _, n := range ev.Machine.Nodes {
			node := numa.node(n.ID)
			cpus := ev.Machine.NodeCPUs(n.ID).String()
			node.CPUs = &cpus
			node.MachineMemory = n.Memory
		}
	}
	return v
}

// viewKind is the playground's name of an evidence kind of the engine.
func viewKind(k string) string {
	switch k {
	case "topology":
		return kindMachine
	case kindConfig, kindPod, kindEvents, kindLog:
		return k
	}
	return ""
}

func remedyFor(kind string) string {
	switch kind {
	case kindLog:
		return "paste kubelet log lines as journalctl -u kubelet or the kubelet's log file prints them"
	case kindPod:
		return "paste the output of kubectl get pod NAME -o yaml"
	case kindEvents:
		return "paste the output of kubectl describe pod NAME or kubectl get events -o yaml"
	case kindConfig:
		return "paste the KubeletConfiguration file (often /var/lib/kubelet/config.yaml)"
	case kindMachine:
		return "paste the output of kubectl get --raw /api/v1/nodes/NODE/proxy/spec"
	}
	return "paste the file unchanged"
}

// DiagnoseRequest is the request of the "diagnose" method: the same inputs
// as "inspect".
type DiagnoseRequest = InspectRequest

// DiagnoseResult is the answer of the "diagnose" method.
type DiagnoseResult struct {
	Report diagnose.Report `json:"report"`
	// Files says, for each request file in order, what it was read as (its
	// kind and status), or why it was not read.
	Files []evidence.Item `json:"files"`
	// Skipped lists the inputs that could not be used as evidence.
	Skipped []Skipped `json:"skipped"`
	// Locations are the line and column of every evidence reference of
	// the findings that names a JSON pointer (file#/path), so that the page
	// can select it in its tab.
	Locations []Location `json:"locations"`
}

// Skipped is an input left out of the diagnosis, with the reason.
type Skipped struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// DiagnoseTimeout bounds one diagnosis.
const DiagnoseTimeout = 5 * time.Second

func init() {
	register("diagnose", "turns every input (state files, PodResources, kubelet logs, pods, events, kubelet configuration, machine info) into findings with codes, explanations and remedies",
		func(raw json.RawMessage) (any, error) {
			var req DiagnoseRequest
			if err := decode("diagnose", raw, &req); err != nil {
				return nil, err
			}
			if err := tooManyFiles("diagnose", len(req.Files)); err != nil {
				return nil, err
			}
			return Diagnose(&req)
		})
}

// evidenceOrder adds the kubelet configuration first, because the state
// files are judged against the policies it configures.
var evidenceOrder = map[string]int{evidence.KindConfig: 0, evidence.KindTopology: 1, evidence.KindState: 2, evidence.KindPodResources: 3,
	evidence.KindPod: 4, evidence.KindEvents: 5, evidence.KindLog: 6}

// readItem is one request file read through the door: the file (named,
// when it came without a name, as inspect names it), its place in the
// request and what the door read it as.
type readItem struct {
	in   InputFile
	i    int
	item evidence.Item
}

// readEvidence adds the request's files to ev, each read once by the door,
// the kubelet configuration first (the checkpoints are judged against the
// policies it configures), and returns them in the order read. An empty
// file or one over MaxFileBytes is not read (notRead, in request order:
// its item says why).
func readEvidence(ev *evidence.Set, files []InputFile) (read, notRead []readItem) {
	type queued struct {
		readItem
		kind string
	}
	var items []queued
	for i, in := range files {
		if strings.TrimSpace(in.Content) == "" {
			notRead = append(notRead, readItem{in, i, evidence.Item{File: in.Name, Kind: "unknown", Status: "unused", Note: "empty"}})
			continue
		}
		if len(in.Content) > MaxFileBytes {
			notRead = append(notRead, readItem{in, i, evidence.Item{File: in.Name, Kind: "unknown", Status: "refused",
				Error: in.Name + ": larger than the playground's limit for one file"}})
			continue
		}
		// Only the order depends on the kind (configuration before
		// checkpoints): the door's look at the head, not a decode; Add
		// below reads each input once. An input pasted without a name is
		// named as inspect names it, so that both answers speak of the
		// same file.
		kind := ""
		if len(files) > 1 || in.Name == "" {
			kind = evidence.SniffKind(head(in.Content))
		}
		if in.Name == "" {
			in.Name = pasteName(kind, in.Content)
			if in.Name == "" {
				in.Name = fmt.Sprintf("file %d", i+1)
			}
		}
		items = append(items, queued{readItem{in: in, i: i}, kind})
	}
	order := func(kind string) int {
		if o, ok := evidenceOrder[kind]; ok {
			return o
		}
		return len(evidenceOrder)
	}
	sort.SliceStable(items, func(i, j int) bool { return order(items[i].kind) < order(items[j].kind) })
	for _, it := range items {
		it.item = ev.Add(it.in.Name, "", []byte(it.in.Content))
		read = append(read, it.readItem)
	}
	return read, notRead
}

// Diagnose reads every input through the door and runs the diagnosis.
func Diagnose(req *DiagnoseRequest) (*DiagnoseResult, error) {
	out := &DiagnoseResult{Skipped: []Skipped{}, Files: make([]evidence.Item, len(req.Files)), Locations: []Location{}}
	// The checkpoints inspect decoded are not decoded again.
	ev := &evidence.Set{Decode: decodeShared}
	if req.KubeletVersion != "" {
		if err := ev.SetKubeletVersion(req.KubeletVersion); err != nil {
			return nil, err
		}
	}
	done := track("evidence")
	items, notRead := readEvidence(ev, req.Files)
	done()
	for _, r := range notRead {
		out.Files[r.i] = r.item
		if r.item.Status == "refused" {
			out.Skipped = append(out.Skipped, Skipped{File: r.in.Name, Reason: "larger than the playground's limit for one file"})
		}
	}
	for _, r := range items {
		out.Files[r.i] = r.item
		if !r.item.Used() {
			reason := r.item.Error
			if reason == "" {
				reason = r.item.Note
			}
			out.Skipped = append(out.Skipped, Skipped{File: r.in.Name, Reason: reason})
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), DiagnoseTimeout)
	defer cancel()
	done = track("diagnose")
	rep, err := diagnose.Run(ctx, ev)
	done()
	if err != nil {
		return nil, &Error{Code: "engine", Message: "the diagnosis did not finish: " + err.Error()}
	}
	out.Report = rep
	// Where each file#/pointer reference is, one read per file.
	defer track("positions")()
	content := map[string]string{}
	for _, it := range items {
		content[it.in.Name] = it.in.Content
	}
	wanted := map[string][]string{}
	var files []string
	seen := map[string]bool{}
	for _, f := range rep.Findings {
		for _, r := range f.Evidence {
			if r.Path == "" || seen[r.File+"#"+r.Path] {
				continue
			}
			if _, ok := content[r.File]; !ok {
				continue
			}
			seen[r.File+"#"+r.Path] = true
			if wanted[r.File] == nil {
				files = append(files, r.File)
			}
			wanted[r.File] = append(wanted[r.File], r.Path)
		}
	}
	for _, file := range files {
		at := locate(content[file], wanted[file])
		for _, p := range wanted[file] {
			if pos, ok := at[p]; ok {
				out.Locations = append(out.Locations, Location{File: file, Path: p, Position: pos})
			}
		}
	}
	return out, nil
}
