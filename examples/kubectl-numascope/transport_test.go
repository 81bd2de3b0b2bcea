package main

import (
	"bytes"
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/numascope/numascope/internal/fuzzbudget"
)

// These tests stand for what a real API server cannot be made to answer:
// an object larger than etcd stores (1.5 MiB by default), and a redirect
// for every kind of request. The cluster tests (TestHostileKubelet) cover
// the rest through a real kube-apiserver.

// tokenKubeconfig writes a kubeconfig for srv that authenticates with a
// bearer token.
func tokenKubeconfig(t *testing.T, srv *httptest.Server, token string) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["fake"] = &clientcmdapi.Cluster{Server: srv.URL,
		CertificateAuthorityData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})}
	kc.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: token}
	kc.Contexts["fake"] = &clientcmdapi.Context{Cluster: "fake", AuthInfo: "u", Namespace: "default"}
	kc.CurrentContext = "fake"
	p := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, p))
	return p
}

// recorder counts the requests it receives, and those with an
// Authorization header.
type recorder struct {
	mu        sync.Mutex
	all, auth int
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.all++
	if req.Header.Get("Authorization") != "" {
		r.auth++
	}
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"stolen"}}`)
}

func (r *recorder) counts() (int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.all, r.auth
}

// TestEveryClientRefusesRedirects: whatever the plugin asks, an API server
// that answers with a redirect gets an error back, and the redirect's
// target receives nothing.
func TestEveryClientRefusesRedirects(t *testing.T) {
	rec := &recorder{}
	target := httptest.NewServer(rec)
	defer target.Close()
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	defer api.Close()
	k, err := connect(clusterFlags{kubeconfig: tokenKubeconfig(t, api, "secret-token"), timeout: 10 * time.Second})
	require.NoError(t, err)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"typed get", func() error { _, err := k.cs.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{}); return err }},
		{"typed list", func() error { _, err := k.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); return err }},
		{"discovery", func() error {
			_, err := k.cs.Discovery().ServerResourcesForGroupVersion("topology.node.k8s.io/v1alpha2")
			return err
		}},
		{"dynamic", func() error {
			dc, err := k.dynamic()
			if err != nil {
				return err
			}
			_, err = dc.Resource(nrtGVR).Get(ctx, "n", metav1.GetOptions{})
			return err
		}},
		{"node proxy", func() error { _, err := nodeProxy(ctx, k, "n1", "configz", nil, maxConfigz, nil); return err }},
		{"pod log", func() error {
			_, err := lastReport(ctx, k, corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "numascope", Name: "a"}, Spec: corev1.PodSpec{NodeName: "n1"}})
			return err
		}},
	} {
		err := tc.call()
		require.Error(t, err, tc.name)
		var re *redirectError
		assert.True(t, errors.As(err, &re), "%s: %v", tc.name, err)
		assert.Contains(t, plain(err).Error(), "not followed", tc.name)
	}
	all, auth := rec.counts()
	assert.Zero(t, all, "requests that reached the redirect's target")
	assert.Zero(t, auth, "of them with an Authorization header")

	// A client that follows redirects, built from the same configuration,
	// still sends nothing there: the transport talks to the API server only.
	follower, err := kubernetes.NewForConfig(k.config)
	require.NoError(t, err)
	_, err = follower.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{})
	var oe *offHostError
	require.True(t, errors.As(err, &oe), "%v", err)
	assert.Contains(t, oe.Error(), "talks to its API server "+strings.TrimPrefix(api.URL, "https://")+" only (the kubeconfig's, or --server)")
	all, auth = rec.counts()
	assert.Zero(t, all, "requests that reached the redirect's target")
	assert.Zero(t, auth)
}

// endless writes a JSON Pod whose one annotation is size bytes long, in
// pieces, without holding it in memory.
func endless(w http.ResponseWriter, size int) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"big","namespace":"default","annotations":{"a":"`)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for left := size; left > 0; left -= len(chunk) {
		if _, err := w.Write(chunk[:min(left, len(chunk))]); err != nil {
			return
		}
	}
	io.WriteString(w, `"}},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"i"}]}}`)
}

// TestAnswersAreBounded: a pod of 256 MiB (decoded whole by client-go it
// costs 2.4 GiB) and an answer that never ends are refused with an error
// that says which request and which bound, within a small budget.
func TestAnswersAreBounded(t *testing.T) {
	slow := make(chan struct{})
	defer close(slow)
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/namespaces/default/pods/big":
			endless(w, 256<<20)
		case "/api/v1/namespaces/default/pods/big-declared":
			w.Header().Set("Content-Length", fmt.Sprint(256<<20))
			endless(w, 256<<20-200)
		case "/api/v1/namespaces/default/pods/slow":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"kind":"Pod",`)
			w.(http.Flusher).Flush()
			select {
			case <-slow:
			case <-r.Context().Done():
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer api.Close()
	kc := tokenKubeconfig(t, api, "t")
	for _, tc := range []struct {
		pod, timeout, want string
	}{
		// A timeout that 16 MiB meets even on a busy machine.
		{"big", "30s", "getting pod default/big: the API server's answer to GET /api/v1/namespaces/default/pods/big is over 16 MiB: refused"},
		{"big-declared", "30s", "the API server's answer to GET /api/v1/namespaces/default/pods/big-declared is over 16 MiB: refused"},
		{"slow", "1s", "the API server did not finish its answer to GET /api/v1/namespaces/default/pods/slow within 1s: given up"},
	} {
		var code int
		var errOut string
		var before, after runtime.MemStats
		start := time.Now()
		fuzzbudget.RunWith(t, fuzzbudget.Budget{Time: 30 * time.Second, Alloc: 128 << 20}, func() {
			runtime.ReadMemStats(&before)
			code, _, errOut = plugin(t, "--kubeconfig", kc, "--timeout", tc.timeout, "diagnose", "pod/"+tc.pod, "--no-node-access")
			runtime.ReadMemStats(&after)
		})
		t.Logf("diagnose pod/%s: exit %d in %s, %d MiB allocated", tc.pod, code, time.Since(start).Round(time.Millisecond), (after.TotalAlloc-before.TotalAlloc)>>20)
		assert.Equal(t, 2, code, tc.pod)
		assert.Contains(t, errOut, tc.want, tc.pod)
		assert.NotContains(t, errOut, "Please retry", tc.pod)
	}
}
