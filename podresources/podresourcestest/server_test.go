package podresourcestest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	v1 "k8s.io/kubelet/pkg/apis/podresources/v1"

	"github.com/numascope/numascope/podresources/podresourcestest"
)

// rawClient talks to the server with the generated client only, so these
// tests check the server on its own.
func rawClient(t *testing.T, s *podresourcestest.Server) v1.PodResourcesListerClient {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+s.Socket(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return v1.NewPodResourcesListerClient(conn)
}

func start(t *testing.T, opts ...podresourcestest.Option) *podresourcestest.Server {
	t.Helper()
	s, err := podresourcestest.StartInDir(podresourcestest.Sample(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestServesSnapshot(t *testing.T) {
	s := start(t)
	c := rawClient(t, s)
	ctx := context.Background()
	list, err := c.List(ctx, &v1.ListPodResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(list.PodResources); got != 3 {
		t.Fatalf("List: %d pods, want 3", got)
	}
	web := list.PodResources[0]
	if web.Name != "web" || web.Containers[1].CpuIds[0] != 2 {
		t.Errorf("List: first pod %v", web)
	}
	// NUMA node 0 travels as an explicit node with ID 0.
	if n := web.Containers[1].Devices[0].Topology.Nodes; len(n) != 1 || n[0].ID != 0 {
		t.Errorf("device topology = %v, want node 0", n)
	}
	alloc, err := c.GetAllocatableResources(ctx, &v1.AllocatableResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(alloc.CpuIds) != 15 || len(alloc.Devices) != 5 {
		t.Errorf("allocatable: %d CPUs %d devices", len(alloc.CpuIds), len(alloc.Devices))
	}
	got, err := c.Get(ctx, &v1.GetPodResourcesRequest{PodNamespace: "shop", PodName: "db"})
	if err != nil {
		t.Fatal(err)
	}
	if got.PodResources.Containers[0].DynamicResources[0].ClaimName != "fast-disk" {
		t.Errorf("Get: %v", got)
	}
	for m, want := range map[podresourcestest.Method]int64{podresourcestest.List: 1, podresourcestest.GetAllocatableResources: 1, podresourcestest.Get: 1} {
		if n := s.Calls(m); n != want {
			t.Errorf("Calls(%s) = %d, want %d", m, n, want)
		}
	}
}

func TestGetUnknownPodAnswersLikeTheKubelet(t *testing.T) {
	c := rawClient(t, start(t))
	_, err := c.Get(context.Background(), &v1.GetPodResourcesRequest{PodNamespace: "default", PodName: "nope"})
	st, _ := status.FromError(err)
	if st.Code() != codes.Unknown || st.Message() != "pod nope in namespace default not found" {
		t.Errorf("Get(unknown) = %v", err)
	}
}

func TestMissingAndDisabledMethods(t *testing.T) {
	ctx := context.Background()
	c := rawClient(t, start(t, podresourcestest.WithoutMethod(podresourcestest.Get), podresourcestest.WithMethodDisabled(podresourcestest.GetAllocatableResources)))
	_, err := c.Get(ctx, &v1.GetPodResourcesRequest{PodNamespace: "default", PodName: "web"})
	if st, _ := status.FromError(err); st.Code() != codes.Unimplemented || st.Message() != "unknown method Get for service v1.PodResourcesLister" {
		t.Errorf("Get on a server without it = %v", err)
	}
	_, err = c.GetAllocatableResources(ctx, &v1.AllocatableResourcesRequest{})
	if st, _ := status.FromError(err); st.Code() != codes.Unknown || st.Message() != "PodResources API GetAllocatableResources disabled" {
		t.Errorf("GetAllocatableResources disabled = %v", err)
	}
	if _, err := c.List(ctx, &v1.ListPodResourcesRequest{}); err != nil {
		t.Errorf("List = %v", err)
	}
}

func TestInjectedErrorsAndDelays(t *testing.T) {
	s := start(t)
	c := rawClient(t, s)
	ctx := context.Background()
	s.FailNext(podresourcestest.List, 2, status.Error(codes.Internal, "boom"))
	for i := range 2 {
		if _, err := c.List(ctx, &v1.ListPodResourcesRequest{}); status.Code(err) != codes.Internal {
			t.Errorf("call %d: %v, want Internal", i, err)
		}
	}
	if _, err := c.List(ctx, &v1.ListPodResourcesRequest{}); err != nil {
		t.Errorf("third call: %v", err)
	}
	s.Fail(podresourcestest.Get, errors.New("always"))
	for range 3 {
		if _, err := c.Get(ctx, &v1.GetPodResourcesRequest{PodNamespace: "default", PodName: "web"}); status.Convert(err).Message() != "always" {
			t.Errorf("sticky failure: %v", err)
		}
	}
	s.Fail(podresourcestest.Get, nil)
	if _, err := c.Get(ctx, &v1.GetPodResourcesRequest{PodNamespace: "default", PodName: "web"}); err != nil {
		t.Errorf("after clearing: %v", err)
	}
	s.Delay(podresourcestest.List, time.Minute)
	tctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := c.List(tctx, &v1.ListPodResourcesRequest{}); status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("slow List: %v, want DeadlineExceeded", err)
	}
	if n := s.Calls(podresourcestest.List); n != 4 {
		t.Errorf("Calls(List) = %d, want 4", n)
	}
}

func TestRateLimitLikeTheKubelet(t *testing.T) {
	s := start(t, podresourcestest.WithRateLimit(podresourcestest.KubeletQPS, podresourcestest.KubeletBurst))
	c := rawClient(t, s)
	rejected := 0
	for range 30 {
		if _, err := c.List(context.Background(), &v1.ListPodResourcesRequest{}); err != nil {
			if status.Code(err) != codes.ResourceExhausted || status.Convert(err).Message() != "rejected by rate limit" {
				t.Fatalf("unexpected error %v", err)
			}
			rejected++
		}
	}
	if rejected == 0 || int64(rejected) != s.RateLimited() {
		t.Errorf("rejected %d, server counted %d", rejected, s.RateLimited())
	}
}

func TestSocketPathTooLong(t *testing.T) {
	long := filepath.Join(os.TempDir(), string(make([]byte, 0)), "a-very-long-directory-name-that-does-not-fit-into-sun-path-at-all-xxxxxxxxxxxxxxxxxxxxxxxx", "kubelet.sock")
	if _, err := podresourcestest.Start(long, nil); err == nil {
		t.Fatal("Start with a 120-byte path succeeded")
	}
}

func TestCloseRemovesSocket(t *testing.T) {
	s, err := podresourcestest.StartInDir(nil)
	if err != nil {
		t.Fatal(err)
	}
	path := s.Socket()
	s.Close()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("socket still there after Close: %v", err)
	}
}
