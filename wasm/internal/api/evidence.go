package api

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/numascope/numascope/diagnose"
	"github.com/numascope/numascope/diagnose/evidence"
	"sigs.k8s.io/yaml"
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

var (
	describeRe    = regexp.MustCompile(`(?m)^Events:\s*`)
	describeName  = regexp.MustCompile(`(?m)^Name:\s+\S`)
	eventsTableRe = regexp.MustCompile(`(?m)^LAST SEEN\s+TYPE\s+REASON`)
)

// classify tells what evidence a non-checkpoint input is, from its content
// (and its name when the content alone is ambiguous); "" means unknown.
func classify(in InputFile) string {
	text := strings.TrimSpace(strings.TrimPrefix(in.Content, "\ufeff"))
	if (describeRe.MatchString(text) && describeName.MatchString(text)) || eventsTableRe.MatchString(text) {
		return kindEvents
	}
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(text), &doc); err == nil && doc != nil {
		kind, _ := doc["kind"].(string)
		switch kind {
		case "KubeletConfiguration":
			return kindConfig
		case "Pod", "PodList":
			return kindPod
		case "Event", "EventList":
			return kindEvents
		case "List":
			if items, _ := doc["items"].([]any); len(items) > 0 {
				if first, _ := items[0].(map[string]any); first != nil {
					switch first["kind"] {
					case "Pod":
						return kindPod
					case "Event":
						return kindEvents
					}
				}
			}
		}
		if _, ok := doc["topology"].([]any); ok {
			return kindMachine
		}
		if lower := strings.ToLower(in.Name); strings.HasPrefix(lower, "kubelet-config") || lower == "config.yaml" {
			return kindConfig
		}
		// Log lines like "Nov 29 10:00:00 host kubelet[1]: ..." also read as
		// YAML maps, so fall through to the log parser.
	}
	if log, err := evidence.ParseLogBytes(in.Name, []byte(text)); err == nil && len(log.Records) > 0 {
		return kindLog
	}
	// Anything else the engine's detection reads (a paste with prompts or
	// fences, a table, a topology listing, flags).
	var ev evidence.Set
	if it := ev.Add(in.Name, "", []byte(in.Content)); it.Used() {
		return viewKind(it.Kind)
	}
	return ""
}

// decodeEvidence describes a log, pod, events, kubelet configuration or
// machine-info input; its findings come from the "diagnose" method. The
// engine's own detection decides what the input is (after the paste
// normaliser), so anything pasted into any tab is read as what it is.
func decodeEvidence(in InputFile, _ *InspectRequest, numa *numaBuilder) (*FileView, bool) {
	ev := &evidence.Set{}
	it := ev.Add(in.Name, "", []byte(in.Content))
	kind := viewKind(it.Kind)
	if it.Status == "unused" || kind == "" || strings.HasPrefix(it.Kind, "state-") || it.Kind == "podresources" {
		return nil, false
	}
	v := &FileView{File: in.Name, Kind: kind, Format: it.Format, Summary: it.Note, KubeletAccepts: it.Used()}
	if !it.Used() {
		v.Problems = []Problem{{Message: it.Error, Severity: "error", Remedy: remedyFor(kind)}}
		return v, true
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
	return v, true
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
var evidenceOrder = map[string]int{kindConfig: 0, kindMachine: 1, "state": 2, "podresources": 3, kindPod: 4, kindEvents: 5, kindLog: 6}

// Diagnose classifies every input, adds it to the evidence and runs the
// diagnosis.
func Diagnose(req *DiagnoseRequest) (*DiagnoseResult, error) {
	type item struct {
		in   InputFile
		kind string
		i    int
	}
	var items []item
	out := &DiagnoseResult{Skipped: []Skipped{}, Files: make([]evidence.Item, len(req.Files)), Locations: []Location{}}
	for i, in := range req.Files {
		if strings.TrimSpace(in.Content) == "" {
			out.Files[i] = evidence.Item{File: in.Name, Kind: "unknown", Status: "unused", Note: "empty"}
			continue
		}
		if len(in.Content) > MaxFileBytes {
			reason := "larger than the playground's limit for one file"
			out.Skipped = append(out.Skipped, Skipped{File: in.Name, Reason: reason})
			out.Files[i] = evidence.Item{File: in.Name, Kind: "unknown", Status: "refused", Error: in.Name + ": " + reason}
			continue
		}
		// Only the order depends on the kind (configuration before
		// checkpoints): a cheap look at the head, not a decode; Add below
		// reads each input once. One input needs no order, and a
		// checkpoint pasted without a name is named as inspect names it
		// (guessStateKind), so that both answers speak of the same file.
		kind, guess := "", ""
		if in.Name == "" {
			guess = guessStateKind(in.Content)
		}
		if len(req.Files) > 1 || in.Name == "" && guess == "" {
			kind = evidence.SniffKind([]byte(in.Content))
			if kind == "topology" {
				kind = kindMachine
			}
		}
		if in.Name == "" {
			in.Name = canonicalName[guess]
			if in.Name == "" {
				in.Name = canonicalName[kind]
			}
			if in.Name == "" {
				in.Name = fmt.Sprintf("file %d", i+1)
			}
		}
		items = append(items, item{in, kind, i})
	}
	order := func(kind string) int {
		if o, ok := evidenceOrder[kind]; ok {
			return o
		}
		return len(evidenceOrder)
	}
	sort.SliceStable(items, func(i, j int) bool { return order(items[i].kind) < order(items[j].kind) })
	// The engine's own detection decides what each input is read as (the
	// kind above only orders them: configuration before checkpoints).
	// The checkpoints inspect decoded are not decoded again.
	ev := &evidence.Set{Decode: decodeShared}
	if req.KubeletVersion != "" {
		if err := ev.SetKubeletVersion(req.KubeletVersion); err != nil {
			return nil, err
		}
	}
	done := track("evidence")
	for _, it := range items {
		r := ev.Add(it.in.Name, "", []byte(it.in.Content))
		out.Files[it.i] = r
		if !r.Used() {
			reason := r.Error
			if reason == "" {
				reason = r.Note
			}
			out.Skipped = append(out.Skipped, Skipped{File: it.in.Name, Reason: reason})
		}
	}
	done()
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
