package fuzzbudget

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// recorder catches Fatalf without ending the test.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = format
}

func TestRunWith(t *testing.T) {
	tests := []struct {
		name string
		fn   func()
		fail string
	}{
		{name: "fast and small", fn: func() { _ = make([]byte, 10) }},
		{name: "blocked past the wall-time ceiling", fn: func() { time.Sleep(400 * time.Millisecond) }, fail: "input took longer than %s: a parser must end quickly on any input"},
		{name: "too much", fn: func() {
			var keep [][]byte
			for range 64 {
				keep = append(keep, make([]byte, 1<<20))
			}
			_ = keep
		}, fail: "input allocated %d bytes, over the budget of %d: a parser must bound what it builds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			RunWith(r, Budget{Time: 50 * time.Millisecond, Alloc: 16 << 20}, tt.fn)
			assert.Equal(t, tt.fail, r.failed)
		})
	}
}

func TestRunWithBusyLoop(t *testing.T) {
	r := &recorder{TB: t}
	stop := make(chan struct{})
	defer close(stop)
	RunWith(r, Budget{Time: 50 * time.Millisecond}, func() {
		n := 0
		for {
			select {
			case <-stop:
				return
			case <-time.After(0):
				n++ // work: the loop burns CPU
			}
		}
	})
	assert.Equal(t, "input took longer than %s: a parser must end quickly on any input", r.failed, "a loop that burns CPU fails after the budget")
}
