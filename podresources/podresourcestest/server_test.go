package podresourcestest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return v1.NewPodResourcesListerClient(conn)
}

func start(t *testing.T, opts ...podresourcestest.Option) *podresourcestest.Server {
	t.Helper()
	s, err := podresourcestest.StartInDir(podresourcestest.Sample(), opts...)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

func TestServesSnapshot(t *testing.T) {
	s := start(t)
	c := rawClient(t, s)
	ctx := context.Background()
	list, err := c.List(ctx, &v1.ListPodResourcesRequest{})
	require.NoError(t, err)
	require.Len(t, list.PodResources, 3, "List: pods")
	web := list.PodResources[0]
	assert.Equal(t, "web", web.Name, "name of the first pod")
	require.GreaterOrEqual(t, len(web.Containers), 2, "containers of %s", web.Name)
	if assert.NotEmpty(t, web.Containers[1].CpuIds, "CPUs of container 1") {
		assert.EqualValues(t, 2, web.Containers[1].CpuIds[0], "first CPU of container 1")
	}
	// NUMA node 0 travels as an explicit node with ID 0.
	require.NotEmpty(t, web.Containers[1].Devices, "devices of container 1")
	require.NotNil(t, web.Containers[1].Devices[0].Topology, "topology of device 0")
	if n := web.Containers[1].Devices[0].Topology.Nodes; assert.Len(t, n, 1, "NUMA nodes of device 0") {
		assert.EqualValues(t, 0, n[0].ID, "NUMA node of device 0")
	}
	alloc, err := c.GetAllocatableResources(ctx, &v1.AllocatableResourcesRequest{})
	require.NoError(t, err)
	assert.Len(t, alloc.CpuIds, 15, "allocatable CPUs")
	assert.Len(t, alloc.Devices, 5, "allocatable devices")
	got, err := c.Get(ctx, &v1.GetPodResourcesRequest{PodNamespace: "shop", PodName: "db"})
	require.NoError(t, err)
	assert.Equal(t, "fast-disk", got.PodResources.Containers[0].DynamicResources[0].ClaimName, "Get: claim of shop/db's first container")
	for m, want := range map[podresourcestest.Method]int64{podresourcestest.List: 1, podresourcestest.GetAllocatableResources: 1, podresourcestest.Get: 1} {
		assert.Equal(t, want, s.Calls(m), "Calls(%s)", m)
	}
}

func TestGetUnknownPodAnswersLikeTheKubelet(t *testing.T) {
	c := rawClient(t, start(t))
	_, err := c.Get(context.Background(), &v1.GetPodResourcesRequest{PodNamespace: "default", PodName: "nope"})
	st, ok := status.FromError(err)
	require.True(t, ok, "Get(unknown) = %v, want a gRPC status", err)
	assert.Equal(t, codes.Unknown, st.Code(), "code of Get(unknown)")
	assert.Equal(t, "pod nope in namespace default not found", st.Message(), "message of Get(unknown)")
}

func TestMissingAndDisabledMethods(t *testing.T) {
	ctx := context.Background()
	c := rawClient(t, start(t, podresourcestest.WithoutMethod(podresourcestest.Get), podresourcestest.WithMethodDisabled(podresourcestest.GetAllocatableResources)))
	_, err := c.Get(ctx, &v1.GetPodResourcesRequest{PodNamespace: "default", PodName: "web"})
	st, ok := status.FromError(err)
	require.True(t, ok, "Get on a server without it = %v, want a gRPC status", err)
	assert.Equal(t, codes.Unimplemented, st.Code(), "code of Get on a server without it")
	assert.Equal(t, "unknown method Get for service v1.PodResourcesLister", st.Message(), "message of Get on a server without it")
	_, err = c.GetAllocatableResources(ctx, &v1.AllocatableResourcesRequest{})
	st, ok = status.FromError(err)
	require.True(t, ok, "GetAllocatableResources disabled = %v, want a gRPC status", err)
	assert.Equal(t, codes.Unknown, st.Code(), "code of GetAllocatableResources disabled")
	assert.Equal(t, "PodResources API GetAllocatableResources disabled", st.Message(), "message of GetAllocatableResources disabled")
	_, err = c.List(ctx, &v1.ListPodResourcesRequest{})
	assert.NoError(t, err, "List")
}

func TestInjectedErrorsAndDelays(t *testing.T) {
	s := start(t)
	c := rawClient(t, s)
	ctx := context.Background()
	s.FailNext(podresourcestest.List, 2, status.Error(codes.Internal, "boom"))
	for i := range 2 {
		_, err := c.List(ctx, &v1.ListPodResourcesRequest{})
		assert.Equal(t, codes.Internal, status.Code(err), "call %d: %v", i, err)
	}
	_, err := c.List(ctx, &v1.ListPodResourcesRequest{})
	assert.NoError(t, err, "third call")
	s.Fail(podresourcestest.Get, errors.New("always"))
	for range 3 {
		_, err := c.Get(ctx, &v1.GetPodResourcesRequest{PodNamespace: "default", PodName: "web"})
		assert.Equal(t, "always", status.Convert(err).Message(), "sticky failure: %v", err)
	}
	s.Fail(podresourcestest.Get, nil)
	_, err = c.Get(ctx, &v1.GetPodResourcesRequest{PodNamespace: "default", PodName: "web"})
	assert.NoError(t, err, "after clearing")
	s.Delay(podresourcestest.List, time.Minute)
	tctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = c.List(tctx, &v1.ListPodResourcesRequest{})
	assert.Equal(t, codes.DeadlineExceeded, status.Code(err), "slow List: %v", err)
	assert.EqualValues(t, 4, s.Calls(podresourcestest.List), "Calls(List)")
}

func TestRateLimitLikeTheKubelet(t *testing.T) {
	s := start(t, podresourcestest.WithRateLimit(podresourcestest.KubeletQPS, podresourcestest.KubeletBurst))
	c := rawClient(t, s)
	rejected := 0
	for range 30 {
		if _, err := c.List(context.Background(), &v1.ListPodResourcesRequest{}); err != nil {
			require.Equal(t, codes.ResourceExhausted, status.Code(err), "code of a rejected List: %v", err)
			require.Equal(t, "rejected by rate limit", status.Convert(err).Message(), "message of a rejected List")
			rejected++
		}
	}
	assert.NotZero(t, rejected, "rejected calls")
	assert.Equal(t, int64(rejected), s.RateLimited(), "rejections the server counted")
}

func TestSocketPathTooLong(t *testing.T) {
	long := filepath.Join(os.TempDir(), string(make([]byte, 0)), "a-very-long-directory-name-that-does-not-fit-into-sun-path-at-all-xxxxxxxxxxxxxxxxxxxxxxxx", "kubelet.sock")
	_, err := podresourcestest.Start(long, nil)
	require.Error(t, err, "Start with a 120-byte path succeeded")
}

func TestCloseRemovesSocket(t *testing.T) {
	s, err := podresourcestest.StartInDir(nil)
	require.NoError(t, err)
	path := s.Socket()
	s.Close()
	_, err = os.Stat(path)
	assert.ErrorIs(t, err, os.ErrNotExist, "socket still there after Close")
}
