package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numascope/numascope/podresources/podresourcestest"
)

// probeBudget is how long a probe may take in these tests before they fail:
// a budget against a server that does not answer, not a speed target (the
// kubelet's own probe timeout is 1 s; the tests log what they measure).
const probeBudget = 5 * time.Second

// serveAgent runs the agent's loop with its HTTP server on loopback, with
// the default HTTP limits unless args say otherwise, and returns the
// address of --listen once the first round is done. The agent is stopped,
// and must exit 0, when the test ends.
func serveAgent(t *testing.T, args ...string) (addr string, stderr *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr = &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"--state-dir", nodeDir, "--sysfs", sysDir, "--socket", "none",
			"--listen", "127.0.0.1:0", "--interval", "1h", "--report", "none"}, args...), io.Discard, stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			assert.Equal(t, 0, code, "the agent's exit code; stderr: %s", stderr.String())
		case <-time.After(10 * time.Second):
			t.Error("the agent did not stop within 10s of its signal")
		}
	})
	addr = strings.TrimPrefix(waitAddress(t, stderr), "http://")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := probe(addr, "/readyz"); err == nil {
			return addr, stderr
		}
		require.True(t, time.Now().Before(deadline), "/readyz never answered 200; stderr: %s", stderr.String())
		time.Sleep(10 * time.Millisecond)
	}
}

// probe asks for path the way the kubelet's prober does: a new connection
// without keep-alive. It returns how long the answer took, and an error
// unless it was 200 within probeBudget.
func probe(addr, path string) (time.Duration, error) {
	cl := &http.Client{Timeout: probeBudget, Transport: &http.Transport{DisableKeepAlives: true}}
	start := time.Now()
	resp, err := cl.Get("http://" + addr + path)
	if err != nil {
		return time.Since(start), err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s answered %s", path, resp.Status)
	}
	return took, err
}

// An attack opens n connections to addr and keeps them busy until stop is
// closed, in one of the ways a client can hold a connection.
type attack struct {
	name string
	open func(t *testing.T, addr string, n int, stop <-chan struct{})
	// evicts: the guard must close connections to make room (a slow
	// reader's connections are closed after its 503s instead).
	evicts bool
}

var attacks = []attack{
	{"idle keep-alive", func(t *testing.T, addr string, n int, stop <-chan struct{}) {
		for range n {
			keepAlive(t, addr) // one request answered, then idle
		}
	}, true},
	{"slowloris", func(t *testing.T, addr string, n int, stop <-chan struct{}) {
		for range n {
			c := dial(t, addr, 0)
			_, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: agent\r\n")
			require.NoError(t, err)
			go func() { // a header line every 100ms, never the end of the headers
				tick := time.NewTicker(100 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						if _, err := io.WriteString(c, "X-Slow: a\r\n"); err != nil {
							return
						}
					}
				}
			}()
		}
	}, true},
	{"silent", func(t *testing.T, addr string, n int, stop <-chan struct{}) {
		for range n {
			dial(t, addr, 0) // connected, never a byte
		}
	}, true},
	{"slow reader of /metrics", func(t *testing.T, addr string, n int, stop <-chan struct{}) {
		for range n {
			c := dial(t, addr, 1024) // a small receive buffer, never read
			go func() {
				for range 500 { // pipelined scrapes: the answers fill every buffer on the way
					if _, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: agent\r\n\r\n"); err != nil {
						return
					}
				}
			}()
		}
	}, false},
	{"reconnecting flood", func(t *testing.T, addr string, n int, stop <-chan struct{}) {
		var mu sync.Mutex
		current := make([]net.Conn, n) // each worker's connection, closed at stop
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() { // one silent connection at a time, a new one as soon as it is closed
				defer wg.Done()
				for {
					c, err := net.Dial("tcp", addr)
					mu.Lock()
					select {
					case <-stop:
						mu.Unlock()
						if err == nil {
							c.Close()
						}
						return
					default:
					}
					current[i] = c
					mu.Unlock()
					if err == nil {
						io.Copy(io.Discard, c)
						c.Close()
					}
				}
			}()
		}
		t.Cleanup(func() {
			mu.Lock()
			for _, c := range current {
				if c != nil {
					c.Close()
				}
			}
			mu.Unlock()
			wg.Wait()
		})
		time.Sleep(200 * time.Millisecond) // let the flood reach its pace
	}, true},
}

// dial connects to addr with a receive buffer of rcvbuf bytes (0: the
// system's), closed when the test ends.
func dial(t *testing.T, addr string, rcvbuf int) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		if rcvbuf == 0 {
			return nil
		}
		var serr error
		err := rc.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcvbuf) })
		return errors.Join(err, serr)
	}}
	c, err := d.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// TestHealthzUnderHostileConnections holds 16, 64 and 256 hostile
// connections open against the agent's server, the defaults of
// --http-max-conns and its timeouts, on loopback, and asks /healthz the
// kubelet's way three times: it must answer 200 within the budget every
// time. The figures are logged. Before the connection guard, 16 idle
// keep-alive connections held /healthz for 57–60 s (the idle timeout).
func TestHealthzUnderHostileConnections(t *testing.T) {
	for _, a := range attacks {
		for _, n := range []int{16, 64, 256} {
			t.Run(fmt.Sprintf("%s/%d", a.name, n), func(t *testing.T) {
				addr, _ := serveAgent(t)
				stop := make(chan struct{})
				defer close(stop)
				a.open(t, addr, n, stop)
				var took []string
				for range 3 {
					d, err := probe(addr, "/healthz")
					require.NoError(t, err, "/healthz with %d %s connections open", n, a.name)
					took = append(took, d.Round(100*time.Microsecond).String())
				}
				t.Logf("/healthz with %d %s connections open: %s", n, a.name, strings.Join(took, ", "))

				// A scrape is answered too: its figures, or 503 when the
				// slow readers hold every scrape slot.
				cl := &http.Client{Timeout: probeBudget, Transport: &http.Transport{DisableKeepAlives: true}}
				resp, err := cl.Get("http://" + addr + "/metrics")
				require.NoError(t, err, "/metrics with %d %s connections open", n, a.name)
				body, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				resp.Body.Close()
				if resp.StatusCode == http.StatusServiceUnavailable {
					assert.False(t, a.evicts, "only slow readers hold the scrape slots: %s", body)
					assert.Contains(t, string(body), "retry in a few seconds")
					return
				}
				require.Equal(t, http.StatusOK, resp.StatusCode)
				evicted := metricValue(t, string(body), "numascope_http_connections_evicted_total")
				if a.evicts && n > defaultHTTPLimits.maxConns {
					assert.GreaterOrEqual(t, evicted, float64(n-defaultHTTPLimits.maxConns),
						"%d connections over the cap of %d, so at least as many closed to make room", n-defaultHTTPLimits.maxConns, defaultHTTPLimits.maxConns)
				}
			})
		}
	}
}

// metricValue returns the value of an unlabelled sample in a scrape.
func metricValue(t *testing.T, body, name string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(body)
	require.NotNil(t, m, "no %s in the scrape", name)
	var v float64
	_, err := fmt.Sscan(m[1], &v)
	require.NoError(t, err)
	return v
}

// TestProbeListen serves the probes on a port of their own: a flood of the
// metrics port does not reach them, and the probe port serves nothing else.
func TestProbeListen(t *testing.T) {
	addr, stderr := serveAgent(t, "--probe-listen", "127.0.0.1:0")
	var probeAddr string
	for _, m := range regexp.MustCompile(`"msg":"numascope agent serving its probes","address":"([^"]+)"`).FindAllStringSubmatch(stderr.String(), -1) {
		probeAddr = m[1]
	}
	require.NotEmpty(t, probeAddr, "no start-up line for --probe-listen: %s", stderr.String())
	stop := make(chan struct{})
	defer close(stop)
	attacks[len(attacks)-1].open(t, addr, 256, stop) // the reconnecting flood, on --listen
	for _, path := range []string{"/healthz", "/readyz"} {
		d, err := probe(probeAddr, path)
		require.NoError(t, err, "%s on --probe-listen", path)
		t.Logf("%s on --probe-listen during a flood of --listen: %s", path, d.Round(100*time.Microsecond))
	}
	resp, err := http.Get("http://" + probeAddr + "/metrics")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "/metrics is not served on --probe-listen")
}

// TestProbesDoNotWaitOnTheRound blocks a round in a PodResources call that
// does not answer: /healthz, /readyz and /metrics answer meanwhile.
func TestProbesDoNotWaitOnTheRound(t *testing.T) {
	srv := startServer(t, podresourcestest.Sample())
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--state-dir", nodeDir, "--sysfs", sysDir, "--socket", srv.Socket(), "--timeout", "1h",
			"--listen", "127.0.0.1:0", "--interval", "50ms", "--report", "none"}, io.Discard, &stderr)
	}()
	defer func() {
		cancel()
		assert.Equal(t, 0, <-done)
	}()
	addr := strings.TrimPrefix(waitAddress(t, &stderr), "http://")
	require.Eventually(t, func() bool { _, err := probe(addr, "/readyz"); return err == nil }, 10*time.Second, 10*time.Millisecond, "the first round")
	srv.Delay(podresourcestest.List, time.Hour)
	calls := srv.Calls(podresourcestest.List)
	require.Eventually(t, func() bool { return srv.Calls(podresourcestest.List) > calls }, 10*time.Second, 5*time.Millisecond, "a round blocked in List")
	time.Sleep(50 * time.Millisecond)
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		d, err := probe(addr, path)
		require.NoError(t, err, "%s while a round is blocked", path)
		t.Logf("%s while a round is blocked: %s", path, d.Round(100*time.Microsecond))
	}
}

// guardServer serves h through g on loopback.
func guardServer(t *testing.T, g *connGuard, h http.Handler) string {
	t.Helper()
	ln, err := listenLocal()
	require.NoError(t, err)
	srv := defaultHTTPLimits.server(g.track(h))
	go srv.Serve(g.listener(ln))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// startRequest sends a GET for path on a new connection and returns it
// with its reader, without waiting for the answer.
func startRequest(t *testing.T, addr, path string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c := dial(t, addr, 0)
	_, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: agent\r\n\r\n")
	require.NoError(t, err)
	return c, bufio.NewReader(c)
}

// readAnswer reads the answer to a request on c: its status, and whether
// the server ends the connection after it.
func readAnswer(t *testing.T, c net.Conn, r *bufio.Reader) (int, bool) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(probeBudget)))
	resp, err := http.ReadResponse(r, nil)
	require.NoError(t, err)
	_, err = io.Copy(io.Discard, resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	return resp.StatusCode, resp.Close
}

// TestConnGuard checks each rule of the guard on a server of 3 connections
// with 2 scrape slots: a connection in a scrape is never closed to make
// room, a scrape beyond the slots is refused at once, an idle connection
// makes room for a new one, and a new connection gets its grace.
func TestConnGuard(t *testing.T) {
	g := newConnGuard(3, 2)
	var evicted, refused atomic.Int64
	g.onEvict, g.onRefuse = func() { evicted.Add(1) }, func() { refused.Add(1) }
	release := make(chan struct{})
	var inSlow sync.WaitGroup
	mux := http.NewServeMux()
	mux.Handle("/slow", g.slow(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inSlow.Done()
		<-release
		io.WriteString(w, "slow\n")
	})))
	mux.HandleFunc("/fast", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "fast\n") })
	addr := guardServer(t, g, mux)

	// Two scrapes take both slots and stay in their handler.
	inSlow.Add(2)
	a, ra := startRequest(t, addr, "/slow")
	b, rb := startRequest(t, addr, "/slow")
	inSlow.Wait()
	// A third is refused at once, and its connection closed.
	c, rc := startRequest(t, addr, "/slow")
	code, closes := readAnswer(t, c, rc)
	assert.Equal(t, http.StatusServiceUnavailable, code, "a scrape beyond the slots")
	assert.True(t, closes, "a refused scrape ends its connection")
	assert.Equal(t, int64(1), refused.Load(), "refused scrapes")
	closedBy(t, c, rc, probeBudget)
	waitOpen(t, g, 2)

	// An idle keep-alive connection takes the third slot...
	d, rd := startRequest(t, addr, "/fast")
	code, _ = readAnswer(t, d, rd)
	require.Equal(t, http.StatusOK, code)
	// ...and makes room for a new one, which is served while the scrapes
	// still run.
	e, re := startRequest(t, addr, "/fast")
	code, _ = readAnswer(t, e, re)
	assert.Equal(t, http.StatusOK, code, "a new connection while two scrapes and an idle connection are open")
	closedBy(t, d, rd, probeBudget)
	assert.Equal(t, int64(1), evicted.Load(), "connections closed to make room")

	// A connection that has not sent its request yet is left its grace
	// (long here, so that a slow machine cannot fail the test): a newer
	// one waits meanwhile, then takes its slot.
	g.mu.Lock()
	g.grace = 2 * time.Second
	g.mu.Unlock()
	silent := dial(t, addr, 0) // e, idle, makes room for it
	closedBy(t, e, re, probeBudget)
	f, rf := startRequest(t, addr, "/fast")
	require.NoError(t, f.SetReadDeadline(time.Now().Add(g.grace/4)))
	_, err := rf.ReadByte()
	var ne net.Error
	assert.True(t, errors.As(err, &ne) && ne.Timeout(), "a connection in its grace was closed to make room at once: %v", err)
	code, _ = readAnswer(t, f, rf)
	assert.Equal(t, http.StatusOK, code, "the new connection, once the grace is over")
	closedBy(t, silent, bufio.NewReader(silent), probeBudget)
	assert.Equal(t, int64(3), evicted.Load(), "connections closed to make room")

	// The scrapes were never closed to make room: released, they answer.
	close(release)
	for _, s := range []struct {
		c net.Conn
		r *bufio.Reader
	}{{a, ra}, {b, rb}} {
		code, _ := readAnswer(t, s.c, s.r)
		assert.Equal(t, http.StatusOK, code, "a scrape that ran while others were closed")
	}
}

// waitOpen waits until g holds n connections.
func waitOpen(t *testing.T, g *connGuard, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.open) == n
	}, probeBudget, time.Millisecond, "the guard never held %d connections", n)
}

// TestConnGuardCloseUnblocksAccept fills a guard with connections the
// server never reads (so none may be closed to make room): the next Accept
// waits, and closing the listener ends it.
func TestConnGuardCloseUnblocksAccept(t *testing.T) {
	g := newConnGuard(2, 1)
	ln, err := listenLocal()
	require.NoError(t, err)
	gl := g.listener(ln)
	for range 3 {
		dial(t, ln.Addr().String(), 0)
	}
	for range 2 {
		c, err := gl.Accept()
		require.NoError(t, err)
		defer c.Close()
	}
	accepted := make(chan error, 1)
	go func() {
		c, err := gl.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	select {
	case err := <-accepted:
		require.Failf(t, "a third connection was admitted beyond the cap of 2", "err: %v", err)
	case <-time.After(3 * connGrace):
	}
	require.NoError(t, gl.Close())
	select {
	case err := <-accepted:
		assert.ErrorIs(t, err, net.ErrClosed)
	case <-time.After(probeBudget):
		require.Fail(t, "Accept still waits after Close")
	}
}
