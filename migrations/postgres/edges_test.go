package postgres_test

import (
	"context"
	"testing"
)

// Migration 00015 makes edges a view of the entries with the rows the
// table held (pi's id map: an id's latest entry wins, as pushes wrote
// it), and its Down makes the table again with them: with plain tables
// and with partitions.
func TestEdgesFromEntries(t *testing.T) {
	inLayouts(t, edgesFromEntries)
}

func edgesFromEntries(t *testing.T, partitions int) {
	ctx := context.Background()
	p, db := provider(t, partitions)
	if _, err := p.UpTo(ctx, 14); err != nil {
		t.Fatal(err)
	}
	exec(t, db, fixture)
	// File 1 (machine a): a, b under a, b again (a later entry of the same
	// id, under nothing); file 4 (machine c): a alone.
	exec(t, db, `INSERT INTO entries (file_id, "offset", machine_id, length, line, seq, id, parent_id, type) VALUES
		(1, 0, 1, 1, 1, 1, 'a', NULL, 'message'), (1, 10, 1, 1, 2, 2, 'b', 'a', 'message'),
		(1, 20, 1, 1, 3, 3, 'b', NULL, 'message'), (4, 0, 3, 1, 1, 1, 'a', NULL, 'message')`)
	exec(t, db, `INSERT INTO edges (file_id, child_id, machine_id, parent_id, "offset") VALUES
		(1, 'a', 1, NULL, 0), (1, 'b', 1, NULL, 20), (4, 'a', 3, NULL, 0)`)
	edges := func() string {
		t.Helper()
		var s string
		if err := db.QueryRow(`SELECT string_agg(machine_id || '/' || file_id || ':' || child_id || '<' || COALESCE(parent_id, '-') || '@' || "offset", ' '
			ORDER BY machine_id, file_id, child_id) FROM edges`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	const want = "1/1:a<-@0 1/1:b<-@20 3/4:a<-@0"
	if got := edges(); got != want {
		t.Fatalf("the table: %s", got)
	}
	if _, err := p.UpTo(ctx, 15); err != nil {
		t.Fatal(err)
	}
	if got := edges(); got != want {
		t.Errorf("the view: %s, want the table's %s", got, want)
	}
	var active string
	exec(t, db, `UPDATE sessions SET leaf_id = 'b', entry_count = 3 WHERE machine_id = 1 AND file_id = 1`)
	if err := db.QueryRow(`SELECT string_agg(id || '@' || "offset", ' ' ORDER BY depth) FROM active_path_v WHERE path = '/s/1' AND machine = 'a'`).Scan(&active); err != nil || active != "b@20" {
		t.Errorf("active path through the view: %q (%v), want b@20 (its latest entry, a root)", active, err)
	}
	if _, err := p.DownTo(ctx, 14); err != nil {
		t.Fatal(err)
	}
	if got := edges(); got != want {
		t.Errorf("the table again: %s, want %s", got, want)
	}
}
