package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite"

	"github.com/pidex-dev/pidex/internal/fts"
)

// The SQLite catalog's design (migrations/00003_search.sql), for the
// baseline and as the oracle of today's answers.
const fts5SQL = `CREATE VIRTUAL TABLE text_index USING fts5(text, content = '', contentless_delete = 1,
	tokenize = 'unicode61 remove_diacritics 2');
INSERT INTO text_index (text_index, rank) VALUES ('hashsize', 33554432);`

// openFTS5 creates an FTS5 index in dir.
func openFTS5(dir string) (*sqlx.DB, error) {
	db, err := sqlx.Open("sqlite", "file:"+filepath.Join(dir, "fts.sqlite")+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(fts5SQL); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// loadFTS5 inserts docs, one row per statement, in rowid order.
func loadFTS5(ctx context.Context, db *sqlx.DB, docs []Doc) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT INTO text_index (rowid, text) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if _, err := st.ExecContext(ctx, d.ID, fts.Prepare(d.Text)); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// SearchFTS5 answers a query as pidex does today.
func SearchFTS5(ctx context.Context, db *sqlx.DB, n fts.Node, newest int) ([]int64, error) {
	q := `SELECT rowid FROM text_index WHERE text_index MATCH ?`
	if newest > 0 {
		q += fmt.Sprintf(` ORDER BY rowid DESC LIMIT %d`, newest)
	}
	var ids []int64
	err := db.SelectContext(ctx, &ids, q, n.Match())
	return ids, err
}
