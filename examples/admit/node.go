package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/cliout"
	"github.com/numascope/numascope/internal/input"
	"github.com/numascope/numascope/internal/kubeversion"
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
	fs.StringVar(&nf.version, "kubelet-version", "", "the node's kubelet release X.Y ("+kubeversion.Range()+", e.g. 1.30 or v1.30.4): its policy options, their feature gates and error texts, and its state-file restore code (default: the newest)")
	fs.Var(nf.cpuOptions, "cpu-option", "CPU manager static policy option name=value, e.g. full-pcpus-only=true (repeatable; replaces the config's cpuManagerPolicyOptions)")
	return nf
}

// node is what runNode admits the pod on, read through the door.
type node struct {
	pod *topomgr.Pod
	cfg topomgr.NodeConfig
	// configPath is the kubelet configuration read ("" when none); set
	// holds the flags given: together they say where a setting came from.
	configPath string
	set        map[string]bool
}

// from names where a setting came from, for the error that names it.
func (n *node) from(flagName, field string) string {
	if n.set[flagName] || n.configPath == "" {
		return "--" + flagName
	}
	return n.configPath + ": " + field
}

// loadNode reads the pod and the node's evidence (the configuration
// first, so that the checkpoints are judged against the policies it
// configures) and builds the node. Its errors name the flag or the file,
// in the order admit checks them: the configuration, the settings, the
// pod, the topology, the checkpoints.
func loadNode(nf *nodeFlags) (*node, error) {
	n := &node{configPath: nf.config, set: map[string]bool{}}
	nf.fs.Visit(func(f *flag.Flag) { n.set[f.Name] = true })
	if n.configPath == "" {
		if _, err := os.Stat(filepath.Join(nf.stateDir, "config.yaml")); err == nil {
			n.configPath = filepath.Join(nf.stateDir, "config.yaml")
		}
	}
	if st, err := os.Stat(nf.stateDir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--state-dir %s: not a directory", nf.stateDir)
	}
	src := evidence.Sources{StateDir: nf.stateDir, Topology: nf.topology}
	if n.configPath != "" {
		src.KubeletConfig = []string{n.configPath}
	}
	ev, err := evidence.Load(src)
	if err != nil {
		return nil, err
	}
	// what the door could not read, of the inputs admit uses (a missing
	// checkpoint is no error: the kubelet starts it empty;
	// dra_manager_state plays no part)
	stateKinds := map[string]statefile.Kind{}
	for _, f := range evidence.StateFiles(nf.stateDir) {
		stateKinds[f.Path] = f.Kind
	}
	var configErr, topologyErr, stateErr error
	for _, it := range ev.Items() {
		switch kind, inDir := stateKinds[it.File]; {
		case it.File == n.configPath && (it.Kind != evidence.KindConfig || !it.Used()):
			configErr = errors.New(notRead(it, "not a kubelet configuration"))
		case it.File == nf.topology && (it.Kind != evidence.KindTopology || !it.Used() || ev.Machine == nil):
			topologyErr = fmt.Errorf("--topology: %s", notRead(it, "no machine topology in it: give a sysfs snapshot or cAdvisor machine-info JSON"))
		case inDir && kind != statefile.KindDRA && it.Status == "refused" && stateErr == nil:
			stateErr = fmt.Errorf("--state-dir: %s", it.Error)
		}
	}
	if configErr != nil {
		return nil, configErr
	}
	if nf.policy == "" && (ev.Config == nil || ev.Config.TopologyManagerPolicy == "") {
		return nil, errors.New("no topology manager policy: give --policy P or a kubelet config (--kubelet-config)")
	}
	s := evidence.NodeSettings{Policy: nf.policy, Scope: nf.scope, ReservedCPUs: nf.reserved}
	if n.set["option"] {
		s.Options = nf.options
	}
	if n.set["cpu-option"] {
		s.CPUPolicyOptions = nf.cpuOptions
	}
	cfg, cfgErr := ev.NodeConfig(s)
	switch cfg.Policy {
	case topomgr.PolicyNone, topomgr.PolicyBestEffort, topomgr.PolicyRestricted, topomgr.PolicySingleNumaNode:
	default:
		return nil, fmt.Errorf("%s %q: not a Topology Manager policy: give none, best-effort, restricted or single-numa-node", n.from("policy", "topologyManagerPolicy"), cfg.Policy)
	}
	switch cfg.Scope {
	case topomgr.ScopeContainer, topomgr.ScopePod:
	default:
		return nil, fmt.Errorf("%s %q: not a Topology Manager scope: give container or pod", n.from("scope", "topologyManagerScope"), cfg.Scope)
	}
	data, err := input.ReadFile(nf.pod, "--pod", input.MaxDocument)
	if err != nil {
		return nil, err
	}
	if n.pod, err = topomgr.ParsePod(data); err != nil {
		return nil, fmt.Errorf("%s: %w", nf.pod, err)
	}
	switch {
	case topologyErr != nil:
		return nil, topologyErr
	case cfgErr != nil:
		return nil, fmt.Errorf("%s: %w: give CPU ids such as 0-1 or 0,32", n.from("reserved-cpus", "reservedSystemCPUs"), cfgErr)
	case stateErr != nil:
		return nil, stateErr
	}
	cfg.Gates.KubeletVersion = nf.version
	for _, k := range []statefile.Kind{statefile.KindCPU, statefile.KindMemory, statefile.KindDevice} {
		f := ev.State(k)
		if f == nil {
			continue
		}
		if nf.version != "" {
			// the door gives the newest kubelet's verdict: this release's instead
			if in, ok := ev.StateInput(f); ok {
				in.Options.KubeletVersion = nf.version
				if g, err := ev.DecodeState(in.Data, in.Options); err == nil {
					f = g
				}
			}
		}
		if !f.KubeletAccepts {
			return nil, fmt.Errorf("--state-dir: %s: the kubelet would not restore this file (%s): fix it first (inspect %s lists every problem)", f.Name, f.Reason, f.Name)
		}
	}
	if nf.allocatable != "" {
		// a GetAllocatableResources answer alone, which the door's
		// PodResources reader (a List answer or a snapshot) does not take
		data, err := input.ReadFile(nf.allocatable, "--allocatable", input.MaxPodResources)
		if err != nil {
			return nil, err
		}
		if cfg.Allocatable, err = podresources.DecodeAllocatable(data); err != nil {
			return nil, fmt.Errorf("%s: %w", nf.allocatable, err)
		}
	}
	n.cfg = cfg
	return n, nil
}

// notRead says why the door did not read an input as the kind its flag
// names: the reader's error, or what it read the input as instead (its
// warnings say so, with the reader's words), or what is missing.
func notRead(it evidence.Item, what string) string {
	switch {
	case it.Error != "":
		return it.Error
	case it.Used() && len(it.Warnings) > 0:
		return it.File + ": " + strings.Join(it.Warnings, "; ")
	}
	return it.File + ": " + what + " (" + it.Note + ")"
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
	n, err := loadNode(nf)
	if err != nil {
		return fail("%v", err)
	}
	pod, cfg, configPath, set := n.pod, n.cfg, n.configPath, n.set
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
	fmt.Fprintln(stdout, nodeVerdict(pod, res, cfg.Policy))
	w := &tw{w: stdout}
	w.line("pod", fmt.Sprintf("%s/%s (QoS %s)", pod.Namespace, pod.Name, pod.QOS()))
	w.line("machine", fmt.Sprintf("%d NUMA nodes, %d CPUs", len(cfg.Machine.Nodes), len(cfg.Machine.CPUs)))
	w.line("policy", cfg.Policy+"  scope: "+cfg.Scope+optionsText(cfg.Options))
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
