//go:build unix

package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// setupLocked: lockSetup serializes setup across processes here.
const setupLocked = true

// lockSetup takes the lock under which pidex sets up (creates, migrates,
// empties) the catalog at path: an exclusive flock on the catalog's folder,
// so no file is added beside the catalog. Not the catalog file itself:
// closing any descriptor of it would drop the POSIX locks SQLite holds on
// it in this process. The lock is per folder, so catalogs sharing one
// (a rebuild's side file and the live catalog) take turns, briefly; it is
// never taken twice on one call path. The wait ends with ctx. On a file
// system without flock (some network mounts) there is no lock, and setup
// falls back on its retries.
func lockSetup(ctx context.Context, path string) (unlock func(), err error) {
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("lock catalog folder: %w", err)
	}
	fd := int(dir.Fd())
	for {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return func() { _ = unix.Flock(fd, unix.LOCK_UN); dir.Close() }, nil
		case errors.Is(err, unix.EINTR):
			continue
		case !errors.Is(err, unix.EWOULDBLOCK):
			dir.Close()
			return func() {}, nil // no flock here: the retries in setup are what is left
		}
		select {
		case <-ctx.Done():
			dir.Close()
			return nil, fmt.Errorf("lock catalog folder: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// ErrLocked: another process (or another descriptor in this one) holds
// the lock LockFile asked for without waiting.
var ErrLocked = errors.New("locked by another process")

// LockFile takes an exclusive flock on f, waiting for it if wait, else
// failing with ErrLocked. release unlocks and closes f; it may be called
// more than once. A rebuild holds its side catalog so while it lives,
// which is how a later run tells a dead rebuild's file from a live one.
// (flock is not the POSIX locks SQLite uses: the two do not interfere.)
func LockFile(f *os.File, wait bool) (release func(), err error) {
	how := unix.LOCK_EX
	if !wait {
		how |= unix.LOCK_NB
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if errors.Is(err, unix.EWOULDBLOCK) {
		return nil, ErrLocked
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	var once sync.Once
	return func() { once.Do(func() { f.Close() }) }, nil // closing the last descriptor unlocks
}
