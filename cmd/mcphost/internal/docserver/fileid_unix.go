//go:build unix

package docserver

import (
	"io/fs"
	"syscall"
)

// idOf returns the device and inode behind fi, when it has them.
func idOf(fi fs.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino), links: uint64(st.Nlink)}
	}
	return fileID{}
}
