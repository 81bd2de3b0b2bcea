package topomgr

import (
	"errors"
	"fmt"
	"github.com/numascope/numascope/podresources"
)

// Topology Manager scope names.
const (
	ScopeContainer = "container"
	ScopePod       = "pod"
	// scopeNone is what the none policy runs: no hints, no merge.
	scopeNone = "none"
)

// Admission reasons.
const (
	// ReasonTopologyAffinity is the kubelet's TopologyAffinityError reason.
	ReasonTopologyAffinity = "TopologyAffinityError"
	// ReasonUnexpected is the reason for any other allocation error.
	ReasonUnexpected = "UnexpectedAdmissionError"
)

// Pod is the part of a pod the Topology Manager and its hint providers read.
type Pod struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	UID       string `json:"uid"`
	// InitContainers run first; those with RestartPolicy "Always" are
	// sidecars (restartable init containers).
	InitContainers []Container `json:"initContainers,omitempty"`
	Containers     []Container `json:"containers"`
	// Resources holds pod-level requests and limits (spec.resources), if any.
	Resources *Resources `json:"resources,omitempty"`
	// QOSClass is status.qosClass when known; QOS computes it otherwise.
	QOSClass podresources.QOSClass `json:"qosClass,omitempty"`

	// Evidence: where the pod was read and what its status says.

	// Source is the file the pod was read from; Path is its JSON pointer
	// there ("" for a lone pod, "/items/2" in a list).
	Source string `json:"source,omitempty"`
	Path   string `json:"path,omitempty"`
	// NodeName is spec.nodeName.
	NodeName string `json:"nodeName,omitempty"`
	// OwnerKind is the kind of the controller owner (Job, ReplicaSet, ...).
	OwnerKind string `json:"ownerKind,omitempty"`
	// Phase, Reason and Message are the status's.
	Phase   string `json:"phase,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// Ref returns "namespace/name".
func (p *Pod) Ref() string {
	if p.Namespace == "" {
		return p.Name
	}
	return p.Namespace + "/" + p.Name
}

// Container is the part of a container the Topology Manager and its hint
// providers read.
type Container struct {
	Name string `json:"name"`
	// RestartPolicy is "Always" for a restartable init container (sidecar).
	RestartPolicy string    `json:"restartPolicy,omitempty"`
	Resources     Resources `json:"resources"`
	// Path is the container's JSON pointer in the pod's source.
	Path string `json:"path,omitempty"`
	// Terminated is set when the container's status shows it finished.
	Terminated bool `json:"terminated,omitempty"`
}

// Resources are requests and limits as Kubernetes quantity strings.
type Resources struct {
	Requests map[string]string `json:"requests,omitempty"`
	Limits   map[string]string `json:"limits,omitempty"`
}

// IsRestartable reports whether an init container is a sidecar.
func (c *Container) IsRestartable() bool { return c.RestartPolicy == "Always" }

// HasPodLevelResources reports whether the pod sets spec.resources.
func (p *Pod) HasPodLevelResources() bool {
	return p.Resources != nil && (len(p.Resources.Requests) > 0 || len(p.Resources.Limits) > 0)
}

// AllContainers returns the containers the Topology Manager visits, in
// its order: init containers (sidecars included), then app containers.
// Ephemeral containers are never visited.
func (p *Pod) AllContainers() []Container {
	out := make([]Container, 0, len(p.InitContainers)+len(p.Containers))
	out = append(out, p.InitContainers...)
	return append(out, p.Containers...)
}

// HintProvider is a resource manager that offers topology hints and then
// allocates, as the kubelet's device, CPU and memory managers do.
type HintProvider interface {
	// Name identifies the provider in reports, e.g. "cpu".
	Name() string
	// GetTopologyHints returns the hints for one container.
	GetTopologyHints(pod *Pod, c *Container) ProviderHints
	// GetPodTopologyHints returns the hints for the whole pod (pod scope).
	GetPodTopologyHints(pod *Pod) ProviderHints
	// Allocate allocates for one container after a successful merge; store
	// gives the affinity the merge chose.
	Allocate(pod *Pod, c *Container, store Store) error
}

// podAllocator is implemented by providers that allocate a whole pod at
// once (pods with pod-level resources under PodLevelResourceManagers).
type podAllocator interface {
	AllocatePod(pod *Pod, store Store) error
}

// Store gives providers the affinity the Topology Manager chose.
type Store interface {
	GetAffinity(podUID, container string) TopologyHint
}

// admissionError is an error that carries its own admission reason, as the
// kubelet's admission.Error does.
type admissionError interface {
	error
	Type() string
}

// TopologyAffinityError is the kubelet's rejection when no acceptable NUMA
// affinity exists. PodLevel marks the rejection of a pod with pod-level
// resources (feature gate PodLevelResourceManagers), whose message starts
// with "Pod Scope " and says which scope failed.
type TopologyAffinityError struct {
	PodLevel bool
	// Msg replaces the standard text of a pod-level rejection.
	Msg string
}

func (e TopologyAffinityError) Error() string {
	if !e.PodLevel {
		return "Resources cannot be allocated with Topology locality"
	}
	if e.Msg != "" {
		return "Pod Scope " + e.Msg
	}
	return "Pod Scope Resources cannot be allocated with Topology locality"
}

// Type returns "TopologyAffinityError".
func (TopologyAffinityError) Type() string { return ReasonTopologyAffinity }

// ProviderAnswer is one provider's hints in an admission.
type ProviderAnswer struct {
	Provider string        `json:"provider"`
	Hints    ProviderHints `json:"hints"`
}

// AdmissionStep is one merge of an admission: one container (container
// scope) or the whole pod (pod scope).
type AdmissionStep struct {
	// Container is empty for the pod-scope step.
	Container string           `json:"container,omitempty"`
	Answers   []ProviderAnswer `json:"answers"`
	Merge     *MergeReport     `json:"merge"`
	// Allocated lists the containers allocated with the step's hint.
	Allocated []string `json:"allocated,omitempty"`
	// AllocateError is the provider error that stopped the admission.
	AllocateError string `json:"allocateError,omitempty"`
}

// Admission is the outcome of admitting a pod, with the work behind it.
type Admission struct {
	Admit   bool   `json:"admit"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	Policy  string `json:"policy"`
	Scope   string `json:"scope"`
	// Steps are the merges in order; admission stops at the first failure.
	Steps []AdmissionStep `json:"steps"`
	// Affinities maps each container to the hint stored for it.
	Affinities map[string]TopologyHint `json:"affinities,omitempty"`
}

// Manager is the Topology Manager of one node: a policy, a scope and the
// hint providers in the kubelet's order (device, CPU, memory).
type Manager struct {
	policy    *Policy
	scope     string
	gates     FeatureGates
	providers []HintProvider
	hints     map[string]map[string]TopologyHint
}

// NewManager validates the configuration as the kubelet's NewManager does
// and returns the manager. nodes is the machine's NUMA layout. gates are
// the kubelet's feature gates (at most one value; DefaultFeatureGates when
// none is given).
func NewManager(nodes []NUMANode, policyName, scopeName string, options map[string]string, gates ...FeatureGates) (*Manager, error) {
	if len(gates) > 1 {
		return nil, fmt.Errorf("NewManager: %d feature-gate sets given, want at most one", len(gates))
	}
	g := DefaultFeatureGates()
	if len(gates) == 1 {
		g = gates[0]
	}
	return newManager(nodes, policyName, scopeName, options, g)
}

func newManager(nodes []NUMANode, policyName, scopeName string, options map[string]string, gates FeatureGates) (*Manager, error) {
	m := &Manager{gates: gates, hints: map[string]map[string]TopologyHint{}}
	if policyName == PolicyNone {
		// The kubelet ignores scope and options under the none policy.
		m.policy = &Policy{name: PolicyNone, numa: &NUMAInfo{}}
		m.scope = scopeNone
		return m, nil
	}
	opts, err := newPolicyOptions(options, gates)
	if err != nil {
		return nil, err
	}
	numa, err := NewNUMAInfo(nodes, opts)
	if err != nil {
		return nil, fmt.Errorf("cannot discover NUMA topology: %w", err)
	}
	if len(numa.Nodes) > opts.MaxAllowableNUMANodes {
		return nil, fmt.Errorf("unsupported on machines with more than %v NUMA Nodes: set %s to at least %d", opts.MaxAllowableNUMANodes, MaxAllowableNUMANodes, len(numa.Nodes))
	}
	switch policyName {
	case PolicyBestEffort, PolicyRestricted, PolicySingleNumaNode:
	default:
		return nil, fmt.Errorf("unknown policy: %q: use none, best-effort, restricted or single-numa-node", policyName)
	}
	m.policy = &Policy{name: policyName, numa: numa, opts: opts}
	switch scopeName {
	case ScopeContainer, ScopePod:
	default:
		return nil, fmt.Errorf("unknown scope: %q: use container or pod", scopeName)
	}
	m.scope = scopeName
	return m, nil
}

// Policy returns the manager's policy.
func (m *Manager) Policy() *Policy { return m.policy }

// Scope returns "container", "pod" or "none".
func (m *Manager) Scope() string { return m.scope }

// AddHintProvider appends a provider; the kubelet's order is device, CPU, memory.
func (m *Manager) AddHintProvider(p HintProvider) { m.providers = append(m.providers, p) }

// GetAffinity returns the hint stored for a container, or the zero hint.
func (m *Manager) GetAffinity(podUID, container string) TopologyHint {
	return m.hints[podUID][container]
}

func (m *Manager) setAffinity(podUID, container string, h TopologyHint) {
	if m.hints[podUID] == nil {
		m.hints[podUID] = map[string]TopologyHint{}
	}
	m.hints[podUID][container] = h
}

// Admit runs the scope's admission for the pod, calling the providers as
// the kubelet does, and returns the outcome with every step's work.
func (m *Manager) Admit(pod *Pod) *Admission {
	a := &Admission{Policy: m.policy.name, Scope: m.scope, Affinities: map[string]TopologyHint{}}
	switch m.scope {
	case scopeNone:
		for _, c := range pod.AllContainers() {
			if err := m.allocate(pod, &c); err != nil {
				a.fail(err)
				a.Steps = append(a.Steps, AdmissionStep{Container: c.Name, AllocateError: err.Error()})
				return a
			}
		}
	case ScopeContainer:
		for _, c := range pod.AllContainers() {
			step := AdmissionStep{Container: c.Name}
			for _, p := range m.providers {
				step.Answers = append(step.Answers, ProviderAnswer{Provider: p.Name(), Hints: p.GetTopologyHints(pod, &c)})
			}
			step.Merge = m.policy.Explain(answersOf(step.Answers))
			if !step.Merge.Admit {
				a.Steps = append(a.Steps, step)
				if m.gates.PodLevelResourceManagers && pod.HasPodLevelResources() {
					a.fail(TopologyAffinityError{PodLevel: true, Msg: "pod with pod-level resources failed admission with a container-level topology manager"})
				} else {
					a.fail(TopologyAffinityError{})
				}
				return a
			}
			m.setAffinity(pod.UID, c.Name, step.Merge.BestHint)
			a.Affinities[c.Name] = step.Merge.BestHint
			err := m.allocate(pod, &c)
			a.Steps = append(a.Steps, step)
			if err != nil {
				a.Steps[len(a.Steps)-1].AllocateError = err.Error()
				a.fail(err)
				return a
			}
			a.Steps[len(a.Steps)-1].Allocated = []string{c.Name}
		}
	case ScopePod:
		podLevel := m.gates.PodLevelResourceManagers && pod.HasPodLevelResources()
		step := AdmissionStep{}
		for _, p := range m.providers {
			step.Answers = append(step.Answers, ProviderAnswer{Provider: p.Name(), Hints: p.GetPodTopologyHints(pod)})
		}
		step.Merge = m.policy.Explain(answersOf(step.Answers))
		a.Steps = append(a.Steps, step)
		last := &a.Steps[0]
		if !step.Merge.Admit {
			if podLevel {
				a.fail(TopologyAffinityError{PodLevel: true, Msg: "pod with pod-level resources failed admission under pod-scope topology manager"})
			} else {
				a.fail(TopologyAffinityError{})
			}
			return a
		}
		for _, c := range pod.AllContainers() {
			m.setAffinity(pod.UID, c.Name, step.Merge.BestHint)
			a.Affinities[c.Name] = step.Merge.BestHint
			if podLevel {
				continue
			}
			if err := m.allocate(pod, &c); err != nil {
				last.AllocateError = err.Error()
				a.fail(err)
				return a
			}
			last.Allocated = append(last.Allocated, c.Name)
		}
		if podLevel {
			for _, p := range m.providers {
				pa, ok := p.(podAllocator)
				if !ok {
					continue
				}
				if err := pa.AllocatePod(pod, m); err != nil {
					last.AllocateError = err.Error()
					a.fail(err)
					return a
				}
			}
		}
	}
	a.Admit = true
	return a
}

func answersOf(as []ProviderAnswer) []ProviderHints {
	out := make([]ProviderHints, len(as))
	for i, a := range as {
		out[i] = a.Hints
	}
	return out
}

func (m *Manager) allocate(pod *Pod, c *Container) error {
	for _, p := range m.providers {
		if err := p.Allocate(pod, c, m); err != nil {
			return err
		}
	}
	return nil
}

// fail records err as the kubelet's admission.GetPodAdmitResult does.
func (a *Admission) fail(err error) {
	a.Admit = false
	var ae admissionError
	if errors.As(err, &ae) {
		a.Reason, a.Message = ae.Type(), ae.Error()
		return
	}
	a.Reason = ReasonUnexpected
	a.Message = fmt.Sprintf("Allocate failed due to %v, which is unexpected", err)
}
