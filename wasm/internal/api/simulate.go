package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/numascope/numascope/internal/nodeconfig"
	"strings"

	"github.com/numascope/numascope/podresources"
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

// Simulate runs topomgr.SimulateAdmission on the request's pod and node.
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
	var (
		cfg                  topomgr.NodeConfig
		kc                   *topomgr.KubeletConfig
		cpuData, memData     *InputFile
		cpuPolicy, memPolicy string
	)
	use := func(part string, in InputFile) error {
		if prev, dup := out.Used[part]; dup {
			return simErr("%s and %s both give the %s: remove one of them", prev, in.Name, part)
		}
		out.Used[part] = in.Name
		return nil
	}
	for i, in := range req.Files {
		if strings.TrimSpace(in.Content) == "" {
			continue
		}
		if in.Name == "" {
			in.Name = fmt.Sprintf("file %d", i+1)
		}
		if len(in.Content) > MaxFileBytes {
			return nil, simErr("%s is %d bytes, more than the %d-byte limit", in.Name, len(in.Content), MaxFileBytes)
		}
		switch classify(in) {
		case kindMachine:
			m, err := topomgr.ParseMachine([]byte(in.Content))
			if err != nil {
				return nil, simErr("%s: %v", in.Name, err)
			}
			if err := use("machine", in); err != nil {
				return nil, err
			}
			cfg.Machine = m
			continue
		case kindConfig:
			c, err := topomgr.ParseKubeletConfig([]byte(in.Content))
			if err != nil {
				return nil, simErr("%s: %v", in.Name, err)
			}
			if err := use("config", in); err != nil {
				return nil, err
			}
			kc = c
			continue
		case "":
		default:
			out.Skipped = append(out.Skipped, in.Name)
			continue
		}
		if looksLikePodResources(in.Content) {
			snap, err := podresources.Decode([]byte(in.Content))
			if err != nil {
				return nil, simErr("%s: %v", in.Name, err)
			}
			if snap.Allocatable == nil {
				out.Skipped = append(out.Skipped, in.Name)
				continue
			}
			if err := use("allocatable", in); err != nil {
				return nil, err
			}
			cfg.Allocatable = snap.Allocatable
			continue
		}
		// A state file: decoded once the kubelet config (which may name the
		// configured policies) is known.
		f, err := statefile.Decode([]byte(in.Content), statefile.Options{Name: in.Name, MaxSize: MaxFileBytes})
		if err != nil {
			if errors.Is(err, statefile.ErrUnknownKind) || errors.Is(err, statefile.ErrNotJSON) {
				out.Skipped = append(out.Skipped, in.Name)
				continue
			}
			return nil, simErr("%v", err)
		}
		in := in
		switch f.Kind {
		case statefile.KindCPU:
			if err := use("cpu", in); err != nil {
				return nil, err
			}
			cpuData = &in
		case statefile.KindMemory:
			if err := use("memory", in); err != nil {
				return nil, err
			}
			memData = &in
		case statefile.KindDevice:
			if err := use("devices", in); err != nil {
				return nil, err
			}
			if !f.KubeletAccepts {
				return nil, simErr("%s: the kubelet would not restore this file (%s): fix it first", in.Name, f.Reason)
			}
			cfg.Devices = f.Device
		default:
			out.Skipped = append(out.Skipped, in.Name)
		}
	}
	if cfg.Machine == nil {
		return nil, simErr("no machine topology: add a tab with the node's cAdvisor machine info (the JSON with \"topology\": [...])")
	}
	if kc != nil {
		cpuPolicy, memPolicy = kc.CPUManagerPolicy, kc.MemoryManagerPolicy
	}
	cfg, err = nodeconfig.Build(nodeconfig.Input{Machine: cfg.Machine, Kubelet: kc, Policy: req.Policy, Scope: req.Scope, Options: req.Options,
		ReservedCPUs: req.ReservedCPUs, Devices: cfg.Devices, Allocatable: cfg.Allocatable})
	if err != nil {
		return nil, simErr("%v: give a CPU list such as 0-1", err)
	}
	load := func(in *InputFile, policy string) (*statefile.File, error) {
		if in == nil {
			return nil, nil
		}
		f, err := statefile.Decode([]byte(in.Content), statefile.Options{Name: in.Name, Policy: policy, MaxSize: MaxFileBytes})
		if err != nil {
			return nil, simErr("%v", err)
		}
		if !f.KubeletAccepts {
			return nil, simErr("%s: the kubelet would not restore this file (%s): fix it first", in.Name, f.Reason)
		}
		return f, nil
	}
	if f, err := load(cpuData, cpuPolicy); err != nil {
		return nil, err
	} else if f != nil {
		cfg.CPU = f.CPU
	}
	if f, err := load(memData, memPolicy); err != nil {
		return nil, err
	} else if f != nil {
		cfg.Memory = f.Memory
	}
	na, err := topomgr.SimulateAdmission(pod, cfg)
	if err != nil {
		return nil, simErr("%v", err)
	}
	out.NodeAdmission = na
	return out, nil
}
