package cluster

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Kubelet is a fake kubelet: an HTTPS server on KubeletIP that answers what
// numascope asks a kubelet through the API server's proxies. It serves
//
//   - /configz: {"kubeletconfig": Config} as a real kubelet does;
//   - /logs/?query=kubelet: Log when LogQuery is set; otherwise what a
//     kubelet without enableSystemLogQuery serves there, the directory
//     listing of /var/log (a real file server over an empty directory);
//   - /containerLogs/NS/POD/CONTAINER: ContainerLogs["NS/POD/CONTAINER"],
//     404 for the others, as the kubelet does for an unknown container.
//
// Override makes it hostile: a path answered by a handler of the test's own
// (a redirect, an answer too large or too slow).
//
// Fields may be changed while it runs (under Lock).
type Kubelet struct {
	sync.Mutex
	Config        json.RawMessage
	Log           string
	LogQuery      bool
	ContainerLogs map[string]string
	// Requests counts the requests served, by path.
	Requests map[string]int

	overrides map[string]http.Handler // by path prefix
	srv       *httptest.Server
	port      int
}

// StartKubelet starts a fake kubelet on KubeletIP and an ephemeral port; it
// stops when t ends. Call it inside InNetns.
func StartKubelet(t testing.TB) *Kubelet {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(KubeletIP, "0"))
	if err != nil {
		t.Fatalf("listening on %s (inside cluster.InNetns?): %v", KubeletIP, err)
	}
	k := &Kubelet{ContainerLogs: map[string]string{}, Requests: map[string]int{}}
	varLog := filepath.Join(t.TempDir(), "var-log")
	if err := os.Mkdir(varLog, 0o755); err != nil {
		t.Fatal(err)
	}
	files := http.StripPrefix("/logs/", http.FileServer(http.Dir(varLog)))
	mux := http.NewServeMux()
	mux.HandleFunc("/configz", func(w http.ResponseWriter, r *http.Request) {
		k.count("/configz")
		k.Lock()
		cfg := k.Config
		k.Unlock()
		if cfg == nil {
			cfg = json.RawMessage(`{}`)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kubeletconfig":%s}`, cfg)
	})
	mux.HandleFunc("/logs/", func(w http.ResponseWriter, r *http.Request) {
		k.count("/logs/")
		k.Lock()
		query, log := k.LogQuery, k.Log
		k.Unlock()
		if query && r.URL.Query().Get("query") != "" {
			if r.URL.Path != "/logs/" {
				http.Error(w, "path not allowed in query mode", http.StatusNotAcceptable)
				return
			}
			w.Header().Set("Content-Type", "text/plain;charset=UTF-8")
			fmt.Fprint(w, log)
			return
		}
		files.ServeHTTP(w, r)
	})
	mux.HandleFunc("/containerLogs/", func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.URL.Path, "/containerLogs/")
		k.count("/containerLogs/" + key)
		k.Lock()
		out, ok := k.ContainerLogs[key]
		k.Unlock()
		if !ok {
			http.Error(w, fmt.Sprintf("container %q not found", key), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, out)
	})
	k.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := k.override(r.URL.Path); h != nil {
			k.count(r.URL.Path)
			h.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	k.srv.Listener = ln
	k.srv.StartTLS()
	k.port = ln.Addr().(*net.TCPAddr).Port
	t.Cleanup(k.srv.Close)
	return k
}

// Override answers the requests whose path starts with prefix with h
// instead (the longest prefix wins); a nil h removes the override.
func (k *Kubelet) Override(prefix string, h http.Handler) {
	k.Lock()
	defer k.Unlock()
	if k.overrides == nil {
		k.overrides = map[string]http.Handler{}
	}
	if h == nil {
		delete(k.overrides, prefix)
		return
	}
	k.overrides[prefix] = h
}

// Redirect answers the requests whose path starts with prefix with a 302 to
// location, as a hostile kubelet would.
func (k *Kubelet) Redirect(prefix, location string) {
	k.Override(prefix, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", location)
		w.WriteHeader(http.StatusFound)
	}))
}

func (k *Kubelet) override(path string) http.Handler {
	k.Lock()
	defer k.Unlock()
	best := ""
	var h http.Handler
	for p, o := range k.overrides {
		if strings.HasPrefix(path, p) && len(p) >= len(best) {
			best, h = p, o
		}
	}
	return h
}

func (k *Kubelet) count(path string) {
	k.Lock()
	k.Requests[path]++
	k.Unlock()
}

// Port is the kubelet's port, to register as the Node's kubeletEndpoint.
func (k *Kubelet) Port() int { return k.port }

// Served returns how many requests path had.
func (k *Kubelet) Served(path string) int {
	k.Lock()
	defer k.Unlock()
	return k.Requests[path]
}

// SetContainerLog sets what /containerLogs/NS/POD/CONTAINER answers.
func (k *Kubelet) SetContainerLog(ns, pod, container, log string) {
	k.Lock()
	k.ContainerLogs[ns+"/"+pod+"/"+container] = log
	k.Unlock()
}
