//go:build !unix

package files

import (
	"fmt"
	"io/fs"
	"os"
)

// openNonBlocking: there is no non-blocking open here, and no FIFO in
// the file system (Windows' named pipes live under \\.\pipe\): a stat
// first refuses what is not a regular file before it is opened.
func openNonBlocking(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode())
	}
	return os.Open(path)
}

// openDir opens path after a stat says it is a folder.
func openDir(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("not a folder")}
	}
	return os.Open(path)
}
