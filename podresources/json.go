package podresources

import "encoding/json"

// The marshalling below writes every list as an array (never null, never
// omitted) so that "nothing reported" and NUMA node 0 survive every JSON
// consumer, and adds the derived status fields to containers.

type jsonSnapshot struct {
	Pods        []PodResources `json:"pods"`
	Allocatable *Allocatable   `json:"allocatable"`
	Notes       []string       `json:"notes,omitempty"`
}

// MarshalJSON writes the documented JSON form.
func (s Snapshot) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonSnapshot{Pods: nonNil(s.Pods), Allocatable: s.Allocatable, Notes: s.Notes})
}

// UnmarshalJSON reads numascope's JSON form or a protobuf-JSON List answer;
// see Decode.
func (s *Snapshot) UnmarshalJSON(data []byte) error {
	snap, err := Decode(data)
	if err != nil {
		return err
	}
	*s = *snap
	return nil
}

type jsonContainer struct {
	Name             string             `json:"name"`
	CPUIDs           []int              `json:"cpuIds"`
	CPUStatus        Status             `json:"cpuIdsStatus"`
	Memory           []ContainerMemory  `json:"memory"`
	MemoryStatus     Status             `json:"memoryStatus"`
	Devices          []ContainerDevices `json:"devices"`
	DynamicResources []DynamicResource  `json:"dynamicResources"`
}

type jsonPod struct {
	Name             string            `json:"name"`
	Namespace        string            `json:"namespace"`
	QOSClass         QOSClass          `json:"qosClass,omitempty"`
	QOSClassInferred bool              `json:"qosClassInferred,omitempty"`
	Containers       []jsonContainer   `json:"containers"`
	CPUIDs           []int             `json:"cpuIds,omitempty"`
	Memory           []ContainerMemory `json:"memory,omitempty"`
}

// MarshalJSON writes the pod with its effective QoS class and each
// container's cpuIdsStatus and memoryStatus.
func (p PodResources) MarshalJSON() ([]byte, error) {
	q, inferred := p.EffectiveQOSClass()
	jp := jsonPod{
		Name: p.Name, Namespace: p.Namespace, QOSClass: q, QOSClassInferred: inferred,
		Containers: make([]jsonContainer, len(p.Containers)),
		CPUIDs:     p.CPUIDs, Memory: p.Memory,
	}
	for i := range p.Containers {
		c := &p.Containers[i]
		jp.Containers[i] = jsonContainer{
			Name:             c.Name,
			CPUIDs:           nonNil(c.CPUIDs),
			CPUStatus:        p.CPUStatus(c),
			Memory:           nonNil(c.Memory),
			MemoryStatus:     p.MemoryStatus(c),
			Devices:          nonNil(c.Devices),
			DynamicResources: nonNil(c.DynamicResources),
		}
	}
	return json.Marshal(jp)
}

// UnmarshalJSON reads one pod in numascope's JSON form or a protobuf-JSON
// Get answer; see DecodePod.
func (p *PodResources) UnmarshalJSON(data []byte) error {
	pod, err := DecodePod(data)
	if err != nil {
		return err
	}
	*p = *pod
	return nil
}

type jsonAllocatable Allocatable

// MarshalJSON writes every list as an array.
func (a Allocatable) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonAllocatable{CPUIDs: nonNil(a.CPUIDs), Memory: nonNil(a.Memory), Devices: nonNil(a.Devices)})
}

// UnmarshalJSON reads numascope's JSON form or a protobuf-JSON
// GetAllocatableResources answer; see DecodeAllocatable.
func (a *Allocatable) UnmarshalJSON(data []byte) error {
	al, err := DecodeAllocatable(data)
	if err != nil {
		return err
	}
	*a = *al
	return nil
}

type jsonMemory ContainerMemory

// MarshalJSON writes numaNodes as an array, so node 0 and "no nodes" stay
// visible.
func (m ContainerMemory) MarshalJSON() ([]byte, error) {
	m.NUMANodes = nonNil(m.NUMANodes)
	return json.Marshal(jsonMemory(m))
}

type jsonDevice ContainerDevices

// MarshalJSON writes deviceIds and numaNodes as arrays.
func (d ContainerDevices) MarshalJSON() ([]byte, error) {
	d.DeviceIDs = nonNil(d.DeviceIDs)
	d.NUMANodes = nonNil(d.NUMANodes)
	return json.Marshal(jsonDevice(d))
}

type jsonDynamicResource DynamicResource

// MarshalJSON writes claimResources as an array.
func (r DynamicResource) MarshalJSON() ([]byte, error) {
	r.ClaimResources = nonNil(r.ClaimResources)
	return json.Marshal(jsonDynamicResource(r))
}

type jsonClaimResource ClaimResource

// MarshalJSON writes cdiDevices as an array.
func (r ClaimResource) MarshalJSON() ([]byte, error) {
	r.CDIDevices = nonNil(r.CDIDevices)
	return json.Marshal(jsonClaimResource(r))
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
