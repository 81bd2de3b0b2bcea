//go:build !unix

package fuzzbudget

import "time"

// cpuTime is unknown here: the time budget falls back to wall time
// (wallFactor times the budget).
func cpuTime() time.Duration { return 0 }
