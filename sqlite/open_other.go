//go:build !unix

package sqlite

import (
	"fmt"
	"os"
)

// openRegular opens a file for reading only if it is a regular file (a
// stat first: there is no non-blocking open here).
func openRegular(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("open %s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open %s: not a regular file", path)
	}
	return f, nil
}
