package api

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/numascope/numascope/podresources"
	"k8s.io/utils/cpuset"
)

// decodePodResources shows a PodResources answer: who holds which CPUs,
// memory and devices, and the devices per NUMA node.
func decodePodResources(in InputFile, numa *numaBuilder) *FileView {
	v := &FileView{File: in.Name, Kind: "podresources", Format: "PodResources List answer", KubeletAccepts: true}
	snap, err := podresources.Decode([]byte(in.Content))
	if err != nil {
		v.KubeletAccepts = false
		var de *podresources.DecodeError
		for _, e := range unjoin(err) {
			p := Problem{Message: e.Error(), Severity: "error", Remedy: "save the PodResources answer unchanged (on the node: podresources --json) and paste it again"}
			if errors.As(e, &de) {
				p.Path, p.Message = de.Pointer, de.Msg
			}
			v.Problems = append(v.Problems, p)
		}
		if snap == nil {
			return v
		}
	}
	v.Summary = fmt.Sprintf("%d pod(s)", len(snap.Pods))
	if snap.Allocatable != nil {
		v.Summary += ", with the allocatable answer"
	}
	for _, note := range snap.Notes {
		v.Problems = append(v.Problems, Problem{Message: note, Severity: "info"})
	}
	for _, p := range snap.Pods {
		ref := p.Ref()
		for _, c := range p.Containers {
			if len(c.CPUIDs) > 0 {
				v.Assignments = append(v.Assignments, Assignment{Pod: ref, Container: c.Name, Resource: "cpu",
					Amount: cpuset.New(c.CPUIDs...).String(), Source: in.Name})
			}
			for _, m := range c.Memory {
				v.Assignments = append(v.Assignments, Assignment{Pod: ref, Container: c.Name, Resource: m.Type,
					NUMA: m.NUMANodes, Bytes: m.Size, Source: in.Name})
			}
			for _, d := range c.Devices {
				v.Assignments = append(v.Assignments, Assignment{Pod: ref, Container: c.Name, Resource: d.ResourceName,
					NUMA: d.NUMANodes, Amount: strings.Join(d.DeviceIDs, ", "), Source: in.Name})
				for _, n := range d.NUMANodes {
					node := numa.node(n)
					for _, id := range d.DeviceIDs {
						node.Devices = append(node.Devices, Device{Resource: d.ResourceName, ID: id, Pod: ref, Container: c.Name})
					}
				}
			}
			for _, dr := range c.DynamicResources {
				var devs []string
				for _, cr := range dr.ClaimResources {
					devs = append(devs, cr.DriverName+"/"+cr.PoolName+"/"+cr.DeviceName)
				}
				v.Assignments = append(v.Assignments, Assignment{Pod: ref, Container: c.Name, Resource: "claim " + dr.ClaimNamespace + "/" + dr.ClaimName,
					Amount: strings.Join(devs, ", "), Source: in.Name})
			}
		}
	}
	if a := snap.Allocatable; a != nil {
		held := map[string]bool{}
		for _, n := range numa.nodes {
			for _, d := range n.Devices {
				held[d.Resource+"\x00"+d.ID] = true
			}
		}
		for _, d := range a.Devices {
			for _, n := range d.NUMANodes {
				node := numa.node(n)
				for _, id := range d.DeviceIDs {
					if !held[d.ResourceName+"\x00"+id] {
						node.Devices = append(node.Devices, Device{Resource: d.ResourceName, ID: id})
					}
				}
			}
		}
	}
	for _, n := range numa.nodes {
		sort.SliceStable(n.Devices, func(i, j int) bool {
			if n.Devices[i].Resource != n.Devices[j].Resource {
				return n.Devices[i].Resource < n.Devices[j].Resource
			}
			return n.Devices[i].ID < n.Devices[j].ID
		})
	}
	return v
}

// unjoin splits an errors.Join error into its parts.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
