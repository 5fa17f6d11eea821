package pgtest

import "syscall"

// setPdeathsig makes the kernel stop the server (immediate shutdown) when
// the test binary dies without stopping it.
func setPdeathsig(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGQUIT }
