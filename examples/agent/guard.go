package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// connGuard keeps the agent's HTTP server answering its probes whatever
// its other clients do, with a bounded number of connections.
//
// Which path a connection will ask for is unknown when it is accepted, so
// the guard does not reserve connections: it reserves handlers. Only the
// scrape handler can take long (its answer is the largest and goes to a
// client that may read slowly), and at most scrapes of them run at once;
// more are answered 503 at once. Every other open connection is either in
// a handler that answers from memory in microseconds (/healthz, /readyz)
// or in no handler at all: idle between requests, sending its headers
// (slowly or not at all), never having sent a byte, or closing. When a new
// connection would exceed max, the guard closes the open connection that
// has gone longest without a handler running on it, so the new one (the
// kubelet's probe among them) is served at once, and the connections that
// hold a slot and ask for nothing go first. There is always such a
// connection, because max > scrapes.
//
// A connection that has been served a request may be closed to make room
// as soon as no handler runs on it. One that has not may be closed only
// once the server is waiting to read from it and it has had grace
// (connGrace) to send its request: otherwise a flood of connections, each
// replaced as soon as it is closed, would close a probe before its request
// was read. While no open connection may be closed, the next accept waits,
// which paces a flood to max connections per grace.
type connGuard struct {
	max     int
	scrapes chan struct{}
	grace   time.Duration // connGrace
	// onEvict and onRefuse count the connections closed to make room and
	// the scrapes answered 503 (metrics); nil counts nothing.
	onEvict, onRefuse func()

	mu      sync.Mutex
	open    map[*guardedConn]struct{}
	wake    chan struct{} // closed and replaced when a connection closes, leaves a handler or starts a Read
	waiting int           // admits waiting on wake
	closed  chan struct{}
	once    sync.Once
}

// newConnGuard keeps at most maxConns connections open, with at most
// scrapes of them in a scrape handler (at least one fewer than maxConns,
// so a connection can always be closed to make room).
func newConnGuard(maxConns, scrapes int) *connGuard {
	scrapes = max(0, min(scrapes, maxConns-1))
	return &connGuard{max: maxConns, scrapes: make(chan struct{}, scrapes), grace: connGrace,
		open: map[*guardedConn]struct{}{}, wake: make(chan struct{}), closed: make(chan struct{})}
}

// guardedConn is an open connection: whether a handler runs on it, and
// since when it has had none.
type guardedConn struct {
	net.Conn
	g *connGuard
	// under g.mu:
	busy      int       // handlers running on it
	reading   int       // Reads in progress
	served    bool      // a handler has returned on it
	free      time.Time // when it was accepted or its last handler returned
	closeOnce sync.Once
}

// closable tells whether the guard may close c to make room: no handler
// runs on it, and the server has finished a request on it, or waits to
// read one that has had its grace to arrive. Under g.mu.
func (c *guardedConn) closable(now time.Time) bool {
	return c.busy == 0 && (c.served || c.reading > 0 && now.Sub(c.free) >= c.g.grace)
}

// connGrace is how long a new connection has to send its request before
// the guard may close it to make room: far longer than a client on the
// node or in the cluster takes, short enough that a flood of new
// connections still lets 1,000 or more a second in.
const connGrace = 50 * time.Millisecond

// CloseWrite half-closes a TCP connection, as the server does after an
// answer that ends it.
func (c *guardedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *guardedConn) Read(p []byte) (int, error) {
	g := c.g
	g.mu.Lock()
	c.reading++
	g.signalLocked()
	g.mu.Unlock()
	n, err := c.Conn.Read(p)
	g.mu.Lock()
	c.reading--
	g.mu.Unlock()
	return n, err
}

func (c *guardedConn) Close() error {
	err := c.Conn.Close()
	c.closeOnce.Do(func() { c.g.release(c) })
	return err
}

// listener returns l with every accepted connection admitted by g.
func (g *connGuard) listener(l net.Listener) net.Listener {
	return &guardedListener{Listener: l, g: g}
}

type guardedListener struct {
	net.Listener
	g *connGuard
}

func (l *guardedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return l.g.admit(c)
}

// Close stops accepting and closes every open connection no handler runs
// on, so that the server's Shutdown waits only for the answers in progress
// (it would wait 5 s for a connection that has sent no request).
func (l *guardedListener) Close() error {
	l.g.once.Do(func() { close(l.g.closed) })
	err := l.Listener.Close()
	l.g.mu.Lock()
	var idle []*guardedConn
	for c := range l.g.open {
		if c.busy == 0 {
			idle = append(idle, c)
		}
	}
	l.g.mu.Unlock()
	for _, c := range idle {
		c.Conn.Close()
	}
	return err
}

// admit opens a slot for c, closing the closable connection that has gone
// longest without a handler when all are taken. It waits only while no open
// connection is closable: every one is in a handler (at most the scrape
// slots for longer than microseconds, and those for their write timeout at
// most) or within its grace.
func (g *connGuard) admit(c net.Conn) (net.Conn, error) {
	gc := &guardedConn{Conn: c, g: g}
	for {
		g.mu.Lock()
		if len(g.open) < g.max {
			gc.free = time.Now()
			g.open[gc] = struct{}{}
			g.mu.Unlock()
			return gc, nil
		}
		var victim *guardedConn
		now := time.Now()
		var next time.Time // when the first young connection may be closed
		for o := range g.open {
			if o.busy == 0 && !o.served && now.Sub(o.free) < g.grace && (next.IsZero() || o.free.Before(next)) {
				next = o.free
			}
			if o.closable(now) && (victim == nil || o.free.Before(victim.free)) {
				victim = o
			}
		}
		if victim != nil {
			delete(g.open, victim) // its slot is the new connection's now
			gc.free = time.Now()
			g.open[gc] = struct{}{}
			g.mu.Unlock()
			victim.Conn.Close()
			if g.onEvict != nil {
				g.onEvict()
			}
			return gc, nil
		}
		g.waiting++
		wake := g.wake
		g.mu.Unlock()
		var timer *time.Timer
		var grown <-chan time.Time
		if !next.IsZero() {
			timer = time.NewTimer(next.Add(g.grace).Sub(now))
			grown = timer.C
		}
		var closed bool
		select {
		case <-grown:
		case <-wake:
		case <-g.closed:
			closed = true
		}
		if timer != nil {
			timer.Stop()
		}
		g.mu.Lock()
		g.waiting--
		g.mu.Unlock()
		if closed {
			c.Close()
			return nil, net.ErrClosed
		}
	}
}

// release frees c's slot (a no-op when c was closed to make room).
func (g *connGuard) release(c *guardedConn) {
	g.mu.Lock()
	delete(g.open, c)
	g.signalLocked()
	g.mu.Unlock()
}

func (g *connGuard) signalLocked() {
	if g.waiting > 0 {
		close(g.wake)
		g.wake = make(chan struct{})
	}
}

type connKey struct{}

// connContext is the http.Server's ConnContext: it gives each request the
// connection it came on.
func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// track marks the request's connection as in a handler while h runs on it:
// the guard does not close it to make room.
func (g *connGuard) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := r.Context().Value(connKey{}).(*guardedConn)
		if !ok || c.g != g {
			h.ServeHTTP(w, r)
			return
		}
		g.mu.Lock()
		c.busy++
		g.mu.Unlock()
		defer func() {
			g.mu.Lock()
			c.busy--
			c.served = true
			c.free = time.Now()
			g.signalLocked()
			g.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}

// slow runs h, a handler that may take long, only when one of the scrape
// slots is free, and answers 503 at once when none is.
func (g *connGuard) slow(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case g.scrapes <- struct{}{}:
			defer func() { <-g.scrapes }()
			h.ServeHTTP(w, r)
		default:
			if g.onRefuse != nil {
				g.onRefuse()
			}
			w.Header().Set("Connection", "close")
			w.Header().Set("Retry-After", "5")
			http.Error(w, fmt.Sprintf("%d scrapes are being answered already (the agent answers at most %d at once); retry in a few seconds",
				cap(g.scrapes), cap(g.scrapes)), http.StatusServiceUnavailable)
		}
	})
}
