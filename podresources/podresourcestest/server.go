// Package podresourcestest runs a real gRPC PodResourcesLister server on a
// unix socket that serves a numascope snapshot, for tests and demos. It answers
// like a kubelet (the same error texts for unknown pods and disabled methods,
// the same rate limiter when asked) and can be told to fail, to be slow, or to
// lack a method, and it counts calls.
package podresourcestest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/kubelet/pkg/apis/podresources/v1"

	"github.com/numascope/numascope/podresources"
	"github.com/numascope/numascope/podresources/internal/protoconv"
)

// Method names one PodResourcesLister RPC.
type Method string

// The three v1 methods.
const (
	List                    Method = "List"
	GetAllocatableResources Method = "GetAllocatableResources"
	Get                     Method = "Get"
)

// The kubelet's own rate limit (pkg/kubelet/apis/podresources constants).
const (
	KubeletQPS   = 100
	KubeletBurst = 10
)

// ErrRateLimited is the error the kubelet's rate limiter returns, code
// ResourceExhausted, message "rejected by rate limit".
var ErrRateLimited = status.Error(codes.ResourceExhausted, "rejected by rate limit")

// Option configures Start.
type Option func(*Server)

// WithRateLimit turns on a token-bucket rate limit in front of every method,
// like the kubelet's (use KubeletQPS and KubeletBurst for the real values).
func WithRateLimit(qps float64, burst int) Option {
	return func(s *Server) {
		s.limiter = &bucket{rate: qps, burst: float64(burst), tokens: float64(burst), last: time.Now()}
	}
}

// WithoutMethod leaves m unregistered, so calls fail with gRPC's own
// Unimplemented error like a kubelet older than the method (Get before 1.27,
// GetAllocatableResources before 1.21).
func WithoutMethod(m Method) Option { return func(s *Server) { s.missing[m] = true } }

// WithMethodDisabled makes m answer as a kubelet does with the method's
// feature gate off: "PodResources API Get method disabled" (KubeletPodResourcesGet,
// 1.27-1.33 default) or "PodResources API GetAllocatableResources disabled"
// (KubeletPodResourcesGetAllocatable, 1.21-1.22 default).
func WithMethodDisabled(m Method) Option { return func(s *Server) { s.disabled[m] = true } }

// Server is a running PodResourcesLister server.
type Server struct {
	path       string
	lis        net.Listener
	gs         *grpc.Server
	limiter    *bucket
	missing    map[Method]bool
	disabled   map[Method]bool
	done       chan struct{}
	serveErr   error
	cleanupDir string

	mu       sync.Mutex
	list     *v1.ListPodResourcesResponse
	alloc    *v1.AllocatableResourcesResponse
	pods     map[string]*v1.PodResources
	failures map[Method][]error
	sticky   map[Method]error
	delays   map[Method]time.Duration

	calls    [3]atomic.Int64
	rejected atomic.Int64
}

func index(m Method) int {
	switch m {
	case List:
		return 0
	case GetAllocatableResources:
		return 1
	case Get:
		return 2
	}
	panic(fmt.Sprintf("podresourcestest: unknown method %q", m))
}

// Start serves snap on a new unix socket at socketPath (its directory must
// exist and the path must be short: unix socket paths are limited to about
// 100 bytes). A nil snap serves an empty node.
func Start(socketPath string, snap *podresources.Snapshot, opts ...Option) (*Server, error) {
	s := &Server{
		path: socketPath, missing: map[Method]bool{}, disabled: map[Method]bool{},
		failures: map[Method][]error{}, sticky: map[Method]error{}, delays: map[Method]time.Duration{},
		done: make(chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	if snap == nil {
		snap = &podresources.Snapshot{}
	}
	s.SetSnapshot(snap)
	if len(socketPath) > 100 {
		return nil, fmt.Errorf("podresourcestest: socket path %q is %d bytes; unix sockets allow about 100: use a shorter directory such as os.MkdirTemp(\"\", \"pr\")", socketPath, len(socketPath))
	}
	lis, err := net.Listen("unix", socketPath)
	if err != nil {
		return nil, fmt.Errorf("podresourcestest: listening on %s: %w", socketPath, err)
	}
	s.lis = lis
	opt := []grpc.ServerOption{grpc.UnaryInterceptor(s.intercept)}
	s.gs = grpc.NewServer(opt...)
	desc := v1.PodResourcesLister_ServiceDesc
	desc.Methods = nil
	for _, md := range v1.PodResourcesLister_ServiceDesc.Methods {
		if !s.missing[Method(md.MethodName)] {
			desc.Methods = append(desc.Methods, md)
		}
	}
	s.gs.RegisterService(&desc, lister{s: s})
	go func() {
		s.serveErr = s.gs.Serve(lis)
		close(s.done)
	}()
	return s, nil
}

// StartInDir is Start with a socket named kubelet.sock in a new short
// temporary directory, removed by Close.
func StartInDir(snap *podresources.Snapshot, opts ...Option) (*Server, error) {
	dir, err := os.MkdirTemp("", "pr")
	if err != nil {
		return nil, fmt.Errorf("podresourcestest: %w", err)
	}
	s, err := Start(filepath.Join(dir, "kubelet.sock"), snap, opts...)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.cleanupDir = dir
	return s, nil
}

// Socket returns the socket's path.
func (s *Server) Socket() string { return s.path }

// Close stops the server, ends calls in progress, and removes the socket.
func (s *Server) Close() {
	s.gs.Stop()
	<-s.done
	os.Remove(s.path)
	if s.cleanupDir != "" {
		os.RemoveAll(s.cleanupDir)
	}
}

// SetSnapshot replaces what the server answers.
func (s *Server) SetSnapshot(snap *podresources.Snapshot) {
	list := &v1.ListPodResourcesResponse{PodResources: make([]*v1.PodResources, len(snap.Pods))}
	pods := make(map[string]*v1.PodResources, len(snap.Pods))
	for i := range snap.Pods {
		p := protoconv.ToPod(&snap.Pods[i])
		list.PodResources[i] = p
		pods[snap.Pods[i].Namespace+"/"+snap.Pods[i].Name] = p
	}
	alloc := protoconv.ToAllocatable(snap.Allocatable)
	s.mu.Lock()
	s.list, s.alloc, s.pods = list, alloc, pods
	s.mu.Unlock()
}

// FailNext makes the next n calls of m return err (a gRPC status error, or any
// error, which gRPC sends with code Unknown like the kubelet's fmt.Errorf).
func (s *Server) FailNext(m Method, n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failures[m] = append(s.failures[m], err)
	}
}

// Fail makes every call of m return err until Fail(m, nil).
func (s *Server) Fail(m Method, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		delete(s.sticky, m)
		return
	}
	s.sticky[m] = err
}

// Delay makes every call of m wait d before answering (or until the
// caller gives up).
func (s *Server) Delay(m Method, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delays[m] = d
}

// Calls returns how many calls of m arrived, rejected ones included.
func (s *Server) Calls(m Method) int64 { return s.calls[index(m)].Load() }

// RateLimited returns how many calls the rate limit rejected.
func (s *Server) RateLimited() int64 { return s.rejected.Load() }

func (s *Server) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	m := Method(filepath.Base(info.FullMethod))
	s.calls[index(m)].Add(1)
	if s.limiter != nil && !s.limiter.allow() {
		s.rejected.Add(1)
		return nil, ErrRateLimited
	}
	s.mu.Lock()
	d := s.delays[m]
	var injected error
	if q := s.failures[m]; len(q) > 0 {
		injected, s.failures[m] = q[0], q[1:]
	} else if e := s.sticky[m]; e != nil {
		injected = e
	}
	s.mu.Unlock()
	if d > 0 {
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-t.C:
		}
	}
	if injected != nil {
		return nil, injected
	}
	return handler(ctx, req)
}

type lister struct {
	v1.UnimplementedPodResourcesListerServer
	s *Server
}

func (l lister) List(context.Context, *v1.ListPodResourcesRequest) (*v1.ListPodResourcesResponse, error) {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	return l.s.list, nil
}

func (l lister) GetAllocatableResources(context.Context, *v1.AllocatableResourcesRequest) (*v1.AllocatableResourcesResponse, error) {
	if l.s.disabled[GetAllocatableResources] {
		return nil, errors.New("PodResources API GetAllocatableResources disabled")
	}
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	return l.s.alloc, nil
}

func (l lister) Get(_ context.Context, req *v1.GetPodResourcesRequest) (*v1.GetPodResourcesResponse, error) {
	if l.s.disabled[Get] {
		return nil, errors.New("PodResources API Get method disabled")
	}
	l.s.mu.Lock()
	p, ok := l.s.pods[req.PodNamespace+"/"+req.PodName]
	l.s.mu.Unlock()
	if !ok {
		// The kubelet's exact answer (server_v1.go), sent with code Unknown.
		return nil, fmt.Errorf("pod %s in namespace %s not found", req.PodName, req.PodNamespace)
	}
	return &v1.GetPodResourcesResponse{PodResources: p}, nil
}

// bucket is a token bucket like golang.org/x/time/rate.Limiter.Allow.
type bucket struct {
	mu     sync.Mutex
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
}

func (b *bucket) allow() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true
	}
	return false
}
