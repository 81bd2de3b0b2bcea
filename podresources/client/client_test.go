package client_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/podresources/client"
	"github.com/numascope/numascope/podresources/podresourcestest"
)

var equateEmpty = cmpopts.EquateEmpty()

// noQOS drops the QoS classes, which the PodResources API does not carry.
var noQOS = cmpopts.IgnoreFields(podresources.PodResources{}, "QOSClass")

func serve(t testing.TB, snap *podresources.Snapshot, opts ...podresourcestest.Option) *podresourcestest.Server {
	t.Helper()
	s, err := podresourcestest.StartInDir(snap, opts...)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

func dial(t testing.TB, socket string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.Dial(context.Background(), socket, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestEveryRPC(t *testing.T) {
	want := podresourcestest.Sample()
	s := serve(t, want)
	for _, socket := range []string{s.Socket(), "unix://" + s.Socket(), "unix:" + s.Socket()} {
		t.Run(socket[:4], func(t *testing.T) {
			c := dial(t, socket)
			ctx := context.Background()
			pods, err := c.List(ctx)
			require.NoError(t, err)
			assert.Empty(t, cmp.Diff(want.Pods, pods, equateEmpty, noQOS), "List (-want +got)")
			alloc, err := c.GetAllocatableResources(ctx)
			require.NoError(t, err)
			assert.Empty(t, cmp.Diff(want.Allocatable, alloc, equateEmpty, noQOS), "GetAllocatableResources (-want +got)")
			pod, err := c.Get(ctx, "shop", "db")
			require.NoError(t, err)
			assert.Empty(t, cmp.Diff(&want.Pods[1], pod, equateEmpty, noQOS), "Get (-want +got)")
			snap, err := c.Snapshot(ctx)
			require.NoError(t, err)
			assert.Empty(t, cmp.Diff(want, snap, equateEmpty, noQOS), "Snapshot (-want +got)")
		})
	}
	assert.EqualValues(t, 6, s.Calls(podresourcestest.List), "List calls the server saw")
}

func TestSocketPath(t *testing.T) {
	for in, want := range map[string]string{
		"":                      client.DefaultSocket,
		"/run/x.sock":           "/run/x.sock",
		"unix:///run/x.sock":    "/run/x.sock",
		"unix:/run/x.sock":      "/run/x.sock",
		"relative/kubelet.sock": "relative/kubelet.sock",
	} {
		got, err := client.SocketPath(in)
		if assert.NoError(t, err, "SocketPath(%q)", in) {
			assert.Equal(t, want, got, "SocketPath(%q)", in)
		}
	}
	for _, bad := range []string{"tcp://127.0.0.1:10250", "unix://"} {
		_, err := client.SocketPath(bad)
		assert.Error(t, err, "SocketPath(%q)", bad)
	}
}

func TestSocketMissing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kubelet.sock")
	_, err := client.Dial(context.Background(), path)
	require.ErrorIs(t, err, client.ErrSocketNotFound, "Dial(missing)")
	require.ErrorIs(t, err, os.ErrNotExist, "Dial(missing)")
	for _, want := range []string{path, "kubelet must be running", "hostPath"} {
		assert.Contains(t, err.Error(), want, "Dial(missing): error")
	}
	// A regular file where the socket should be.
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	_, err = client.Dial(context.Background(), path)
	if assert.ErrorIs(t, err, client.ErrSocketNotFound, "Dial(regular file)") {
		assert.Contains(t, err.Error(), "not a unix socket", "Dial(regular file)")
	}
}

func TestStaleSocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "pr")
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "kubelet.sock")
	l, err := net.Listen("unix", path)
	require.NoError(t, err)
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	_, err = client.Dial(context.Background(), path, client.WithConnectTimeout(300*time.Millisecond))
	if assert.ErrorIs(t, err, client.ErrNotServing, "Dial(stale socket)") {
		assert.Contains(t, err.Error(), "connection refused", "Dial(stale socket)")
	}
}

func TestGetUnknownPod(t *testing.T) {
	c := dial(t, serve(t, podresourcestest.Sample()).Socket())
	_, err := c.Get(context.Background(), "default", "gone")
	require.ErrorIs(t, err, client.ErrPodNotFound, "Get(unknown)")
	assert.Contains(t, err.Error(), "default/gone", "the error names the pod")
	assert.Contains(t, err.Error(), "pod gone in namespace default not found", "the error keeps the kubelet's words")
	_, err = c.Get(context.Background(), "", "x")
	assert.Error(t, err, "Get without a namespace succeeded")
}

func TestUnimplemented(t *testing.T) {
	ctx := context.Background()
	t.Run("Get missing", func(t *testing.T) {
		c := dial(t, serve(t, podresourcestest.Sample(), podresourcestest.WithoutMethod(podresourcestest.Get)).Socket())
		_, err := c.Get(ctx, "default", "web")
		wantErr(t, err, client.ErrUnimplemented, "KubeletPodResourcesGet", "1.27", "use List")
	})
	t.Run("Get disabled", func(t *testing.T) {
		c := dial(t, serve(t, podresourcestest.Sample(), podresourcestest.WithMethodDisabled(podresourcestest.Get)).Socket())
		_, err := c.Get(ctx, "default", "web")
		wantErr(t, err, client.ErrUnimplemented, "enable the feature gate KubeletPodResourcesGet", "PodResources API Get method disabled")
	})
	t.Run("GetAllocatableResources missing", func(t *testing.T) {
		c := dial(t, serve(t, podresourcestest.Sample(), podresourcestest.WithoutMethod(podresourcestest.GetAllocatableResources)).Socket())
		_, err := c.GetAllocatableResources(ctx)
		wantErr(t, err, client.ErrUnimplemented, "KubeletPodResourcesGetAllocatable", "1.21")
		snap, err := c.Snapshot(ctx)
		require.NoError(t, err, "Snapshot without GetAllocatableResources")
		assert.Nil(t, snap.Allocatable, "allocatable without GetAllocatableResources")
		assert.Len(t, snap.Pods, 3, "pods")
		if assert.Len(t, snap.Notes, 1, "notes") {
			assert.Contains(t, snap.Notes[0], "KubeletPodResourcesGetAllocatable", "the note names the feature gate")
		}
	})
	t.Run("GetAllocatableResources disabled", func(t *testing.T) {
		c := dial(t, serve(t, podresourcestest.Sample(), podresourcestest.WithMethodDisabled(podresourcestest.GetAllocatableResources)).Socket())
		_, err := c.GetAllocatableResources(ctx)
		wantErr(t, err, client.ErrUnimplemented, "enable the feature gate KubeletPodResourcesGetAllocatable")
	})
	t.Run("List missing", func(t *testing.T) {
		c := dial(t, serve(t, podresourcestest.Sample(), podresourcestest.WithoutMethod(podresourcestest.List)).Socket())
		_, err := c.List(ctx)
		wantErr(t, err, client.ErrUnimplemented, "v1alpha1")
		_, err = c.Snapshot(ctx)
		assert.ErrorIs(t, err, client.ErrUnimplemented, "Snapshot without List")
	})
}

func wantErr(t *testing.T, err, sentinel error, words ...string) {
	t.Helper()
	require.ErrorIs(t, err, sentinel)
	for _, w := range words {
		assert.Contains(t, err.Error(), w, "error")
	}
}

func TestRateLimitRetried(t *testing.T) {
	s := serve(t, podresourcestest.Sample())
	c := dial(t, s.Socket())
	s.FailNext(podresourcestest.List, 3, podresourcestest.ErrRateLimited)
	pods, err := c.List(context.Background())
	require.NoError(t, err, "List after 3 rejections")
	require.Len(t, pods, 3, "pods from List after 3 rejections")
	assert.EqualValues(t, 4, s.Calls(podresourcestest.List), "List calls the server saw")
}

func TestRateLimitGivesUpAtDeadline(t *testing.T) {
	s := serve(t, podresourcestest.Sample())
	c := dial(t, s.Socket(), client.WithCallTimeout(300*time.Millisecond))
	s.Fail(podresourcestest.List, podresourcestest.ErrRateLimited)
	_, err := c.List(context.Background())
	wantErr(t, err, client.ErrRateLimited, "100 PodResources calls per second", "rejected by rate limit")
	assert.GreaterOrEqual(t, s.Calls(podresourcestest.List), int64(2), "List calls the server saw: want retries")
	// The caller's own deadline bounds the retries too.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	c2 := dial(t, s.Socket(), client.WithCallTimeout(0))
	_, err = c2.List(ctx)
	assert.ErrorIs(t, err, client.ErrRateLimited, "List under a 100ms context")
}

func TestRateLimitNoRetry(t *testing.T) {
	s := serve(t, podresourcestest.Sample())
	c := dial(t, s.Socket(), client.WithBackoff(0, 0))
	s.FailNext(podresourcestest.List, 1, podresourcestest.ErrRateLimited)
	_, err := c.List(context.Background())
	wantErr(t, err, client.ErrRateLimited, "retries are off")
	assert.EqualValues(t, 1, s.Calls(podresourcestest.List), "List calls the server saw")
}

func TestMessageTooLarge(t *testing.T) {
	c := dial(t, serve(t, podresourcestest.Generate(200)).Socket(), client.WithMaxMessageSize(1024))
	_, err := c.List(context.Background())
	wantErr(t, err, client.ErrMessageTooLarge, "WithMaxMessageSize", "1024")
	assert.NotErrorIs(t, err, client.ErrRateLimited, "a too-large answer was taken for a rate-limit rejection")
}

func TestCallTimeout(t *testing.T) {
	s := serve(t, podresourcestest.Sample())
	s.Delay(podresourcestest.List, time.Minute)
	c := dial(t, s.Socket(), client.WithCallTimeout(100*time.Millisecond))
	_, err := c.List(context.Background())
	if assert.ErrorIs(t, err, context.DeadlineExceeded, "slow List") {
		assert.Contains(t, err.Error(), "WithCallTimeout", "the error names the option")
	}
	// A caller's deadline shorter than the call timeout wins.
	c2 := dial(t, s.Socket())
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = c2.List(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "slow List under a 100ms context")
	// Cancellation is reported as such.
	ctx3, cancel3 := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel3)
	_, err = c2.List(ctx3)
	assert.ErrorIs(t, err, context.Canceled, "canceled List")
}

func TestConnectTimeout(t *testing.T) {
	// A listener that never speaks gRPC: the HTTP/2 handshake never
	// completes, so only the connect timeout ends Dial.
	dir, err := os.MkdirTemp("", "pr")
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "mute.sock")
	l, err := net.Listen("unix", path)
	require.NoError(t, err)
	defer l.Close()
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}()
	_, err = client.Dial(context.Background(), path, client.WithConnectTimeout(200*time.Millisecond))
	require.Error(t, err, "Dial(mute listener)")
	assert.ErrorIs(t, err, client.ErrNotServing, "Dial(mute listener)")
	assert.ErrorIs(t, err, context.DeadlineExceeded, "Dial(mute listener)")
	assert.Contains(t, err.Error(), "within 200ms", "the error gives the timeout")
	assert.Contains(t, err.Error(), "gRPC handshake", "the error says what did not complete")
}

func TestServerGoneAfterDial(t *testing.T) {
	s, err := podresourcestest.StartInDir(podresourcestest.Sample())
	require.NoError(t, err)
	c := dial(t, s.Socket())
	_, err = c.List(context.Background())
	require.NoError(t, err)
	s.Close()
	_, err = c.List(context.Background())
	assert.True(t, errors.Is(err, client.ErrSocketNotFound) || errors.Is(err, client.ErrNotServing),
		"List after the server left = %v, want ErrSocketNotFound or ErrNotServing", err)
}

func TestTenThousandPods(t *testing.T) {
	want := podresourcestest.Generate(10000)
	c := dial(t, serve(t, want).Socket())
	snap, err := c.Snapshot(context.Background())
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(want, snap, equateEmpty, noQOS), "Snapshot of 10,000 pods (-want +got)")
}

func TestConcurrentCallersUnderTheKubeletRateLimit(t *testing.T) {
	s := serve(t, podresourcestest.Sample(), podresourcestest.WithRateLimit(podresourcestest.KubeletQPS, podresourcestest.KubeletBurst))
	c := dial(t, s.Socket())
	const callers, calls = 16, 8
	var wg sync.WaitGroup
	errs := make(chan error, callers*calls)
	for i := range callers {
		wg.Go(func() {
			for j := range calls {
				var err error
				switch (i + j) % 3 {
				case 0:
					_, err = c.List(context.Background())
				case 1:
					_, err = c.GetAllocatableResources(context.Background())
				default:
					_, err = c.Get(context.Background(), "default", "web")
				}
				if err != nil {
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
	total := s.Calls(podresourcestest.List) + s.Calls(podresourcestest.GetAllocatableResources) + s.Calls(podresourcestest.Get)
	assert.Equal(t, callers*calls+s.RateLimited(), total, "calls the server saw: %d answered and %d rejected", callers*calls, s.RateLimited())
	t.Logf("%d calls, %d rejected by the rate limit and retried", total, s.RateLimited())
}
