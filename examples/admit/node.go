package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/numascope/numascope/diagnose/evidence"
	"github.com/numascope/numascope/internal/cliout"
	"github.com/numascope/numascope/internal/input"
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
	configPath := nf.config
	if configPath == "" {
		if _, err := os.Stat(filepath.Join(nf.stateDir, "config.yaml")); err == nil {
			configPath = filepath.Join(nf.stateDir, "config.yaml")
		}
	}
	if st, err := os.Stat(nf.stateDir); err != nil || !st.IsDir() {
		return fail("--state-dir %s: not a directory", nf.stateDir)
	}
	// The node's evidence through the door: the configuration first, so
	// that the checkpoints are judged against the policies it configures.
	src := evidence.Sources{StateDir: nf.stateDir, Topology: nf.topology}
	if configPath != "" {
		src.KubeletConfig = []string{configPath}
	}
	ev, err := evidence.Load(src)
	if err != nil {
		return fail("%v", err)
	}
	items := ev.Items()
	// each input's error in the order admit names them: the
	// configuration, the settings, the pod, the topology, the checkpoints
	for _, it := range items {
		if it.File == configPath && (it.Kind != evidence.KindConfig || !it.Used()) {
			if it.Error == "" {
				it.Error = configPath + ": not a kubelet configuration (" + it.Note + ")"
			}
			return fail("%s", it.Error)
		}
	}
	if nf.policy == "" && (ev.Config == nil || ev.Config.TopologyManagerPolicy == "") {
		fmt.Fprintln(stderr, "admit: no topology manager policy: give --policy P or a kubelet config (--kubelet-config)")
		return 2
	}
	// where a setting came from, for the error that names it
	from := func(flagName, field string) string {
		if set[flagName] || configPath == "" {
			return "--" + flagName
		}
		return configPath + ": " + field
	}
	s := evidence.NodeSettings{Policy: nf.policy, Scope: nf.scope, ReservedCPUs: nf.reserved}
	if set["option"] {
		s.Options = nf.options
	}
	if set["cpu-option"] {
		s.CPUPolicyOptions = nf.cpuOptions
	}
	cfg, cfgErr := ev.NodeConfig(s)
	switch cfg.Policy {
	case topomgr.PolicyNone, topomgr.PolicyBestEffort, topomgr.PolicyRestricted, topomgr.PolicySingleNumaNode:
	default:
		return fail("%s %q: not a Topology Manager policy: give none, best-effort, restricted or single-numa-node", from("policy", "topologyManagerPolicy"), cfg.Policy)
	}
	switch cfg.Scope {
	case topomgr.ScopeContainer, topomgr.ScopePod:
	default:
		return fail("%s %q: not a Topology Manager scope: give container or pod", from("scope", "topologyManagerScope"), cfg.Scope)
	}
	data, err := input.ReadFile(nf.pod, "--pod", input.MaxDocument)
	if err != nil {
		return fail("%v", err)
	}
	pod, err := topomgr.ParsePod(data)
	if err != nil {
		return fail("%s: %v", nf.pod, err)
	}
	for _, it := range items {
		if it.File == nf.topology && (it.Kind != evidence.KindTopology || !it.Used() || ev.Machine == nil) {
			if it.Error == "" {
				it.Error = nf.topology + ": no machine topology in it (" + it.Note + "): give a sysfs snapshot or cAdvisor machine-info JSON"
			}
			return fail("--topology: %s", it.Error)
		}
	}
	if cfgErr != nil {
		return fail("%s: %v: give CPU ids such as 0-1 or 0,32", from("reserved-cpus", "reservedSystemCPUs"), cfgErr)
	}
	cfg.Gates.KubeletVersion = nf.version
	// the checkpoints admit reads (a missing one is no error: the kubelet
	// starts it empty); dra_manager_state plays no part
	stateKinds := map[string]statefile.Kind{}
	for _, f := range evidence.StateFiles(nf.stateDir) {
		stateKinds[f.Path] = f.Kind
	}
	for _, it := range items {
		if kind, inDir := stateKinds[it.File]; inDir && kind != statefile.KindDRA && it.Status == "refused" {
			return fail("--state-dir: %s", it.Error)
		}
	}
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
			return fail("--state-dir: %s: the kubelet would not restore this file (%s): fix it first (inspect %s lists every problem)", f.Name, f.Reason, f.Name)
		}
	}
	if nf.allocatable != "" {
		// a GetAllocatableResources answer alone, which the door's
		// PodResources reader (a List answer or a snapshot) does not take
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
