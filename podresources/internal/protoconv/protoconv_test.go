package protoconv

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/kubelet/pkg/apis/podresources/v1"

	"github.com/numascope/numascope/podresources"
)

func TestRoundTrip(t *testing.T) {
	share := "share-1"
	in := &v1.PodResources{
		Name: "p", Namespace: "n", CpuIds: []int64{4, 5},
		Memory: []*v1.ContainerMemory{{MemoryType: "memory", Size: 1 << 30, Topology: &v1.TopologyInfo{Nodes: []*v1.NUMANode{{ID: 0}, {ID: 1}}}}},
		Containers: []*v1.ContainerResources{{
			Name: "c", CpuIds: []int64{4},
			Devices: []*v1.ContainerDevices{{ResourceName: "r", DeviceIds: []string{"d"}}},
			DynamicResources: []*v1.DynamicResource{{ClaimName: "x", ClaimNamespace: "n", ClaimResources: []*v1.ClaimResource{{
				DriverName: "drv", PoolName: "pool", DeviceName: "dev", ShareId: &share, CdiDevices: []*v1.CDIDevice{{Name: "v/c=0"}},
			}}}},
		}},
	}
	p, err := Pod(in)
	require.NoError(t, err)
	want := &podresources.PodResources{
		Name: "p", Namespace: "n", CPUIDs: []int{4, 5},
		Memory: []podresources.ContainerMemory{{Type: "memory", Size: 1 << 30, NUMANodes: []int{0, 1}}},
		Containers: []podresources.ContainerResources{{
			Name: "c", CPUIDs: []int{4},
			Devices: []podresources.ContainerDevices{{ResourceName: "r", DeviceIDs: []string{"d"}}},
			DynamicResources: []podresources.DynamicResource{{ClaimName: "x", ClaimNamespace: "n", ClaimResources: []podresources.ClaimResource{{
				DriverName: "drv", PoolName: "pool", DeviceName: "dev", ShareID: "share-1", CDIDevices: []string{"v/c=0"},
			}}}},
		}},
	}
	assert.Empty(t, cmp.Diff(want, p, cmpopts.EquateEmpty()), "Pod (-want +got)")
	back, err := Pod(ToPod(p))
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(p, back, cmpopts.EquateEmpty()), "round trip (-want +got)")
	if a := ToAllocatable(nil); assert.NotNil(t, a, "ToAllocatable(nil)") {
		assert.Empty(t, a.CpuIds, "ToAllocatable(nil): CPU IDs")
	}
}

// A server that is not a kubelet can send anything; the conversion says
// where the answer is wrong instead of producing nonsense ids.
func TestRejectsBadAnswers(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []*v1.PodResources
		want string
	}{
		{"nil pod", []*v1.PodResources{nil}, "pod entry 0 is empty"},
		{"negative CPU", []*v1.PodResources{{Name: "p", Namespace: "n", Containers: []*v1.ContainerResources{{Name: "c", CpuIds: []int64{-1}}}}}, "pod n/p: container c: CPU id -1 is out of range"},
		{"huge NUMA", []*v1.PodResources{{Name: "p", Namespace: "n", Containers: []*v1.ContainerResources{{Name: "c",
			Devices: []*v1.ContainerDevices{{ResourceName: "r", Topology: &v1.TopologyInfo{Nodes: []*v1.NUMANode{{ID: 1 << 40}}}}}}}}}, "device r: NUMA node 1099511627776 is out of range"},
		{"nil container", []*v1.PodResources{{Name: "p", Namespace: "n", Containers: []*v1.ContainerResources{nil}}}, "container entry 0 is empty"},
		{"nil memory", []*v1.PodResources{{Name: "p", Namespace: "n", Memory: []*v1.ContainerMemory{nil}}}, "pod-level memory entry 0 is empty"},
	} {
		_, err := Pods(tc.in)
		if assert.Error(t, err, tc.name) {
			assert.Contains(t, err.Error(), tc.want, tc.name)
		}
	}
	_, err := Pod(nil)
	assert.Error(t, err, "Pod(nil) succeeded")
	_, err = Allocatable(&v1.AllocatableResourcesResponse{CpuIds: []int64{-3}})
	assert.Error(t, err, "negative allocatable CPU accepted")
}
