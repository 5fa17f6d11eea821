package pgtest

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"
)

// Dump is a full pg_dump of the database at url (schema and data, plain
// SQL): what an administrator, or anyone who gets a backup, can read. It
// uses the pg_dump beside the cluster's binaries (else on PATH), and
// skips the test when there is none.
func Dump(t testing.TB, url string) string {
	t.Helper()
	bin := ""
	if dir := findBin(); dir != "" && isExec(filepath.Join(dir, "pg_dump")) {
		bin = filepath.Join(dir, "pg_dump")
	} else if p, err := exec.LookPath("pg_dump"); err == nil {
		bin = p
	}
	if bin == "" {
		t.Skip("pgtest: no pg_dump (looked in /usr/lib/postgresql/*/bin and on PATH)")
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, "--no-owner", "--dbname", url)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("pg_dump %s: %v\n%s", redact(url), err, errb.String())
	}
	return out.String()
}
