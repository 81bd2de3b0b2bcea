package main

import (
	"net/http"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/numascope/numascope/internal/input"
)

// httpLimits bound the metrics server: Prometheus and the kubelet's probes
// are its only clients, so a few connections and short timeouts are plenty.
type httpLimits struct {
	idleTimeout time.Duration
	maxConns    int
}

var defaultHTTPLimits = httpLimits{idleTimeout: 60 * time.Second, maxConns: 64}

// Fixed bounds of the HTTP server.
const (
	httpHeaderTimeout = 5 * time.Second
	httpReadTimeout   = 10 * time.Second
	httpWriteTimeout  = 30 * time.Second
	httpMaxHeader     = 8 << 10
	// httpScrapes is how many /metrics answers run at once: a Prometheus
	// pair, a person with curl, and one spare.
	httpScrapes = 4
	// probeMaxConns bounds the connections of --probe-listen, which serves
	// only answers from memory.
	probeMaxConns = 8
)

// server returns the HTTP server of the metrics and probes. Reading a
// request's headers is bounded by the idle timeout too, so a connection that
// never sends a request lasts no longer than an idle one.
func (h httpLimits) server(handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: min(httpHeaderTimeout, h.idleTimeout),
		ReadTimeout:       min(httpReadTimeout, h.idleTimeout),
		WriteTimeout:      httpWriteTimeout,
		IdleTimeout:       h.idleTimeout,
		MaxHeaderBytes:    httpMaxHeader,
		ConnContext:       connContext,
	}
}

// cgroupRoot is where a container sees its own cgroup (v2 at the root; v1
// with the memory controller under memory/).
const cgroupRoot = "/sys/fs/cgroup"

// memoryLimitEnv is set by daemonset.yaml from the container's
// limits.memory through the downward API.
const memoryLimitEnv = "NUMASCOPE_MEMORY_LIMIT"

// applyMemoryLimit sets the Go runtime's soft memory limit to 90% of the
// container's memory limit, so that the garbage collector works harder
// before the kernel's OOM killer does. An explicit GOMEMLIMIT wins (the
// runtime has applied it already); then NUMASCOPE_MEMORY_LIMIT; then the
// cgroup's memory.max (v2) or memory.limit_in_bytes (v1). It returns the
// limit set and where it came from, or 0 and "" when it set none.
func applyMemoryLimit(getenv func(string) string, root string) (int64, string) {
	if getenv("GOMEMLIMIT") != "" {
		return 0, ""
	}
	limit, source := containerMemoryLimit(getenv, root)
	if limit <= 0 {
		return 0, ""
	}
	soft := limit / 10 * 9
	debug.SetMemoryLimit(soft)
	return soft, source
}

// agentGCPercent is the agent's GOGC unless the environment sets one. The
// agent works for a second or two a minute and idles otherwise; collecting
// at half the default heap growth costs a little CPU during a round and
// keeps its peak heap, and so its RSS, near the live data.
const agentGCPercent = 50

// applyGCPercent sets agentGCPercent unless GOGC is set (the runtime has
// applied that already), and says whether it did.
func applyGCPercent(getenv func(string) string) bool {
	if getenv("GOGC") != "" {
		return false
	}
	debug.SetGCPercent(agentGCPercent)
	return true
}

// containerMemoryLimit returns the container's memory limit in bytes, or 0
// when there is none.
func containerMemoryLimit(getenv func(string) string, root string) (int64, string) {
	if v := strings.TrimSpace(getenv(memoryLimitEnv)); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
			return n, memoryLimitEnv
		}
	}
	for _, name := range []string{"memory.max", filepath.Join("memory", "memory.limit_in_bytes")} {
		p := filepath.Join(root, name)
		data, err := input.ReadFile(p, "cgroup", 64)
		if err != nil {
			continue
		}
		s := strings.TrimSpace(string(data))
		if s == "max" {
			return 0, "" // cgroup v2: no limit
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			continue
		}
		if n >= 1<<62 {
			return 0, "" // cgroup v1: no limit is a page-rounded MaxInt64
		}
		return n, p
	}
	return 0, ""
}
