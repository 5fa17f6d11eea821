package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
)

// A catalog this process cannot write — a 0444 file in a 0555 folder, or
// a 0444 file in a folder it can write — is read as it is: --no-refresh
// answers quietly, a refreshing command answers with one warning, `index`
// fails with exit status 1, and a catalog that would need migrating or
// rebuilding says so (`index --full` cannot replace it either). Root ignores file modes, so as root the commands run
// as nobody (setpriv); the catalog's bytes never change.
func TestReadOnlyCatalog(t *testing.T) {
	dir := publicTempDir(t)
	bin := copyPidex(t, dir)
	root := filepath.Join(dir, "sessions")
	writeSession(t, filepath.Join(root, "--w--", "a.jsonl"), `{"type":"session","version":3,"id":"indexed","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w"}`,
		userLine("u1", "", "hello"))
	cat := filepath.Join(dir, "cat")
	db := filepath.Join(cat, "catalog.sqlite")
	if out, err := exec.Command(bin, "--db", db, "--sessions", root, "index", "-q").CombinedOutput(); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	// A session the read-only catalog cannot take in.
	writeSession(t, filepath.Join(root, "--w--", "b.jsonl"), `{"type":"session","version":3,"id":"unindexed","timestamp":"2026-05-01T11:00:00.000Z","cwd":"/w"}`,
		userLine("v1", "", "world"))
	readOnly(t, db, 0o444, cat, 0o555)
	sum := fileSum(t, db)
	ro := func(args ...string) (string, string, int) {
		return unprivileged(t, dir, bin, append([]string{"--db", db, "--sessions", root}, args...)...)
	}
	warning := "pidex: catalog " + db + " is read-only: answering from it as it is, without refreshing\n"
	for _, tc := range []struct {
		args []string
		want string
		warn string
	}{
		{[]string{"list", "--no-refresh"}, "indexed", ""},
		{[]string{"list"}, "indexed", warning},
		{[]string{"show", "indexed"}, "hello", warning},
		{[]string{"tree", "indexed", "--no-refresh"}, "hello", ""},
		{[]string{"search", "hello"}, "indexed", warning},
		{[]string{"sql", "SELECT session_id FROM sessions_v"}, "indexed", warning},
	} {
		out, errOut, code := ro(tc.args...)
		if code != 0 || !strings.Contains(out, tc.want) || strings.Contains(out, "unindexed") || errOut != tc.warn {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 0, %q on stdout and stderr %q", tc.args, code, out, errOut, tc.want, tc.warn)
		}
	}
	if _, errOut, code := ro("index"); code != exitError || !strings.Contains(errOut, "read-only") {
		t.Errorf("index: exit %d, stderr %q; want exit 1 and a read-only error", code, errOut)
	}
	if got := fileSum(t, db); got != sum {
		t.Errorf("the read-only catalog changed")
	}

	// A 0444 file in a folder it may write: SQLite makes its -shm there.
	readOnly(t, db, 0o444, cat, 0o777)
	if out, errOut, code := ro("list"); code != 0 || !strings.Contains(out, "indexed") || errOut != warning {
		t.Errorf("list in a writable folder: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// Out of date: a catalog that needs rebuilding, or migrating, cannot be
	// answered from; it says why.
	for _, stale := range []string{
		"UPDATE meta SET value = '1' WHERE key = 'derivation'",
		"DELETE FROM goose_db_version WHERE version_id = (SELECT max(version_id) FROM goose_db_version)",
	} {
		readOnly(t, db, 0o644, cat, 0o755)
		c := sqlx.MustOpen("sqlite", db)
		c.MustExec(stale)
		c.Close()
		readOnly(t, db, 0o444, cat, 0o555)
		for _, args := range [][]string{{"list", "--no-refresh"}, {"index", "--full"}} {
			if _, errOut, code := ro(args...); code != exitError || !strings.Contains(errOut, "is read-only and") {
				t.Errorf("%v after %q: exit %d, stderr %q; want exit 1 and why", args, stale, code, errOut)
			}
		}
	}
}

// readOnly sets the modes of the catalog file and its folder.
func readOnly(t *testing.T, db string, dbMode os.FileMode, dir string, dirMode os.FileMode) {
	t.Helper()
	if err := os.Chmod(dir, dirMode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(db, dbMode); err != nil {
		t.Fatal(err)
	}
}

// publicTempDir is a temporary folder that nobody can enter, unlike
// t.TempDir's (0700 parents); its modes are restored before removal.
func publicTempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "pidex-readonly-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// copyPidex copies the pidex command (the test binary, which testscript
// puts on PATH in a private folder) where nobody can run it.
func copyPidex(t *testing.T, dir string) string {
	src, err := exec.LookPath("pidex")
	if err != nil {
		t.Fatal("pidex not on PATH:", err)
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	bin := filepath.Join(dir, "pidex")
	out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// unprivileged runs a command as a user that file modes apply to: this
// one, or nobody when the tests run as root.
func unprivileged(t *testing.T, home, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	if os.Geteuid() == 0 {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skip("running as root without setpriv: file modes cannot be tested")
		}
		cmd = exec.Command(setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", bin}, args...)...)
	}
	cmd.Env = append(os.Environ(), "HOME="+home, "COLUMNS=100")
	if os.Getenv("GOCOVERDIR") != "" {
		// Under go test -cover the binary writes its counters to the
		// test's GOCOVERDIR, which nobody cannot enter: give it one of its
		// own (its counters are dropped), or it says so on stderr.
		cover := filepath.Join(home, "cover")
		if err := os.MkdirAll(cover, 0o777); err != nil || os.Chmod(cover, 0o777) != nil {
			t.Fatalf("coverage folder: %v", err)
		}
		cmd.Env = append(cmd.Env, "GOCOVERDIR="+cover)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}
