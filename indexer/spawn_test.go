package indexer

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/pidex-dev/pidex"
)

// The layouts of spawn.go: which file a path names as its parent, the top
// of the chain, and the run's name; and what is nobody's child.
func TestSpawnOf(t *testing.T) {
	root := filepath.FromSlash("/s")
	p := func(s string) string { return filepath.Join(root, filepath.FromSlash(s)) }
	for _, c := range []struct {
		source, path string
		want         spawn
	}{
		{pidex.SourcePi, "--w--/a.jsonl", spawn{}},
		{pidex.SourcePi, "--w--/a/r1/run-0/session.jsonl", spawn{By: p("--w--/a.jsonl"), Family: p("--w--/a.jsonl"), Run: "r1/run-0"}},
		{pidex.SourcePi, "--w--/a/r1/run-12/session.jsonl", spawn{By: p("--w--/a.jsonl"), Family: p("--w--/a.jsonl"), Run: "r1/run-12"}},
		// a child's own child, beside the child's session.jsonl
		{pidex.SourcePi, "--w--/a/r1/run-0/session/r2/run-1/session.jsonl",
			spawn{By: p("--w--/a/r1/run-0/session.jsonl"), Family: p("--w--/a.jsonl"), Run: "r2/run-1"}},
		// a flat root (pi's sessionDir): the parent lies in the root itself
		{pidex.SourcePi, "a/r1/run-0/session.jsonl", spawn{By: p("a.jsonl"), Family: p("a.jsonl"), Run: "r1/run-0"}},
		{pidex.SourcePi, "--w--/a/r1/run-x/session.jsonl", spawn{}},
		{pidex.SourcePi, "--w--/a/r1/run-/session.jsonl", spawn{}},
		{pidex.SourcePi, "--w--/a/r1/run-0/other.jsonl", spawn{}},
		{pidex.SourcePi, "r1/run-0/session.jsonl", spawn{}}, // no parent name before the run id
		{pidex.SourceOmp, "-p/s.jsonl", spawn{}},
		{pidex.SourceOmp, "-p/s/Scout.jsonl", spawn{By: p("-p/s.jsonl"), Family: p("-p/s.jsonl"), Run: "Scout"}},
		{pidex.SourceOmp, "-p/s/Scout.Grep.jsonl", spawn{By: p("-p/s/Scout.jsonl"), Family: p("-p/s.jsonl"), Run: "Scout.Grep"}},
		{pidex.SourceOmp, "-p/s/__advisor.jsonl", spawn{By: p("-p/s.jsonl"), Family: p("-p/s.jsonl"), Run: "__advisor"}},
		{pidex.SourceOmp, "-p/s/__advisor.fast.jsonl", spawn{By: p("-p/s.jsonl"), Family: p("-p/s.jsonl"), Run: "__advisor.fast"}},
		{pidex.SourceOpenClaw, "main/sessions/x.jsonl", spawn{}},
	} {
		if got := spawnOf(root, c.source, p(c.path)); got != c.want {
			t.Errorf("%s %s: %+v, want %+v", c.source, c.path, got, c.want)
		}
	}
	if got := spawnOf(root, pidex.SourcePi, filepath.FromSlash("/elsewhere/a/r1/run-0/session.jsonl")); got != (spawn{}) {
		t.Errorf("a path outside the root: %+v", got)
	}
}

// pi-subagents' child runs are found under a pi root, linked to their
// parent (there or not), nested ones too; other .jsonl files of those
// folders are not sessions and are not read; a folder link that loops
// ends.
func TestPiSubagentsDiscovered(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "--w--")
	parent := filepath.Join(proj, "a.jsonl")
	write(t, parent, header+msg("u1", "", "user", "hi", 1))
	child := filepath.Join(proj, "a", "r1", "run-0", "session.jsonl")
	child2 := filepath.Join(proj, "a", "r1", "run-1", "session.jsonl")
	nested := filepath.Join(proj, "a", "r1", "run-0", "session", "r2", "run-0", "session.jsonl")
	orphan := filepath.Join(proj, "gone", "r9", "run-0", "session.jsonl")
	for i, p := range []string{child, child2, nested, orphan} {
		write(t, p, `{"type":"session","version":3,"id":"c-`+string(rune('0'+i))+`","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w/app"}`+"\n"+
			msg("u1", "", "user", "task", 2)+msg("a1", "u1", "assistant", "done", 3))
	}
	// pi-subagents' artifacts and an extension's .jsonl deeper down: no sessions
	write(t, filepath.Join(proj, "subagent-artifacts", "r1_scout.jsonl"), `{"type":"message_end"}`+"\n")
	write(t, filepath.Join(proj, "a", "r1", "run-0", "events.jsonl"), `{"type":"x"}`+"\n")
	write(t, filepath.Join(proj, "a", "r1", "notes", "session.jsonl"), header)
	if runtime.GOOS != "windows" {
		if err := os.Symlink(filepath.Join(proj, "a"), filepath.Join(proj, "a", "r1", "run-0", "session", "loop")); err != nil {
			t.Fatal(err)
		}
	}
	cands, errs := discover(root, pidex.SourcePi)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := map[string]spawn{}
	for _, c := range cands {
		got[c.Path] = c.Spawn
	}
	want := map[string]spawn{
		parent: {},
		child:  {By: parent, Family: parent, Run: "r1/run-0"},
		child2: {By: parent, Family: parent, Run: "r1/run-1"},
		nested: {By: child, Family: parent, Run: "r2/run-0"},
		orphan: {By: filepath.Join(proj, "gone.jsonl"), Family: filepath.Join(proj, "gone.jsonl"), Run: "r9/run-0"},
	}
	if len(got) != len(want) {
		t.Errorf("found %d files, want %d: %v", len(got), len(want), got)
	}
	for p, w := range want {
		if g, ok := got[p]; !ok || g != w {
			t.Errorf("%s: %+v (found %v), want %+v", p, g, ok, w)
		}
	}

	// The catalog keeps the link; a child is a subagent.
	ix := newIndexer(t, root)
	refresh(t, ix)
	var rows []struct {
		Path      string `db:"path"`
		SpawnedBy string `db:"spawned_by"`
		Family    string `db:"family"`
		Run       string `db:"run"`
		Subagent  bool   `db:"subagent"`
	}
	if err := ix.DB.SelectContext(context.Background(), &rows, `SELECT f.path, s.spawned_by, s.family, s.run, s.subagent
		FROM sessions s JOIN files f ON f.id = s.file_id`); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(want) {
		t.Fatalf("%d sessions, want %d", len(rows), len(want))
	}
	for _, r := range rows {
		w := want[r.Path]
		if r.SpawnedBy != w.By || r.Family != w.Family || r.Run != w.Run || r.Subagent != (w.By != "") {
			t.Errorf("%s: %+v, want %+v", r.Path, r, w)
		}
	}
	// Appended to, a child keeps its link.
	appendTo(t, child, msg("u2", "a1", "user", "more", 4))
	refresh(t, ix)
	assertSameAsFresh(t, ix)
}
