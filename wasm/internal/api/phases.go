package api

import (
	"sync"
	"time"
)

// Phase is the time one phase of the last call took, for the page's timing
// marks and the playground's benchmark (BenchmarkPasteToVerdict): the
// answer itself stays the same whatever the clock says.
type Phase struct {
	Name string
	// Time is the sum over every time the phase ran during the call.
	Time time.Duration
	// Count is how many times it ran.
	Count int
}

var (
	// phases are those of the call running or of the last one; Inspect
	// and Diagnose called directly (tests, concurrently) add to them too.
	phasesMu sync.Mutex
	phases   []Phase
)

// Phases are the phases of the last call, in the order they first ran.
// The phases are: "request" (reading the request's JSON), "decode" (the
// checkpoints' statefile.Decode, "decode-cached" when the decode cache
// answered), "evidence" (reading the other inputs), "holders" (who holds
// what), "positions" (lines and columns of JSON pointers), "diagnose"
// (the diagnosis's run), "marshal" (the answer's JSON) and "engine" (the
// whole method, the phases above but "marshal" included in it).
func Phases() []Phase {
	phasesMu.Lock()
	defer phasesMu.Unlock()
	return append([]Phase(nil), phases...)
}

// resetPhases starts the timing of a new call.
func resetPhases() {
	phasesMu.Lock()
	defer phasesMu.Unlock()
	phases = phases[:0]
}

// track starts timing a phase; calling what it returns ends it.
func track(name string) func() {
	t := time.Now()
	return func() { addPhase(name, time.Since(t)) }
}

func addPhase(name string, d time.Duration) {
	phasesMu.Lock()
	defer phasesMu.Unlock()
	for i := range phases {
		if phases[i].Name == name {
			phases[i].Time += d
			phases[i].Count++
			return
		}
	}
	phases = append(phases, Phase{Name: name, Time: d, Count: 1})
}
