//go:build unix

package statefile

import (
	"io/fs"
	"syscall"
)

// fileOwner returns the owner of a file (-1, -1 when unknown).
func fileOwner(st fs.FileInfo) (uid, gid int) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(sys.Uid), int(sys.Gid)
	}
	return -1, -1
}
