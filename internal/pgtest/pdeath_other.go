//go:build unix && !linux

package pgtest

import "syscall"

// setPdeathsig: no parent-death signal here; a cluster left by a test
// binary that died is stopped and removed by the next one (removeStale).
func setPdeathsig(*syscall.SysProcAttr) {}
