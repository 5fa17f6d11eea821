//go:build unix

package sqlite

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps f's first n bytes read-only. Never unmapped: a cache file
// is replaced by a rename, never changed in place, so the mapping stays
// the file as it was read.
func mapFile(f *os.File, n int) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, n, unix.PROT_READ, unix.MAP_SHARED)
}

// unmapFile releases a mapping nothing refers to.
func unmapFile(b []byte) { _ = unix.Munmap(b) }
