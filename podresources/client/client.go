// Package client talks to the kubelet's PodResources gRPC socket and returns
// numascope's plain podresources model. It dials with a connect timeout, bounds
// every call with a deadline and a 16 MiB message limit, refuses an answer
// that names more pods, containers or values than a node can have before it
// is unmarshalled (see WithMaxPods), backs off when the
// kubelet's rate limit rejects a call, and turns failures into errors that say
// what to do.
//
// Errors wrap one of the sentinel errors (ErrSocketNotFound,
// ErrPermissionDenied, ErrNotServing, ErrUnimplemented, ErrRateLimited,
// ErrPodNotFound, ErrMessageTooLarge, podresources.ErrTooLarge) so callers
// can test them with errors.Is.
package client

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	v1 "k8s.io/kubelet/pkg/apis/podresources/v1"

	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/podresources/internal/protoconv"
)

// Defaults, matching what the kubelet's own GetV1Client callers use.
const (
	// DefaultSocket is where the kubelet serves the PodResources API.
	DefaultSocket = "/var/lib/kubelet/pod-resources/kubelet.sock"
	// DefaultConnectTimeout bounds Dial.
	DefaultConnectTimeout = 10 * time.Second
	// DefaultCallTimeout bounds each call, retries included, unless the
	// caller's context ends sooner.
	DefaultCallTimeout = 10 * time.Second
	// DefaultMaxMessageSize is the largest answer accepted, in bytes.
	DefaultMaxMessageSize = 16 << 20
	// DefaultInitialBackoff and DefaultMaxBackoff bound the waits between
	// retries after the kubelet's rate limit (100 calls per second, burst
	// 10, shared by all clients) rejected a call.
	DefaultInitialBackoff = 20 * time.Millisecond
	DefaultMaxBackoff     = time.Second
)

// Errors wrapped by the client's errors; test them with errors.Is.
var (
	// ErrSocketNotFound: no socket at the path.
	ErrSocketNotFound = errors.New("PodResources socket not found")
	// ErrPermissionDenied: the socket exists but this process may not
	// connect to it.
	ErrPermissionDenied = errors.New("permission denied on the PodResources socket")
	// ErrNotServing: nothing answers on the socket, or the connection broke.
	ErrNotServing = errors.New("the PodResources API is not answering")
	// ErrUnimplemented: the kubelet does not serve the method (too old) or
	// has it disabled by a feature gate.
	ErrUnimplemented = errors.New("the kubelet does not serve this PodResources method")
	// ErrRateLimited: the kubelet's rate limit kept rejecting the call until
	// the deadline.
	ErrRateLimited = errors.New("rejected by the kubelet's PodResources rate limit")
	// ErrPodNotFound: Get named a pod the kubelet does not run.
	ErrPodNotFound = errors.New("pod not found on this node")
	// ErrMessageTooLarge: the answer is larger than the message size limit.
	ErrMessageTooLarge = errors.New("PodResources answer larger than the message size limit")
)

type options struct {
	connectTimeout time.Duration
	callTimeout    time.Duration
	maxMsgSize     int
	initialBackoff time.Duration
	maxBackoff     time.Duration
	maxPods        int
}

// Option changes how Dial connects and how calls behave.
type Option func(*options)

// WithConnectTimeout bounds Dial (default 10s).
func WithConnectTimeout(d time.Duration) Option { return func(o *options) { o.connectTimeout = d } }

// WithCallTimeout bounds each call including its retries (default 10s); zero
// leaves the caller's context's deadline, and DefaultCallTimeout when the
// context has none, so that no call waits forever.
func WithCallTimeout(d time.Duration) Option { return func(o *options) { o.callTimeout = d } }

// WithMaxMessageSize sets the largest answer accepted in bytes (default 16
// MiB, at most MaxMessageSizeLimit).
func WithMaxMessageSize(n int) Option { return func(o *options) { o.maxMsgSize = n } }

// WithMaxPods sets the most pods one answer may name (default
// podresources.MaxPods); an answer may also hold at most 10 containers and
// 50 values (messages, strings, numbers) per pod of this bound. Answers over
// it are refused before they are unmarshalled, with an error wrapping
// podresources.ErrTooLarge.
func WithMaxPods(n int) Option { return func(o *options) { o.maxPods = n } }

// WithBackoff sets the first and the longest wait between retries after a
// rate-limit rejection; an initial wait of zero turns retries off.
func WithBackoff(initial, max time.Duration) Option {
	return func(o *options) { o.initialBackoff, o.maxBackoff = initial, max }
}

// Client is a connection to one PodResources socket. It is safe for
// concurrent use.
type Client struct {
	socket string
	path   string
	opts   options
	conn   *grpc.ClientConn
	api    v1.PodResourcesListerClient

	mu      sync.Mutex
	lastErr error
}

// SocketPath returns the filesystem path of a socket given as "unix://PATH",
// "unix:PATH" or a bare path; "" means DefaultSocket.
func SocketPath(socket string) (string, error) {
	switch {
	case socket == "":
		return DefaultSocket, nil
	case strings.HasPrefix(socket, "unix://"):
		socket = strings.TrimPrefix(socket, "unix://")
	case strings.HasPrefix(socket, "unix:"):
		socket = strings.TrimPrefix(socket, "unix:")
	case strings.Contains(socket, "://"):
		scheme, _, _ := strings.Cut(socket, "://")
		return "", fmt.Errorf("socket %q: scheme %q is not supported: the kubelet serves PodResources on a unix socket; give unix://PATH or a path", socket, scheme)
	}
	if socket == "" {
		return "", fmt.Errorf("socket path is empty: give unix://PATH or a path such as %s", DefaultSocket)
	}
	return socket, nil
}

// Dial connects to the PodResources socket ("unix://PATH", "unix:PATH" or a
// bare path; "" means DefaultSocket) and waits until the connection is ready,
// at most the connect timeout.
func Dial(ctx context.Context, socket string, opts ...Option) (*Client, error) {
	o := options{
		connectTimeout: DefaultConnectTimeout, callTimeout: DefaultCallTimeout, maxMsgSize: DefaultMaxMessageSize,
		initialBackoff: DefaultInitialBackoff, maxBackoff: DefaultMaxBackoff, maxPods: podresources.MaxPods,
	}
	for _, opt := range opts {
		opt(&o)
	}
	switch {
	case o.maxMsgSize <= 0 || o.maxMsgSize > MaxMessageSizeLimit:
		return nil, fmt.Errorf("podresources: client.WithMaxMessageSize(%d): give 1 byte to %d (64 MiB); the default, %d, fits a node's answer", o.maxMsgSize, MaxMessageSizeLimit, DefaultMaxMessageSize)
	case o.maxPods <= 0:
		return nil, fmt.Errorf("podresources: client.WithMaxPods(%d): give a positive number of pods; the default is %d", o.maxPods, podresources.MaxPods)
	case o.connectTimeout <= 0:
		return nil, fmt.Errorf("podresources: client.WithConnectTimeout(%s): give a positive duration; the default is %s", o.connectTimeout, DefaultConnectTimeout)
	case o.callTimeout < 0:
		return nil, fmt.Errorf("podresources: client.WithCallTimeout(%s): give a positive duration, or zero for the caller's deadline; the default is %s", o.callTimeout, DefaultCallTimeout)
	}
	path, err := SocketPath(socket)
	if err != nil {
		return nil, err
	}
	if err := checkSocket(path); err != nil {
		return nil, err
	}
	c := &Client{socket: socket, path: path, opts: o}
	dialer := func(ctx context.Context, _ string) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "unix", path)
		c.mu.Lock()
		c.lastErr = err
		c.mu.Unlock()
		return conn, err
	}
	conn, err := grpc.NewClient("passthrough:///podresources",
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(dialer),
		grpc.WithAuthority("localhost"),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(o.maxMsgSize), grpc.ForceCodecV2(newBoundedCodec(o.maxPods))),
	)
	if err != nil {
		return nil, fmt.Errorf("podresources: connecting to %s: %w", path, err)
	}
	c.conn = conn
	c.api = v1.NewPodResourcesListerClient(conn)
	if err := c.waitReady(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

func checkSocket(path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: nothing at %s: the kubelet must be running on this node with the PodResources API (on by default since Kubernetes 1.20); in a pod, mount the host directory %s with a hostPath volume; or give the socket's path: %w",
			ErrSocketNotFound, path, "/var/lib/kubelet/pod-resources", err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%w: cannot look up %s: %s: run as root or with access to the directory: %w", ErrPermissionDenied, path, permissionHint, err)
	case err != nil:
		return fmt.Errorf("podresources: checking %s: %w", path, err)
	case st.Mode()&fs.ModeSocket == 0:
		what := "a regular file"
		switch m := st.Mode(); {
		case m.IsDir():
			what = "a directory"
		case m&fs.ModeNamedPipe != 0:
			what = "a FIFO (named pipe)"
		case m&fs.ModeDevice != 0:
			what = "a device"
		}
		return fmt.Errorf("%w: %s is %s, not a unix socket: give the socket itself, usually %s", ErrSocketNotFound, path, what, DefaultSocket)
	}
	return nil
}

const permissionHint = "connecting to a unix socket needs write permission on the socket file, which the kubelet creates for root only; run as root (no extra capabilities are needed), and in a pod mount the directory /var/lib/kubelet/pod-resources as its own hostPath volume (readOnly works: a read-only mount does not stop connect(2)); see examples/agent/daemonset.yaml"

func (c *Client) lastDialErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastErr
}

func (c *Client) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.connectTimeout)
	defer cancel()
	c.conn.Connect()
	for {
		s := c.conn.GetState()
		if s == connectivity.Ready {
			return nil
		}
		if s == connectivity.TransientFailure {
			if err := c.lastDialErr(); errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
				return c.dialError(err)
			}
		}
		if !c.conn.WaitForStateChange(ctx, s) {
			if errors.Is(context.Cause(ctx), context.Canceled) {
				return fmt.Errorf("podresources: connecting to %s: %w", c.path, context.Cause(ctx))
			}
			err := c.lastDialErr()
			if err == nil {
				// The socket accepted the connection (or was never dialled
				// in time) but no gRPC server answered.
				return fmt.Errorf("%w: no gRPC answer on %s within %s: something accepted the connection but did not complete the gRPC handshake; is this the kubelet's PodResources socket? %w",
					ErrNotServing, c.path, c.opts.connectTimeout, context.DeadlineExceeded)
			}
			return fmt.Errorf("podresources: no connection to %s within %s: %w", c.path, c.opts.connectTimeout, c.dialError(err))
		}
	}
}

func (c *Client) dialError(err error) error {
	switch {
	case errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM):
		return fmt.Errorf("%w: connecting to %s: %s: %w", ErrPermissionDenied, c.path, permissionHint, err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%w: nothing listens on %s (connection refused): the kubelet is not running or is restarting, and the socket file is left from an earlier run: %w", ErrNotServing, c.path, err)
	case errors.Is(err, syscall.ENOENT):
		return fmt.Errorf("%w: %s disappeared (the kubelet may be restarting): %w", ErrSocketNotFound, c.path, err)
	}
	return fmt.Errorf("%w: %w", ErrNotServing, err)
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Socket returns the socket's filesystem path.
func (c *Client) Socket() string { return c.path }

// call runs one RPC under the call timeout, retrying with jittered
// exponential back-off while the kubelet's rate limit rejects it and the
// deadline allows another attempt.
func (c *Client) call(ctx context.Context, method string, rpc func(context.Context) error) error {
	timeout := c.opts.callTimeout
	if _, has := ctx.Deadline(); timeout == 0 && !has {
		timeout = DefaultCallTimeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	backoff := c.opts.initialBackoff
	start := time.Now()
	for attempt := 1; ; attempt++ {
		err := rpc(ctx)
		if err == nil {
			return nil
		}
		st, _ := status.FromError(err)
		if st.Code() != codes.ResourceExhausted || isTooLarge(st) {
			if attempt > 1 && (st.Code() == codes.DeadlineExceeded || st.Code() == codes.Canceled) {
				return fmt.Errorf("%w: %s was rejected %d times and the next try ran out of time: %s: %w",
					ErrRateLimited, method, attempt-1, rateHint, also(err, ctx.Err()))
			}
			return c.explain(ctx, method, err)
		}
		if backoff <= 0 {
			return fmt.Errorf("%w: %s: %s (retries are off): %w", ErrRateLimited, method, rateHint, err)
		}
		wait := backoff/2 + rand.N(backoff)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait+minAttempt {
			return fmt.Errorf("%w: %s was rejected %d times in %s and the deadline leaves no time for another try: %s: %w",
				ErrRateLimited, method, attempt, time.Since(start).Round(time.Millisecond), rateHint, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: %s was rejected %d times before the context ended: %s: %w", ErrRateLimited, method, attempt, rateHint, also(err, ctx.Err()))
		case <-t.C:
		}
		backoff = min(backoff*2, c.opts.maxBackoff)
	}
}

// minAttempt is the least time worth leaving for one more try.
const minAttempt = 5 * time.Millisecond

const rateHint = "the kubelet allows 100 PodResources calls per second with a burst of 10 for all clients together; another agent on this node may be polling too often; retry later or give the call a longer deadline"

func isTooLarge(st *status.Status) bool {
	m := st.Message()
	return strings.Contains(m, "larger than max") || strings.Contains(m, "message too large")
}

// Versions and feature gates, from the kubelet's feature gate history.
const (
	getHistory         = "Get exists since Kubernetes 1.27 behind the kubelet feature gate KubeletPodResourcesGet (alpha and off by default in 1.27-1.33, beta and on by default since 1.34, GA since 1.36)"
	allocatableHistory = "GetAllocatableResources exists since Kubernetes 1.21 behind the kubelet feature gate KubeletPodResourcesGetAllocatable (alpha and off by default in 1.21-1.22, beta and on by default since 1.23, GA since 1.28)"
	listHistory        = "the v1 PodResources API exists since Kubernetes 1.20; older kubelets serve only v1alpha1"
)

func (c *Client) explain(ctx context.Context, method string, err error) error {
	st, ok := status.FromError(err)
	if !ok {
		return fmt.Errorf("podresources: %s on %s: %w", method, c.path, err)
	}
	if bErr := c.boundsError(method, err); bErr != nil {
		return bErr
	}
	msg := st.Message()
	switch st.Code() {
	case codes.Unimplemented:
		hint := listHistory
		switch method {
		case "Get":
			hint = getHistory + "; upgrade the kubelet, or use List and pick the pod"
		case "GetAllocatableResources":
			hint = allocatableHistory + "; upgrade the kubelet"
		}
		return fmt.Errorf("%w: the kubelet at %s does not implement %s: %s: %w", ErrUnimplemented, c.path, method, hint, err)
	case codes.ResourceExhausted:
		return fmt.Errorf("%w: the %s answer is over the %d-byte limit: raise it with client.WithMaxMessageSize: %w", ErrMessageTooLarge, method, c.opts.maxMsgSize, err)
	case codes.DeadlineExceeded:
		if c.opts.callTimeout > 0 {
			return fmt.Errorf("podresources: no %s answer from %s within the deadline (call timeout %s): the kubelet may be busy; retry, or raise the timeout with client.WithCallTimeout: %w",
				method, c.path, c.opts.callTimeout, also(err, context.DeadlineExceeded))
		}
		return fmt.Errorf("podresources: no %s answer from %s within the deadline: %w", method, c.path, also(err, context.DeadlineExceeded))
	case codes.Canceled:
		return fmt.Errorf("podresources: %s on %s canceled: %w", method, c.path, also(err, context.Canceled))
	case codes.Unavailable:
		if dErr := c.lastDialErr(); dErr != nil {
			return fmt.Errorf("podresources: %s: %w", method, also(c.dialError(dErr), err))
		}
		return fmt.Errorf("%w: %s on %s: the connection to the kubelet broke (it may be restarting); try again: %w", ErrNotServing, method, c.path, err)
	}
	switch {
	case strings.Contains(msg, "Get method disabled"):
		return fmt.Errorf("%w: Get is disabled on the kubelet at %s: enable the feature gate KubeletPodResourcesGet in the kubelet configuration (featureGates), or use List and pick the pod; %s: %w",
			ErrUnimplemented, c.path, getHistory, err)
	case strings.Contains(msg, "GetAllocatableResources disabled"):
		return fmt.Errorf("%w: GetAllocatableResources is disabled on the kubelet at %s: enable the feature gate KubeletPodResourcesGetAllocatable in the kubelet configuration (featureGates); %s: %w",
			ErrUnimplemented, c.path, allocatableHistory, err)
	case method == "Get" && strings.HasPrefix(msg, "pod ") && strings.HasSuffix(msg, " not found"):
		return fmt.Errorf("%w: %s: the kubelet has no such active pod: it runs on another node, is not admitted yet, or has terminated: %w", ErrPodNotFound, getTarget(ctx), err)
	}
	return fmt.Errorf("podresources: %s on %s: %w", method, c.path, err)
}

type targetKey struct{}

func getTarget(ctx context.Context) string {
	if s, ok := ctx.Value(targetKey{}).(string); ok {
		return s
	}
	return "pod"
}

// List returns the pods the kubelet reports with their containers'
// resources. Kubelets before 1.34 (and newer ones with the feature gate
// KubeletPodResourcesListUseActivePods off) also list terminated pods.
func (c *Client) List(ctx context.Context) ([]podresources.PodResources, error) {
	var resp *v1.ListPodResourcesResponse
	err := c.call(ctx, "List", func(ctx context.Context) error {
		var err error
		resp, err = c.api.List(ctx, &v1.ListPodResourcesRequest{})
		return err
	})
	if err != nil {
		return nil, err
	}
	pods, err := protoconv.Pods(resp.GetPodResources())
	if err != nil {
		return nil, fmt.Errorf("podresources: List answer from %s: %w", c.path, err)
	}
	return pods, nil
}

// GetAllocatableResources returns the CPUs, memory and devices the kubelet
// can assign exclusively.
func (c *Client) GetAllocatableResources(ctx context.Context) (*podresources.Allocatable, error) {
	var resp *v1.AllocatableResourcesResponse
	err := c.call(ctx, "GetAllocatableResources", func(ctx context.Context) error {
		var err error
		resp, err = c.api.GetAllocatableResources(ctx, &v1.AllocatableResourcesRequest{})
		return err
	})
	if err != nil {
		return nil, err
	}
	a, err := protoconv.Allocatable(resp)
	if err != nil {
		return nil, fmt.Errorf("podresources: GetAllocatableResources answer from %s: %w", c.path, err)
	}
	return a, nil
}

// Get returns one pod's resources.
func (c *Client) Get(ctx context.Context, namespace, name string) (*podresources.PodResources, error) {
	if namespace == "" || name == "" {
		return nil, fmt.Errorf("podresources: Get needs a namespace and a name, got %q/%q", namespace, name)
	}
	var resp *v1.GetPodResourcesResponse
	ctx = context.WithValue(ctx, targetKey{}, "pod "+namespace+"/"+name)
	err := c.call(ctx, "Get", func(ctx context.Context) error {
		var err error
		resp, err = c.api.Get(ctx, &v1.GetPodResourcesRequest{PodNamespace: namespace, PodName: name})
		return err
	})
	if err != nil {
		return nil, err
	}
	p, err := protoconv.Pod(resp.GetPodResources())
	if err != nil {
		return nil, fmt.Errorf("podresources: Get answer from %s: %w", c.path, err)
	}
	return p, nil
}

// Snapshot gathers List and GetAllocatableResources. When the kubelet does
// not serve GetAllocatableResources the snapshot has no Allocatable and a
// note saying why; any other failure is an error.
func (c *Client) Snapshot(ctx context.Context) (*podresources.Snapshot, error) {
	pods, err := c.List(ctx)
	if err != nil {
		return nil, err
	}
	snap := &podresources.Snapshot{Pods: pods}
	a, err := c.GetAllocatableResources(ctx)
	switch {
	case errors.Is(err, ErrUnimplemented):
		snap.Notes = append(snap.Notes, err.Error())
	case err != nil:
		return nil, err
	default:
		snap.Allocatable = a
	}
	return snap, nil
}

// FromList converts a List answer obtained elsewhere into the model. The
// pods' device id lists share memory with resp.
func FromList(resp *v1.ListPodResourcesResponse) ([]podresources.PodResources, error) {
	return protoconv.Pods(resp.GetPodResources())
}

// FromAllocatable converts a GetAllocatableResources answer into the model.
func FromAllocatable(resp *v1.AllocatableResourcesResponse) (*podresources.Allocatable, error) {
	return protoconv.Allocatable(resp)
}

// FromGet converts a Get answer into the model.
func FromGet(resp *v1.GetPodResourcesResponse) (*podresources.PodResources, error) {
	return protoconv.Pod(resp.GetPodResources())
}

// alsoErr reads as its first error and also matches the second with
// errors.Is, so a gRPC status can also be context.DeadlineExceeded without a
// second line in the message.
type alsoErr struct{ shown, also error }

func (e alsoErr) Error() string   { return e.shown.Error() }
func (e alsoErr) Unwrap() []error { return []error{e.shown, e.also} }

func also(shown, extra error) error {
	if extra == nil {
		return shown
	}
	return alsoErr{shown, extra}
}
