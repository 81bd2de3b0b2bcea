package conformance

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	cadvisorapi "github.com/google/cadvisor/lib/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/cm/admission"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/topology"
	tm "k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"k8s.io/utils/cpuset"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/numascope/numascope/statefile"
	ns "github.com/numascope/numascope/topomgr"
)

// This file runs the kubelet's CPU manager static policy
// (k8s.io/kubernetes v1.37.2 pkg/kubelet/cm/cpumanager) side by side with
// numascope's CPU hint provider and admission simulator, on random
// machines (one to three sockets, one or two NUMA nodes per socket or one
// NUMA node over two sockets, SMT off, two or four threads per core, one or
// two uncore caches per socket, two CPU numberings), random restored states,
// reserved CPUs, static policy options and one guaranteed (or not)
// container. Compared: the kubelet's refusal to start (options, the
// options against the machine and the Topology Manager policy, the state's
// reserved CPUs), the CPU hints (GetTopologyHints or GetPodTopologyHints),
// the merged hint and verdict, and Allocate's error as the admission
// reports it (reason SMTAlignmentError with the kubelet's message, or
// UnexpectedAdmissionError for "not enough cpus available").
//
// One exclusive container per case: numascope's Allocate does not pick the
// same CPUs as the kubelet's takeByTopology within a wider affinity (the
// counts that decide SMTAlignmentError and "not enough cpus" are the same),
// so a later container's hints could differ; the restored states give the
// pools that earlier containers leave.

// affinityStore is the Topology Manager as the static policy sees it: the
// policy and the hint the merge stored for the container.
type affinityStore struct {
	policy tm.Policy
	hint   tm.TopologyHint
}

func (s *affinityStore) GetAffinity(logr.Logger, string, string) tm.TopologyHint { return s.hint }
func (s *affinityStore) GetPolicy() tm.Policy                                    { return s.policy }
func (s *affinityStore) Name() string                                            { return "conformance" }

// cpuCase is one random case.
type cpuCase struct {
	topo      *topology.CPUTopology
	machine   *ns.Machine
	reserved  cpuset.CPUSet
	def       cpuset.CPUSet
	entries   map[string]map[string]cpuset.CPUSet
	options   map[string]string
	tmPolicy  string
	scope     string
	pod       *v1.Pod
	alphaGate bool
}

func (c *cpuCase) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sockets %d numa %d cores %d cpus %d uncore %d; tm %s/%s; options %v; reserved %q; default %q; entries %v; alpha gate %v\n",
		c.topo.NumSockets, c.topo.NumNUMANodes, c.topo.NumCores, c.topo.NumCPUs, c.topo.NumUncoreCache, c.tmPolicy, c.scope, c.options, c.reserved, c.def, c.entries, c.alphaGate)
	ids := make([]int, 0, len(c.topo.CPUDetails))
	for id := range c.topo.CPUDetails {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		d := c.topo.CPUDetails[id]
		fmt.Fprintf(&b, " %d:c%d/s%d/n%d/u%d", id, d.CoreID, d.SocketID, d.NUMANodeID, d.UncoreCacheID)
	}
	for _, ct := range c.pod.Spec.Containers {
		fmt.Fprintf(&b, "\ncontainer %s requests %v limits %v", ct.Name, ct.Resources.Requests, ct.Resources.Limits)
	}
	return b.String()
}

// randomCPUCase builds a machine, a state and a pod.
func randomCPUCase(r *rand.Rand, alphaGate bool) *cpuCase {
	sockets := 1 + r.IntN(3)
	numaPerSocket := 1 + r.IntN(2)
	spanning := sockets == 2 && r.IntN(6) == 0 // one NUMA node over two sockets
	coresPerNUMA := 1 + r.IntN(4)
	threads := []int{1, 2, 2, 2, 4}[r.IntN(5)]
	uncorePerSocket := 1 + r.IntN(2)
	type coreSpec struct{ socket, numa, uncore int }
	var cores []coreSpec
	for s := 0; s < sockets; s++ {
		for n := 0; n < numaPerSocket; n++ {
			numa := s*numaPerSocket + n
			if spanning {
				numa = 0
			}
			for k := 0; k < coresPerNUMA; k++ {
				cores = append(cores, coreSpec{socket: s, numa: numa, uncore: s*uncorePerSocket + k%uncorePerSocket})
			}
		}
	}
	// Linux numbers the first thread of every core first; some machines
	// number siblings next to each other.
	interleaved := r.IntN(2) == 0
	details := topology.CPUDetails{}
	machine := &ns.Machine{Format: "conformance"}
	nodes := map[int]bool{}
	for k, cs := range cores {
		var ids []int
		for t := 0; t < threads; t++ {
			id := t*len(cores) + k
			if interleaved {
				id = k*threads + t
			}
			ids = append(ids, id)
		}
		coreID := ids[0]
		for _, id := range ids {
			coreID = min(coreID, id)
		}
		for _, id := range ids {
			details[id] = topology.CPUInfo{CoreID: coreID, SocketID: cs.socket, NUMANodeID: cs.numa, UncoreCacheID: cs.uncore}
			machine.CPUs = append(machine.CPUs, ns.CPU{ID: id, Core: coreID, Socket: cs.socket, NUMA: cs.numa})
		}
		nodes[cs.numa] = true
	}
	sort.Slice(machine.CPUs, func(i, j int) bool { return machine.CPUs[i].ID < machine.CPUs[j].ID })
	var nodeIDs []int
	for n := range nodes {
		nodeIDs = append(nodeIDs, n)
	}
	sort.Ints(nodeIDs)
	for _, n := range nodeIDs {
		machine.Nodes = append(machine.Nodes, ns.NUMANode{ID: n})
	}
	topo := &topology.CPUTopology{NumCPUs: len(details), NumCores: len(cores), NumSockets: sockets, CPUDetails: details}
	topo.NumNUMANodes = details.NUMANodes().Size()
	topo.NumUncoreCache = details.UncoreCaches().Size()
	all := details.CPUs()
	c := &cpuCase{topo: topo, machine: machine, alphaGate: alphaGate, entries: map[string]map[string]cpuset.CPUSet{}}

	// Reserved CPUs: none, the first CPU, a whole first core, or a random few.
	switch r.IntN(4) {
	case 0:
		c.reserved = cpuset.New()
	case 1:
		c.reserved = cpuset.New(0)
	case 2:
		c.reserved = details.CPUsInCores(details[0].CoreID)
	default:
		var ids []int
		for _, id := range all.List() {
			if r.IntN(6) == 0 {
				ids = append(ids, id)
			}
		}
		c.reserved = cpuset.New(ids...)
	}
	// Options.
	c.options = map[string]string{}
	for _, o := range []string{cpumanager.FullPCPUsOnlyOption, cpumanager.DistributeCPUsAcrossNUMAOption, cpumanager.AlignBySocketOption,
		cpumanager.DistributeCPUsAcrossCoresOption, cpumanager.StrictCPUReservationOption, cpumanager.PreferAlignByUnCoreCacheOption} {
		switch r.IntN(8) {
		case 0, 1:
			if o != cpumanager.DistributeCPUsAcrossCoresOption || r.IntN(3) == 0 {
				c.options[o] = "true"
			}
		case 2:
			c.options[o] = "false"
		}
	}
	if r.IntN(3) == 0 { // most cases run with full-pcpus-only alone
		c.options = map[string]string{cpumanager.FullPCPUsOnlyOption: "true"}
		if r.IntN(3) == 0 {
			c.options[cpumanager.AlignBySocketOption] = "true"
		}
	}
	if r.IntN(40) == 0 {
		c.options["full-pcpus-only"] = "yes"
	}
	if r.IntN(40) == 0 {
		c.options["no-such-option"] = "true"
	}
	c.tmPolicy = []string{tm.PolicyBestEffort, tm.PolicyRestricted, tm.PolicySingleNumaNode}[r.IntN(3)]
	c.scope = []string{tm.ContainerTopologyScope, tm.PodTopologyScope}[r.IntN(2)]
	strict := c.options[cpumanager.StrictCPUReservationOption] == "true"

	// State: a fresh one, or other pods holding random whole cores or CPUs.
	free := all.Difference(c.reserved)
	c.def = all
	if strict {
		c.def = all.Difference(c.reserved)
	}
	switch r.IntN(5) {
	case 0:
		c.def = cpuset.New() // fresh: Start fills it
	default:
		for p := r.IntN(3); p > 0; p-- {
			var taken []int
			for _, id := range free.List() {
				if r.IntN(3) == 0 {
					if r.IntN(2) == 0 {
						taken = append(taken, details.CPUsInCores(details[id].CoreID).Intersection(free).List()...)
					} else {
						taken = append(taken, id)
					}
				}
			}
			set := cpuset.New(taken...)
			if set.IsEmpty() {
				continue
			}
			uid := fmt.Sprintf("other-%d", p)
			c.entries[uid] = map[string]cpuset.CPUSet{"app": set}
			free = free.Difference(set)
			c.def = c.def.Difference(set)
		}
	}
	if r.IntN(30) == 0 && !c.reserved.IsEmpty() && !c.def.IsEmpty() {
		// A state the static policy refuses: a reserved CPU handed out.
		cpu := c.reserved.List()[0]
		if strict {
			c.def = c.def.Union(cpuset.New(cpu))
		} else {
			c.def = c.def.Difference(cpuset.New(cpu))
			c.entries["thief"] = map[string]cpuset.CPUSet{"app": cpuset.New(cpu)}
		}
	}

	// The pod: one container, guaranteed with an integral or fractional
	// CPU request, or burstable.
	n := 1 + r.IntN(len(details))
	if r.IntN(4) == 0 {
		n = 1 + r.IntN(4)
	}
	cpu := resource.NewQuantity(int64(n), resource.DecimalSI)
	if r.IntN(12) == 0 {
		cpu = resource.NewMilliQuantity(int64(n)*1000+500, resource.DecimalSI)
	}
	mem := resource.MustParse("1Gi")
	req := v1.ResourceList{v1.ResourceCPU: *cpu, v1.ResourceMemory: mem}
	lim := v1.ResourceList{v1.ResourceCPU: *cpu, v1.ResourceMemory: mem}
	if r.IntN(12) == 0 {
		lim = v1.ResourceList{v1.ResourceCPU: *resource.NewQuantity(int64(n)+1, resource.DecimalSI), v1.ResourceMemory: mem}
	}
	c.pod = &v1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "workload", Namespace: "default", UID: types.UID("pod-uid")},
		Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "main", Resources: v1.ResourceRequirements{Requests: req, Limits: lim}}}},
	}
	if r.IntN(3) == 0 {
		// More containers of the same QoS: guaranteed with 1-4 CPUs each
		// (or the same limits as main when main is burstable).
		for k := 1 + r.IntN(2); k > 0; k-- {
			m := resource.NewQuantity(int64(1+r.IntN(4)), resource.DecimalSI)
			rl := v1.ResourceList{v1.ResourceCPU: *m, v1.ResourceMemory: mem}
			c.pod.Spec.Containers = append(c.pod.Spec.Containers, v1.Container{Name: fmt.Sprintf("side%d", k), Resources: v1.ResourceRequirements{Requests: rl, Limits: rl}})
		}
	}
	if r.IntN(15) == 0 && n <= free.Size() {
		// The container is already in the state (a kubelet restart), with
		// its own count of CPUs or another.
		size := n
		if r.IntN(2) == 0 {
			size = max(1, n-1)
		}
		set := cpuset.New(free.List()[:min(size, free.Size())]...)
		c.entries["pod-uid"] = map[string]cpuset.CPUSet{"main": set}
		if !c.def.IsEmpty() {
			c.def = c.def.Difference(set)
		}
	}
	if c.def.IsEmpty() && len(c.entries) > 0 {
		c.def = free // keep "fresh" only for a state without assignments
		for _, cs := range c.entries {
			for _, set := range cs {
				c.def = c.def.Difference(set)
			}
		}
		if !strict {
			c.def = c.def.Union(c.reserved)
		}
	}
	return c
}

// cpuStep is one merge: a container's (container scope) or the pod's.
type cpuStep struct {
	hints   []ns.TopologyHint
	noHints bool // nil hint map: no preference
	best    ns.TopologyHint
}

func (s cpuStep) String() string {
	if s.noHints {
		return fmt.Sprintf("{hints nil best %v}", s.best)
	}
	return fmt.Sprintf("{hints %v best %v}", s.hints, s.best)
}

func (s cpuStep) equal(o cpuStep) bool {
	if s.noHints != o.noHints || len(s.hints) != len(o.hints) || !s.best.IsEqual(o.best) {
		return false
	}
	for i := range s.hints {
		if !s.hints[i].IsEqual(o.hints[i]) {
			return false
		}
	}
	return true
}

// cpuOutcome is what one side answers for a case.
type cpuOutcome struct {
	startErr string // the kubelet does not start (empty if it does)
	steps    []cpuStep
	admit    bool
	reason   string
	message  string
	// exact is false when an allocation before the last one may have taken
	// other CPUs than numascope's (kubelet side only): then only the first
	// step and, if the admission stops there, the verdict are compared.
	exact bool
}

func (o cpuOutcome) String() string {
	if o.startErr != "" {
		return "start error: " + o.startErr
	}
	return fmt.Sprintf("steps %v admit %v reason %q message %q", o.steps, o.admit, o.reason, o.message)
}

func kStep(hints map[string][]tm.TopologyHint, best tm.TopologyHint) cpuStep {
	st := cpuStep{best: nsHintOf(best)}
	if hints == nil {
		st.noHints = true
		return st
	}
	st.hints = []ns.TopologyHint{}
	for _, h := range hints[string(v1.ResourceCPU)] {
		st.hints = append(st.hints, nsHintOf(h))
	}
	return st
}

// kubeletCPU runs the case through the kubelet's static policy and the
// Topology Manager's policy, container by container (container scope) or
// with one pod merge (pod scope), as the scopes do.
func kubeletCPU(c *cpuCase) cpuOutcome {
	log := logr.Discard()
	info, err := tm.NewNUMAInfo(cadvisorNodesOf(c.machine), tm.PolicyOptions{MaxAllowableNUMANodes: 8})
	if err != nil {
		return cpuOutcome{startErr: "numa: " + err.Error()}
	}
	var policy tm.Policy
	switch c.tmPolicy {
	case tm.PolicyBestEffort:
		policy = tm.NewBestEffortPolicy(info, tm.PolicyOptions{})
	case tm.PolicyRestricted:
		policy = tm.NewRestrictedPolicy(info, tm.PolicyOptions{})
	default:
		policy = tm.NewSingleNumaNodePolicy(info, tm.PolicyOptions{})
	}
	store := &affinityStore{policy: policy}
	sp, err := cpumanager.NewStaticPolicy(log, c.topo, c.reserved.Size(), c.reserved, store, c.options)
	if err != nil {
		return cpuOutcome{startErr: "new static policy error: " + err.Error()}
	}
	s := state.NewMemoryState(log)
	s.SetDefaultCPUSet(c.def)
	for uid, cs := range c.entries {
		for name, set := range cs {
			s.SetCPUSet(uid, name, set)
		}
	}
	if err := sp.Start(log, s); err != nil {
		return cpuOutcome{startErr: err.Error()}
	}
	out := cpuOutcome{admit: true, exact: true}
	reject := func(err error) cpuOutcome {
		res := admission.GetPodAdmitResult(err)
		out.admit, out.reason, out.message = res.Admit, res.Reason, res.Message
		return out
	}
	// wholeCores: every reserved CPU's siblings are reserved too, so no
	// allocation can take a CPU that full-pcpus-only does not count.
	wholeCores := true
	for _, cpu := range c.reserved.List() {
		if !c.topo.CPUDetails.CPUsInCores(c.topo.CPUDetails[cpu].CoreID).IsSubsetOf(c.reserved) {
			wholeCores = false
		}
	}
	allocate := func(ct *v1.Container, last bool) error {
		n := 0
		if q, ok := ct.Resources.Requests[v1.ResourceCPU]; ok && q.Value()*1000 == q.MilliValue() {
			n = int(q.Value())
		}
		if !last && n > 0 {
			// numascope takes the same CPUs' count from each NUMA node when
			// the affinity is one node that holds enough of them, and the
			// same count of CPUs that full-pcpus-only counts when the
			// reserved CPUs are whole cores.
			bits := []int(nil)
			if store.hint.NUMANodeAffinity != nil {
				bits = store.hint.NUMANodeAffinity.GetBits()
			}
			free := s.GetDefaultCPUSet().Difference(c.reserved)
			// Under align-by-socket the aligned CPUs are the whole socket's.
			if len(bits) != 1 || free.Intersection(c.topo.CPUDetails.CPUsInNUMANodes(bits[0])).Size() < n || !wholeCores || c.options[cpumanager.AlignBySocketOption] == "true" {
				out.exact = false
			}
		}
		return sp.Allocate(log, s, c.pod, ct, lifecycle.AddOperation)
	}
	cts := c.pod.Spec.Containers
	if c.scope == tm.PodTopologyScope {
		hints := sp.GetPodTopologyHints(log, s, c.pod, lifecycle.AddOperation)
		best, admit := policy.Merge(log, []map[string][]tm.TopologyHint{hints})
		out.steps = append(out.steps, kStep(hints, best))
		if !admit {
			return reject(tm.TopologyAffinityError{})
		}
		store.hint = best
		for i := range cts {
			if err := allocate(&cts[i], i == len(cts)-1); err != nil {
				return reject(err)
			}
		}
		return out
	}
	for i := range cts {
		hints := sp.GetTopologyHints(log, s, c.pod, &cts[i], lifecycle.AddOperation)
		best, admit := policy.Merge(log, []map[string][]tm.TopologyHint{hints})
		out.steps = append(out.steps, kStep(hints, best))
		if !admit {
			return reject(tm.TopologyAffinityError{})
		}
		store.hint = best
		if err := allocate(&cts[i], i == len(cts)-1); err != nil {
			return reject(err)
		}
	}
	return out
}

func cadvisorNodesOf(m *ns.Machine) []cadvisorapi.Node {
	var out []cadvisorapi.Node
	for _, n := range m.Nodes {
		out = append(out, cadvisorapi.Node{Id: n.ID})
	}
	return out
}

// numascopeCPU runs the case through SimulateAdmission.
func numascopeCPU(t *testing.T, c *cpuCase) cpuOutcome {
	data, err := json.Marshal(c.pod)
	require.NoError(t, err, "pod JSON")
	pod, err := ns.ParsePod(data)
	require.NoError(t, err, "numascope reads the pod")
	gates := ns.DefaultFeatureGates()
	gates.CPUManagerPolicyAlphaOptions = c.alphaGate
	cfg := ns.NodeConfig{Machine: c.machine, CPU: &statefile.CPUState{PolicyName: "static", DefaultCPUSet: c.def, Entries: c.entries},
		ReservedCPUs: c.reserved, Policy: c.tmPolicy, Scope: c.scope, Gates: gates, CPUPolicyOptions: c.options}
	res, err := ns.SimulateAdmission(pod, cfg)
	if err != nil {
		return cpuOutcome{startErr: err.Error()}
	}
	out := cpuOutcome{admit: res.Admit, reason: res.Reason, message: res.Message}
	for _, st := range res.Steps {
		if st.Merge == nil {
			continue // an allocation after the pod's merge
		}
		step := cpuStep{noHints: true, best: st.Merge.BestHint}
		for _, a := range st.Answers {
			if a.Provider != "cpu" || a.Hints == nil {
				continue
			}
			if hl, ok := a.Hints["cpu"]; ok {
				step.noHints = false
				step.hints = append([]ns.TopologyHint{}, hl...)
			}
		}
		out.steps = append(out.steps, step)
	}
	return out
}

// diffCPU compares both sides; it returns the kind of outcome, or a
// description of the difference.
func diffCPU(t *testing.T, c *cpuCase) (string, string) {
	k := kubeletCPU(c)
	n := numascopeCPU(t, c)
	fail := func() (string, string) { return "", fmt.Sprintf("%s\nkubelet   %s\nnumascope %s", c, k, n) }
	if k.startErr != "" || n.startErr != "" {
		if k.startErr == "" || n.startErr == "" || !(strings.Contains(n.startErr, k.startErr) || oneOfOptionErrors(c.options, n.startErr)) {
			return fail()
		}
		return "start error", ""
	}
	if len(k.steps) == 0 || len(n.steps) == 0 || !k.steps[0].equal(n.steps[0]) {
		return fail()
	}
	if uncoreAccounting(c, k.message) {
		// Under prefer-align-cpus-by-uncorecache the kubelet's
		// takeUncoreCache can count CPUs it already holds again and hand
		// back fewer aligned CPUs than asked; the pool still runs short by
		// the same count, so the verdict and reason agree, and only the
		// numbers in "requested=..., available=..." differ.
		k.message, n.message = uncoreTrim(k.message), uncoreTrim(n.message)
	}
	if k.exact {
		if len(k.steps) != len(n.steps) || k.admit != n.admit || k.reason != n.reason || k.message != n.message {
			return fail()
		}
		for i := range k.steps {
			if !k.steps[i].equal(n.steps[i]) {
				return fail()
			}
		}
	} else if len(k.steps) == 1 && !k.admit && c.scope == tm.ContainerTopologyScope {
		// Stopped at the first container: that verdict is exact.
		if n.admit || k.reason != n.reason || k.message != n.message {
			return fail()
		}
	}
	kind := k.reason
	switch {
	case !k.exact:
		kind = "first step only"
	case k.admit:
		kind = "admitted"
	case strings.Contains(k.message, "not multiple cpus per core"):
		kind = "SMTAlignmentError: not a multiple"
	case strings.Contains(k.message, "not enough free physical CPUs"):
		kind = "SMTAlignmentError: physical CPUs"
	}
	if len(c.pod.Spec.Containers) > 1 && k.exact {
		kind += " (several containers)"
	}
	return kind, ""
}

const notEnoughCPUs = "not enough cpus available to satisfy request: "

func uncoreAccounting(c *cpuCase, msg string) bool {
	return c.options[cpumanager.PreferAlignByUnCoreCacheOption] == "true" && c.options[cpumanager.DistributeCPUsAcrossNUMAOption] != "true" && strings.Contains(msg, notEnoughCPUs)
}

func uncoreTrim(msg string) string {
	if i := strings.Index(msg, notEnoughCPUs); i >= 0 {
		return msg[:i+len(notEnoughCPUs)]
	}
	return msg
}

// oneOfOptionErrors: with several bad options the kubelet reports the one
// its map iteration meets first, any of them; numascope reports the first
// in name order. The answer is right when it is the kubelet's error for one
// of the options on its own.
func oneOfOptionErrors(options map[string]string, got string) bool {
	if _, err := cpumanager.NewStaticPolicyOptions(options); err == nil {
		return false
	}
	for name, value := range options {
		if _, err := cpumanager.NewStaticPolicyOptions(map[string]string{name: value}); err != nil && strings.Contains(got, "new static policy error: "+err.Error()) {
			return true
		}
	}
	return false
}

// cpuCases is the number of random cases with the alpha gate on (a quarter
// as many more run with it off): 2000 in CI (600 with -short),
// more with NUMASCOPE_CPUMANAGER_CASES=N.
func cpuCases(t *testing.T) int {
	n := 2000
	if testing.Short() {
		n = 600
	}
	if v := os.Getenv("NUMASCOPE_CPUMANAGER_CASES"); v != "" {
		c, err := strconv.Atoi(v)
		require.NoError(t, err, "NUMASCOPE_CPUMANAGER_CASES")
		n = c
	}
	return n
}

// TestCPUManagerStaticPolicyAgrees: zero differences on random cases,
// with the alpha options' gate on (most cases) and off.
func TestCPUManagerStaticPolicyAgrees(t *testing.T) {
	cases := cpuCases(t)
	kinds := map[string]int{}
	for _, alpha := range []bool{true, false} {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.CPUManagerPolicyAlphaOptions, alpha)
		r := rand.New(rand.NewPCG(17, map[bool]uint64{true: 1, false: 2}[alpha]))
		n := cases
		if !alpha {
			n = cases / 4
		}
		for i := 0; i < n; i++ {
			c := randomCPUCase(r, alpha)
			kind, diff := diffCPU(t, c)
			require.Empty(t, diff, "case %d (alpha gate %v) differs", i, alpha)
			kinds[kind]++
		}
	}
	for _, k := range []string{"admitted", "start error", "SMTAlignmentError: not a multiple", "SMTAlignmentError: physical CPUs", "TopologyAffinityError", "UnexpectedAdmissionError",
		"admitted (several containers)", "SMTAlignmentError: not a multiple (several containers)", "TopologyAffinityError (several containers)", "first step only"} {
		assert.NotZero(t, kinds[k], "no random case reached %q: %v", k, kinds)
	}
	t.Logf("%d cases, no difference: %v", cases+cases/4, kinds)
}

// FuzzCPUManagerVsKubelet draws a case from the fuzzer's seed and demands
// the same answers; the corpus is in testdata/fuzz/FuzzCPUManagerVsKubelet.
func FuzzCPUManagerVsKubelet(f *testing.F) {
	f.Add(uint64(1), uint64(2), true)
	f.Add(uint64(26802), uint64(17), true)
	f.Add(uint64(7), uint64(3), false)
	f.Fuzz(func(t *testing.T, a, b uint64, alpha bool) {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.CPUManagerPolicyAlphaOptions, alpha)
		fuzzbudget.Run(t, func() {
			c := randomCPUCase(rand.New(rand.NewPCG(a, b)), alpha)
			_, diff := diffCPU(t, c)
			require.Empty(t, diff, "numascope's CPU manager static policy against the kubelet's")
		})
	})
}
