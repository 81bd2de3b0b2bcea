// Package fuzzbudget gives a fuzz function a time and allocation budget per
// input. Go's fuzzer reports neither a hang nor a blow-up by itself: an
// input that loops forever is killed after the whole run's time with no
// report, and one that allocates gigabytes passes. Run fails the input
// instead.
package fuzzbudget

import (
	"runtime"
	"testing"
	"time"
)

// Default budgets: far below a hang or a blow-up, and above what a parser
// needs on the largest input it accepts, with room for a machine busy with
// other tests (go test runs packages side by side: a 2^20-CPU seed that takes
// 0.7 s alone took over 2 s there). DefaultAlloc counts the bytes
// allocated while one input runs (runtime.MemStats.TotalAlloc), freed or
// not: a cpu_manager_state that names 2^20 CPUs, statefile's bound, is
// accepted and allocates about 350 MB in all while it is decoded.
const (
	DefaultTime  = 10 * time.Second
	DefaultAlloc = 512 << 20
)

// An input fails the time budget when it has run longer than Budget.Time
// and the process has used that much CPU time meanwhile: a parser that
// loops burns a core, while one that is merely starved on a machine busy
// with other tests does not, and must not fail. An input that blocks
// without using CPU fails once it has run wallFactor times the budget.
const wallFactor = 6

// Budget is the time and the bytes allocated that one input may take.
type Budget struct {
	Time  time.Duration
	Alloc uint64
}

// Run runs fn on one input with the default budget.
func Run(t testing.TB, fn func()) { RunWith(t, Budget{}, fn) }

// RunWith runs fn and fails t when fn runs longer than b.Time or allocates
// more than b.Alloc bytes. A panic in fn reaches the fuzzer as usual.
func RunWith(t testing.TB, b Budget, fn func()) {
	t.Helper()
	if b.Time <= 0 {
		b.Time = DefaultTime
	}
	if b.Alloc == 0 {
		b.Alloc = DefaultAlloc
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		fn()
	}()
	start, cpuStart := time.Now(), cpuTime()
	tick := time.NewTicker(b.Time / 4)
	defer tick.Stop()
wait:
	for {
		select {
		case p := <-done:
			if p != nil {
				panic(p)
			}
			break wait
		case <-tick.C:
			wall := time.Since(start)
			if wall < b.Time {
				continue
			}
			if used := cpuTime() - cpuStart; used >= b.Time || wall >= wallFactor*b.Time {
				t.Fatalf("input took longer than %s: a parser must end quickly on any input", b.Time)
				return
			}
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > b.Alloc {
		t.Fatalf("input allocated %d bytes, over the budget of %d: a parser must bound what it builds", got, b.Alloc)
	}
}
