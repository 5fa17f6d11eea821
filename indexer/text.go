package indexer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"sort"
	"time"

	"github.com/jmoiron/sqlx"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/files"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// The text pass fills the full-text index behind the metadata. A refresh
// writes entries first (listing, trees, usage answer as soon as that is
// done); the text pass then reads back the lines of every file whose text
// cursor (files.text_offset) lags its ingested offset, and writes their
// searchable text (pi.Text, CJK prepared by fts.Prepare), advancing each
// cursor in the transaction that writes the text below it. A crash in
// between loses nothing: the cursor says where to go on.

// Text pass sizes: a reader sends batches of about textBatchBytes of
// lines; the writer keeps a transaction open across batches until
// textCommitBytes of lines are in it (textWriter). FTS5 flushes a new
// segment at each commit and merges segments as they pile up: one
// transaction per small file spent most of a cold text pass merging
// (profiled).
const textCommitBytes = 32 << 20

// textAhead bounds the bytes of lines read ahead of the writer (the
// readers' batches waiting for it): memory. The writer stops to flush a
// segment for a second or two now and then, and the readers go on
// meanwhile.
const (
	textAhead      = 32 << 20
	textBatchBytes = 4 << 20
)

type textJob struct {
	fileID     int64
	path       string
	from, to   int64 // text_offset now, and the offset to reach
	generation int64
	dev, ino   int64  // the file's, as the catalog has them (see current)
	source     string // the session's agent (omp's entries may point to artifacts)
}

type textRow struct {
	rowid  int64
	text   string // the entry's distinct tokens (fts.Distinct)
	tokens int    // its tokens, repeats included (text_sizes.n)
}

// textPrep makes text rows, reusing its buffers from entry to entry.
type textPrep struct {
	distinct fts.Distinct
	buf      []byte
}

// row is an entry's text row: its distinct tokens and their full count.
func (t *textPrep) row(rowid int64, text string) textRow {
	var n int
	t.buf, n = t.distinct.Append(t.buf[:0], text)
	return textRow{rowid: rowid, text: string(t.buf), tokens: n}
}

type textBatch struct {
	job   textJob
	rows  []textRow
	upto  int64 // the cursor after this batch
	bytes int64
}

// IndexText brings the text index up to date for the files under the
// roots. Unreadable files are reported in the stats' errors, never fatal.
//
// Another process may be filling the same files at the same time (two
// first indexes): a batch that finds its file's cursor moved since it was
// planned is skipped, its text perhaps only partly written by the other
// process, which planned earlier. So the pass plans again while batches
// were skipped, and says so in the errors when other processes still kept
// changing the files after textRounds passes (the next pass goes on).
func (ix *Indexer) IndexText(ctx context.Context) (*pidex.TextStats, error) {
	defer ix.DB.LockWriter()()
	if err := ix.verifyCatalog(ctx); err != nil {
		return nil, err
	}
	roots, err := AbsRoots(ix.Roots)
	if err != nil {
		return nil, err
	}
	st := &pidex.TextStats{Errors: []string{}}
	if p := ix.Progress; p != nil {
		p.Begin(pidex.PhaseText) // its own bar: the files' bar has ended
	}
	compacted, err := ix.adoptSide(ctx, st)
	if err != nil {
		return st, err
	}
	for round := 1; ; round++ {
		jobs, err := ix.textJobs(ctx, roots)
		if err != nil {
			return st, err
		}
		skipped, err := ix.textPass(ctx, jobs, st)
		if err == nil && len(skipped) == 0 && !compacted {
			err = ix.compactCold(ctx, st)
		}
		if err != nil || len(skipped) == 0 {
			return st, err
		}
		if round == textRounds {
			sort.Strings(skipped)
			for _, p := range skipped {
				st.Errors = append(st.Errors, fmt.Sprintf("%s: text index not caught up: other processes kept changing the file during %d text passes (the next pass goes on)", p, textRounds))
			}
			return st, nil
		}
	}
}

// compactCold compacts the catalog after a text pass that wrote (nearly)
// all of its text index, at least compactRows rows: the end of a cold
// index. Its writer fills the files' rows in the order their batches come
// from parallel readers, not in key order, and SQLite's page splits left
// a tenth of the tables' and indexes' pages empty: VACUUM packs them (on
// real-shaped sessions, 3,000 of them, 353 MB to 334 MB for about 3 s of
// CPU). It needs free disk of twice the catalog for a moment (a copy, then
// the write-ahead log, truncated after).
func (ix *Indexer) compactCold(ctx context.Context, st *pidex.TextStats) error {
	var rows int64
	if err := ix.DB.GetContext(ctx, &rows, "SELECT COALESCE(max(rows), 0) FROM text_totals"); err != nil {
		return fmt.Errorf("compact catalog: %w", err)
	}
	if st.Entries < or(ix.compactRows, compactRows) || st.Entries*10 < rows*9 {
		return nil
	}
	return ix.compact(ctx, st)
}

// compact compacts the catalog. The compaction is a bonus: VACUUM is
// atomic, so a failed one (the disk short of a second copy, another
// process's long read) leaves the catalog whole. It is said, and the
// index stands.
func (ix *Indexer) compact(ctx context.Context, st *pidex.TextStats) error {
	if err := ix.DB.Compact(ctx); err != nil {
		if ctx.Err() != nil {
			return err
		}
		st.Errors = append(st.Errors, fmt.Sprintf("%v (the catalog is whole, only not compacted: it needs free disk of twice its size)", err))
	}
	return nil
}

// compactRows: a pass writing fewer text rows does not compact.
const compactRows = 50000

// textRounds bounds the passes of one IndexText (see there).
const textRounds = 8

// textPass indexes the text of jobs and returns the paths of the files
// whose batches it skipped because another process had moved their text
// cursor or rewritten them since they were planned.
//
// The writer takes the batches in the jobs' order (file id order, each
// file's lines in order), so the text index's rowids only go up and FTS5
// adds them all to one in-memory segment until its hash is full
// (hashsize) or the transaction commits. Taken as they came from several
// readers, the rows went down at each turn and FTS5 flushed a small
// segment each time: 245 of them in a cold pass of the 3,000-session
// corpus, whose merging and sorting were half of the single writer's
// work (profiled, BENCHMARKS.md). Readers work ahead on the next files,
// up to textAhead bytes of lines that the writer has not taken yet.
func (ix *Indexer) textPass(ctx context.Context, jobs []textJob, st *pidex.TextStats) (skipped []string, err error) {
	if p := ix.Progress; p != nil {
		p.FilesTotal.Add(int64(len(jobs)))
		for _, j := range jobs {
			p.BytesTotal.Add(j.to - j.from)
		}
	}
	readers := textReaders(ix.Workers)
	// queues: each job's batches, in the jobs' order. A job is started
	// once its bytes fit in what is ahead of the writer (one larger than
	// textAhead waits for everything before it); the writer gives them
	// back when it has taken the job's last batch. The first job the
	// writer has not finished is always started and never waits for
	// another: no deadlock.
	queues := make(chan textQueued, textQueuedJobs)
	aheadBytes := or(ix.textAhead, textAhead)
	ahead := semaphore.NewWeighted(aheadBytes)
	failed := make(chan string, len(jobs))
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { // hands out the jobs in order
		defer close(queues)
		var rg errgroup.Group
		rg.SetLimit(readers)
		defer rg.Wait()
		for _, j := range jobs {
			qj := textQueued{q: make(chan *textBatch, 2), bytes: min(j.to-j.from, aheadBytes)}
			if err := ahead.Acquire(gctx, qj.bytes); err != nil {
				return nil // the writer failed
			}
			select {
			case queues <- qj:
			case <-gctx.Done():
				return nil
			}
			rg.Go(func() error {
				defer close(qj.q)
				err := ix.readText(gctx, j, qj.q)
				if err != nil && gctx.Err() == nil {
					failed <- fmt.Sprintf("%s: %v", j.path, err)
				}
				return nil
			})
		}
		return nil
	})
	w := &textWriter{ix: ix, stmts: newStmtCache(ix.DB.DB), st: st, moved: map[string]bool{}}
	g.Go(func() error { // the single writer
		defer w.stmts.close()
		defer w.rollback()
		for qj := range queues {
			if err := w.drain(gctx, qj.q); err != nil {
				return err
			}
			ahead.Release(qj.bytes)
		}
		return w.commit(gctx)
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	close(failed)
	for e := range failed {
		st.Errors = append(st.Errors, e)
	}
	for p := range w.moved {
		skipped = append(skipped, p)
	}
	return skipped, nil
}

// textQueued is a job's queue of batches and the bytes it holds of the
// read-ahead (textPass).
type textQueued struct {
	q     chan *textBatch
	bytes int64
}

// textQueuedJobs bounds the jobs handed out ahead of the writer by
// count, where many small files fit in textAhead.
const textQueuedJobs = 1024

// textReaders is how many files the text pass reads at once: a core is
// left to the writer, which the pass waits for (with as many readers as
// cores, the writer waited its turn for a core for a sixth of a cold
// pass; traced).
func textReaders(workers int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return max(1, workers-1)
}

func (ix *Indexer) textJobs(ctx context.Context, roots []string) ([]textJob, error) {
	if len(roots) == 0 {
		return nil, nil
	}
	// In id order: the text index's rowids then only go up (textPass).
	q, args, err := sqlx.In(`SELECT f.id, f.path, f.text_offset, f.offset, f.generation, f.dev, f.ino, COALESCE(s.source, '') FROM files f
		LEFT JOIN sessions s ON s.file_id = f.id
		WHERE f.kind = 'session' AND f.text_offset < f.offset AND f.root IN (?)
		ORDER BY f.id`, roots)
	if err != nil {
		return nil, fmt.Errorf("plan text index: %w", err)
	}
	rows, err := ix.DB.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("plan text index: %w", err)
	}
	defer rows.Close()
	var jobs []textJob
	for rows.Next() {
		var j textJob
		if err := rows.Scan(&j.fileID, &j.path, &j.from, &j.to, &j.generation, &j.dev, &j.ino, &j.source); err != nil {
			return nil, fmt.Errorf("plan text index: %w", err)
		}
		jobs = append(jobs, j)
	}
	return jobs, rows.Err()
}

// readText reads the lines of a file's entries from the text cursor to
// the planned offset and sends their text in batches.
func (ix *Indexer) readText(ctx context.Context, j textJob, out chan<- *textBatch) error {
	type ent struct{ offset, length, line int64 }
	var ents []ent
	rows, err := ix.DB.QueryContext(ctx, `SELECT offset, length, line FROM entries WHERE file_id = ? AND offset >= ? AND offset < ? ORDER BY offset`,
		j.fileID, j.from, j.to)
	if err != nil {
		return fmt.Errorf("list entries: %w", err)
	}
	for rows.Next() {
		var e ent
		if err := rows.Scan(&e.offset, &e.length, &e.line); err != nil {
			rows.Close()
			return err
		}
		ents = append(ents, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	f, err := files.OpenRegular(j.path)
	if errors.Is(err, fs.ErrNotExist) {
		// Removed since the metadata was read (a session deleted while
		// the pass runs): no error of the input; the next refresh removes
		// its rows, text and all.
		return nil
	}
	if err != nil {
		return fmt.Errorf("open session file: %w", err)
	}
	defer f.Close()
	r := &spanReader{f: f, end: j.to}
	b := &textBatch{job: j}
	var prep textPrep
	for i, e := range ents {
		line, err := r.read(e.offset, e.length)
		if err != nil {
			return fmt.Errorf("read line at offset %d: %w", e.offset, err)
		}
		b.bytes += e.length
		if rowid, ok := fts.RowID(j.fileID, e.line); ok {
			if l, _ := schema.DecodeLineFast(line); l != nil {
				if text := pi.SearchText(j.path, l, j.source == pidex.SourceOmp); text != "" {
					b.rows = append(b.rows, prep.row(rowid, text))
				}
			}
		}
		if b.bytes >= or(ix.textBatchBytes, textBatchBytes) && i < len(ents)-1 {
			b.upto = ents[i+1].offset
			if err := send(ctx, out, b); err != nil {
				return err
			}
			b = &textBatch{job: j}
			b.job.from = ents[i+1].offset
		}
	}
	b.upto = j.to
	return send(ctx, out, b)
}

func send(ctx context.Context, out chan<- *textBatch, b *textBatch) error {
	select {
	case out <- b:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// spanReader reads line spans of a file in large sequential chunks, up
// to end (the planned offset): a chunk never reaches past it, so a small
// file is not read into (nor given) a 4 MB buffer, which zeroing and
// collecting cost a text pass seconds (profiled).
type spanReader struct {
	f     *os.File
	end   int64
	buf   []byte
	start int64 // file offset of buf[0]
}

func (r *spanReader) read(off, n int64) ([]byte, error) {
	if off >= r.start && off+n <= r.start+int64(len(r.buf)) {
		return r.buf[off-r.start : off-r.start+n], nil
	}
	size := max(n, min(4<<20, r.end-off))
	if int64(cap(r.buf)) < size {
		r.buf = make([]byte, size)
	}
	r.buf = r.buf[:size]
	got, err := r.f.ReadAt(r.buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	r.buf, r.start = r.buf[:got], off
	if int64(got) < n {
		return nil, fmt.Errorf("file is shorter than the catalog says (%w)", io.ErrUnexpectedEOF)
	}
	return r.buf[:n], nil
}

// textWriter writes text batches as they come, in a transaction it
// keeps open until textCommitBytes of lines are in it or no batch is
// waiting for textIdle. What must be written once per transaction —
// the sizes (a multi-row statement opens a savepoint, at which FTS5
// flushes its hash), the totals and the cursors — waits for the commit.
type textWriter struct {
	ix    *Indexer
	stmts *stmtCache
	st    *pidex.TextStats
	moved map[string]bool

	tx     *wtx
	sizes  []textRow       // written, their sizes not yet (text dropped)
	cursor map[int64]int64 // file → cursor as this transaction leaves it
	done   []textDone
	bytes  int64
}

// textIdle: how long the writer waits for the next batch before it
// commits what it has, so that a slow reader does not hold the text
// already written out of the catalog.
const textIdle = 200 * time.Millisecond

// drain writes the batches of one job's queue.
func (w *textWriter) drain(ctx context.Context, q <-chan *textBatch) error {
	wait := or(w.ix.textIdle, textIdle)
	idle := time.NewTimer(wait)
	defer idle.Stop()
	for {
		var b *textBatch
		var ok bool
		select {
		case b, ok = <-q:
		default:
			if w.tx == nil {
				b, ok = <-q
				break
			}
			idle.Reset(wait)
			select {
			case b, ok = <-q:
			case <-idle.C:
				if err := w.commit(ctx); err != nil {
					return err
				}
				continue
			}
		}
		if !ok {
			return nil
		}
		if err := w.add(ctx, b); err != nil {
			return err
		}
		if w.bytes >= textCommitBytes {
			if err := w.commit(ctx); err != nil {
				return err
			}
		}
	}
}

// add writes a batch into the open transaction (beginning one), or skips
// it when its file was rewritten or advanced by someone else since it
// was planned (noting its path in moved).
func (w *textWriter) add(ctx context.Context, b *textBatch) error {
	if w.tx == nil {
		if w.ix.beforeText != nil {
			w.ix.beforeText()
		}
		sqltx, err := w.stmts.db.BeginTxx(ctx, nil)
		if err != nil {
			return fmt.Errorf("begin text write: %w", err)
		}
		w.tx, w.cursor = &wtx{Tx: sqltx, stmts: w.stmts, seams: &w.ix.seams}, map[int64]int64{}
	}
	wctx := context.WithoutCancel(ctx)
	ok, gone, err := current(wctx, w.tx, b, w.cursor)
	if err != nil {
		return writeErr{err}
	}
	if !ok {
		if !gone {
			w.moved[b.job.path] = true
		}
		return nil
	}
	if err := insertText(wctx, w.tx, b.rows); err != nil {
		return writeErr{err}
	}
	for _, r := range b.rows {
		w.sizes = append(w.sizes, textRow{rowid: r.rowid, tokens: r.tokens})
	}
	w.cursor[b.job.fileID] = b.upto
	w.done = append(w.done, textDone{entries: len(b.rows), bytes: b.bytes, whole: b.upto == b.job.to})
	w.bytes += b.bytes
	if p := w.ix.Progress; p != nil {
		// The span the batch covers, as the total counts it (headers,
		// blank and unreadable lines included), so a bar ends full.
		p.BytesDone.Add(b.upto - b.job.from)
		if b.upto == b.job.to {
			p.FilesDone.Add(1)
		}
	}
	return nil
}

// textDone is what a written batch adds to the pass's stats once its
// transaction commits.
type textDone struct {
	entries int
	bytes   int64
	whole   bool // the file's last batch
}

// commit writes the open transaction's sizes, totals and cursors and
// commits it, then counts its batches as done.
func (w *textWriter) commit(ctx context.Context) error {
	if w.tx == nil {
		return nil
	}
	wctx := context.WithoutCancel(ctx)
	if err := insertTextSizes(wctx, w.tx, w.sizes); err != nil {
		return writeErr{err}
	}
	for f, c := range w.cursor {
		if err := advanceText(wctx, w.tx, f, c); err != nil {
			return writeErr{err}
		}
	}
	if err := w.tx.Commit(); err != nil {
		return writeErr{fmt.Errorf("commit text: %w", err)}
	}
	for _, d := range w.done {
		w.st.Entries += int64(d.entries)
		w.st.Bytes += d.bytes
		if d.whole {
			w.st.Files++
		}
	}
	w.tx, w.sizes, w.cursor, w.done, w.bytes = nil, w.sizes[:0], nil, w.done[:0], 0
	return nil
}

// rollback abandons a transaction left open by an error.
func (w *textWriter) rollback() {
	if w.tx != nil {
		_ = w.tx.Rollback()
		w.tx = nil
	}
}

// current reports whether b continues its file's text where the catalog
// (or an earlier batch of this transaction) left it, in the same
// generation of the same file; gone: the file was removed since. The same
// file: its row's id may now be another's — SQLite gives the largest id
// again once its row is gone, and a new row starts at generation 0 with
// an empty cursor, as the removed one may have been — so the path and the
// inode must be the planned ones too.
func current(ctx context.Context, tx *wtx, b *textBatch, cursor map[int64]int64) (ok, gone bool, err error) {
	if c, seen := cursor[b.job.fileID]; seen {
		return c == b.job.from, false, nil
	}
	var cur struct {
		TextOffset int64  `db:"text_offset"`
		Generation int64  `db:"generation"`
		Path       string `db:"path"`
		Dev        int64  `db:"dev"`
		Ino        int64  `db:"ino"`
	}
	err = tx.get(ctx, &cur, "SELECT text_offset, generation, path, dev, ino FROM files WHERE id = ?", b.job.fileID)
	if errors.Is(err, sql.ErrNoRows) {
		return false, true, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("read text cursor: %w", err)
	}
	if cur.Path != b.job.path || cur.Dev != b.job.dev || cur.Ino != b.job.ino {
		// Another file in the removed one's row: moved, so that the pass
		// plans again and indexes that one's text.
		return false, false, nil
	}
	return cur.TextOffset == b.job.from && cur.Generation == b.job.generation, false, nil
}
