//go:build unix

package input

import (
	"os"
	"syscall"
)

// openFlags open without blocking, so that opening a FIFO returns at once.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
