package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/pgsearch"
	"github.com/pidex-dev/pidex/internal/pgtest"
)

// The search rows a push sends in COPY's binary format are, in
// PostgreSQL, the tsvectors their literals are: lexemes quoted, escaped,
// of other scripts, cut to a lexeme's length, and windows of a long
// entry.
func TestSearchRowsInBinary(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TEMP TABLE rows (file_id bigint, "offset" bigint, part integer, machine_id integer,
			win boolean, exact boolean, tokens integer, first integer, tsv tsvector);
		CREATE TEMP TABLE lits (file_id bigint, part integer, lit text)`); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("long", 600) // past a lexeme's 2,046 bytes
	texts := []string{
		"it's a back\\slash and a 'quote' or two",
		"検索 インデックス の テスト",
		"the the the a b c zzz aaa a1 A1 ab abc",
		long + " and " + long + "x",
		strings.Repeat("gamma delta ", 9000), // windows
	}
	var c copyBinary
	var lits [][]any
	for id, text := range texts {
		for part, r := range pgsearch.ToRows(fts.Tokens(text)) {
			c.indexRow(int64(id), 0, part, 1, indexRow{Exact: r.Exact, Tokens: part, First: r.First, Vec: r.Vec})
			lits = append(lits, []any{int64(id), int32(part), r.Literal()})
		}
	}
	if _, err := conn.PgConn().CopyFrom(ctx, c.end(), `COPY rows (`+colList(textIndexTable.names())+`) FROM STDIN (FORMAT binary)`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"lits"}, []string{"file_id", "part", "lit"}, pgx.CopyFromRows(lits)); err != nil {
		t.Fatal(err)
	}
	var n, same int
	if err := conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE r.tsv = l.lit::tsvector AND r.tsv::text = l.lit::tsvector::text
		AND r.tokens = l.part AND length(r.tsv) > 0) FROM rows r JOIN lits l USING (file_id, part)`).Scan(&n, &same); err != nil {
		t.Fatal(err)
	}
	if n != len(lits) || same != n {
		t.Fatalf("%d rows sent, %d joined, %d the same as their literals", len(lits), n, same)
	}
	if n <= len(texts) {
		t.Fatalf("%d rows for %d texts: no windows", n, len(texts))
	}
}
