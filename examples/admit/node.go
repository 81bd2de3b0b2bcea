package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/numascope/numascope/internal/cliout"
	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/kubeletfiles"
	"github.com/numascope/numascope/internal/nodeconfig"
	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

type optionFlags map[string]string

func (o optionFlags) String() string { return fmt.Sprint(map[string]string(o)) }
func (o optionFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q: give an option as name=value, e.g. prefer-closest-numa-nodes=true", v)
	}
	o[k] = val
	return nil
}

type nodeFlags struct {
	pod, stateDir, topology, policy, scope, allocatable, reserved, config, version string
	options                                                                        optionFlags
	cpuOptions                                                                     optionFlags
	fs                                                                             *flag.FlagSet
}

func addNodeFlags(fs *flag.FlagSet) *nodeFlags {
	nf := &nodeFlags{options: optionFlags{}, cpuOptions: optionFlags{}, fs: fs}
	fs.StringVar(&nf.pod, "pod", "", "pod YAML or JSON (as kubectl get pod -o yaml prints it)")
	fs.StringVar(&nf.stateDir, "state-dir", "", "kubelet root dir with cpu_manager_state, memory_manager_state, device-plugins/kubelet_internal_checkpoint (each optional)")
	fs.StringVar(&nf.topology, "topology", "", "sysfs snapshot directory or cAdvisor machine-info JSON file")
	fs.StringVar(&nf.policy, "policy", "", "topology manager policy: none, best-effort, restricted, single-numa-node (default: from the kubelet config)")
	fs.StringVar(&nf.scope, "scope", "", "topology manager scope: container or pod (default: from the kubelet config, else container)")
	fs.StringVar(&nf.config, "kubelet-config", "", "KubeletConfiguration file (default: STATE_DIR/config.yaml when present); flags override it")
	fs.StringVar(&nf.allocatable, "allocatable", "", "PodResources GetAllocatableResources JSON: the devices' NUMA nodes")
	fs.StringVar(&nf.reserved, "reserved-cpus", "", "reservedSystemCPUs, e.g. 0-1")
	fs.Var(nf.options, "option", "topology manager policy option name=value (repeatable; replaces the config's options)")
	fs.StringVar(&nf.version, "kubelet-version", "", "the node's kubelet release X.Y (1.28 to 1.37, e.g. 1.30 or v1.30.4): its policy options, their feature gates and error texts, and its state-file restore code (default: the newest)")
	fs.Var(nf.cpuOptions, "cpu-option", "CPU manager static policy option name=value, e.g. full-pcpus-only=true (repeatable; replaces the config's cpuManagerPolicyOptions)")
	return nf
}

func loadState(path string, kind statefile.Kind, policy, version string) (*statefile.File, error) {
	f, err := statefile.ReadFile(path, statefile.Options{Kind: kind, Policy: policy, KubeletVersion: version})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		// the SDK's advice names its options; here the file is found by --state-dir
		msg := strings.ReplaceAll(err.Error(), " or raise Options.MaxSize", " (a checkpoint is far smaller than the limit)")
		return nil, fmt.Errorf("--state-dir: %s", msg)
	}
	if !f.KubeletAccepts {
		return nil, fmt.Errorf("--state-dir: %s: the kubelet would not restore this file (%s): fix it first (inspect %s lists every problem)", path, f.Reason, path)
	}
	return f, nil
}

func runNode(nf *nodeFlags, format cliout.Format, stdout, stderr io.Writer) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "admit: "+format+"\n", args...)
		return 2
	}
	if nf.stateDir == "" || nf.topology == "" || nf.pod == "" {
		fmt.Fprintln(stderr, "admit: --pod needs --state-dir DIR and --topology FILE|DIR (and --policy P unless a kubelet config gives it)")
		return 2
	}
	set := map[string]bool{}
	nf.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var kc *topomgr.KubeletConfig
	configPath := nf.config
	if configPath == "" {
		if _, err := os.Stat(filepath.Join(nf.stateDir, "config.yaml")); err == nil {
			configPath = filepath.Join(nf.stateDir, "config.yaml")
		}
	}
	if configPath != "" {
		data, err := input.ReadFile(configPath, "--kubelet-config", input.MaxDocument)
		if err != nil {
			fmt.Fprintf(stderr, "admit: %v\n", err)
			return 2
		}
		if kc, err = topomgr.ParseKubeletConfig(data); err != nil {
			fmt.Fprintf(stderr, "admit: %s: %v\n", configPath, err)
			return 2
		}
		if !set["policy"] {
			nf.policy = kc.TopologyManagerPolicy
		}
		if !set["scope"] {
			nf.scope = kc.TopologyManagerScope
		}
		if !set["option"] {
			for k, v := range kc.TopologyManagerPolicyOptions {
				nf.options[k] = v
			}
		}
		if !set["reserved-cpus"] {
			nf.reserved = kc.ReservedSystemCPUs
		}
	}
	if nf.policy == "" {
		fmt.Fprintln(stderr, "admit: no topology manager policy: give --policy P or a kubelet config (--kubelet-config)")
		return 2
	}
	if nf.scope == "" {
		nf.scope = topomgr.ScopeContainer
	}
	// where a setting came from, for the error that names it
	from := func(flagName, field string) string {
		if set[flagName] || configPath == "" {
			return "--" + flagName
		}
		return configPath + ": " + field
	}
	switch nf.policy {
	case topomgr.PolicyNone, topomgr.PolicyBestEffort, topomgr.PolicyRestricted, topomgr.PolicySingleNumaNode:
	default:
		return fail("%s %q: not a Topology Manager policy: give none, best-effort, restricted or single-numa-node", from("policy", "topologyManagerPolicy"), nf.policy)
	}
	switch nf.scope {
	case topomgr.ScopeContainer, topomgr.ScopePod:
	default:
		return fail("%s %q: not a Topology Manager scope: give container or pod", from("scope", "topologyManagerScope"), nf.scope)
	}
	data, err := input.ReadFile(nf.pod, "--pod", input.MaxDocument)
	if err != nil {
		return fail("%v", err)
	}
	pod, err := topomgr.ParsePod(data)
	if err != nil {
		return fail("%s: %v", nf.pod, err)
	}
	machine, err := topomgr.ReadMachine(nil, nf.topology)
	if err != nil {
		return fail("--topology: %v", err)
	}
	cpuPolicy, memPolicy := "", ""
	if kc != nil {
		cpuPolicy, memPolicy = kc.CPUManagerPolicy, kc.MemoryManagerPolicy
	}
	var cpuOptions map[string]string
	if set["cpu-option"] {
		cpuOptions = nf.cpuOptions
	}
	cfg, err := nodeconfig.Build(nodeconfig.Input{Machine: machine, Kubelet: kc, Policy: nf.policy, Scope: nf.scope, Options: nf.options, CPUPolicyOptions: cpuOptions, ReservedCPUs: nf.reserved})
	if err != nil {
		return fail("%s: %v: give CPU ids such as 0-1 or 0,32", from("reserved-cpus", "reservedSystemCPUs"), err)
	}
	cfg.Gates.KubeletVersion = nf.version
	if st, err := os.Stat(nf.stateDir); err != nil || !st.IsDir() {
		return fail("--state-dir %s: not a directory", nf.stateDir)
	}
	if f, err := loadState(filepath.Join(nf.stateDir, filepath.FromSlash(kubeletfiles.PathOf(statefile.KindCPU))), statefile.KindCPU, cpuPolicy, nf.version); err != nil {
		return fail("%v", err)
	} else if f != nil {
		cfg.CPU = f.CPU
	}
	if f, err := loadState(filepath.Join(nf.stateDir, filepath.FromSlash(kubeletfiles.PathOf(statefile.KindMemory))), statefile.KindMemory, memPolicy, nf.version); err != nil {
		return fail("%v", err)
	} else if f != nil {
		cfg.Memory = f.Memory
	}
	if f, err := loadState(filepath.Join(nf.stateDir, filepath.FromSlash(kubeletfiles.PathOf(statefile.KindDevice))), statefile.KindDevice, "", nf.version); err != nil {
		return fail("%v", err)
	} else if f != nil {
		cfg.Devices = f.Device
	}
	if nf.allocatable != "" {
		data, err := input.ReadFile(nf.allocatable, "--allocatable", input.MaxPodResources)
		if err != nil {
			return fail("%v", err)
		}
		if cfg.Allocatable, err = podresources.DecodeAllocatable(data); err != nil {
			return fail("%s: %v", nf.allocatable, err)
		}
	}
	res, err := topomgr.SimulateAdmission(pod, cfg)
	if err != nil {
		// the policy and the scope are checked above: what is left is an
		// option, a CPU manager option or a device the state names
		switch msg := err.Error(); {
		case strings.Contains(msg, "option") && (set["option"] || set["cpu-option"]):
			return fail("--option/--cpu-option: %v", err)
		case strings.Contains(msg, "option") && configPath != "":
			return fail("%s: %v", configPath, err)
		}
		return fail("%v", err)
	}
	if format != cliout.Text {
		if err := writeDoc(stdout, format, res); err != nil {
			return fail("%v", err)
		}
		return verdictCode(res.Admit)
	}
	fmt.Fprintln(stdout, nodeVerdict(pod, res, nf.policy))
	w := &tw{w: stdout}
	w.line("pod", fmt.Sprintf("%s/%s (QoS %s)", pod.Namespace, pod.Name, pod.QOS()))
	w.line("machine", fmt.Sprintf("%d NUMA nodes, %d CPUs", len(machine.Nodes), len(machine.CPUs)))
	w.line("policy", nf.policy+"  scope: "+nf.scope+optionsText(nf.options))
	if len(cfg.CPUPolicyOptions) > 0 {
		w.line("cpu manager", "static"+optionsText(cfg.CPUPolicyOptions))
	}
	if configPath != "" {
		w.line("config", configPath+" (flags override it)")
	}
	for _, s := range res.Steps {
		fmt.Fprintln(stdout)
		title := "whole pod"
		if s.Container != "" {
			title = s.Container
		}
		w.line("==", title)
		if s.Merge != nil {
			var names []string
			for _, a := range s.Answers {
				names = append(names, a.Provider)
			}
			writeReport(w, s.Merge, names)
		}
		if s.AllocateError != "" {
			w.line("allocation", "failed: "+s.AllocateError)
		}
	}
	fmt.Fprintln(stdout)
	for i, a := range res.Account {
		w.line(pick(i == 0, "verdict", ""), a)
	}
	for i, n := range res.Notes {
		w.line(pick(i == 0, "notes", ""), n)
	}
	return verdictCode(res.Admit)
}

// nodeVerdict is the first line of a node admission: the pod and the
// verdict, in the words of the account's first sentence.
func nodeVerdict(pod *topomgr.Pod, res *topomgr.NodeAdmission, policy string) string {
	mark, why := "✓", "admitted under the "+policy+" policy"
	if !res.Admit {
		mark, why = "✗", "not admitted under the "+policy+" policy (TopologyAffinityError)"
	}
	if len(res.Account) > 0 {
		why = res.Account[0]
	}
	return fmt.Sprintf("%s pod %s/%s: %s", mark, pod.Namespace, pod.Name, why)
}
