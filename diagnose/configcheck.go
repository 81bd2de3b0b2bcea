package diagnose

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/numascope/numascope/internal/units"
	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// configChecks reports configurations the kubelet refuses at start-up.
func (d *diagnosis) configChecks() {
	c := d.ev.Config
	if c == nil {
		return
	}
	ref := func(path, quote string) Ref {
		field := strings.TrimPrefix(path, "/")
		r := Ref{File: c.SourceOf(field), Path: path, Quote: quote}
		if l := c.Line(field); l > 0 && fromFlagsOnly(c) {
			r.Line = l // a command line has lines, not JSON pointers
		}
		return r
	}
	d.configProvenance(c)
	policy := c.EffectiveTopologyPolicy()
	valid := map[string]bool{"none": true, "best-effort": true, "restricted": true, "single-numa-node": true}
	switch {
	case !valid[policy]:
		d.addStartPrediction(c, false, Finding{Code: CodeInvalidTopologyConfig, Severity: statefile.SeverityError,
			Title:       fmt.Sprintf("topologyManagerPolicy %q is not a policy: the kubelet will not start", policy),
			Evidence:    []Ref{ref("/topologyManagerPolicy", policy)},
			Explanation: fmt.Sprintf("The kubelet validates its configuration at start-up and stops with \"topologyManagerPolicy (--topology-manager-policy) %q must be one of: [none best-effort restricted single-numa-node]\". Names are lower case with dashes.", policy),
			Remedy:      "Set topologyManagerPolicy to none, best-effort, restricted or single-numa-node and restart the kubelet.",
		})
	case c.EffectiveTopologyScope() != "container" && c.EffectiveTopologyScope() != "pod":
		d.addStartPrediction(c, false, Finding{Code: CodeInvalidTopologyConfig, Severity: statefile.SeverityError,
			Title:       fmt.Sprintf("topologyManagerScope %q is not a scope: the kubelet will not start", c.EffectiveTopologyScope()),
			Evidence:    []Ref{ref("/topologyManagerScope", c.TopologyManagerScope)},
			Explanation: "The kubelet validates its configuration at start-up and accepts only the scopes container and pod.",
			Remedy:      "Set topologyManagerScope to container (the default) or pod and restart the kubelet.",
		})
	case policy != "none" && len(c.TopologyManagerPolicyOptions) > 0:
		gates := topomgr.DefaultFeatureGates()
		if v, ok := c.FeatureGates["TopologyManagerPolicyAlphaOptions"]; ok {
			gates.TopologyManagerPolicyAlphaOptions = v
		}
		if v, ok := c.FeatureGates["TopologyManagerPolicyBetaOptions"]; ok {
			gates.TopologyManagerPolicyBetaOptions = v
		}
		if _, err := topomgr.NewPolicyOptions(c.TopologyManagerPolicyOptions, gates); err != nil {
			d.addStartPrediction(c, false, Finding{Code: CodeInvalidTopologyConfig, Severity: statefile.SeverityError,
				Title:       "topologyManagerPolicyOptions are refused: the kubelet will not start",
				Evidence:    []Ref{ref("/topologyManagerPolicyOptions", fmt.Sprint(c.TopologyManagerPolicyOptions))},
				Explanation: fmt.Sprintf("The Topology Manager parses its policy options when the kubelet starts and stops on the first bad one: %v.", err),
				Remedy:      "Fix or remove the option (known options: prefer-closest-numa-nodes=true|false, max-allowable-numa-nodes=N with N >= 8); enable the feature gate the option's maturity needs.",
			})
		}
	}
	if c.EffectiveCPUManagerPolicy() == "static" && c.ReservedSystemCPUs == "" && reservedCPU(c.SystemReserved)+reservedCPU(c.KubeReserved) == 0 {
		// Warnings, not errors: command-line flags (--reserved-cpus,
		// --system-reserved, --kube-reserved, --reserved-memory) override the file.
		d.addStartPrediction(c, true, Finding{Code: CodeReservationMissing, Severity: statefile.SeverityWarning,
			Title:    "cpuManagerPolicy static without any reserved CPU: the kubelet will not start",
			Evidence: []Ref{ref("/cpuManagerPolicy", c.CPUManagerPolicy)},
			Explanation: "The static CPU manager keeps reserved CPUs out of exclusive assignment and refuses to start with none: \"[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu " +
				"to be greater than zero\". Unless the kubelet's command line sets --reserved-cpus, --system-reserved or --kube-reserved, this configuration does not start.",
			Remedy: "Set reservedSystemCPUs (for example \"0\", or whole cores such as \"0,64\" on SMT machines), or systemReserved/kubeReserved cpu, and restart the kubelet.",
		})
	}
	if c.EffectiveMemoryManagerPolicy() == "Static" {
		d.memoryReservation(c, ref)
	}
}

func reservedCPU(m map[string]string) int64 {
	q, err := topomgr.ParseQuantity(m["cpu"])
	if err != nil {
		return 0
	}
	return q.Value()
}

func bytesOf(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	q, err := topomgr.ParseQuantity(s)
	if err != nil {
		return 0, false
	}
	return q.Value(), true
}

// memoryReservation checks the static memory manager's start-up rule: the
// per-NUMA reservedMemory must add up to what Node Allocatable reserves.
func (d *diagnosis) memoryReservation(c *topomgr.KubeletConfig, ref func(string, string) Ref) {
	var reserved int64
	byType := map[string]int64{}
	for _, r := range c.ReservedMemory {
		for t, v := range r.Limits {
			b, _ := bytesOf(v)
			byType[t] += b
		}
	}
	reserved = byType["memory"]
	if reserved == 0 {
		d.addStartPrediction(c, true, Finding{Code: CodeReservationMissing, Severity: statefile.SeverityWarning,
			Title:       "memoryManagerPolicy Static without reservedMemory: the kubelet will not start",
			Evidence:    []Ref{ref("/memoryManagerPolicy", c.MemoryManagerPolicy)},
			Explanation: "The static memory manager needs to know how much memory of each NUMA node is reserved for the system and stops with \"[memorymanager] you should specify the system reserved memory\" when reservedMemory has none (unless --reserved-memory is set on the command line).",
			Remedy:      "Add reservedMemory entries (per NUMA node) whose memory adds up to systemReserved + kubeReserved + the memory.available hard-eviction threshold, and restart the kubelet.",
		})
		return
	}
	sys, _ := bytesOf(c.SystemReserved["memory"])
	kube, _ := bytesOf(c.KubeReserved["memory"])
	evict, ok := bytesOf(c.EvictionHard["memory.available"])
	evictNote := "memory.available " + c.EvictionHard["memory.available"]
	switch {
	case c.EvictionHard == nil:
		evict, evictNote = 100<<20, "the default hard-eviction threshold memory.available<100Mi"
	case !ok:
		return // a percentage, or defaults merged by the kubelet: the figure needs the machine's capacity
	}
	want := sys + kube + evict
	if reserved == want {
		return
	}
	var per []string
	for _, r := range c.ReservedMemory {
		per = append(per, fmt.Sprintf("NUMA node %d: %s", r.NumaNode, r.Limits["memory"]))
	}
	sort.Strings(per)
	d.addStartPrediction(c, !completeConfig(c), Finding{Code: CodeReservedMemoryMismatch, Severity: statefile.SeverityWarning,
		Title:    fmt.Sprintf("reservedMemory adds up to %s but Node Allocatable reserves %s: the kubelet will not start", units.Quantity(reserved), units.Quantity(want)),
		Evidence: []Ref{ref("/reservedMemory", strings.Join(per, ", ")), ref("/systemReserved", c.SystemReserved["memory"])},
		Explanation: fmt.Sprintf("With the Static memory manager the reservedMemory of all NUMA nodes must equal, per memory type, the memory Node Allocatable keeps back: systemReserved (%s) + kubeReserved (%s) + %s = %s. "+
			"Here it adds up to %s, so the kubelet stops with \"the total amount ... of type \\\"memory\\\" is not equal to the value ... determined by Node Allocatable feature\", "+
			"unless its command line sets --system-reserved, --kube-reserved, --eviction-hard or --reserved-memory to other values (flags override the file).",
			units.Quantity(sys), units.Quantity(kube), evictNote, units.Quantity(want), units.Quantity(reserved)),
		Remedy: "Make the reservedMemory entries add up to exactly systemReserved + kubeReserved + the memory.available eviction threshold, and restart the kubelet.",
	})
}

// fromLineRE finds the source an override note names first.
var fromLineRE = regexp.MustCompile(`from (\S+) line (\d+)`)

// flagFormats are the Formats of a kubelet command line.
var flagFormats = map[string]bool{"flags": true, "ps": true, "cmdline": true, "systemd": true, "env-file": true, "flag-dump": true}

// fromFlagsOnly reports a configuration read only from a command line.
func fromFlagsOnly(c *topomgr.KubeletConfig) bool {
	for _, f := range strings.Split(c.Format, "+") {
		if !flagFormats[f] {
			return false
		}
	}
	return true
}

// configProvenance reports what the kubelet would refuse in the
// configuration sources, and what they warn about.
func (d *diagnosis) configProvenance(c *topomgr.KubeletConfig) {
	if c.KubeletRefuses != "" {
		f := Finding{Code: CodeInvalidTopologyConfig, Severity: statefile.SeverityWarning,
			Evidence: []Ref{{File: c.Source, Quote: c.KubeletRefuses}}}
		if strings.HasPrefix(c.KubeletRefuses, "failed to decode: ") {
			f.Title = "The kubelet would not start with this file as its --config: " + c.KubeletRefuses
			f.Explanation = "The kubelet decodes its --config file with its scheme and requires kind: KubeletConfiguration and apiVersion: kubelet.config.k8s.io/v1beta1; without them it stops with \"failed to load Kubelet config file ..., error " + c.KubeletRefuses + "\". " +
				"A fragment pasted from a ticket often leaves the header out, so this does not prove the node's file lacks it: the settings were read as written."
			f.Remedy = "Check the head of the node's file (usually /var/lib/kubelet/config.yaml): it must start with apiVersion: kubelet.config.k8s.io/v1beta1 and kind: KubeletConfiguration; add them if missing and restart the kubelet."
		} else {
			f.Title = "The kubelet would not start with this command line: " + c.KubeletRefuses
			f.Explanation = "The kubelet parses its flags before anything else and exits on the first one it refuses, with the error quoted. If the node's kubelet is running, its command line differs from this paste (a typo made when copying it, or a change not yet applied by a restart)."
			f.Remedy = "Fix the flag as the warning about it says (one dash is a shorthand: write --name=value; give --cpu-manager-policy-options once per option) and restart the kubelet."
		}
		d.addStartPrediction(c, false, f)
	}
	sources := strings.Split(c.Source, ", ")
	for _, w := range c.Warnings {
		file, text := c.Source, w
		for _, s := range sources {
			if len(sources) > 1 && strings.HasPrefix(w, s+": ") {
				file, text = s, strings.TrimPrefix(w, s+": ")
			}
		}
		if m := fromLineRE.FindStringSubmatch(w); m != nil && file == c.Source && len(sources) > 1 {
			file = m[1] // an override names its source
		}
		path, _, _ := strings.Cut(text, ":")
		r := Ref{File: file}
		if strings.HasPrefix(path, "/") {
			r.Path = path
		} else if n, err := strconv.Atoi(strings.TrimPrefix(path, "line ")); err == nil {
			r.Line = n
		}
		if m := fromLineRE.FindStringSubmatch(text); m != nil && r.Line == 0 && r.Path == "" && m[1] == file {
			r.Line, _ = strconv.Atoi(m[2])
		}
		switch {
		case strings.Contains(w, "case-sensitive"):
			d.add(Finding{Code: CodeInvalidTopologyConfig, Severity: statefile.SeverityWarning,
				Title:       "The kubelet ignores a key of the configuration: " + w,
				Evidence:    []Ref{r},
				Explanation: "The kubelet decodes its configuration case-sensitively: a key spelled in another case is an unknown field, which the kubelet drops (with only a log warning), so the setting takes its default.",
				Remedy:      "Spell the key as the KubeletConfiguration reference does and restart the kubelet.",
			})
		case strings.Contains(w, "the kubelet refuses this value"), strings.Contains(w, "has one dash"), strings.Contains(w, "takes one option per flag"):
			// reported with KubeletRefuses
		default:
			d.add(Finding{Code: CodeInvalidTopologyConfig, Severity: statefile.SeverityInfo,
				Title:       "Kubelet configuration: " + w,
				Evidence:    []Ref{r},
				Explanation: "How the kubelet reads and layers its configuration sources (the --config file, its drop-ins, then the command line, whose flags win) decides the values numascope used; this note says where a value came from or what could not be read.",
				Remedy:      "None needed if the values numascope used are the node's; otherwise pass the missing source (the --config file, /configz output, or the full command line from ps auxww).",
			})
		}
	}
	if c.ConfigFile != "" && fromFlagsOnly(c) {
		d.add(Finding{Code: CodeInvalidTopologyConfig, Severity: statefile.SeverityInfo,
			Title:       "The command line names --config " + c.ConfigFile + ", which was not given: settings only that file makes are unknown",
			Evidence:    []Ref{{File: c.Source, Quote: "--config=" + c.ConfigFile}},
			Explanation: "The kubelet reads the --config file first and applies its flags over it. Only the flags were given, so every field no flag sets was taken as the kubelet's default, though the file may set it (the Topology, CPU and Memory Manager policies are often set there).",
			Remedy:      "Pass the file too (cat " + c.ConfigFile + ", or kubectl get --raw /api/v1/nodes/NODE/proxy/configz for the merged result).",
		})
	}
}

// completeConfig tells whether a configuration is the whole of what the
// kubelet runs with, so that a field it lacks is a field the kubelet does
// not have: /configz output, or a KubeletConfiguration file the kubelet
// reads as its --config. A fragment, a command line (the file has the
// rest) or a wrapper the kubelet's tooling merges is not.
func completeConfig(c *topomgr.KubeletConfig) bool {
	return c.Configz || c.Format == "file" && c.KubeletRefuses == ""
}

// addStartPrediction adds a finding that predicts from the configuration
// that the kubelet will not start, unless the evidence says otherwise: a
// log of this kubelet admitting pods shows it runs, so the configuration
// it runs with is not this one (flags override the file); and a
// conclusion from a field missing (absent) from a source that is not the
// whole configuration proves nothing, so it becomes a note naming what to
// add.
func (d *diagnosis) addStartPrediction(c *topomgr.KubeletConfig, absent bool, f Finding) {
	if ref, ok := d.kubeletAdmitting(); ok {
		f.Severity = statefile.SeverityInfo
		if t := strings.Replace(f.Title, "the kubelet will not start", "yet the log shows this kubelet running", 1); t != f.Title {
			f.Title = t
		} else {
			f.Title += "; yet the log shows this kubelet running"
		}
		f.Explanation += " The log shows this kubelet admitting pods (" + ref.String() + "), so it started: the configuration it runs with differs from " + c.Source +
			" (the command line overrides the file, or the file was changed since it started)."
		f.Remedy = "Compare " + c.Source + " with the kubelet's running configuration (`kubectl get --raw /api/v1/nodes/NODE/proxy/configz`) before its next restart: " + f.Remedy
		f.Evidence = append(f.Evidence, ref)
	} else if absent && !completeConfig(c) {
		f.Severity = statefile.SeverityInfo
		f.Title = strings.Replace(f.Title, "the kubelet will not start", "not in what was given: if the node's configuration has none either, the kubelet will not start", 1)
		f.Explanation += " " + c.Source + " is not the whole configuration (a fragment, a command line, or a wrapper merged with defaults), so that it lacks the setting does not show the node lacks it."
		f.Remedy = "Add the whole configuration: the kubelet's /configz (`kubectl get --raw /api/v1/nodes/NODE/proxy/configz`) or its --config file with the command line. " + f.Remedy
	}
	d.add(f)
}

// kubeletAdmitting returns a log line that shows the kubelet admitting a
// pod (an admission attempt with its outcome, or one that went on to the
// resource managers).
func (d *diagnosis) kubeletAdmitting() (Ref, bool) {
	for _, l := range d.ev.Logs {
		for _, a := range l.Attempts {
			if a.ResultLine > 0 || len(a.Containers) > 0 {
				return Ref{File: l.Name, Line: a.StartLine, Quote: "admission of " + a.Pod}, true
			}
		}
	}
	return Ref{}, false
}
