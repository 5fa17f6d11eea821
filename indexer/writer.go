package indexer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
)

// rowTables are the tables holding a file's rows, cleared on rewrite/removal.
var rowTables = append([]string{"entries", "entry_previews", "labels", "usage", "usage_rollup", "usage_rollup_hour", "tool_calls",
	"warnings", "sessions", "off_path"}, activityTables...)

// apply writes one batch in one IMMEDIATE transaction: the rows and the
// file's new offset commit together or not at all.
func apply(ctx context.Context, stmts *stmtCache, b *batch, s *seams) (err error) {
	sqltx, err := stmts.db.BeginTxx(ctx, nil)
	// The statements run without cancellation: the driver otherwise starts
	// a goroutine per statement to watch the context (measurable at
	// hundreds of thousands of rows), and the transaction already aborts on
	// cancellation at commit.
	ctx = context.WithoutCancel(ctx)
	if err != nil {
		return fmt.Errorf("begin write: %w", err)
	}
	defer sqltx.Rollback()
	tx := &wtx{Tx: sqltx, stmts: stmts, seams: s}
	if b.remove {
		sid, err := sessionIDOfPath(ctx, tx, b.file.Path)
		if err != nil {
			return err
		}
		if err := deleteFile(ctx, tx, b.file.Path); err != nil {
			return err
		}
		if err := deriveSiblings(ctx, tx, sid, 0); err != nil { // its copies of their entries count there now
			return err
		}
		if err := deriveCalls(ctx, tx, 0, b); err != nil { // the copies it held may be originals now
			return err
		}
		return tx.Commit()
	}
	// Inside the write transaction, so no other writer can slip in between
	// the check and the rows (the check used to run before it: two first
	// refreshes of one file could interleave their batches and leave a
	// permanent gap behind an offset that said the file was done).
	if err := checkExpected(ctx, tx, b); err != nil {
		return err
	}
	id, err := upsertFile(ctx, tx, &b.file, b.sum.stored(), b.racy)
	if err != nil {
		return err
	}
	var oldSession string // a rewrite may change the session id: its former copies
	if b.reset {
		if oldSession, err = sessionIDOf(ctx, tx, id); err != nil {
			return err
		}
		if err := clearRows(ctx, tx, id); err != nil {
			return err
		}
	}
	if b.sideText && id != b.textID {
		b.sideText = false // not the id its rowids were made with: left to the text pass
	}
	if b.sideText {
		// The generation the side index's rows are of (sidetext.go).
		if err := tx.get(ctx, &b.generation, `SELECT generation FROM files WHERE id = ?`, id); err != nil {
			return fmt.Errorf("read file generation: %w", err)
		}
	}
	if err := insertEntries(ctx, tx, id, b.entries); err != nil {
		return err
	}
	if len(b.previewData) > 0 {
		if err := tx.exec(ctx, `INSERT OR REPLACE INTO entry_previews (file_id, offset, data) VALUES (?, ?, ?)`,
			id, b.previews.First(), b.previewData); err != nil {
			return fmt.Errorf("insert previews: %w", err)
		}
	}
	if b.inlineText { // an append's text with its entries (one file: rowid order already)
		if err := insertText(ctx, tx, b.text); err != nil {
			return err
		}
		if err := insertTextSizes(ctx, tx, b.text); err != nil {
			return err
		}
		if err := advanceText(ctx, tx, id, b.file.Offset); err != nil {
			return err
		}
	}
	if err := insertToolCalls(ctx, tx, id, b.calls); err != nil {
		return err
	}
	if err := applyLabels(ctx, tx, id, b.labels); err != nil {
		return err
	}
	if err := insertUsage(ctx, tx, id, b.usage); err != nil {
		return err
	}
	if err := insertWarnings(ctx, tx, id, b.warns); err != nil {
		return err
	}
	if err := putSession(ctx, tx, id, b.session); err != nil {
		return err
	}
	if b.session != nil {
		if err := rollup(ctx, tx, id); err != nil {
			return err
		}
		if err := lastPaths(ctx, tx, id, b); err != nil {
			return err
		}
		if err := deriveCalls(ctx, tx, id, b); err != nil {
			return err
		}
		if err := markOffPath(ctx, tx, id, b); err != nil {
			return err
		}
		if err := writeActivity(ctx, tx, id, b, oldSession); err != nil {
			return err
		}
	} else if b.reset { // no longer a session: the calls it held
		if err := deriveCalls(ctx, tx, 0, b); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func upsertFile(ctx context.Context, tx *wtx, f *File, sum any, racy bool) (int64, error) {
	var id int64
	err := tx.get(ctx, &id, `INSERT INTO files
		(path, root, kind, dev, ino, size, mtime_ns, offset, head_hash, tail_hash, open_tail, lines, seq, version, last_id, warnings,
		 content_crc, racy, slot_len, slot_hash)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT(path) DO UPDATE SET root=excluded.root, kind=excluded.kind, dev=excluded.dev, ino=excluded.ino,
		  size=excluded.size, mtime_ns=excluded.mtime_ns, offset=excluded.offset, head_hash=excluded.head_hash,
		  tail_hash=excluded.tail_hash, open_tail=excluded.open_tail, lines=excluded.lines, seq=excluded.seq,
		  version=excluded.version, last_id=excluded.last_id, warnings=excluded.warnings,
		  content_crc=excluded.content_crc, racy=excluded.racy, slot_len=excluded.slot_len, slot_hash=excluded.slot_hash
		RETURNING id`,
		f.Path, f.Root, f.Kind, f.Dev, f.Ino, f.Size, f.MtimeNs, f.Offset, f.HeadHash, f.TailHash, f.OpenTail,
		f.Lines, f.Seq, f.Version, f.LastID, f.Warnings, sum, racy, f.SlotLen, f.SlotHash)
	if err != nil {
		return 0, fmt.Errorf("write file %s: %w", f.Path, err)
	}
	f.ID = id
	return id, nil
}

func clearRows(ctx context.Context, tx *wtx, id int64) error {
	if err := touchCalls(ctx, tx, id); err != nil {
		return err
	}
	// The text index first, while the entries still say which rows it has.
	if err := tx.exec(ctx, `DELETE FROM text_index WHERE rowid IN (SELECT `+fts.RowIDSQL("e.file_id", "e.line")+` FROM entries e
		JOIN files f ON f.id = e.file_id WHERE e.file_id = ? AND e.offset < f.text_offset)`, id); err != nil {
		return fmt.Errorf("clear text index: %w", err)
	}
	if err := clearTextSizes(ctx, tx, id); err != nil {
		return err
	}
	if err := tx.exec(ctx, `UPDATE files SET text_offset = 0, generation = generation + 1 WHERE id = ?`, id); err != nil {
		return fmt.Errorf("reset text cursor: %w", err)
	}
	for _, t := range rowTables {
		if err := tx.exec(ctx, "DELETE FROM "+t+" WHERE file_id = ?", id); err != nil {
			return fmt.Errorf("clear %s: %w", t, err)
		}
	}
	return nil
}

// clearTextSizes removes a file's entries from text_sizes and
// text_totals: every rowid of the file, one range (fts.RowID).
func clearTextSizes(ctx context.Context, tx *wtx, id int64) error {
	lo, hi := id<<fts.LineBits, (id+1)<<fts.LineBits
	var gone struct {
		Rows   int `db:"rows"`
		Tokens int `db:"tokens"`
	}
	if err := tx.get(ctx, &gone, "SELECT count(*) AS rows, COALESCE(sum(n), 0) AS tokens FROM text_sizes WHERE id >= ? AND id < ?", lo, hi); err != nil {
		return fmt.Errorf("clear text sizes: %w", err)
	}
	if gone.Rows == 0 {
		return nil
	}
	if err := tx.exec(ctx, "DELETE FROM text_sizes WHERE id >= ? AND id < ?", lo, hi); err != nil {
		return fmt.Errorf("clear text sizes: %w", err)
	}
	return addTextTotals(ctx, tx, -gone.Rows, -gone.Tokens)
}

func deleteFile(ctx context.Context, tx *wtx, path string) error {
	var id int64
	err := tx.GetContext(ctx, &id, "SELECT id FROM files WHERE path = ?", path)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // another process removed it first: done
	}
	if err != nil {
		return fmt.Errorf("find removed file %s: %w", path, err)
	}
	if err := clearRows(ctx, tx, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM files WHERE id = ?", id); err != nil {
		return fmt.Errorf("delete file %s: %w", path, err)
	}
	return nil
}

func insertEntries(ctx context.Context, tx *wtx, id int64, rows []entryRow) error {
	// Later duplicates of an id win, as in pi's id map: the edges view
	// (migration 00021) takes an id's latest entry.
	err := bulkInsert(ctx, tx, `INSERT OR REPLACE INTO entries
		(file_id, offset, length, line, seq, id, parent_id, type_raw, role_raw, ts_raw, ts_dt, msg, ts_ms, provider, model,
		target_id, first_kept, stop_raw, error, tokens_before, command)`,
		21, len(rows), func(i int, args []any) []any {
			r := &rows[i]
			raw, dt := tsRaw(r.TS, r.TSMs)
			return append(args, id, r.Offset, r.Length, r.Line, r.Seq, r.ID, r.ParentID, typeRaw(r.Type), roleRaw(r.Role),
				raw, dt, r.MsgTS != nil, r.TSMs, r.Provider, r.Model, r.TargetID, r.FirstKept, stopRaw(r.StopReason), r.Error,
				r.TokensBefore, r.Command)
		})
	if err != nil {
		return fmt.Errorf("insert entries: %w", err)
	}
	for _, r := range rows {
		if r.FirstKeptSeq < 0 || r.FirstKept != nil {
			continue
		}
		// A v1 compaction's firstKeptEntryIndex, resolved against the rows
		// already written, so it works across batches and refreshes.
		if _, err := tx.ExecContext(ctx, `UPDATE entries SET first_kept =
			(SELECT e.id FROM entries e WHERE e.file_id = ? AND e.seq = ?) WHERE file_id = ? AND offset = ?`,
			id, r.FirstKeptSeq, id, r.Offset); err != nil {
			return fmt.Errorf("resolve compaction at line %d: %w", r.Line, err)
		}
	}
	return nil
}

// bulkInsert runs head VALUES (…),(…),… with up to bulkRows rows per
// statement. One statement per row cost more in the driver and database/sql
// than in SQLite itself; the single writer is the cold index's bottleneck.
// A run shorter than bulkRows (every file's last one) goes in chunks of
// powers of two, so that every statement is one of a few prepared once:
// compiling each odd-sized INSERT was 14% of the metadata writer (profiled).
func bulkInsert(ctx context.Context, tx *wtx, head string, cols, n int, row func(i int, args []any) []any) error {
	args := make([]any, 0, min(n, bulkRows)*cols)
	for start := 0; start < n; {
		size := chunkRows(n - start)
		args = args[:0]
		for i := start; i < start+size; i++ {
			args = row(i, args)
		}
		if err := tx.exec(ctx, bulkQuery(head, cols, size), args...); err != nil {
			return err
		}
		start += size
	}
	return nil
}

// chunkRows is the size of the next chunk of a bulk insert with left rows
// to go: bulkRows, else the largest power of two that fits.
func chunkRows(left int) int {
	if left >= bulkRows {
		return bulkRows
	}
	size := 1
	for size*2 <= left {
		size *= 2
	}
	return size
}

const bulkRows = 256 // × at most 23 columns, well under SQLite's 32766 variables

var bulkQueries sync.Map // bulkKey → the statement's text

type bulkKey struct {
	head       string
	cols, rows int
}

// bulkQuery is head VALUES with rows rows of cols placeholders, made once.
func bulkQuery(head string, cols, rows int) string {
	key := bulkKey{head, cols, rows}
	if s, ok := bulkQueries.Load(key); ok {
		return s.(string)
	}
	one := "(?" + strings.Repeat(",?", cols-1) + ")"
	s := head + " VALUES " + one + strings.Repeat(","+one, rows-1)
	bulkQueries.Store(key, s)
	return s
}

// applyLabels folds label entries in file order: set or clear, last wins.
func applyLabels(ctx context.Context, tx *wtx, id int64, ops []labelOp) error {
	for _, op := range ops {
		var err error
		if op.Label != "" {
			err = tx.exec(ctx, `INSERT OR REPLACE INTO labels (file_id, target_id, label, ts, offset) VALUES (?,?,?,?,?)`,
				id, op.TargetID, op.Label, op.TS, op.Offset)
		} else {
			err = tx.exec(ctx, `DELETE FROM labels WHERE file_id = ? AND target_id = ?`, id, op.TargetID)
		}
		if err != nil {
			return fmt.Errorf("write label: %w", err)
		}
	}
	return nil
}

func insertUsage(ctx context.Context, tx *wtx, id int64, rows []usageRow) error {
	// A record with a model is attributed to it (attr_provider and
	// attr_model read its own); one without is attributed by deriveCalls
	// (attr_p and attr_m, NULL until then).
	err := bulkInsert(ctx, tx, `INSERT OR REPLACE INTO usage
		(file_id, offset, source_raw, entry_id, ts_ms, provider, model, kind, response_id,
		 input, output, cache_read, cache_write, total_tokens_raw, cache_write_1h, reasoning,
		 cost_input, cost_output, cost_cache_read, cost_cache_write, cost_total_raw)`,
		21, len(rows), func(i int, args []any) []any {
			r := &rows[i]
			u := r.U
			return append(args, id, r.Offset, sourceRaw(r.Source), r.EntryID, r.TSMs, r.Provider, r.Model, r.Kind, r.ResponseID,
				u.Input, u.Output, u.CacheRead, u.CacheWrite, totalTokensRaw(u), u.CacheWrite1h, u.Reasoning,
				u.Cost.Input, u.Cost.Output, u.Cost.CacheRead, u.Cost.CacheWrite, costTotalRaw(u.Cost))
		})
	if err != nil {
		return fmt.Errorf("insert usage: %w", err)
	}
	return nil
}

func insertWarnings(ctx context.Context, tx *wtx, id int64, ws []pidex.Warning) error {
	for _, w := range ws {
		if err := tx.exec(ctx, `INSERT INTO warnings (file_id, line, message) VALUES (?,?,?)`, id, w.Line, w.Message); err != nil {
			return fmt.Errorf("insert warning: %w", err)
		}
	}
	return nil
}

func putSession(ctx context.Context, tx *wtx, id int64, s *sessionRow) error {
	if s == nil {
		return tx.exec(ctx, `DELETE FROM sessions WHERE file_id = ?`, id)
	}
	err := tx.exec(ctx, `INSERT OR REPLACE INTO sessions
		(file_id, session_id, version, cwd, parent_session, branched_from, created, created_ms, name, last_activity_ms,
		 message_count, first_message, entry_count, leaf_id, leaf_offset,
		 input, output, cache_read, cache_write, total_tokens, cost, source, subagent, spawned_by, family, run)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		id, s.SessionID, s.Version, s.Cwd, s.ParentSession, s.BranchedFrom, s.Created, s.CreatedMs, s.Name, s.LastActivityMs,
		s.MessageCount, s.FirstMessage, s.EntryCount, s.LeafID, s.LeafOffset,
		s.Input, s.Output, s.CacheRead, s.CacheWrite, s.TotalTokens, s.Cost, s.Source, s.Subagent, s.SpawnedBy, s.Family, s.Run)
	if err != nil {
		return fmt.Errorf("write session: %w", err)
	}
	return nil
}

// rollup recomputes the per-session figures that depend on the whole file
// rather than on the lines just read: branch points (entries with more than
// one child, by pi's id map) and the models used. Both are index scans of
// this file's rows only.
func rollup(ctx context.Context, tx *wtx, id int64) error {
	err := tx.exec(ctx, `UPDATE sessions SET
		branch_points = (SELECT count(*) FROM (
			SELECT 1 FROM edges c JOIN edges p ON p.file_id = c.file_id AND p.child_id = c.parent_id
			WHERE c.file_id = ?1 GROUP BY c.parent_id HAVING count(*) > 1)),
		models = (SELECT COALESCE(json_group_array(m), '[]') FROM (
			SELECT DISTINCT provider || '/' || model AS m FROM usage
			WHERE file_id = ?1 AND model != '' ORDER BY m))
		WHERE file_id = ?1`, id)
	if err != nil {
		return fmt.Errorf("roll up session: %w", err)
	}
	return nil
}

// wtx is a write transaction that runs its statements through the
// writer's statement cache.
type wtx struct {
	*sqlx.Tx
	stmts *stmtCache
	seams *seams
}

func (t *wtx) exec(ctx context.Context, q string, args ...any) error {
	st, err := t.stmts.get(ctx, q)
	if err != nil {
		return err
	}
	_, err = t.StmtxContext(ctx, st).ExecContext(ctx, args...)
	return err
}

func (t *wtx) sel(ctx context.Context, dest any, q string, args ...any) error {
	st, err := t.stmts.get(ctx, q)
	if err != nil {
		return err
	}
	return t.StmtxContext(ctx, st).SelectContext(ctx, dest, args...)
}

func (t *wtx) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := t.stmts.get(ctx, q)
	if err != nil {
		return nil, err
	}
	return t.StmtxContext(ctx, st).QueryContext(ctx, args...)
}

func (t *wtx) get(ctx context.Context, dest any, q string, args ...any) error {
	st, err := t.stmts.get(ctx, q)
	if err != nil {
		return err
	}
	return t.StmtxContext(ctx, st).GetContext(ctx, dest, args...)
}

// stmtCache holds the writer's prepared statements for one refresh.
// database/sql keeps each one prepared per connection, so a transaction on
// a connection that has seen the statement reuses it.
type stmtCache struct {
	db *sqlx.DB
	m  map[string]*sqlx.Stmt
	// bulk: this refresh is a bulk load; the cost report's derived
	// columns and rollup are derived once at its end (see calls.go).
	bulk bool
}

func newStmtCache(db *sqlx.DB) *stmtCache {
	return &stmtCache{db: db, m: map[string]*sqlx.Stmt{}}
}

// maxCached bounds the cache: the writer uses about a dozen statements,
// and each bulk insert up to 9 (bulkInsert).
const maxCached = 96

func (c *stmtCache) get(ctx context.Context, q string) (*sqlx.Stmt, error) {
	if st, ok := c.m[q]; ok {
		return st, nil
	}
	st, err := c.db.PreparexContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare statement: %w", err)
	}
	if len(c.m) >= maxCached {
		for k, old := range c.m { // evict one; any will do
			old.Close()
			delete(c.m, k)
			break
		}
	}
	c.m[q] = st
	return st, nil
}

func (c *stmtCache) close() {
	for _, st := range c.m {
		st.Close()
	}
}

// insertText writes text rows in the order given (rowid order: FTS5
// starts a new segment when a rowid goes down), one per statement: a
// multi-row INSERT opens a statement savepoint, at which FTS5 flushes.
// Their sizes are written after them, by insertTextSizes.
func insertText(ctx context.Context, tx *wtx, rows []textRow) error {
	for _, r := range rows {
		if err := tx.exec(ctx, "INSERT INTO text_index (rowid, text) VALUES (?, ?)", r.rowid, r.text); err != nil {
			return fmt.Errorf("write text index: %w", err)
		}
	}
	return nil
}

// insertTextSizes writes the sizes of text rows into text_sizes, many to
// a statement, and adds them to text_totals.
func insertTextSizes(ctx context.Context, tx *wtx, rows []textRow) error {
	tokens := 0
	for _, r := range rows {
		tokens += r.tokens
	}
	err := bulkInsert(ctx, tx, `INSERT INTO text_sizes (id, n)`, 2, len(rows), func(i int, args []any) []any {
		return append(args, rows[i].rowid, rows[i].tokens)
	})
	if err != nil {
		return fmt.Errorf("write text sizes: %w", err)
	}
	return addTextTotals(ctx, tx, len(rows), tokens)
}

// addTextTotals adds rows of tokens to the text index's totals (negative
// when rows leave it).
func addTextTotals(ctx context.Context, tx *wtx, rows, tokens int) error {
	if rows == 0 {
		return nil
	}
	if err := tx.exec(ctx, "UPDATE text_totals SET rows = rows + ?, tokens = tokens + ? WHERE id = 1", rows, tokens); err != nil {
		return fmt.Errorf("write text totals: %w", err)
	}
	return nil
}

// advanceText moves a file's text cursor: its entries below offset have
// their text in the index.
func advanceText(ctx context.Context, tx *wtx, id, offset int64) error {
	if err := tx.exec(ctx, "UPDATE files SET text_offset = ? WHERE id = ?", offset, id); err != nil {
		return fmt.Errorf("advance text cursor: %w", err)
	}
	return nil
}

// insertToolCalls records tool calls and results, keyed by call id.
func insertToolCalls(ctx context.Context, tx *wtx, id int64, calls []toolCallRow) error {
	err := bulkInsert(ctx, tx, `INSERT OR REPLACE INTO tool_calls (file_id, call_id, offset, idx, name, is_error, command, size)`,
		8, len(calls), func(i int, args []any) []any {
			c := &calls[i]
			return append(args, id, c.ID, c.Offset, c.Index, c.Name, c.IsError, c.Command, c.Size)
		})
	if err != nil {
		return fmt.Errorf("insert tool calls: %w", err)
	}
	return nil
}

// checkExpected returns errConflict unless the catalog holds the state
// the batch follows on (a file not in the catalog is at offset 0,
// generation 0).
//
// It keeps an append's text with its entries (b.inlineText) only while the
// catalog holds what the plan saw for the text too: the file under the id
// its text rows' rowids were made with (b.file.ID, before upsertFile), its
// text complete up to where the batch starts. Offset and generation move
// with every change of the file's rows (a rebuilt catalog put in place
// moves every generation); the text cursor and the id are read in the same
// statement rather than trusted from the plan: a cursor moved past text
// never indexed would leave that text out of every search. Otherwise the
// text is left to the text pass, which indexes it from the cursor on.
func checkExpected(ctx context.Context, tx *wtx, b *batch) error {
	var cur fileState
	var id, textOffset int64
	err := tx.QueryRowxContext(ctx, "SELECT offset, generation, id, text_offset FROM files WHERE path = ?", b.file.Path).
		Scan(&cur.Offset, &cur.Generation, &id, &textOffset)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read file state: %w", err)
	}
	if cur != b.expect {
		return errConflict
	}
	if err != nil || id != b.file.ID || textOffset != b.expect.Offset {
		b.inlineText = false
	}
	return nil
}
