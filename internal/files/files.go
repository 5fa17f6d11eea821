// Package files opens what pidex reads beside the session files (settings,
// .env files, indexes, artifacts, folders) as what it must be: a path
// another program or user controls may name a FIFO, a device or a file
// that never ends, and none of them may hang or exhaust a command.
//
// A file is opened only if it is regular, and the open itself cannot
// block: on Unix with O_NONBLOCK (opening a FIFO for reading waits for a
// writer otherwise), elsewhere after a stat (there are no FIFOs in the
// file system there). A folder is opened only as a folder (O_DIRECTORY).
// ReadSmall reads a file within a stated limit.
package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// ErrNotRegular: the path is not a regular file (it names a FIFO, a
// device, a socket or a folder). Errors wrapping it say which.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge: the file is longer than the limit it is read with.
var ErrTooLarge = errors.New("too large")

// Kind names what a file that is not regular is, for a message: "a named
// pipe (FIFO)", "a character device", ….
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// OpenRegular opens path for reading if it is a regular file (a link to
// one counts). Anything else is an error wrapping ErrNotRegular that
// names what it is, returned at once: a FIFO never blocks the open.
func OpenRegular(path string) (*os.File, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, fi.Mode())
	}
	return f, nil
}

func notRegular(path string, m fs.FileMode) error {
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: it is %s", ErrNotRegular, Kind(m))}
}

// ReadSmall reads the regular file at path whole, if it holds at most
// limit bytes; a longer one is an error wrapping ErrTooLarge that says the
// limit, read no further than it (a link to /dev/zero, or a file that
// grows, costs limit bytes, not all memory).
func ReadSmall(path string, limit int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(b)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: longer than %s", ErrTooLarge, Size(limit))}
	}
	return b, nil
}

// Size is a limit for reading: "1 MiB", "64 KiB", "512 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// OpenDir opens path as a folder (a link to one counts). A FIFO, a file
// or a device is an error saying what it is, returned at once.
func OpenDir(path string) (*os.File, error) {
	f, err := openDir(path)
	if err != nil {
		if fi, serr := os.Stat(path); serr == nil && !fi.IsDir() {
			return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("not a folder: it is %s", kindOrFile(fi.Mode()))}
		}
		return nil, err
	}
	return f, nil
}

func kindOrFile(m fs.FileMode) string {
	if m.IsRegular() {
		return "a file"
	}
	return Kind(m)
}

// ReadDir is os.ReadDir through OpenDir: the entries of the folder at
// path, sorted by name.
func ReadDir(path string) ([]fs.DirEntry, error) {
	f, err := OpenDir(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}
