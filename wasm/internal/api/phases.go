package api

import (
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
	// phases are those of the call running or of the last one. They are
	// kept only while CallContents holds callMu (timing): Inspect and
	// Diagnose called directly keep none.
	timing bool
	phases []Phase
)

// Phases are the phases of the last call of CallContents, in the order they
// first ran; call it from the goroutine that made the call, after it. The
// phases are: "request" (reading the request's JSON), "decode" (the
// checkpoints' statefile.Decode, "decode-cached" when the decode cache
// answered), "evidence" (reading the other inputs), "holders" (who holds
// what), "positions" (lines and columns of JSON pointers), "diagnose"
// (the diagnosis's run), "engine" (the whole method) and "marshal" (the
// answer's JSON).
func Phases() []Phase {
	return append([]Phase(nil), phases...)
}

// track starts timing a phase; calling what it returns ends it.
func track(name string) func() {
	t := time.Now()
	return func() { addPhase(name, time.Since(t)) }
}

func addPhase(name string, d time.Duration) {
	if !timing {
		return
	}
	for i := range phases {
		if phases[i].Name == name {
			phases[i].Time += d
			phases[i].Count++
			return
		}
	}
	phases = append(phases, Phase{Name: name, Time: d, Count: 1})
}
