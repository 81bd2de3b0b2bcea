package client

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	v1 "k8s.io/kubelet/pkg/apis/podresources/v1"

	"github.com/numascope/numascope/podresources"
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
