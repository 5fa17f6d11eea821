package main

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/pgsearch"
)

// The two designs measured, as tables. Doc ids stand for (file id,
// offset) and grow with session start time, as the SQLite index's rowids.
//
// texts: the entry's searchable text (pi.Text), which both designs need
// anyway: snippets, the sql views' text column, and the confirmation of a
// lossy row's hit.
//
// ts (tsvector): one row per entry with the tsvector of its tokens; an
// entry over PostgreSQL's limits is parts rows, overlapping windows of its
// tokens (see ToRows). A GIN index for each kind.
//
// tg (pg_trgm): one row per entry with its token stream (see Stream);
// trigram GIN index; a query is LIKEs on the stream.
const schemaSQL = `
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE texts (id bigint PRIMARY KEY, text text COMPRESSION lz4 NOT NULL);
CREATE TABLE ts (id bigint NOT NULL, part integer NOT NULL, win boolean NOT NULL, exact boolean NOT NULL,
	tsv tsvector COMPRESSION lz4 NOT NULL, PRIMARY KEY (id, part));
CREATE INDEX ts_one ON ts USING gin (tsv) WHERE NOT win;
CREATE INDEX ts_win ON ts USING gin (tsv) WHERE win AND exact;
CREATE INDEX ts_lossy ON ts USING gin (tsv) WHERE NOT exact;
CREATE TABLE tg (id bigint PRIMARY KEY, stream text COMPRESSION lz4 NOT NULL);
CREATE INDEX tg_stream ON tg USING gin (stream gin_trgm_ops);
CREATE TABLE lines (id bigint PRIMARY KEY, raw bytea COMPRESSION lz4 NOT NULL);
`

// Doc is one entry with searchable text.
type Doc struct {
	ID   int64
	Text string
	Raw  []byte // the JSONL line (only for the storage figure)
}

// copyWriter writes rows in COPY's text format.
type copyWriter struct{ b strings.Builder }

func (w *copyWriter) field(s string, last bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			w.b.WriteString(`\\`)
		case '\n':
			w.b.WriteString(`\n`)
		case '\r':
			w.b.WriteString(`\r`)
		case '\t':
			w.b.WriteString(`\t`)
		case 0:
			// NUL cannot be in text; pi.Text never holds it in practice.
		default:
			w.b.WriteByte(c)
		}
	}
	if last {
		w.b.WriteByte('\n')
	} else {
		w.b.WriteByte('\t')
	}
}

// copyIn runs one COPY … FROM STDIN with the rows written.
func copyIn(ctx context.Context, db *sql.DB, table string, data string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn().PgConn()
		_, err := pc.CopyFrom(ctx, strings.NewReader(data), "COPY "+table+" FROM STDIN")
		return err
	})
}

// rowsTS, rowsTG, rowsText and rowsLines write a batch of docs for each
// table; toks are the docs' tokens.
func rowsTS(docs []Doc, toks [][]string) (string, int) {
	var w copyWriter
	windowed := 0
	for i, d := range docs {
		rows := pgsearch.ToRows(toks[i])
		win := len(rows) > 1 || !rows[0].Exact
		if win {
			windowed++
		}
		for p, r := range rows {
			w.field(strconv.FormatInt(d.ID, 10), false)
			w.field(strconv.Itoa(p), false)
			w.field(strconv.FormatBool(win), false)
			w.field(strconv.FormatBool(r.Exact), false)
			w.field(r.Literal(), true)
		}
	}
	return w.b.String(), windowed
}

func rowsTG(docs []Doc, toks [][]string) string {
	var w copyWriter
	for i, d := range docs {
		w.field(strconv.FormatInt(d.ID, 10), false)
		w.field(Stream(toks[i]), true)
	}
	return w.b.String()
}

func rowsText(docs []Doc) string {
	var w copyWriter
	for _, d := range docs {
		w.field(strconv.FormatInt(d.ID, 10), false)
		w.field(d.Text, true)
	}
	return w.b.String()
}

func rowsLines(docs []Doc) string {
	var w copyWriter
	for _, d := range docs {
		w.field(strconv.FormatInt(d.ID, 10), false)
		w.field(`\x`+hex.EncodeToString(d.Raw), true)
	}
	return w.b.String()
}

// SearchTS answers a query from the tsvector design: an entry of one row
// matches tsv @@ query; an entry split into windows matches when its
// windows, term by term, do (Query.Windows). A windowed hit is confirmed
// against the entry's text when the index cannot tell (a phrase on a lossy
// window, a phrase longer than the overlap, a word cut to the longest
// lexeme). newest > 0 keeps only the newest matches (the RankCap rule);
// confirmations are the entries that were re-read.
func SearchTS(ctx context.Context, db *sql.DB, n fts.Node, newest int) (ids []int64, confirmations int, err error) {
	q := pgsearch.ToQuery(n, "ts", "id", 2)
	// Entries of one row answer tsv @@ query; windowed entries the set
	// operations, with whether one of their windows is lossy. Materialized
	// first: the newest matches are then a sort of the ids, not a walk down
	// the table testing every row.
	stmt := `WITH m AS MATERIALIZED (
		SELECT id, false AS lossy FROM ts WHERE NOT win AND tsv @@ $1::tsquery
		UNION ALL
		SELECT w.id, EXISTS (SELECT 1 FROM ts l WHERE l.id = w.id AND NOT l.exact) FROM (` + q.Windows + `) w)
		SELECT id, lossy FROM m`
	if newest > 0 {
		stmt += ` ORDER BY id DESC LIMIT ` + strconv.Itoa(newest)
	}
	rows, err := db.QueryContext(ctx, stmt, append([]any{q.TSQuery}, q.Args...)...)
	if err != nil {
		return nil, 0, fmt.Errorf("search %s: %w", q.TSQuery, err)
	}
	defer rows.Close()
	var check []int64
	for rows.Next() {
		var id int64
		var lossy bool
		if err := rows.Scan(&id, &lossy); err != nil {
			return nil, 0, err
		}
		if q.Truncated || (lossy && q.Phrases) || q.Long {
			check = append(check, id)
			continue
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if len(check) == 0 {
		return ids, 0, nil
	}
	trows, err := db.QueryContext(ctx, `SELECT id, text FROM texts WHERE id = ANY($1)`, check)
	if err != nil {
		return nil, 0, err
	}
	defer trows.Close()
	for trows.Next() {
		var id int64
		var text string
		if err := trows.Scan(&id, &text); err != nil {
			return nil, 0, err
		}
		if pgsearch.Eval(n, fts.Tokens(text)) {
			ids = append(ids, id)
		}
	}
	return ids, len(check), trows.Err()
}

// SearchTG answers a query from the pg_trgm design (LIKE is exact).
func SearchTG(ctx context.Context, db *sql.DB, n fts.Node, newest int) ([]int64, error) {
	var args []any
	stmt := `SELECT id FROM tg WHERE ` + ToLike(n, "stream", &args)
	if newest > 0 {
		stmt += ` ORDER BY id DESC LIMIT ` + strconv.Itoa(newest)
	}
	rows, err := db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", stmt, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
