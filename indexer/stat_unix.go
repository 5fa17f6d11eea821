//go:build unix

package indexer

import (
	"io/fs"
	"syscall"
)

// devIno returns the file's device and inode: a rewrite by rename (a new
// inode at the same path) is a rewrite even if the bytes look alike. The
// field types differ between systems (Dev is int32 on Darwin, uint64 on
// Linux); the conversions fit them all.
func devIno(fi fs.FileInfo) (dev, ino int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Dev), int64(st.Ino)
	}
	return 0, 0
}
