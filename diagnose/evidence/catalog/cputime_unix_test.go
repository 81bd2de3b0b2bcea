//go:build unix

package catalog

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, for benchmarks that report
// throughput per CPU second on a machine shared with other work.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
