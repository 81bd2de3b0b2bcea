//go:build unix

package input

import "syscall"

// oNonblock makes open(2) of a FIFO return at once instead of waiting for a
// writer.
const oNonblock = syscall.O_NONBLOCK
