package engine

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/indexer"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/migrations"
	"github.com/pidex-dev/pidex/sqlite"
)

const header = `{"type":"session","version":3,"id":"%s","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w/app"}` + "\n"

func session(id string, n int) string {
	var b strings.Builder
	b.WriteString(strings.Replace(header, "%s", id, 1))
	parent := "null"
	for i := range n {
		eid := id + "-" + string(rune('a'+i%26)) + itoa(i)
		b.WriteString(`{"type":"message","id":"` + eid + `","parentId":` + parent + `,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"step ` + itoa(i) + `"}],"provider":"anthropic","model":"claude-x",` +
			`"usage":{"input":10,"output":50,"cacheRead":0,"cacheWrite":30,"cacheWrite1h":20,"reasoning":40,"totalTokens":90,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.1}},"timestamp":1777629601000}}` + "\n")
		parent = `"` + eid + `"`
	}
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }

func corpus(t *testing.T, files int) string {
	root := t.TempDir()
	for i := range files {
		catalogtest.WriteFile(t, filepath.Join(root, "--w-p"+itoa(i%3)+"--", "s"+itoa(i)+".jsonl"), session("s"+itoa(i), 20+i))
	}
	return root
}

func open(t *testing.T, db, root string, notify func(string)) *Engine {
	t.Helper()
	e, err := Open(context.Background(), Options{DBPath: db, Roots: []string{root}, Notify: notify})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func refresh(t *testing.T, e *Engine) *pidex.IndexStats {
	t.Helper()
	st, err := e.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// fresh is the dump of a catalog built from scratch over root.
func fresh(t *testing.T, root string) string {
	t.Helper()
	e := open(t, filepath.Join(t.TempDir(), "fresh.sqlite"), root, nil)
	refresh(t, e)
	return catalogtest.Dump(t, e.db.DB)
}

// A catalog that an older pidex derived (here: stamped with derivation 1
// and lacking what derivation 2 adds) is rebuilt when it is opened, with a
// message; a new catalog is stamped without one.
func TestOlderDerivationRebuiltOnOpen(t *testing.T) {
	root := corpus(t, 3)
	db := filepath.Join(t.TempDir(), "c.sqlite")
	var msgs []string
	e := open(t, db, root, func(m string) { msgs = append(msgs, m) })
	if len(msgs) != 0 {
		t.Fatalf("a new catalog was announced as a rebuild: %q", msgs)
	}
	if d, _ := sqlite.Derivation(context.Background(), e.db.DB); d != indexer.Derivation {
		t.Fatalf("new catalog stamped %d", d)
	}
	refresh(t, e)
	e.db.MustExec("UPDATE usage SET cache_write_1h = 0, reasoning = 0")
	e.db.MustExec("UPDATE meta SET value = '1' WHERE key = 'derivation'")
	e.Close()

	e = open(t, db, root, func(m string) { msgs = append(msgs, m) })
	if len(msgs) != 1 || !strings.Contains(msgs[0], "rebuilding") {
		t.Errorf("messages %q, want one about the rebuild", msgs)
	}
	if d, _ := sqlite.Derivation(context.Background(), e.db.DB); d != indexer.Derivation {
		t.Errorf("rebuilt catalog stamped %d", d)
	}
	if got, want := catalogtest.Dump(t, e.db.DB), fresh(t, root); got != want {
		t.Errorf("rebuilt catalog differs from a fresh one:\n%s\n---\n%s", got, want)
	}
	// A catalog from before pidex stamped derivations at all counts as older.
	e.db.MustExec("DELETE FROM meta")
	e.Close()
	msgs = nil
	open(t, db, root, func(m string) { msgs = append(msgs, m) })
	if len(msgs) != 1 {
		t.Errorf("unstamped catalog: messages %q", msgs)
	}
}

// Rebuild keeps the catalog file: another engine on it (another process's
// watcher) goes on working and its writes land in the rebuilt catalog;
// readers meanwhile always see a whole catalog.
func TestRebuildInPlace(t *testing.T) {
	root := corpus(t, 12)
	db := filepath.Join(t.TempDir(), "c.sqlite")
	a := open(t, db, root, nil)
	refresh(t, a)
	b := open(t, db, root, nil) // the other process
	before, _ := os.Stat(db)

	var stop atomic.Bool
	var wg sync.WaitGroup
	var partial atomic.Int64
	wg.Add(1)
	go func() { // a reader counting sessions during the rebuild
		defer wg.Done()
		for !stop.Load() {
			var n int
			if err := b.db.Get(&n, "SELECT count(*) FROM sessions"); err == nil && n != 12 {
				partial.Add(1)
			}
		}
	}()
	if _, err := a.Rebuild(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	stop.Store(true)
	wg.Wait()
	if partial.Load() > 0 {
		t.Errorf("a reader saw a partial catalog %d times", partial.Load())
	}
	after, _ := os.Stat(db)
	if !os.SameFile(before, after) {
		t.Error("the rebuild replaced the catalog file")
	}
	matches, _ := filepath.Glob(db + ".rebuild-*")
	if len(matches) != 0 {
		t.Errorf("side files left behind: %v", matches)
	}
	catalogtest.AppendFile(t, filepath.Join(root, "--w-p0--", "s0.jsonl"), `{"type":"message","id":"late","parentId":"s0-t19","timestamp":"2026-05-01T10:09:00.000Z","message":{"role":"user","content":"one more","timestamp":1777629601000}}`+"\n")
	if st := refresh(t, b); st.Appended != 1 {
		t.Fatalf("the other engine's refresh after the rebuild: %+v", st)
	}
	if got, want := catalogtest.Dump(t, a.db.DB), fresh(t, root); got != want {
		t.Errorf("catalog after rebuild and append differs from a fresh one")
	}
	// The text index came over with the rebuild, and the other engine's
	// text pass adds to it.
	if _, err := b.RefreshText(context.Background()); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]int{`"step 7"`: 12, `"one more"`: 1} {
		ss, err := a.SearchSessions(context.Background(), pidex.SearchOptions{Query: q, Limit: 100})
		if err != nil || len(ss) != want {
			t.Errorf("search %s after the rebuild: %d sessions (%v), want %d", q, len(ss), err, want)
		}
	}
}

// Subscribers hear of every refresh the watcher makes.
func TestSubscribe(t *testing.T) {
	root := corpus(t, 1)
	e := open(t, filepath.Join(t.TempDir(), "c.sqlite"), root, nil)
	events, cancel := e.Subscribe()
	defer cancel()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Watch(ctx, WatchOptions{}) }()
	next := func(what string) pidex.Event {
		t.Helper()
		select {
		case ev := <-events:
			return ev
		case <-time.After(10 * time.Second):
			t.Fatalf("no event for %s", what)
		}
		return pidex.Event{}
	}
	if ev := next("the first refresh"); ev.Err != nil || !ev.Changed() || ev.Stats.New != 1 {
		t.Fatalf("first event: %+v", ev)
	}
	catalogtest.AppendFile(t, filepath.Join(root, "--w-p0--", "s0.jsonl"), `{"type":"message","id":"x","parentId":null,"timestamp":"2026-05-01T10:09:00.000Z","message":{"role":"user","content":"hi","timestamp":1777629601000}}`+"\n")
	for {
		if ev := next("the append"); ev.Changed() {
			if ev.Stats.Appended != 1 {
				t.Fatalf("append event: %+v", ev.Stats)
			}
			break
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cancel()
	cancel() // twice is harmless
}

// A catalog from a build whose migrations differ (here: an edited,
// already applied migration left sessions without a column the next one
// needs) is emptied and rebuilt, with a message, instead of failing every
// command.
func TestCatalogFromAnotherBuildIsRebuilt(t *testing.T) {
	root := corpus(t, 2)
	db := filepath.Join(t.TempDir(), "c.sqlite")
	e := open(t, db, root, nil)
	refresh(t, e)
	for _, q := range []string{
		"DROP VIEW tool_uses_v", "DROP VIEW activity_v", "DROP VIEW labels_v", "DROP VIEW usage_v", "DROP VIEW active_path_v", "DROP VIEW _active_offsets",
		"DROP VIEW tool_calls_v", "DROP VIEW messages_v", "DROP VIEW entries_v", "DROP VIEW sessions_v",
		"DROP TRIGGER session_activity_branch_points", "DROP TRIGGER sessions_branch_points",
		"DROP TABLE tool_calls", "DROP INDEX usage_entry", "ALTER TABLE sessions DROP COLUMN branch_points",
		"DELETE FROM goose_db_version WHERE version_id = 4", "DELETE FROM meta",
	} {
		e.db.MustExec(q)
	}
	e.Close()
	var msgs []string
	e = open(t, db, root, func(m string) { msgs = append(msgs, m) })
	if len(msgs) == 0 || !strings.Contains(msgs[0], "another pidex build") {
		t.Errorf("messages %q", msgs)
	}
	refresh(t, e)
	if got, want := catalogtest.Dump(t, e.db.DB), fresh(t, root); got != want {
		t.Error("the rebuilt catalog differs from a fresh one")
	}
}

// A catalog made by a build from before the hourly rollup (0d28695 edited
// the already applied migration 00005 to add it) has 00005 recorded but
// no usage_rollup_hour: opening it repairs it (migration 00006), so cost
// reports work and its rows equal a fresh catalog's.
func TestCatalogBeforeHourlyRollupIsRepaired(t *testing.T) {
	root := corpus(t, 3)
	db := filepath.Join(t.TempDir(), "c.sqlite")
	e := open(t, db, root, nil)
	refresh(t, e)
	// What those builds made: the migrations up to 00005, without the table.
	p, err := goose.NewProvider(goose.DialectSQLite3, e.db.DB.DB, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(context.Background(), 5); err != nil {
		t.Fatal(err)
	}
	e.db.MustExec("DROP TABLE usage_rollup_hour")
	e.Close()
	e = open(t, db, root, nil)
	// Europe/Paris has whole hours: the report reads the hourly rollup.
	rep, err := e.Cost(context.Background(), pidex.CostOptions{By: []string{"day"}, TZ: "Europe/Paris"})
	if err != nil {
		t.Fatalf("cost on a catalog from before the hourly rollup: %v", err)
	}
	if len(rep.Rows) == 0 || rep.Totals.Calls == 0 {
		t.Errorf("cost report after the repair: %+v", rep)
	}
	// Equal to a fresh catalog, but for the content sums, which a
	// catalog from before 00007 does not know (see indexer/content.go),
	// and the activity a catalog from before 00017 has not derived (a
	// real one is also stamped with an older derivation, and rebuilt).
	f := open(t, filepath.Join(t.TempDir(), "fresh.sqlite"), root, nil)
	refresh(t, f)
	f.db.MustExec(`UPDATE files SET content_crc = NULL;
		UPDATE entries SET stop_raw = NULL, error = NULL, tokens_before = NULL, command = NULL;
		UPDATE tool_calls SET command = NULL, size = NULL;
		DELETE FROM session_activity; DELETE FROM activity; DELETE FROM activity_tools; DELETE FROM activity_events;
		DELETE FROM activity_file; DELETE FROM activity_tools_file`)
	if got, want := catalogtest.Dump(t, e.db.DB), catalogtest.Dump(t, f.db.DB); got != want {
		t.Errorf("the repaired catalog differs from a fresh one:\n%s\n---\n%s", got, want)
	}
}

// anotherBuild turns a catalog into one from a build whose migrations
// differ (an edited, already applied migration: sessions lacks a column,
// migration 00004 is not recorded), stamped with an older derivation.
func anotherBuild(t *testing.T, e *Engine) {
	t.Helper()
	for _, q := range []string{
		"DROP VIEW tool_uses_v", "DROP VIEW activity_v", "DROP VIEW labels_v", "DROP VIEW usage_v", "DROP VIEW active_path_v", "DROP VIEW _active_offsets",
		"DROP VIEW tool_calls_v", "DROP VIEW messages_v", "DROP VIEW entries_v", "DROP VIEW sessions_v",
		"DROP TRIGGER session_activity_branch_points", "DROP TRIGGER sessions_branch_points",
		"DROP TABLE tool_calls", "DROP INDEX usage_entry", "ALTER TABLE sessions DROP COLUMN branch_points",
		"DELETE FROM goose_db_version WHERE version_id = 4", "DELETE FROM meta",
	} {
		e.db.MustExec(q)
	}
}

// Four processes opening such a catalog at once all succeed and leave it
// equal to a fresh one: upgrades (migrations, and emptying a catalog whose
// schema cannot be migrated) are serialized across processes, and one
// that finds the work done by another does not do it again. Before, one
// process emptied the catalog under the others: 1 to 8 of 20 failed with
// "no such column: generation" or "partial migration error". 20 rounds
// here; PIDEX_UPGRADES=N for N.
func TestConcurrentUpgradesOfAnOldCatalog(t *testing.T) {
	rounds := 20
	if s := os.Getenv("PIDEX_UPGRADES"); s != "" {
		var err error
		if rounds, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	root := corpus(t, 6)
	want := fresh(t, root)
	failed := 0
	for round := range rounds {
		db := filepath.Join(t.TempDir(), "c.sqlite")
		e := open(t, db, root, nil)
		refresh(t, e)
		anotherBuild(t, e)
		e.Close()
		errs := make(chan error, 4)
		for range 4 { // each engine its own catalog handle and pool, as a process
			go func() {
				e, err := Open(context.Background(), Options{DBPath: db, Roots: []string{root}})
				if err == nil {
					if _, err = e.Refresh(context.Background()); err == nil {
						_, err = e.RefreshText(context.Background())
					}
					e.Close()
				}
				errs <- err
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				failed++
				t.Errorf("round %d: %v", round, err)
			}
		}
		e = open(t, db, root, nil)
		if got := catalogtest.Dump(t, e.db.DB); got != want {
			t.Errorf("round %d: the upgraded catalog differs from a fresh one", round)
		}
		e.Close()
	}
	if failed > 0 {
		t.Errorf("%d of %d opens failed", failed, 4*rounds)
	}
}

// What a killed `index --full` leaves (its side catalog, -wal and -shm,
// read cache files) is removed by the next run, but a side file a live rebuild holds is
// not: that rebuild finishes as if nothing happened.
func TestStaleSideFilesAreRemoved(t *testing.T) {
	root := corpus(t, 4)
	db := filepath.Join(t.TempDir(), "c.sqlite")
	a := open(t, db, root, nil)
	refresh(t, a)
	stale := []string{db + ".rebuild-111", db + ".rebuild-111-wal", db + ".rebuild-111-shm", db + ".rebuild-222-wal",
		db + ".rebuild-111-stamps", db + ".rebuild-222-listing", db + ".rebuild-222-listing.123.tmp"}
	for _, p := range stale {
		if err := os.WriteFile(p, []byte("left by a killed rebuild"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var live string
	a.afterSide = func(side string) {
		a.afterSide = nil
		live = side
		open(t, db, root, nil) // another run, meanwhile
		if _, err := os.Stat(side); err != nil {
			t.Errorf("a live rebuild's side file was removed: %v", err)
		}
	}
	if _, err := a.Rebuild(context.Background(), true); err != nil {
		t.Fatalf("the live rebuild: %v", err)
	}
	if live == "" {
		t.Fatal("the hook did not run")
	}
	for _, p := range stale {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there", filepath.Base(p))
		}
	}
	if left, _ := filepath.Glob(db + ".rebuild-*"); len(left) != 0 {
		t.Errorf("side files left: %v", left)
	}
	if got, want := catalogtest.Dump(t, a.db.DB), fresh(t, root); got != want {
		t.Error("the rebuilt catalog differs from a fresh one")
	}
}

// The catalog deleted under a running watcher (`pidex serve`, `index
// --watch`): the watcher notices, makes a new private catalog and fills
// it, and the engine's reads answer from it, not from the deleted file;
// replaced by another command's new catalog, the engine moves to that
// one. It used to go on with the deleted file, re-create an empty one
// 0644 when a connection was opened, and fail every refresh with "no
// such table: files".
func TestWatcherFollowsADeletedCatalog(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("an open file cannot be deleted")
	}
	root := corpus(t, 3)
	db := filepath.Join(t.TempDir(), "c.sqlite")
	e := open(t, db, root, nil)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var refreshErrs atomic.Int64
	go func() {
		done <- e.Watch(ctx, WatchOptions{Text: true, OnRefresh: func(_ *pidex.IndexStats, err error) {
			if err != nil {
				refreshErrs.Add(1)
				t.Logf("refresh: %v", err)
			}
		}})
	}()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	// until waits for cond, bounded (a liveness bound, not a timing one).
	until := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("after 30 s: %s", what)
			}
		}
	}
	sessions := func() int {
		ss, err := e.List(context.Background(), pidex.ListOptions{})
		if err != nil {
			return -1
		}
		return len(ss)
	}
	until("the first refresh", func() bool { return sessions() == 3 })
	before, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(db) // as a user would: the -wal and -shm stay
	until("a new catalog at the path, filled, read by the engine", func() bool {
		fi, err := os.Stat(db)
		return err == nil && !os.SameFile(fi, before) && !e.db.Moved() && sessions() == 3
	})
	if fi, _ := os.Stat(db); fi.Mode().Perm() != 0o600 {
		t.Errorf("the new catalog's mode: %o, want 600", fi.Mode().Perm())
	}

	// Replaced: deleted again, and another command makes the catalog anew
	// (here with one session more, which only it has indexed).
	catalogtest.WriteFile(t, filepath.Join(root, "--w-p9--", "late.jsonl"), session("late", 2))
	for _, s := range []string{"", "-wal", "-shm"} {
		os.Remove(db + s)
	}
	other, err := Open(context.Background(), Options{DBPath: db, Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	other.Close()
	until("the engine reading the other command's catalog", func() bool { return sessions() == 4 && !e.db.Moved() })
	if n := refreshErrs.Load(); n != 0 {
		t.Errorf("%d refreshes failed", n)
	}
}
