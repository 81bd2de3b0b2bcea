package conformance

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2"
	podresourcesapi "k8s.io/kubelet/pkg/apis/podresources/v1"
	"k8s.io/kubernetes/pkg/features"
	kubeletgrpc "k8s.io/kubernetes/pkg/kubelet/apis/grpc"
	kubeletpodresources "k8s.io/kubernetes/pkg/kubelet/apis/podresources"

	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/podresources/client"
	"github.com/numascope/numascope/podresources/podresourcestest"
)

// providers feeds the kubelet's own PodResources server (server_v1.go) with
// the answers for podresourcestest.Sample, the way the kubelet's container
// manager would: per pod UID and container name.
type providers struct {
	pods    []*corev1.Pod
	cpus    map[string][]int64
	memory  map[string][]*podresourcesapi.ContainerMemory
	devices map[string][]*podresourcesapi.ContainerDevices
	dra     map[string][]*podresourcesapi.DynamicResource
	alloc   *podresourcesapi.AllocatableResourcesResponse
	// Pod-level answers by pod UID (KEP-5526).
	podCPUs   map[string][]int64
	podMemory map[string][]*podresourcesapi.ContainerMemory
}

func key(uid, container string) string { return uid + "/" + container }

func (p *providers) GetActivePods() []*corev1.Pod { return p.pods }
func (p *providers) GetPods() []*corev1.Pod       { return p.pods }
func (p *providers) GetPodByName(namespace, name string) (*corev1.Pod, bool) {
	for _, pod := range p.pods {
		if pod.Namespace == namespace && pod.Name == name {
			return pod, true
		}
	}
	return nil, false
}
func (p *providers) UpdateAllocatedDevices(klog.Logger) {}
func (p *providers) GetDevices(uid, container string) []*podresourcesapi.ContainerDevices {
	return p.devices[key(uid, container)]
}
func (p *providers) GetAllocatableDevices(klog.Logger) []*podresourcesapi.ContainerDevices {
	return p.alloc.Devices
}
func (p *providers) GetCPUs(pod *corev1.Pod, c *corev1.Container) []int64 {
	return p.cpus[key(string(pod.UID), c.Name)]
}
func (p *providers) GetPodCPUs(uid string) []int64 { return p.podCPUs[uid] }
func (p *providers) GetAllocatableCPUs() []int64   { return p.alloc.CpuIds }
func (p *providers) GetMemory(_ klog.Logger, pod *corev1.Pod, c *corev1.Container) []*podresourcesapi.ContainerMemory {
	return p.memory[key(string(pod.UID), c.Name)]
}
func (p *providers) GetPodMemory(_ klog.Logger, uid string) []*podresourcesapi.ContainerMemory {
	return p.podMemory[uid]
}
func (p *providers) GetAllocatableMemory(klog.Logger) []*podresourcesapi.ContainerMemory {
	return p.alloc.Memory
}
func (p *providers) GetDynamicResources(_ klog.Logger, pod *corev1.Pod, c *corev1.Container) []*podresourcesapi.DynamicResource {
	return p.dra[key(string(pod.UID), c.Name)]
}

// sampleProviders describes the sample node to the kubelet's server. The
// web pod's "proxy" is a restartable init container (a sidecar), which the
// kubelet lists before the app containers.
func sampleProviders(t *testing.T) *providers {
	t.Helper()
	return providersFor(t, podresourcestest.Sample())
}

func providersFor(t *testing.T, sample *podresources.Snapshot) *providers {
	t.Helper()
	always := corev1.ContainerRestartPolicyAlways
	p := &providers{
		cpus: map[string][]int64{}, memory: map[string][]*podresourcesapi.ContainerMemory{},
		devices: map[string][]*podresourcesapi.ContainerDevices{}, dra: map[string][]*podresourcesapi.DynamicResource{},
		podCPUs: map[string][]int64{}, podMemory: map[string][]*podresourcesapi.ContainerMemory{},
	}
	for i, mp := range sample.Pods {
		pod := &corev1.Pod{}
		pod.Name, pod.Namespace, pod.UID = mp.Name, mp.Namespace, types.UID("uid-"+mp.Name)
		for _, c := range mp.Containers {
			if c.Name == "proxy" {
				pod.Spec.InitContainers = append(pod.Spec.InitContainers,
					corev1.Container{Name: "init-only"}, corev1.Container{Name: c.Name, RestartPolicy: &always})
			} else {
				pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: c.Name})
			}
			wire := toWire(t, &sample.Pods[i], c.Name)
			k := key(string(pod.UID), c.Name)
			p.cpus[k], p.memory[k], p.devices[k], p.dra[k] = wire.CpuIds, wire.Memory, wire.Devices, wire.DynamicResources
		}
		if len(mp.CPUIDs) > 0 || len(mp.Memory) > 0 {
			wire := podWire(t, &sample.Pods[i])
			p.podCPUs[string(pod.UID)], p.podMemory[string(pod.UID)] = wire.CpuIds, wire.Memory
		}
		p.pods = append(p.pods, pod)
	}
	// The wire form of the allocatable answer comes from the test server.
	srv, err := podresourcestest.StartInDir(sample)
	require.NoError(t, err)
	defer srv.Close()
	alloc, err := rawClient(t, srv.Socket()).GetAllocatableResources(context.Background(), &podresourcesapi.AllocatableResourcesRequest{})
	require.NoError(t, err)
	p.alloc = alloc
	return p
}

// podWire fetches one pod's API form by asking podresourcestest.
func podWire(t *testing.T, pod *podresources.PodResources) *podresourcesapi.PodResources {
	t.Helper()
	srv, err := podresourcestest.StartInDir(&podresources.Snapshot{Pods: []podresources.PodResources{*pod}})
	require.NoError(t, err)
	defer srv.Close()
	resp, err := rawClient(t, srv.Socket()).Get(context.Background(), &podresourcesapi.GetPodResourcesRequest{PodNamespace: pod.Namespace, PodName: pod.Name})
	require.NoError(t, err)
	return resp.PodResources
}

// toWire fetches one container's API form by asking podresourcestest.
func toWire(t *testing.T, pod *podresources.PodResources, container string) *podresourcesapi.ContainerResources {
	t.Helper()
	for _, c := range podWire(t, pod).Containers {
		if c.Name == container {
			return c
		}
	}
	require.FailNow(t, "container missing", "container %s", container)
	return nil
}

func rawClient(t *testing.T, socket string) podresourcesapi.PodResourcesListerClient {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return podresourcesapi.NewPodResourcesListerClient(conn)
}

// startKubeletServer serves the kubelet's own v1 PodResources server behind
// the kubelet's own rate limiter, as pkg/kubelet/server.ListenAndServePodResources
// does, on a unix socket.
func startKubeletServer(t *testing.T, p *providers) string {
	t.Helper()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "prk")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "kubelet.sock")
	lis, err := net.Listen("unix", socket)
	require.NoError(t, err)
	gs := grpc.NewServer(kubeletgrpc.WithRateLimiter(ctx, "podresources", kubeletpodresources.DefaultQPS, kubeletpodresources.DefaultBurstTokens))
	podresourcesapi.RegisterPodResourcesListerServer(gs, kubeletpodresources.NewV1PodResourcesServer(ctx, kubeletpodresources.PodResourcesProviders{
		Pods: p, Devices: p, Cpus: p, Memory: p, DynamicResources: p,
	}))
	go gs.Serve(lis)
	t.Cleanup(gs.Stop)
	return socket
}

// TestPodResourcesAgainstTheKubeletServer runs numascope's client against the
// kubelet's own server code and checks that it reads the same snapshot that
// podresourcestest serves, and that both servers fail Get the same way.
func TestPodResourcesAgainstTheKubeletServer(t *testing.T) {
	ctx := context.Background()
	kubelet := startKubeletServer(t, sampleProviders(t))
	test, err := podresourcestest.StartInDir(podresourcestest.Sample())
	require.NoError(t, err)
	defer test.Close()

	kc, err := client.Dial(ctx, kubelet)
	require.NoError(t, err)
	defer kc.Close()
	tc, err := client.Dial(ctx, test.Socket())
	require.NoError(t, err)
	defer tc.Close()

	fromKubelet, err := kc.Snapshot(ctx)
	require.NoError(t, err)
	fromTest, err := tc.Snapshot(ctx)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(fromTest, fromKubelet, cmpopts.EquateEmpty()), "kubelet server and podresourcestest disagree (-test +kubelet)")
	want := podresourcestest.Sample()
	assert.Empty(t, cmp.Diff(want, fromKubelet, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(podresources.PodResources{}, "QOSClass")), "kubelet server vs the sample (-sample +kubelet)")

	kp, err := kc.Get(ctx, "shop", "db")
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(&want.Pods[1], kp, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(podresources.PodResources{}, "QOSClass")), "Get (-want +got)")

	// Unknown pods: same gRPC status from both servers, same client error.
	_, kerr := rawClient(t, kubelet).Get(ctx, &podresourcesapi.GetPodResourcesRequest{PodNamespace: "default", PodName: "gone"})
	_, terr := rawClient(t, test.Socket()).Get(ctx, &podresourcesapi.GetPodResourcesRequest{PodNamespace: "default", PodName: "gone"})
	ks, ts := status.Convert(kerr), status.Convert(terr)
	assert.Equal(t, ks.Code(), ts.Code(), "Get(unknown): gRPC code, kubelet %v, podresourcestest %v", kerr, terr)
	assert.Equal(t, ks.Message(), ts.Message(), "Get(unknown): gRPC message, kubelet and podresourcestest")
	_, err = kc.Get(ctx, "default", "gone")
	assert.ErrorIs(t, err, client.ErrPodNotFound, "client Get(unknown) on the kubelet server")
}

// TestPodResourcesKubeletRateLimit hammers the kubelet's own rate limiter
// from concurrent callers: every call must succeed through back-off, and the
// rejection must be the one podresourcestest reproduces.
func TestPodResourcesKubeletRateLimit(t *testing.T) {
	ctx := context.Background()
	kubelet := startKubeletServer(t, sampleProviders(t))
	raw := rawClient(t, kubelet)
	var rejected error
	for range 50 {
		if _, err := raw.List(ctx, &podresourcesapi.ListPodResourcesRequest{}); err != nil {
			rejected = err
			break
		}
	}
	require.Error(t, rejected, "50 back-to-back calls were never rate-limited")
	ks, ts := status.Convert(rejected), status.Convert(podresourcestest.ErrRateLimited)
	assert.Equal(t, ks.Code(), ts.Code(), "gRPC code: kubelet rejects with %v, podresourcestest with %v", rejected, podresourcestest.ErrRateLimited)
	assert.Equal(t, ks.Message(), ts.Message(), "gRPC message: kubelet's rejection and podresourcestest's")

	c, err := client.Dial(ctx, kubelet)
	require.NoError(t, err)
	defer c.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for range 10 {
		wg.Go(func() {
			for range 10 {
				if _, err := c.List(ctx); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
}

// TestPodResourcesPodLevelAgainstTheKubeletServer turns on the kubelet's
// PodLevelResourceManagers gate (KEP-5526, beta in 1.37, off by default) and
// checks that pod-level CPUs and memory reach the model as the kubelet sends
// them, and that with the gate off the kubelet leaves them out.
func TestPodResourcesPodLevelAgainstTheKubeletServer(t *testing.T) {
	ctx := context.Background()
	sample := podresourcestest.Sample()
	db := &sample.Pods[1]
	db.CPUIDs = []int{8, 9, 10, 11, 12, 13}
	db.Memory = []podresources.ContainerMemory{{Type: "memory", Size: 6 << 30, NUMANodes: []int{0, 1}}}
	p := providersFor(t, sample)

	for _, on := range []bool{false, true} {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.PodLevelResourceManagers, on)
		c, err := client.Dial(ctx, startKubeletServer(t, p))
		require.NoError(t, err)
		got, err := c.Get(ctx, "shop", "db")
		c.Close()
		require.NoError(t, err)
		want := *db
		want.QOSClass = ""
		if !on {
			want.CPUIDs, want.Memory = nil, nil
		}
		assert.Empty(t, cmp.Diff(&want, got, cmpopts.EquateEmpty()), "gate %t: Get (-want +got)", on)
	}
}
