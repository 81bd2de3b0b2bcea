package client

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	v1 "k8s.io/kubelet/pkg/apis/podresources/v1"

	"github.com/numascope/numascope/internal/fuzzbudget"
	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/podresources/internal/protoconv"
	"github.com/numascope/numascope/podresources/podresourcestest"
)

// wireList is a List answer of n pods with one-letter names: 13 MB for 1M
// pods, the answer that took 554 MB to unmarshal.
func wireList(tb testing.TB, n int) []byte {
	tb.Helper()
	resp := &v1.ListPodResourcesResponse{PodResources: make([]*v1.PodResources, n)}
	for i := range resp.PodResources {
		resp.PodResources[i] = &v1.PodResources{Name: fmt.Sprint(i % 10), Namespace: "n"}
	}
	data, err := proto.Marshal(resp)
	require.NoError(tb, err)
	return data
}

func TestBoundedCodecRefusesBeforeUnmarshal(t *testing.T) {
	data := wireList(t, 1_000_000)
	c := newBoundedCodec(podresources.MaxPods)
	var resp v1.ListPodResourcesResponse
	err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(data)}, &resp)
	require.Error(t, err)
	assert.Contains(t, err.Error(), tooLargeMarker+"the answer names more than 20000 pods")
	assert.Empty(t, resp.PodResources, "nothing is unmarshalled")

	ok := wireList(t, 1000)
	require.NoError(t, c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(ok)}, &resp))
	assert.Len(t, resp.PodResources, 1000)
}

// BenchmarkUnmarshal1MPods compares unmarshalling a 1M-pod List answer
// without bounds (what the client did) with the bounded codec, which
// refuses it after counting 20,001 pods.
func BenchmarkUnmarshal1MPods(b *testing.B) {
	data := wireList(b, 1_000_000)
	b.Run("unbounded", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var resp v1.ListPodResourcesResponse
			if err := proto.Unmarshal(data, &resp); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bounded", func(b *testing.B) {
		c := newBoundedCodec(podresources.MaxPods)
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var resp v1.ListPodResourcesResponse
			if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(data)}, &resp); err == nil {
				b.Fatal("a 1M-pod answer was accepted")
			}
		}
	})
}

// FuzzBoundedCodec checks that the wire count never panics and that every
// answer it lets through is within the bounds once unmarshalled.
func FuzzBoundedCodec(f *testing.F) {
	f.Add(wireList(f, 3), uint8(0))
	f.Add(wireList(f, 30), uint8(1))
	pod := &v1.GetPodResourcesResponse{PodResources: &v1.PodResources{Name: "a", Namespace: "n", Containers: []*v1.ContainerResources{
		{Name: "c", CpuIds: []int64{1, 2, 3}, Devices: []*v1.ContainerDevices{{ResourceName: "r", DeviceIds: []string{"d"}, Topology: &v1.TopologyInfo{Nodes: []*v1.NUMANode{{ID: 0}}}}}},
	}}}
	data, err := proto.Marshal(pod)
	require.NoError(f, err)
	f.Add(data, uint8(2))
	alloc, err := proto.Marshal(&v1.AllocatableResourcesResponse{CpuIds: []int64{0, 1, 2, 3}, Memory: []*v1.ContainerMemory{{MemoryType: "memory", Size: 1 << 30}}})
	require.NoError(f, err)
	f.Add(alloc, uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		fuzzbudget.Run(t, func() {
			const maxPods = 10
			c := newBoundedCodec(maxPods)
			var msg proto.Message
			switch kind % 3 {
			case 0:
				msg = &v1.ListPodResourcesResponse{}
			case 1:
				msg = &v1.GetPodResourcesResponse{}
			default:
				msg = &v1.AllocatableResourcesResponse{}
			}
			if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(data)}, msg); err != nil {
				return
			}
			if l, ok := msg.(*v1.ListPodResourcesResponse); ok {
				containers := 0
				for _, p := range l.GetPodResources() {
					containers += len(p.GetContainers())
				}
				require.LessOrEqual(t, len(l.GetPodResources()), maxPods, "accepted pods over the bound")
				require.LessOrEqual(t, containers, maxPods*containersPerPod, "accepted containers over the bound")
			}
		})
	})
}

// BenchmarkBoundedUnmarshal10000Pods is the cost of the wire count on a
// 10,000-pod List answer, next to the plain unmarshal it precedes.
func BenchmarkBoundedUnmarshal10000Pods(b *testing.B) {
	snap := podresourcestest.Generate(10000)
	resp := &v1.ListPodResourcesResponse{}
	for i := range snap.Pods {
		resp.PodResources = append(resp.PodResources, protoconv.ToPod(&snap.Pods[i]))
	}
	data, err := proto.Marshal(resp)
	require.NoError(b, err)
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var resp v1.ListPodResourcesResponse
			if err := proto.Unmarshal(data, &resp); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bounded", func(b *testing.B) {
		c := newBoundedCodec(podresources.MaxPods)
		b.ReportAllocs()
		for b.Loop() {
			var resp v1.ListPodResourcesResponse
			if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(data)}, &resp); err != nil {
				b.Fatal(err)
			}
		}
	})
}
