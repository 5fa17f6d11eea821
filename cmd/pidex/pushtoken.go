package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/postgres"
)

// A push to a team server authenticates with the machine's token
// (docs/team.md, Pushes over HTTP), which is never needed on the command
// line, where anyone on the machine could read it while pidex runs.

// defaultTokenFile is where push looks for the token last.
func defaultTokenFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "~/.config/pidex/push-token"
	}
	return filepath.Join(dir, "pidex", "push-token")
}

// pushToken finds the machine's token: in the URL (warned of), the file
// --token-file, PIDEX_PUSH_TOKEN, the file PIDEX_PUSH_TOKEN_FILE, or the
// default file.
func (a *app) pushToken(cmd *cobra.Command, to, file string) (string, error) {
	_, inURL, err := postgres.ServerURL(to)
	if err != nil {
		return "", err
	}
	if inURL != "" {
		if cmd.Flags().Changed("to") {
			fmt.Fprintf(a.stderr, "pidex: warning: the URL given with --to holds a token, which anyone on this machine can read while pidex runs (ps, /proc/PID/cmdline): "+
				"put it in PIDEX_PUSH_TOKEN or a file (--token-file, PIDEX_PUSH_TOKEN_FILE, %s) (docs/team.md, Pushes over HTTP)\n", defaultTokenFile())
		}
		return inURL, nil
	}
	if file != "" {
		return readTokenFile(a, file, true)
	}
	if t := strings.TrimSpace(os.Getenv("PIDEX_PUSH_TOKEN")); t != "" {
		return t, nil
	}
	if f := os.Getenv("PIDEX_PUSH_TOKEN_FILE"); f != "" {
		return readTokenFile(a, f, true)
	}
	return readTokenFile(a, defaultTokenFile(), false)
}

// readTokenFile reads a token from the file's first line; a file others
// may read is warned of. A default file that is not there is no token
// (PushToServer then says where to put one).
func readTokenFile(a *app, path string, named bool) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if !named && os.IsNotExist(err) {
			return "", nil
		}
		return "", pidex.Usagef("read the push token: %v", err)
	}
	if fi, err := os.Stat(path); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(a.stderr, "pidex: warning: %s holds a push token and others may read it (mode %v): chmod 600 %s\n", path, fi.Mode().Perm(), path)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if line = strings.TrimSpace(line); line == "" {
		return "", pidex.Usagef("read the push token: %s is empty", path)
	}
	return line, nil
}
