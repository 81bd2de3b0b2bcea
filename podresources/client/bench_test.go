package client_test

import (
	"context"
	"encoding/json"
	"testing"

	v1 "k8s.io/kubelet/pkg/apis/podresources/v1"

	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/podresources/client"
	"github.com/numascope/numascope/podresources/internal/protoconv"
	"github.com/numascope/numascope/podresources/podresourcestest"
)

func listOf(n int) *v1.ListPodResourcesResponse {
	snap := podresourcestest.Generate(n)
	resp := &v1.ListPodResourcesResponse{}
	for i := range snap.Pods {
		resp.PodResources = append(resp.PodResources, protoconv.ToPod(&snap.Pods[i]))
	}
	return resp
}

// BenchmarkFromList10000Pods converts a 10,000-pod List answer into the model.
func BenchmarkFromList10000Pods(b *testing.B) {
	resp := listOf(10000)
	b.ReportAllocs()
	for b.Loop() {
		pods, err := client.FromList(resp)
		if err != nil || len(pods) != 10000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkList10000PodsOverSocket is a whole List call of 10,000 pods over a
// unix socket: marshal, transfer, unmarshal and conversion.
func BenchmarkList10000PodsOverSocket(b *testing.B) {
	c := dial(b, serve(b, podresourcestest.Generate(10000)).Socket())
	b.ReportAllocs()
	for b.Loop() {
		pods, err := c.List(context.Background())
		if err != nil || len(pods) != 10000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode10000Pods reads a saved 10,000-pod snapshot in numascope's
// JSON form.
func BenchmarkDecode10000Pods(b *testing.B) {
	data, err := json.Marshal(podresourcestest.Generate(10000))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := podresources.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPerNUMA10000Pods builds the per-NUMA view of 10,000 pods.
func BenchmarkPerNUMA10000Pods(b *testing.B) {
	snap := podresourcestest.Generate(10000)
	cpus := podresources.CPUMap{}
	for c := range 128 {
		cpus[c] = c / 64
	}
	b.ReportAllocs()
	for b.Loop() {
		v := snap.PerNUMA(cpus)
		if len(v.Nodes) != 2 {
			b.Fatal(len(v.Nodes))
		}
	}
}
