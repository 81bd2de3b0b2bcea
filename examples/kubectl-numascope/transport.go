package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/numascope/numascope/internal/units"
)

// maxAnswer bounds one answer of the API server read whole: an object or
// one page of a list. etcd stores objects of at most 1.5 MiB by default and
// the pages asked for are far below this; decoding an answer costs several
// times its size, which is what the bound is for.
const maxAnswer = 16 << 20

// A stream read piece by piece (a kubelet's log, a pod's log) is bounded by
// its reader instead, through withStream.
type streamKey struct{}

// withStream marks the requests made with ctx as streams of at most limit
// bytes: their answers are handed over as they come, and refused past limit.
func withStream(ctx context.Context, limit int64) context.Context {
	return context.WithValue(ctx, streamKey{}, limit)
}

// limitError is an answer refused for its size or its time.
type limitError struct {
	method, path string
	// size is the bound that the answer went over; after the time it did not
	// end within.
	size  int64
	after time.Duration
}

func (e *limitError) Error() string {
	if e.after > 0 {
		return fmt.Sprintf("the API server did not finish its answer to %s %s within %s: given up (--timeout is how long one answer may take)", e.method, e.path, e.after)
	}
	return fmt.Sprintf("the API server's answer to %s %s is over %s: refused (kubectl-numascope reads at most that much of one answer)", e.method, e.path, units.Bytes(e.size))
}

// redirectError is a redirect the API server answered, not followed.
type redirectError struct {
	method, path, location string
}

func (e *redirectError) Error() string {
	return fmt.Sprintf("the API server answered %s %s with a redirect to %s: not followed (kubectl-numascope never follows a redirect: the request would carry the kubeconfig's credentials to that address)", e.method, e.path, e.location)
}

// offHostError is a request to another host than the API server's (the
// kubeconfig's, or --server).
type offHostError struct {
	host, server string
}

func (e *offHostError) Error() string {
	return fmt.Sprintf("refusing to send a request to %s: kubectl-numascope talks to its API server %s only (the kubeconfig's, or --server)", e.host, e.server)
}

// refuseRedirect is the CheckRedirect of every client the plugin builds: a
// redirect is an error, and the request it names is never sent. client-go
// adds the kubeconfig's credentials (a bearer token, an exec plugin's) to
// every request its transport sends, the redirected ones too, whatever
// host they go to.
func refuseRedirect(req *http.Request, via []*http.Request) error {
	prev := via[len(via)-1]
	return &redirectError{method: prev.Method, path: prev.URL.Path, location: req.URL.String()}
}

// guard is the innermost transport of every client the plugin builds: it
// sends requests to the API server only (the kubeconfig's, or --server), even when something
// upstream would follow a redirect, and bounds each answer in time (the
// whole answer within timeout) and size (maxAnswer, or the stream's limit).
type guard struct {
	next    http.RoundTripper
	host    string // the API server's host[:port]
	timeout time.Duration
}

func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.EqualFold(req.URL.Host, g.host) {
		return nil, &offHostError{host: req.URL.Host, server: g.host}
	}
	limit, stream := req.Context().Value(streamKey{}).(int64)
	if !stream {
		limit = maxAnswer
	}
	parent := req.Context()
	ctx, cancel := context.WithTimeout(parent, g.timeout)
	over := func() error { return &limitError{method: req.Method, path: req.URL.Path, size: limit} }
	late := func(err error) error {
		if errors.Is(err, context.DeadlineExceeded) && parent.Err() == nil {
			return &limitError{method: req.Method, path: req.URL.Path, after: g.timeout}
		}
		return err
	}
	resp, err := g.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, late(err)
	}
	if resp.ContentLength > limit {
		resp.Body.Close()
		cancel()
		return nil, over()
	}
	if stream {
		resp.Body = &guardedBody{body: resp.Body, left: limit, over: over, late: late, ctx: ctx, cancel: cancel}
		return resp, nil
	}
	// Read whole here, so that an answer too large or too slow is an error
	// of the request itself: client-go reports errors of the body's reader
	// as "unexpected error ... Please retry", and logs them.
	defer cancel()
	defer resp.Body.Close()
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1))
	if err == nil {
		// A cancelled answer may also end as if complete.
		err = ctx.Err()
	}
	switch {
	case err != nil:
		return nil, late(err)
	case n > limit:
		return nil, over()
	}
	resp.Body = io.NopCloser(&buf)
	resp.ContentLength = n
	return resp, nil
}

// guardedBody is a stream's answer, refused past its limit or its time.
type guardedBody struct {
	body       io.ReadCloser
	left       int64
	over       func() error
	late       func(error) error
	ctx        context.Context
	cancel     context.CancelFunc
	closeOnce  sync.Once
	closeError error
}

func (b *guardedBody) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.body.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n + int(b.left), b.over()
	}
	if err == io.EOF && b.ctx.Err() != nil {
		// A cancelled answer may also end as if complete.
		err = b.ctx.Err()
	}
	if err != nil && err != io.EOF {
		err = b.late(err)
	}
	return n, err
}

func (b *guardedBody) Close() error {
	b.closeOnce.Do(func() {
		b.closeError = b.body.Close()
		b.cancel()
	})
	return b.closeError
}

// serverHost is the host[:port] of the API server's URL, as client-go
// puts it in every request's URL.
func serverHost(host string) (string, error) {
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return "", fmt.Errorf("the API server's address %q: %w", host, err)
	}
	if u.Host == "" {
		return "", fmt.Errorf("the API server's address %q names no host", host)
	}
	return u.Host, nil
}
