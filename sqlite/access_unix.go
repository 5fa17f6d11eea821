//go:build unix

package sqlite

import "golang.org/x/sys/unix"

// canWrite reports whether this process may write path (a file or a
// folder) as the kernel decides it: file modes for a user, a read-only
// mount or an immutable file for everyone, root included.
func canWrite(path string) bool { return unix.Access(path, unix.W_OK) == nil }
