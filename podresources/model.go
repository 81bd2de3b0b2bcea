package podresources

import (
	"fmt"
	"slices"
)

// Snapshot is what a node's PodResources API said at one moment: the List
// answer and, when the kubelet serves it, the GetAllocatableResources answer.
type Snapshot struct {
	// Pods is the List answer (or the pods loaded from Get answers offline).
	Pods []PodResources `json:"pods"`
	// Allocatable is the GetAllocatableResources answer, nil when it was not
	// available (see Notes).
	Allocatable *Allocatable `json:"allocatable"`
	// Notes explains anything missing from the snapshot, for example an
	// allocatable answer the kubelet does not serve.
	Notes []string `json:"notes,omitempty"`
}

// PodResources is the resources the kubelet assigned to one pod (the
// PodResources API's message of the same name; topomgr.Pod is the pod's spec).
type PodResources struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// QOSClass is the pod's QoS class when the caller knows it; the
	// PodResources API does not report it. See EffectiveQOSClass.
	QOSClass QOSClass `json:"qosClass,omitempty"`
	// Containers lists the app containers and the restartable init
	// (sidecar) containers, in the order the kubelet reports them.
	Containers []ContainerResources `json:"containers"`
	// CPUIDs are exclusive CPUs allocated at pod level (KEP-5526, feature gate
	// PodLevelResourceManagers). They include the containers' exclusive CPUs.
	CPUIDs []int `json:"cpuIds,omitempty"`
	// Memory is memory allocated at pod level, with the same overlap as CPUIDs.
	Memory []ContainerMemory `json:"memory,omitempty"`
}

// ContainerResources is the resources the kubelet assigned to one container
// (the PodResources API's message of the same name).
type ContainerResources struct {
	Name string `json:"name"`
	// CPUIDs are the container's exclusive CPUs; empty when it has none or the
	// kubelet does not report them (see CPUStatus).
	CPUIDs []int `json:"cpuIds"`
	// Memory is the memory and hugepages pinned by the Memory Manager.
	Memory []ContainerMemory `json:"memory"`
	// Devices are the device-plugin devices, usually one entry per device and
	// NUMA node.
	Devices []ContainerDevices `json:"devices"`
	// DynamicResources are the DRA claims prepared for the container.
	DynamicResources []DynamicResource `json:"dynamicResources"`
}

// ContainerMemory is a block of memory or hugepages of one type and size
// with the NUMA nodes it is allowed on (the PodResources API's
// ContainerMemory).
type ContainerMemory struct {
	// Type is "memory" or a hugepages resource such as "hugepages-1Gi".
	Type string `json:"type"`
	// Size is in bytes.
	Size uint64 `json:"size"`
	// NUMANodes are the NUMA node ids of the block; empty when not reported.
	NUMANodes []int `json:"numaNodes"`
}

// ContainerDevices is one or more device-plugin device ids of one resource
// with their NUMA nodes (the PodResources API's ContainerDevices).
type ContainerDevices struct {
	ResourceName string   `json:"resourceName"`
	DeviceIDs    []string `json:"deviceIds"`
	// NUMANodes is empty when the device plugin reports no topology.
	NUMANodes []int `json:"numaNodes"`
}

// DynamicResource is one DRA resource claim used by a container.
type DynamicResource struct {
	ClaimName      string          `json:"claimName"`
	ClaimNamespace string          `json:"claimNamespace"`
	ClaimResources []ClaimResource `json:"claimResources"`
}

// ClaimResource is one device allocated to a claim; driver, pool and device
// name identify it.
type ClaimResource struct {
	DriverName string `json:"driverName"`
	PoolName   string `json:"poolName"`
	DeviceName string `json:"deviceName"`
	// ShareID identifies the share of a shared device; empty when unset.
	ShareID string `json:"shareId,omitempty"`
	// CDIDevices are fully qualified CDI device names such as
	// "vendor.com/gpu=gpu0".
	CDIDevices []string `json:"cdiDevices"`
}

// Allocatable is the GetAllocatableResources answer: what the kubelet can
// hand out exclusively, not what is free.
type Allocatable struct {
	// CPUIDs is empty when the CPU manager policy is "none".
	CPUIDs []int `json:"cpuIds"`
	// Memory is empty unless the Memory Manager policy is "Static".
	Memory  []ContainerMemory  `json:"memory"`
	Devices []ContainerDevices `json:"devices"`
}

// QOSClass is a pod's Kubernetes QoS class.
type QOSClass string

// The QoS classes; the empty QOSClass means unknown.
const (
	Guaranteed QOSClass = "Guaranteed"
	Burstable  QOSClass = "Burstable"
	BestEffort QOSClass = "BestEffort"
)

// Valid reports whether q is one of the three classes or empty.
func (q QOSClass) Valid() bool {
	switch q {
	case "", Guaranteed, Burstable, BestEffort:
		return true
	}
	return false
}

// Status says how to read an empty or non-empty list of exclusive CPUs or
// memory.
type Status string

const (
	// Assigned: the kubelet reported exclusive resources.
	Assigned Status = "assigned"
	// None: a Guaranteed pod with nothing exclusive reported (fractional CPU
	// request, or the manager's policy is "none").
	None Status = "none"
	// NotReportedForQOSClass: the pod is Burstable or BestEffort; the kubelet
	// reports exclusive CPUs and memory only for Guaranteed pods, so the empty
	// list does not mean the container has no CPUs or memory.
	NotReportedForQOSClass Status = "notReportedForQOSClass"
	// Unknown: the list is empty and the pod's QoS class is not known.
	Unknown Status = "unknown"
)

// Describe returns a short human-readable phrase for s.
func (s Status) Describe() string {
	switch s {
	case Assigned:
		return "assigned"
	case None:
		return "none exclusive"
	case NotReportedForQOSClass:
		return "not reported for this QoS class"
	case Unknown:
		return "none reported (QoS class unknown)"
	}
	return string(s)
}

// Ref returns "namespace/name".
func (p *PodResources) Ref() string { return p.Namespace + "/" + p.Name }

// HasExclusive reports whether the kubelet reported exclusive CPUs or memory
// for the pod or any of its containers.
func (p *PodResources) HasExclusive() bool {
	if len(p.CPUIDs) > 0 || len(p.Memory) > 0 {
		return true
	}
	for i := range p.Containers {
		if len(p.Containers[i].CPUIDs) > 0 || len(p.Containers[i].Memory) > 0 {
			return true
		}
	}
	return false
}

// EffectiveQOSClass returns QOSClass when it is set; otherwise Guaranteed
// with inferred true when the pod holds exclusive CPUs or memory (only
// Guaranteed pods get them), and "" when the class cannot be known.
func (p *PodResources) EffectiveQOSClass() (class QOSClass, inferred bool) {
	if p.QOSClass != "" {
		return p.QOSClass, false
	}
	if p.HasExclusive() {
		return Guaranteed, true
	}
	return "", false
}

// CPUStatus says how to read c.CPUIDs, given that c belongs to p.
func (p *PodResources) CPUStatus(c *ContainerResources) Status { return p.status(len(c.CPUIDs) > 0) }

// MemoryStatus says how to read c.Memory, given that c belongs to p.
func (p *PodResources) MemoryStatus(c *ContainerResources) Status { return p.status(len(c.Memory) > 0) }

func (p *PodResources) status(nonEmpty bool) Status {
	if nonEmpty {
		return Assigned
	}
	switch q, _ := p.EffectiveQOSClass(); q {
	case Guaranteed:
		return None
	case Burstable, BestEffort:
		return NotReportedForQOSClass
	}
	return Unknown
}

// Container returns the named container, or nil.
func (p *PodResources) Container(name string) *ContainerResources {
	for i := range p.Containers {
		if p.Containers[i].Name == name {
			return &p.Containers[i]
		}
	}
	return nil
}

// Pod returns the pod with the given namespace and name, or nil.
func (s *Snapshot) Pod(namespace, name string) *PodResources {
	for i := range s.Pods {
		if s.Pods[i].Namespace == namespace && s.Pods[i].Name == name {
			return &s.Pods[i]
		}
	}
	return nil
}

// SetQOSClasses sets Pod.QOSClass from classes, keyed by "namespace/name",
// for example built from the pods' status.qosClass. Pods not in classes keep
// their class. It returns an error for a class that is not a QoS class.
func (s *Snapshot) SetQOSClasses(classes map[string]QOSClass) error {
	for ref, q := range classes {
		if !q.Valid() {
			return fmt.Errorf("pod %s: QoS class %q is not Guaranteed, Burstable or BestEffort", ref, q)
		}
	}
	for i := range s.Pods {
		if q, ok := classes[s.Pods[i].Ref()]; ok {
			s.Pods[i].QOSClass = q
		}
	}
	return nil
}

// Sort orders pods by namespace and name, and every id list ascending, so
// that two snapshots of the same state compare equal. Containers keep the
// kubelet's order.
func (s *Snapshot) Sort() {
	slices.SortStableFunc(s.Pods, func(a, b PodResources) int {
		if a.Namespace != b.Namespace {
			if a.Namespace < b.Namespace {
				return -1
			}
			return 1
		}
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	for i := range s.Pods {
		p := &s.Pods[i]
		slices.Sort(p.CPUIDs)
		sortMemory(p.Memory)
		for j := range p.Containers {
			c := &p.Containers[j]
			slices.Sort(c.CPUIDs)
			sortMemory(c.Memory)
			sortDevices(c.Devices)
		}
	}
	if a := s.Allocatable; a != nil {
		slices.Sort(a.CPUIDs)
		sortMemory(a.Memory)
		sortDevices(a.Devices)
	}
}

func sortMemory(m []ContainerMemory) {
	for i := range m {
		slices.Sort(m[i].NUMANodes)
	}
	slices.SortStableFunc(m, func(a, b ContainerMemory) int {
		if a.Type != b.Type {
			if a.Type < b.Type {
				return -1
			}
			return 1
		}
		return slices.Compare(a.NUMANodes, b.NUMANodes)
	})
}

func sortDevices(d []ContainerDevices) {
	for i := range d {
		slices.Sort(d[i].NUMANodes)
		slices.Sort(d[i].DeviceIDs)
	}
	slices.SortStableFunc(d, func(a, b ContainerDevices) int {
		if a.ResourceName != b.ResourceName {
			if a.ResourceName < b.ResourceName {
				return -1
			}
			return 1
		}
		if c := slices.Compare(a.DeviceIDs, b.DeviceIDs); c != 0 {
			return c
		}
		return slices.Compare(a.NUMANodes, b.NUMANodes)
	})
}
