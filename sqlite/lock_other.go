//go:build !unix

package sqlite

import (
	"context"
	"errors"
	"os"
	"sync"
)

// setupLocked: no cross-process setup lock on this platform; setup
// retries a migration another process applied first (ddlRace).
const setupLocked = false

func lockSetup(context.Context, string) (func(), error) { return func() {}, nil }

// ErrLocked: another process holds the lock LockFile asked for.
var ErrLocked = errors.New("locked by another process")

// LockFile has no lock to take here: waiting, it only hands back a release
// that closes f; without waiting it fails, so that no file is ever taken
// for a dead rebuild's.
func LockFile(f *os.File, wait bool) (func(), error) {
	if !wait {
		return nil, errors.ErrUnsupported
	}
	var once sync.Once
	return func() { once.Do(func() { f.Close() }) }, nil
}
