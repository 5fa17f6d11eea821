package indexer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/pidex-dev/pidex/migrations"
)

// The whole-history activity sums (migration 00020) are the per-file rows
// summed, whatever the writer did to those rows: an ingest, a rewrite, an
// append, a second file of one session id (whose copies count in one of
// them), a file removed, every file removed. The triggers subtract what
// a delete takes away and take a maximum again when its row goes; the
// test compares each table with the per-file rows grouped afresh.
func TestActivityTotalsAreTheSums(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("../testdata/sessions")); err != nil {
		t.Fatal(err)
	}
	ix := newIndexer(t, root)
	check := func(step string) {
		t.Helper()
		for _, c := range totalsChecks {
			got, want := rowsOf(t, ix, c.totals), rowsOf(t, ix, c.sums)
			if !slices.Equal(got, want) {
				t.Errorf("%s: %s\n got %v\nwant %v", step, c.name, got, want)
			}
		}
	}
	refresh(t, ix)
	check("indexed")
	if n := rowsOf(t, ix, `SELECT count(*) FROM activity_tools_all`); n[0] == "0" {
		t.Fatal("no tool sums: the fixtures should have tool calls")
	}

	// The longest session file: cut to its first half (a rewrite), then
	// given its lines back (an append).
	big, lines := longestSession(t, root)
	half := strings.Join(lines[:len(lines)/2], "")
	write(t, big, half)
	refresh(t, ix)
	check("rewritten shorter")
	appendTo(t, big, strings.Join(lines[len(lines)/2:], ""))
	refresh(t, ix)
	check("appended")

	// A copy of it in another project: one session id in two files.
	copyPath := filepath.Join(root, "--home-ann-copies--", filepath.Base(big))
	write(t, copyPath, strings.Join(lines, ""))
	refresh(t, ix)
	check("copied")
	os.Remove(big)
	refresh(t, ix)
	check("the original removed")
	assertSameAsFresh(t, ix)

	// Migration 00020 makes the same sums of a catalog's rows as the
	// triggers did: down to before it, then up again.
	// The entries off the path (migration 00023) go with its down and come
	// back empty with its up: the indexer derives them (a catalog migrated
	// across it is rebuilt, derivation 13), so they are kept aside here.
	before := dump(t, ix)
	if _, err := ix.DB.Exec(`CREATE TABLE kept_off_path AS SELECT * FROM off_path`); err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, ix.DB.DB.DB, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(context.Background(), 19); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.DB.Exec(`INSERT INTO off_path SELECT * FROM kept_off_path; DROP TABLE kept_off_path`); err != nil {
		t.Fatal(err)
	}
	if after := dump(t, ix); after != before {
		t.Errorf("migration 00020 made other sums than the triggers:\ntriggers:\n%s\nmigration:\n%s", before, after)
	}

	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	refresh(t, ix)
	check("everything removed")
	for _, table := range []string{"activity_all", "activity_tools_all", "activity_hours", "activity_quarters"} {
		if n := rowsOf(t, ix, `SELECT count(*) FROM `+table); n[0] != "0" {
			t.Errorf("%s keeps %s rows of no files", table, n[0])
		}
	}
}

// totalsChecks are each whole-history table, as stored and as its
// per-file rows sum.
var totalsChecks = []struct{ name, totals, sums string }{
	{"activity_all", `SELECT * FROM activity_all ORDER BY active`,
		`SELECT active, count(*), sum(entries), sum(user_turns), sum(assistant_calls), sum(tool_calls), sum(tool_results),
			sum(tool_errors), sum(user_commands), sum(stop_error), sum(stop_aborted), sum(stop_length), sum(active_ms),
			sum(turns_timed), sum(latency_ms), max(max_latency_ms), sum(compactions), sum(context_before),
			max(max_context_before), total(prompt_input), total(prompt_cache_read), total(prompt_cache_write)
		FROM activity_file GROUP BY active ORDER BY active`},
	{"activity_tools_all", `SELECT * FROM activity_tools_all ORDER BY kind, name, active`,
		`SELECT kind, name, active, count(*), sum(calls), sum(results), sum(errors), sum(result_bytes), sum(timed),
			sum(duration_ms), max(max_duration_ms)
		FROM activity_tools_file GROUP BY kind, name, active ORDER BY kind, name, active`},
	{"activity_quarters", `SELECT * FROM activity_quarters ORDER BY bucket, active`,
		`SELECT bucket, active, count(*), sum(active_ms), sum(user_turns) FROM activity GROUP BY bucket, active ORDER BY bucket, active`},
	{"activity_hours", `SELECT * FROM activity_hours ORDER BY hour, active`,
		`SELECT bucket / 4, active, count(*), sum(active_ms), sum(user_turns) FROM activity WHERE bucket >= 0
		GROUP BY bucket / 4, active ORDER BY bucket / 4, active`},
	{"branch points", `SELECT file_id, branch_points FROM session_activity ORDER BY file_id`,
		`SELECT file_id, branch_points FROM sessions WHERE file_id IN (SELECT file_id FROM session_activity) ORDER BY file_id`},
}

// rowsOf runs q and gives each row as text.
func rowsOf(t *testing.T, ix *Indexer, q string) []string {
	t.Helper()
	rows, err := ix.DB.Queryx(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		vals, err := rows.SliceScan()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(vals...))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// longestSession is the session file under root with the most lines, and
// its lines (each with its newline).
func longestSession(t *testing.T, root string) (string, []string) {
	t.Helper()
	var best string
	var bestLines []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".jsonl" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines := strings.SplitAfter(string(b), "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if len(lines) > len(bestLines) {
			best, bestLines = p, lines
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return best, bestLines
}
