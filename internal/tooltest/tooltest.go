// Package tooltest gives tests the real programs they compare pidex with
// or drive it through: the pidex binary built once per test binary, and
// the Node tools of clients/package-lock.json (pi 1.6.0, the MCP
// Inspector, and Node 22 itself as npm's node package), installed by npm
// into a cache folder outside the repository. Without npm they skip,
// saying why, unless PIDEX_REQUIRE_CLIENTS is set (CI).
package tooltest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// here is this package's folder (the clients' lock file lies in it).
func here() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

var binary struct {
	once sync.Once
	path string
	err  error
}

// Pidex builds cmd/pidex once for the test binary and returns its path.
func Pidex(t testing.TB) string {
	t.Helper()
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "pidex-bin")
		if err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "pidex")
		if runtime.GOOS == "windows" {
			binary.path += ".exe"
		}
		cmd := exec.Command("go", "build", "-o", binary.path, "./cmd/pidex")
		cmd.Dir = filepath.Join(here(), "..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			binary.err = errors.New("go build: " + string(out))
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// Clients is the folder where the Node tools are installed, and the PATH
// that runs them under their Node 22 (PIDEX_MCP_CLIENTS names an
// installed folder instead).
func Clients(t testing.TB) (dir, path string) {
	t.Helper()
	dir = os.Getenv("PIDEX_MCP_CLIENTS")
	if dir == "" {
		dir = install(t)
	}
	nodeBin := filepath.Join(dir, "node_modules", "node", "bin")
	if !exists(filepath.Join(nodeBin, "node")) {
		t.Fatalf("no Node 22 in %s (npm's node package): reinstall the clients", dir)
	}
	return dir, nodeBin + string(os.PathListSeparator) + filepath.Join(dir, "node_modules", ".bin") + string(os.PathListSeparator) + os.Getenv("PATH")
}

// Bin is the path of an installed tool's command (pi, mcp-inspector).
func Bin(dir, name string) string { return filepath.Join(dir, "node_modules", ".bin", name) }

// Run runs an installed tool's command with PATH set to path, failing the
// test when it fails; it returns its stdout.
func Run(t testing.TB, dir, path string, env []string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(Bin(dir, name), args...)
	cmd.Env = append(append(os.Environ(), "PATH="+path), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\nstdout: %s\nstderr: %s", name, strings.Join(args, " "), err, out, stderr.String())
	}
	return out
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

var clients struct {
	once      sync.Once
	dir, skip string
	err       error
}

// install installs clients/ with `npm ci` into a cache folder named after
// its lock file, once (later runs reuse it).
func install(t testing.TB) string {
	t.Helper()
	clients.once.Do(func() {
		npm, err := exec.LookPath("npm")
		if err != nil {
			clients.skip = "npm not found: install Node.js and npm (Debian: apt-get install nodejs npm) to run the tests that drive pi and the MCP Inspector"
			return
		}
		src := filepath.Join(here(), "clients")
		lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
		if err != nil {
			clients.err = err
			return
		}
		sum := sha256.Sum256(lock)
		cache := os.Getenv("PIDEX_CI_CACHE")
		if cache == "" {
			if c, err := os.UserCacheDir(); err == nil {
				cache = filepath.Join(c, "pidex-ci")
			} else {
				cache = filepath.Join(os.TempDir(), "pidex-ci")
			}
		}
		dir := filepath.Join(cache, "mcp-clients-"+hex.EncodeToString(sum[:6]))
		if exists(filepath.Join(dir, "node_modules", ".bin", "pi")) {
			clients.dir = dir
			return
		}
		tmp, err := os.MkdirTemp(cache+string(os.PathSeparator), "install-")
		if err := errors.Join(err, os.MkdirAll(cache, 0o755)); err != nil {
			if tmp, err = os.MkdirTemp("", "pidex-ci-install-"); err != nil {
				clients.err = err
				return
			}
		}
		for _, f := range []string{"package.json", "package-lock.json"} {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err == nil {
				err = os.WriteFile(filepath.Join(tmp, f), b, 0o644)
			}
			if err != nil {
				clients.err = err
				return
			}
		}
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = tmp
		if out, err := cmd.CombinedOutput(); err != nil {
			os.RemoveAll(tmp)
			clients.skip = "npm ci of internal/tooltest/clients failed (is the npm registry reachable?): " + err.Error() + "\n" + string(out)
			return
		}
		if err := os.Rename(tmp, dir); err != nil && !exists(filepath.Join(dir, "node_modules")) {
			clients.err = err
			return
		}
		os.RemoveAll(tmp) // another run installed it first
		clients.dir = dir
	})
	switch {
	case clients.err != nil:
		t.Fatal(clients.err)
	case clients.skip != "" && os.Getenv("PIDEX_REQUIRE_CLIENTS") != "":
		t.Fatal(clients.skip)
	case clients.skip != "":
		t.Skip(clients.skip)
	}
	return clients.dir
}
