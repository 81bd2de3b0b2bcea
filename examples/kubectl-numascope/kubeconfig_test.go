package main

import (
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noKubeconfig points KUBECONFIG and HOME at an empty directory, so that
// only the flags say where the cluster is and who the user is.
func noKubeconfig(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUBECONFIG", filepath.Join(dir, "none"))
	t.Setenv("HOME", dir)
}

// caFile writes srv's certificate for --certificate-authority.
func caFile(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ca.crt")
	require.NoError(t, os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600))
	return p
}

// headers records, per request path, the headers that say who is asking.
type headers struct {
	mu   sync.Mutex
	seen map[string][]string // path -> Authorization, Impersonate-User, Impersonate-Group..., Impersonate-Uid
}

func (h *headers) record(r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.seen == nil {
		h.seen = map[string][]string{}
	}
	v := []string{r.Header.Get("Authorization"), r.Header.Get("Impersonate-User")}
	v = append(v, r.Header.Values("Impersonate-Group")...)
	h.seen[r.URL.Path] = append(v, r.Header.Get("Impersonate-Uid"))
}

// TestServerAndTokenFlags: with no kubeconfig at all, --server,
// --certificate-authority and --token reach the API server, --as,
// --as-group and --as-uid impersonate, and the token goes nowhere else: a
// redirect from that server is not followed.
func TestServerAndTokenFlags(t *testing.T) {
	noKubeconfig(t)
	var h headers
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.record(r)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v1/nodes":
			fmt.Fprint(w, `{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"n1"}}]}`)
		case "/api/v1/namespaces/numascope/pods":
			fmt.Fprint(w, `{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[]}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
		}
	}))
	defer api.Close()
	ca := caFile(t, api)
	const token = "s3cr3t-t0ken"

	code, out, errOut := plugin(t, "--server", api.URL, "--certificate-authority", ca, "--token", token,
		"--as", "ana", "--as-group", "numascope:users", "--as-group", "ops", "--as-uid", "1000", "nodes", "-o", "json")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `"node": "n1"`)
	h.mu.Lock()
	got := h.seen["/api/v1/nodes"]
	h.mu.Unlock()
	assert.Empty(t, cmp.Diff([]string{"Bearer " + token, "ana", "numascope:users", "ops", "1000"}, got), "the headers of the node list")
	assert.NotContains(t, errOut, token)

	// The same server by --server, without its CA: refused, the token unsent.
	code, _, errOut = plugin(t, "--server", api.URL, "--token", token, "nodes")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "certificate")
	assert.NotContains(t, errOut, token)

	// A server that redirects: nothing reaches the target.
	rec := &recorder{}
	target := httptest.NewServer(rec)
	defer target.Close()
	evil := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	defer evil.Close()
	code, _, errOut = plugin(t, "--server", evil.URL, "--certificate-authority", caFile(t, evil), "--token", token, "diagnose", "pod/p", "-n", "default", "--no-node-access")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "not followed")
	assert.NotContains(t, errOut, token)
	all, auth := rec.counts()
	assert.Zero(t, all, "requests that reached the redirect's target")
	assert.Zero(t, auth)
}

// TestKubeconfigFlagsOverTheFile: --server, --token, --cluster, --user and
// -n change what the kubeconfig says, as kubectl's flags do.
func TestKubeconfigFlagsOverTheFile(t *testing.T) {
	var h headers
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.record(r)
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
	}))
	defer api.Close()
	kc := tokenKubeconfig(t, api, "file-token")

	code, _, errOut := plugin(t, "--kubeconfig", kc, "diagnose", "pod/p", "--no-node-access")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "pod p not found in namespace default", "the context's namespace")

	code, _, errOut = plugin(t, "--kubeconfig", kc, "--token", "flag-token", "-n", "kube-system", "diagnose", "pod/p", "--no-node-access")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "pod p not found in namespace kube-system")
	h.mu.Lock()
	assert.Equal(t, "Bearer flag-token", h.seen["/api/v1/namespaces/kube-system/pods/p"][0], "--token over the kubeconfig's")
	h.mu.Unlock()

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--cluster", "nowhere"}, `cluster "nowhere"`},
		{[]string{"--user", "nobody"}, `auth info "nobody" does not exist`},
		{[]string{"--context", "nowhere"}, `context "nowhere" does not exist`},
		{[]string{"--server", "https://127.0.0.1:1", "--request-timeout", "5s"}, "127.0.0.1:1"},
		{[]string{"--certificate-authority", filepath.Join(t.TempDir(), "missing.crt")}, "missing.crt"},
	} {
		code, _, errOut := plugin(t, append(append([]string{"--kubeconfig", kc}, tc.args...), "nodes")...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, errOut, tc.want, "%v", tc.args)
		assert.NotContains(t, errOut, "file-token", "%v", tc.args)
	}
}

// TestCredentialsAreNotEchoed: no usage error repeats a credential given
// on the command line.
func TestCredentialsAreNotEchoed(t *testing.T) {
	noKubeconfig(t)
	const secret = "hunter2-s3cr3t"
	for _, args := range [][]string{
		{"--token", secret, "--insecure-skip-tls-verify=maybe", "nodes"},
		{"--token", secret, "--bogus", "nodes"},
		{"--token", secret, "nodes", "--out", "d"},
		{"--password", secret, "nodes"},
		{"--username", "u", "--password", secret, "nodes"},
		{"--token=" + secret, "--as-group", "g", "nodes"},
		{"--token", secret, "nodes"}, // no server at all
		{"--token", secret, "--request-timeout", "soon", "nodes"},
	} {
		var out, errb strings.Builder
		code := run(t.Context(), args, &out, &errb)
		assert.Equal(t, 2, code, "%v", args)
		assert.NotEmpty(t, errb.String(), "%v", args)
		assert.NotContains(t, errb.String(), secret, "%v", args)
	}
}
