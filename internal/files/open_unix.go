//go:build unix

package files

import (
	"os"
	"syscall"
)

// openNonBlocking opens path for reading with O_NONBLOCK: a FIFO's open
// returns at once instead of waiting for a writer. (Reads of a regular
// file ignore the flag.)
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// openDir opens path only if it is a folder: with O_DIRECTORY the kernel
// refuses anything else before it would open it.
func openDir(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
}
