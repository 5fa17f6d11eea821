//go:build unix

package sqlite

import (
	"fmt"
	"os"
	"syscall"
)

// openRegular opens a file for reading only if it is a regular file. A
// FIFO put where a session was would block an open for reading until a
// writer came: O_NONBLOCK makes that open return at once, and the check
// refuses it.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open %s: not a regular file", path)
	}
	return f, nil
}
