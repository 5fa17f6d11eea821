// Package tooltest gives tests the real programs they compare pidex with
// or drive it through: the pidex binary built once per test binary; the
// Node tools of clients/package-lock.json (pi 1.6.0, the MCP Inspector,
// and Node 22 itself as npm's node package); and oh-my-pi 18.2.3 with its
// Bun (omp/package-lock.json). npm installs each set into a cache folder
// outside the repository, named after its lock file, once. Without npm
// they skip, saying why, unless PIDEX_REQUIRE_CLIENTS is set (CI).
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
		dir = sets["clients"].install(t)
	}
	nodeBin := filepath.Join(dir, "node_modules", "node", "bin")
	if !exists(filepath.Join(nodeBin, "node")) {
		t.Fatalf("no Node 22 in %s (npm's node package): reinstall the clients", dir)
	}
	return dir, nodeBin + string(os.PathListSeparator) + filepath.Join(dir, "node_modules", ".bin") + string(os.PathListSeparator) + os.Getenv("PATH")
}

// Omp is the folder where oh-my-pi is installed, and a PATH with its omp
// and bun first.
func Omp(t testing.TB) (dir, path string) {
	t.Helper()
	dir = sets["omp"].install(t)
	return dir, filepath.Join(dir, "node_modules", ".bin") + string(os.PathListSeparator) + os.Getenv("PATH")
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

// A set is one folder of this package's, installed by npm from its lock
// file (ci, or install where the lock leaves out other platforms' native
// packages the registry does not serve, which ci refuses); bin is a
// command that is there once it is installed.
type set struct {
	folder, cache, bin string
	npm                []string
	once               sync.Once
	dir, skip          string
	err                error
}

var sets = map[string]*set{
	"clients": {folder: "clients", cache: "mcp-clients-", bin: "pi", npm: []string{"ci"}},
	"omp":     {folder: "omp", cache: "omp-", bin: "omp", npm: []string{"install", "--no-save"}},
}

// install installs the set with `npm ci` into a cache folder named after
// its lock file, once (later runs reuse it).
func (st *set) install(t testing.TB) string {
	t.Helper()
	st.once.Do(func() { st.dir, st.skip, st.err = st.npmCI() })
	switch {
	case st.err != nil:
		t.Fatal(st.err)
	case st.skip != "" && os.Getenv("PIDEX_REQUIRE_CLIENTS") != "":
		t.Fatal(st.skip)
	case st.skip != "":
		t.Skip(st.skip)
	}
	return st.dir
}

func (st *set) npmCI() (dir, skip string, err error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "npm not found: install Node.js and npm (Debian: apt-get install nodejs npm) to run the tests that drive pi, oh-my-pi and the MCP Inspector", nil
	}
	src := filepath.Join(here(), st.folder)
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		return "", "", err
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
	dir = filepath.Join(cache, st.cache+hex.EncodeToString(sum[:6]))
	if exists(filepath.Join(dir, "node_modules", ".bin", st.bin)) {
		return dir, "", nil
	}
	tmp, err := os.MkdirTemp(cache+string(os.PathSeparator), "install-")
	if err := errors.Join(err, os.MkdirAll(cache, 0o755)); err != nil {
		if tmp, err = os.MkdirTemp("", "pidex-ci-install-"); err != nil {
			return "", "", err
		}
	}
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err == nil {
			err = os.WriteFile(filepath.Join(tmp, f), b, 0o644)
		}
		if err != nil {
			return "", "", err
		}
	}
	cmd := exec.Command(npm, append(st.npm, "--no-audit", "--no-fund", "--loglevel=error")...)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(tmp)
		return "", "npm " + st.npm[0] + " of internal/tooltest/" + st.folder + " failed (is the npm registry reachable?): " + err.Error() + "\n" + string(out), nil
	}
	if err := os.Rename(tmp, dir); err != nil && !exists(filepath.Join(dir, "node_modules")) {
		return "", "", err
	}
	os.RemoveAll(tmp) // another run installed it first
	return dir, "", nil
}
