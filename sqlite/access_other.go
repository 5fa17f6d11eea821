//go:build !unix

package sqlite

import "os"

// canWrite reports whether this process may write path. Elsewhere
// (Windows) only a file's read-only attribute stops SQLite; a folder's
// does not.
func canWrite(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() {
		return err == nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
