package main

import (
	"bufio"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/podresources/podresourcestest"
)

// keepAlive opens a connection, sends one keep-alive request and reads the
// answer, leaving the connection idle.
func keepAlive(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	r := bufio.NewReader(c)
	sendGet(t, c)
	resp, err := http.ReadResponse(r, nil)
	require.NoError(t, err)
	_, err = io.Copy(io.Discard, resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return c, r
}

func sendGet(t *testing.T, c net.Conn) {
	t.Helper()
	_, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: agent\r\n\r\n")
	require.NoError(t, err)
}

// closedBy waits until the server closes c (a read ends with EOF or a
// reset), and says how long that took.
func closedBy(t *testing.T, c net.Conn, r *bufio.Reader, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	require.NoError(t, c.SetReadDeadline(start.Add(limit)))
	_, err := r.ReadByte()
	require.Error(t, err)
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server did not close the connection within %s", limit)
	return time.Since(start)
}

// TestHTTPConnectionsAreBounded runs the agent's server with a short idle
// timeout and a cap of 2 connections, against real connections on loopback.
func TestHTTPConnectionsAreBounded(t *testing.T) {
	addr, _ := serveAgent(t, "--http-idle-timeout", "400ms", "--http-max-conns", "2")

	// Two idle keep-alive connections take both slots.
	c1, r1 := keepAlive(t, addr)
	c2, r2 := keepAlive(t, addr)
	// A third is served at once: the one idle the longest makes room.
	c3, r3 := startRequest(t, addr, "/healthz")
	code, _ := readAnswer(t, c3, r3)
	assert.Equal(t, http.StatusOK, code, "a third connection beyond the cap of 2")
	closedBy(t, c1, r1, 5*time.Second)

	// The idle ones are closed after the idle timeout.
	for _, c := range []struct {
		conn net.Conn
		r    *bufio.Reader
	}{{c2, r2}, {c3, r3}} {
		took := closedBy(t, c.conn, c.r, 5*time.Second)
		assert.Less(t, took, 5*time.Second)
	}

	// A connection that never sends a request does not hold a slot for
	// longer than the idle timeout either.
	silent, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer silent.Close()
	closedBy(t, silent, bufio.NewReader(silent), 5*time.Second)

	// Headers over the limit are refused.
	big, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer big.Close()
	_, err = io.WriteString(big, "GET /healthz HTTP/1.1\r\nHost: agent\r\nX-Big: "+strings.Repeat("a", 2*httpMaxHeader)+"\r\n\r\n")
	require.NoError(t, err)
	require.NoError(t, big.SetReadDeadline(time.Now().Add(5*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(big), nil)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode)
}

func TestHTTPServerTimeouts(t *testing.T) {
	tests := []struct {
		name       string
		limits     httpLimits
		wantHeader time.Duration
		wantRead   time.Duration
	}{
		{"defaults", defaultHTTPLimits, httpHeaderTimeout, httpReadTimeout},
		{"a short idle timeout bounds the reads too", httpLimits{idleTimeout: time.Second, maxConns: 1}, time.Second, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.limits.server(http.NotFoundHandler())
			assert.Equal(t, tt.wantHeader, s.ReadHeaderTimeout)
			assert.Equal(t, tt.wantRead, s.ReadTimeout)
			assert.Equal(t, httpWriteTimeout, s.WriteTimeout)
			assert.Equal(t, tt.limits.idleTimeout, s.IdleTimeout)
			assert.Equal(t, httpMaxHeader, s.MaxHeaderBytes)
		})
	}
}

func TestContainerMemoryLimit(t *testing.T) {
	tests := []struct {
		name       string
		env        map[string]string
		files      map[string]string // under the cgroup root
		fifo       string
		want       int64
		wantSource string
	}{
		{"no limit anywhere", nil, nil, "", 0, ""},
		{"downward API", map[string]string{memoryLimitEnv: "134217728"}, map[string]string{"memory.max": "1073741824\n"}, "", 128 << 20, memoryLimitEnv},
		{"downward API not a number: the cgroup", map[string]string{memoryLimitEnv: "128Mi"}, map[string]string{"memory.max": "1073741824\n"}, "", 1 << 30, "memory.max"},
		{"cgroup v2", nil, map[string]string{"memory.max": "134217728\n"}, "", 128 << 20, "memory.max"},
		{"cgroup v2 without a limit", nil, map[string]string{"memory.max": "max\n", "memory/memory.limit_in_bytes": "134217728\n"}, "", 0, ""},
		{"cgroup v1", nil, map[string]string{"memory/memory.limit_in_bytes": "134217728\n"}, "", 128 << 20, "memory/memory.limit_in_bytes"},
		{"cgroup v1 without a limit", nil, map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712\n"}, "", 0, ""},
		{"garbage", nil, map[string]string{"memory.max": "lots\n"}, "", 0, ""},
		{"a FIFO is not waited on", nil, nil, "memory.max", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, data := range tt.files {
				p := filepath.Join(root, name)
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
			}
			if tt.fifo != "" {
				require.NoError(t, syscall.Mkfifo(filepath.Join(root, tt.fifo), 0o600))
			}
			got, source := containerMemoryLimit(func(k string) string { return tt.env[k] }, root)
			assert.Equal(t, tt.want, got)
			if tt.wantSource != "" && tt.wantSource != memoryLimitEnv {
				assert.Equal(t, filepath.Join(root, tt.wantSource), source)
			} else {
				assert.Equal(t, tt.wantSource, source)
			}
		})
	}
}

func TestApplyMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	env := map[string]string{memoryLimitEnv: "134217728"}
	got, source := applyMemoryLimit(func(k string) string { return env[k] }, t.TempDir())
	assert.Equal(t, int64(128<<20)/10*9, got)
	assert.Equal(t, memoryLimitEnv, source)
	assert.Equal(t, got, debug.SetMemoryLimit(-1), "the runtime's soft limit is 90% of the container's")

	debug.SetMemoryLimit(math.MaxInt64)
	env["GOMEMLIMIT"] = "100MiB"
	got, source = applyMemoryLimit(func(k string) string { return env[k] }, t.TempDir())
	assert.Zero(t, got, "an explicit GOMEMLIMIT wins")
	assert.Empty(t, source)
	assert.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1))
}

// TestSIGTERMDuringBlockedRound runs the built binary against a
// PodResources socket that does not answer (with a --timeout far longer
// than the test) and sends SIGTERM during the round: the process exits
// promptly, without a report.
func TestSIGTERMDuringBlockedRound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildAgent(t)
	tests := []struct {
		name     string
		args     []string
		wantCode int
	}{
		{"loop", []string{"--listen", "127.0.0.1:0", "--interval", "1h"}, 0},
		{"once", []string{"--once"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, podresourcestest.Sample())
			srv.Delay(podresourcestest.List, time.Hour)
			var stdout, stderr syncBuffer
			cmd := exec.Command(bin, append([]string{"--state-dir", nodeDir, "--sysfs", sysDir, "--socket", srv.Socket(), "--timeout", "1h"}, tt.args...)...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())
			defer cmd.Process.Kill()
			deadline := time.Now().Add(10 * time.Second)
			for srv.Calls(podresourcestest.List) == 0 {
				require.True(t, time.Now().Before(deadline), "the round never called List: %s", stderr.String())
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(100 * time.Millisecond) // the round is now blocked in the call
			start := time.Now()
			require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			select {
			case err := <-waited:
				code := 0
				var exit *exec.ExitError
				if errors.As(err, &exit) {
					code = exit.ExitCode()
				} else {
					require.NoError(t, err)
				}
				assert.Equal(t, tt.wantCode, code, stderr.String())
				t.Logf("stopped %v after SIGTERM", time.Since(start).Round(time.Millisecond))
			case <-time.After(5 * time.Second):
				require.FailNow(t, "still running 5s after SIGTERM", "stderr: %s", stderr.String())
			}
			assert.Empty(t, stdout.String(), "a round cut short is not reported")
		})
	}
}

func TestApplyGCPercent(t *testing.T) {
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	tests := []struct {
		name string
		env  map[string]string
		want bool
		gc   int
	}{
		{"the agent's default", nil, true, agentGCPercent},
		{"GOGC wins", map[string]string{"GOGC": "100"}, false, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			assert.Equal(t, tt.want, applyGCPercent(func(k string) string { return tt.env[k] }))
			assert.Equal(t, tt.gc, debug.SetGCPercent(100))
		})
	}
}
