package api

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// SimulateRequest is the request of the "simulate" method: a pod and the
// node it is admitted on, given as the page's pasted files.
type SimulateRequest struct {
	// Pod is the pod spec in YAML or JSON, as kubectl get pod -o yaml prints it.
	Pod string `json:"pod"`
	// Files are the node's inputs: cpu_manager_state, memory_manager_state,
	// the device checkpoint, a cAdvisor machine-info JSON (required), a
	// PodResources answer with the allocatable devices and a
	// KubeletConfiguration; other inputs are skipped.
	Files []InputFile `json:"files"`
	// Policy, Scope and Options configure the Topology Manager; empty Policy
	// or Scope take the kubelet configuration's value, else none/container.
	Policy  string            `json:"policy,omitempty"`
	Scope   string            `json:"scope,omitempty"`
	Options map[string]string `json:"options,omitempty"`
	// ReservedCPUs is reservedSystemCPUs, e.g. "0-1"; empty takes the
	// kubelet configuration's value.
	ReservedCPUs string `json:"reservedCPUs,omitempty"`
}

// SimulateResult is the answer of the "simulate" method: the admission with
// each step's provider hints and merged best hint, the verdict, the reason
// and the account of why, and which input fed what.
type SimulateResult struct {
	*topomgr.NodeAdmission
	// Pod is namespace/name of the simulated pod, QOS its QoS class.
	Pod string `json:"pod"`
	QOS string `json:"qos"`
	// Used names the input that gave each part of the node, e.g.
	// {"cpu": "cpu_manager_state", "machine": "machine-info.json"}.
	Used map[string]string `json:"used"`
	// Skipped lists inputs that play no part in the admission.
	Skipped []string `json:"skipped,omitempty"`
}

func init() {
	register("simulate", "admits a pod on the node described by the pasted state files and machine info as the kubelet's Topology Manager would: per-container provider hints, merged best hint, admit or reject, reason and account",
		func(raw json.RawMessage) (any, error) {
			var req SimulateRequest
			if err := decode("simulate", raw, &req); err != nil {
				return nil, err
			}
			if err := tooManyFiles("simulate", len(req.Files)); err != nil {
				return nil, err
			}
			return Simulate(&req)
		})
}

func simErr(format string, args ...any) error {
	return &Error{Code: "bad-request", Message: "simulate: " + fmt.Sprintf(format, args...)}
}

// simulateParts names the part of the node each kind of evidence gives.
var simulateParts = map[string]string{
	evidence.KindTopology: "machine", evidence.KindConfig: "config", evidence.KindPodResources: "allocatable",
	"state-" + string(statefile.KindCPU): "cpu", "state-" + string(statefile.KindMemory): "memory", "state-" + string(statefile.KindDevice): "devices",
}

// Simulate reads the request's files through the door (as diagnose does),
// builds the node they describe (evidence.Set.NodeConfig) and admits the
// pod on it with topomgr.SimulateAdmission.
func Simulate(req *SimulateRequest) (*SimulateResult, error) {
	if strings.TrimSpace(req.Pod) == "" {
		return nil, simErr("no pod: paste a pod spec (YAML or JSON) in the pod field")
	}
	if len(req.Pod) > MaxFileBytes {
		return nil, simErr("the pod spec is %d bytes, more than the %d-byte limit", len(req.Pod), MaxFileBytes)
	}
	pod, err := topomgr.ParsePod([]byte(req.Pod))
	if err != nil {
		return nil, simErr("pod: %v", err)
	}
	out := &SimulateResult{Pod: pod.Namespace + "/" + pod.Name, QOS: string(pod.QOS()), Used: map[string]string{}}
	for i, in := range req.Files {
		if len(in.Content) > MaxFileBytes {
			name := in.Name
			if name == "" {
				name = fmt.Sprintf("file %d", i+1)
			}
			return nil, simErr("%s is %d bytes, more than the %d-byte limit", name, len(in.Content), MaxFileBytes)
		}
	}
	// The checkpoints are decoded once, under the configured policy (the
	// configuration is read first), and shared with inspect's decodes.
	ev := &evidence.Set{Decode: decodeShared}
	done := track("evidence")
	items, _ := readEvidence(ev, req.Files) // empty files play no part
	done()
	for _, r := range items {
		part := simulateParts[r.item.Kind]
		if part != "" && r.item.Status == "refused" {
			return nil, simErr("%s", r.item.Error)
		}
		_, nrtName := ev.NRT()
		switch {
		case part == "machine" && nrtName == r.in.Name:
			part = "" // a NodeResourceTopology names no CPUs: it is no machine topology
		case part == "allocatable" && (ev.PodResourcesName() != r.in.Name || ev.PodResources.Allocatable == nil):
			part = "" // a List answer alone gives no allocatable devices
		}
		if part == "" || !r.item.Used() {
			out.Skipped = append(out.Skipped, r.in.Name)
			continue
		}
		if prev, dup := out.Used[part]; dup {
			return nil, simErr("%s and %s both give the %s: remove one of them", prev, r.in.Name, part)
		}
		out.Used[part] = r.in.Name
	}
	for _, f := range ev.States {
		if simulateParts["state-"+string(f.Kind)] != "" && !f.KubeletAccepts {
			return nil, simErr("%s: the kubelet would not restore this file (%s): fix it first", f.Name, unrestored(ev, f))
		}
	}
	if ev.Machine == nil {
		return nil, simErr("no machine topology: add a tab with the node's cAdvisor machine info (the JSON with \"topology\": [...])")
	}
	cfg, err := ev.NodeConfig(evidence.NodeSettings{Policy: req.Policy, Scope: req.Scope, Options: req.Options, ReservedCPUs: req.ReservedCPUs})
	if err != nil {
		return nil, simErr("%v: give a CPU list such as 0-1", err)
	}
	na, err := topomgr.SimulateAdmission(pod, cfg)
	if err != nil {
		return nil, simErr("%v", err)
	}
	out.NodeAdmission = na
	return out, nil
}

// unrestored says why the kubelet would not restore a checkpoint: its
// own words, or that the bytes are a repaired or redacted copy.
func unrestored(ev *evidence.Set, f *statefile.File) string {
	if f.Reason != "" {
		return f.Reason
	}
	if p := ev.Provenance(f); p != nil && (p.Repair != nil || len(p.Redactions) > 0) {
		return "it is a pasted copy numascope repaired or that has redacted values, not the node's file: paste the file unchanged"
	}
	return "kubelet " + f.OnReject
}
