package cluster

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Recorder is a plain-HTTP server on KubeletIP that answers every request
// with 200 and an empty JSON object, and records what reached it: the
// target a hostile kubelet redirects to, where a client that follows the
// redirect would send its requests and its credentials.
type Recorder struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests []RecordedRequest
}

// RecordedRequest is one request a Recorder received.
type RecordedRequest struct {
	Method, Path string
	// Authorization is the request's Authorization header ("" when none).
	Authorization string
}

// StartRecorder starts a Recorder on KubeletIP and an ephemeral port; it
// stops when t ends. Call it inside InNetns.
func StartRecorder(t testing.TB) *Recorder {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(KubeletIP, "0"))
	if err != nil {
		t.Fatalf("listening on %s (inside cluster.InNetns?): %v", KubeletIP, err)
	}
	r := &Recorder{}
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.requests = append(r.requests, RecordedRequest{Method: req.Method, Path: req.URL.RequestURI(), Authorization: req.Header.Get("Authorization")})
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kubeletconfig":{"stolen":true}}`))
	}))
	r.srv.Listener = ln
	r.srv.Start()
	t.Cleanup(r.srv.Close)
	return r
}

// URL is the recorder's base URL (http://KubeletIP:PORT).
func (r *Recorder) URL() string { return r.srv.URL }

// Requests returns the requests received so far.
func (r *Recorder) Requests() []RecordedRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RecordedRequest(nil), r.requests...)
}

// WithAuthorization counts the requests received that carried an
// Authorization header.
func (r *Recorder) WithAuthorization() int {
	n := 0
	for _, q := range r.Requests() {
		if q.Authorization != "" {
			n++
		}
	}
	return n
}
