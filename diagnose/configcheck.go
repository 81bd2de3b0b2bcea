package diagnose

import (
	"fmt"
	"sort"
	"strings"

	"github.com/numascope/numascope/statefile"
	"github.com/numascope/numascope/topomgr"
)

// Further configuration codes.
const (
	CodeInvalidTopologyConfig  = "InvalidTopologyManagerConfig"
	CodeReservationMissing     = "ReservationMissing"
	CodeReservedMemoryMismatch = "ReservedMemoryMismatch"
)

// configChecks reports configurations the kubelet refuses at start-up.
func (d *diagnosis) configChecks() {
	c := d.ev.Config
	if c == nil {
		return
	}
	ref := func(path, quote string) Ref { return Ref{File: c.Source, Path: path, Quote: quote} }
	for _, w := range c.Warnings {
		path, _, _ := strings.Cut(w, ":")
		d.add(Finding{Code: CodeInvalidTopologyConfig, Severity: statefile.SeverityWarning,
			Title:       "The kubelet ignores a key of the configuration: " + w,
			Evidence:    []Ref{ref(path, "")},
			Explanation: "The kubelet decodes its configuration case-sensitively: a key spelled in another case is an unknown field, which the kubelet drops (with only a log warning), so the setting takes its default.",
			Remedy:      "Spell the key as the KubeletConfiguration reference does and restart the kubelet.",
		})
	}
	policy := c.EffectiveTopologyPolicy()
	valid := map[string]bool{"none": true, "best-effort": true, "restricted": true, "single-numa-node": true}
	switch {
	case !valid[policy]:
		d.add(Finding{Code: CodeInvalidTopologyConfig, Severity: statefile.SeverityError,
			Title:       fmt.Sprintf("topologyManagerPolicy %q is not a policy: the kubelet will not start", policy),
			Evidence:    []Ref{ref("/topologyManagerPolicy", policy)},
			Explanation: fmt.Sprintf("The kubelet validates its configuration at start-up and stops with \"topologyManagerPolicy (--topology-manager-policy) %q must be one of: [none best-effort restricted single-numa-node]\". Names are lower case with dashes.", policy),
			Remedy:      "Set topologyManagerPolicy to none, best-effort, restricted or single-numa-node and restart the kubelet.",
		})
	case c.EffectiveTopologyScope() != "container" && c.EffectiveTopologyScope() != "pod":
		d.add(Finding{Code: CodeInvalidTopologyConfig, Severity: statefile.SeverityError,
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
			d.add(Finding{Code: CodeInvalidTopologyConfig, Severity: statefile.SeverityError,
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
		d.add(Finding{Code: CodeReservationMissing, Severity: statefile.SeverityWarning,
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
func (d *diagnosis) memoryReservation(c *KubeletConfig, ref func(string, string) Ref) {
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
		d.add(Finding{Code: CodeReservationMissing, Severity: statefile.SeverityWarning,
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
	d.add(Finding{Code: CodeReservedMemoryMismatch, Severity: statefile.SeverityWarning,
		Title:    fmt.Sprintf("reservedMemory adds up to %s but Node Allocatable reserves %s: the kubelet will not start", formatBytes(reserved), formatBytes(want)),
		Evidence: []Ref{ref("/reservedMemory", strings.Join(per, ", ")), ref("/systemReserved", c.SystemReserved["memory"])},
		Explanation: fmt.Sprintf("With the Static memory manager the reservedMemory of all NUMA nodes must equal, per memory type, the memory Node Allocatable keeps back: systemReserved (%s) + kubeReserved (%s) + %s = %s. "+
			"Here it adds up to %s, so the kubelet stops with \"the total amount ... of type \\\"memory\\\" is not equal to the value ... determined by Node Allocatable feature\", "+
			"unless its command line sets --system-reserved, --kube-reserved, --eviction-hard or --reserved-memory to other values (flags override the file).",
			formatBytes(sys), formatBytes(kube), evictNote, formatBytes(want), formatBytes(reserved)),
		Remedy: "Make the reservedMemory entries add up to exactly systemReserved + kubeReserved + the memory.available eviction threshold, and restart the kubelet.",
	})
}
