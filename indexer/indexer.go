// Package indexer keeps the catalog in step with the session files: it
// discovers them, reads only what changed since the last refresh (by byte
// offset), parses in parallel and writes through a single writer.
package indexer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"github.com/jmoiron/sqlx"
	"golang.org/x/sync/errgroup"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/sqlite"
)

// Indexer refreshes a catalog from a set of session roots.
type Indexer struct {
	DB    *sqlite.DB
	Roots []string // session roots: folders, or source:folder (see ParseRoot)
	// Workers bounds the files parsed at once (default: GOMAXPROCS).
	Workers int
	// Progress, if set, is advanced as files are read. Drawing it is the
	// caller's business.
	Progress *pidex.Progress
	// Listing, if set, is these roots' files listed just before
	// (StartListing), which the next Refresh takes if it shows nothing
	// changed (see list).
	Listing *Listing
	// SideText: a text pass follows the refresh (IndexText), so a bulk
	// load writes its text beside the catalog as it writes the metadata
	// (sidetext.go). Both then end together, sooner than one after the
	// other, but later than the metadata alone: a caller that only lists
	// leaves it false and answers as soon as the metadata is in.
	SideText bool

	errMu sync.Mutex // guards a refresh's Errors, which parser goroutines append to
	// side is a bulk load's side text writer while its Refresh runs
	// (sidetext.go).
	side *sideText

	seams // tests' (seams.go)
}

// errConflict: another process advanced or rewrote the file since it was
// planned; the other refresh owns it now.
var errConflict = errors.New("file changed by a concurrent refresh")

// Refresh brings the catalog up to date with the roots. One unreadable file
// never stops the others: its error lands in Stats.Errors.
func (ix *Indexer) Refresh(ctx context.Context) (_ *pidex.IndexStats, err error) {
	defer ix.DB.LockWriter()()
	if err := ix.verifyCatalog(ctx); err != nil {
		return nil, err
	}
	st := &pidex.IndexStats{NotSessions: []string{}, Pending: []string{}, Warnings: []pidex.Warning{}, Errors: []string{}}
	specs, err := resolveRoots(ix.Roots)
	if err != nil {
		return nil, err
	}
	roots := make([]string, len(specs))
	for i, r := range specs {
		roots[i] = r.path
	}
	l, stored, unchanged, err := ix.list(ctx, specs, roots)
	if err != nil {
		return nil, err
	}
	for _, e := range l.errs {
		st.Errors = append(st.Errors, e.Error())
	}
	st.Files = len(l.cands)
	var jobs []job
	var removed []string
	if unchanged {
		st.Unchanged = len(l.cands)
	} else if jobs, removed, err = ix.plan(ctx, l.cands, stored.byPath(), st); err != nil {
		return nil, err
	}
	st.Wrote = len(jobs) > 0 || len(removed) > 0
	if !st.Wrote {
		// Nothing changes: the stamps read from the rows, if they were,
		// are the next refresh's blob.
		if err := ix.keepStamps(ctx, stored); err != nil {
			return nil, err
		}
	}
	for i := range jobs {
		jobs[i].statNs = l.statNs
	}
	if err := ix.reserveIDs(ctx, jobs); err != nil {
		return nil, err
	}
	bulk := st.New >= or(ix.bulkNew, bulkNew)
	if bulk {
		// Marked first: a bulk load that stops before its end leaves the
		// mark, and the next refresh derives everything.
		if err := ix.exec(ctx, `INSERT OR REPLACE INTO meta (key, value) VALUES ('calls_stale', '1')`); err != nil {
			return nil, err
		}
		if err := ix.exec(ctx, "DROP INDEX IF EXISTS usage_entry"); err != nil {
			return nil, err
		}
	}
	if bulk && ix.SideText {
		ix.side = ix.startSide(ctx)
	}
	if ix.side != nil {
		for i := range jobs {
			// A file read from its start whose id is known: its text
			// goes to the side index.
			jobs[i].sideText = jobs[i].textID != 0 && jobs[i].file.Offset == 0
		}
		defer func() { ix.side.finish(err == nil); ix.side = nil }()
	}
	if err := ix.run(ctx, jobs, removed, st, bulk); err != nil {
		return st, err
	}
	// Always: it also repairs a bulk load that stopped before the end.
	if err := ix.exec(ctx, usageEntryIndex); err != nil {
		return st, err
	}
	if err := ix.deriveIfStale(ctx, st); err != nil {
		return st, err
	}
	if bulk {
		if err := ix.DB.Analyze(ctx); err != nil {
			return st, err
		}
	}
	return st, nil
}

// ErrOlderCatalog: the catalog was replaced by one an older pidex built
// (its rebuild), which the engine rebuilds in turn.
var ErrOlderCatalog = errors.New("built by an older pidex")

// verifyCatalog makes sure the refresh writes the catalog file now at the
// catalog's path (sqlite.DB.Verify: it may have been deleted, or replaced,
// under a long-running process). A new, empty one is stamped with this
// pidex's derivation, as engine.Open stamps a new catalog; the refresh
// then fills it like any cold index.
func (ix *Indexer) verifyCatalog(ctx context.Context) error {
	moved, err := ix.DB.Verify(ctx)
	if err != nil || !moved {
		return err
	}
	d, err := sqlite.Derivation(ctx, ix.DB.DB)
	if err != nil {
		return err
	}
	// Another build replaced it (a rebuild of its own): rows of this
	// derivation do not go among that one's.
	if d > Derivation {
		return fmt.Errorf("catalog %s was replaced by one a newer pidex built (derivation %d, this one %d): %w", ix.DB.Path, d, Derivation, pidex.ErrNewerCatalog)
	}
	if d != 0 && d < Derivation {
		return fmt.Errorf("catalog %s was replaced by one an older pidex built (derivation %d, this one %d): %w", ix.DB.Path, d, Derivation, ErrOlderCatalog)
	}
	if d != 0 {
		return nil
	}
	if empty, err := sqlite.IsEmpty(ctx, ix.DB.DB); err != nil || !empty {
		return err
	}
	return sqlite.SetDerivation(ctx, ix.DB.DB, Derivation)
}

// deriveIfStale derives every usage row when a bulk load left the mark.
func (ix *Indexer) deriveIfStale(ctx context.Context, st *pidex.IndexStats) error {
	var stale int
	err := ix.DB.GetContext(ctx, &stale, `SELECT count(*) FROM meta WHERE key = 'calls_stale'`)
	if err != nil || stale == 0 {
		return err
	}
	st.Wrote = true
	stmts := newStmtCache(ix.DB.DB)
	defer stmts.close()
	sqltx, err := stmts.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin deriving usage: %w", err)
	}
	defer sqltx.Rollback()
	tx := &wtx{Tx: sqltx, stmts: stmts, seams: &ix.seams}
	if err := deriveAll(context.WithoutCancel(ctx), tx); err != nil {
		return err
	}
	if err := tx.exec(ctx, `DELETE FROM meta WHERE key = 'calls_stale'`); err != nil {
		return fmt.Errorf("derive usage: %w", err)
	}
	return tx.Commit()
}

// bulkNew is the number of new files from which a refresh is a bulk load
// (a variable for tests): usage_entry (the lookup of fork copies by entry
// id) is dropped for it and built once at the end, which costs a tenth of
// keeping it up to date row by row (2 s of a 20 s cold index), and the
// cost report's derivation runs once at its end (see calls.go).
const bulkNew = 100

// usageEntryIndex is migration 00004's definition of usage_entry.
const usageEntryIndex = "CREATE INDEX IF NOT EXISTS usage_entry ON usage(entry_id)"

func (ix *Indexer) exec(ctx context.Context, q string) error {
	if _, err := ix.DB.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}

// AbsRoots normalises session roots the way the catalog stores them in
// files.root (absolute, cleaned, without a source prefix); filters by
// root must use the same form.
func AbsRoots(roots []string) ([]string, error) {
	out := make([]string, 0, len(roots))
	for _, spec := range roots {
		a, _, err := absRoot(spec) // the path alone: no layout to look at
		if err != nil {
			return []string{}, err
		}
		out = append(out, a)
	}
	return out, nil
}

// absRoot is a root spec's absolute, cleaned path and the source it
// names ("" for none).
func absRoot(spec string) (path, source string, err error) {
	p, src := ParseRoot(spec)
	a, err := filepath.Abs(p)
	if err != nil {
		return "", "", fmt.Errorf("resolve root %s: %w", p, err)
	}
	return filepath.Clean(a), src, nil
}

// ResolveRoot is a root spec's absolute path and its source: the one it
// names, else its layout's (DetectSource).
func ResolveRoot(spec string) (path, source string, err error) {
	path, source, err = absRoot(spec)
	if err == nil && source == "" {
		source = DetectSource(path)
	}
	return path, source, err
}

// root is a session root with the agent whose layout it has.
type root struct{ path, source string }

// resolveRoots reads root specs (ParseRoot): absolute paths, and the
// source of each (its layout's when the spec names none).
func resolveRoots(specs []string) ([]root, error) {
	out := make([]root, 0, len(specs))
	for _, spec := range specs {
		a, src, err := ResolveRoot(spec)
		if err != nil {
			return nil, err
		}
		out = append(out, root{a, src})
	}
	return out, nil
}

// fileStamp is what a no-change refresh compares: path and stat, and
// whether that stat was racy (then the content is checked anyway).
type fileStamp struct {
	Path string `db:"path"`
	Kind FileKind
	Racy bool
	fileStat
}

// storedFile is the full stored state of a file.
type storedFile struct {
	File
	ContentCRC *int64 `db:"content_crc"` // see content.go
}

// loadFile loads the full stored state of one changed file.
func loadFile(ctx context.Context, db *sqlx.DB, path string) (storedFile, error) {
	var f storedFile
	err := db.GetContext(ctx, &f, `SELECT id, path, root, kind, dev, ino, size, mtime_ns, offset, head_hash, tail_hash,
		open_tail, lines, seq, version, last_id, warnings, text_offset, generation, content_crc, slot_len, slot_hash
		FROM files WHERE path = ?`, path)
	if err != nil {
		return f, fmt.Errorf("load file %s: %w", path, err)
	}
	return f, nil
}

// run parses jobs in parallel and applies their batches from one goroutine.
func (ix *Indexer) run(ctx context.Context, jobs []job, removed []string, st *pidex.IndexStats, bulk bool) error {
	workers := ix.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if p := ix.Progress; p != nil {
		p.Begin(pidex.PhaseFiles)
		p.FilesTotal.Add(int64(len(jobs)))
		for _, j := range jobs {
			p.BytesTotal.Add(j.cand.Size - j.file.Offset)
		}
	}
	stmts := newStmtCache(ix.DB.DB) // the writer's prepared statements
	defer stmts.close()
	stmts.bulk = bulk
	g, gctx := errgroup.WithContext(ctx)
	type req struct {
		b   *batch
		res chan error
	}
	reqs := make(chan req, workers)
	writerDone := make(chan error, 1)
	go func() { // the single writer
		var werr error
		for r := range reqs {
			if werr != nil {
				r.res <- werr
				continue
			}
			// ctx, not gctx: the group's context ends when Wait returns,
			// and files' last batches may still be queued then.
			err := ix.write(ctx, stmts, r.b, st)
			if err != nil && !errors.Is(err, errConflict) {
				werr = err
			}
			r.res <- err
		}
		writerDone <- werr
	}()
	for _, p := range removed {
		res := make(chan error, 1)
		reqs <- req{b: &batch{remove: true, file: File{Path: p}}, res: res}
		if err := <-res; err != nil {
			close(reqs)
			return err
		}
		st.Removed++
	}
	g.SetLimit(workers)
	for _, j := range jobs {
		g.Go(func() error {
			// What the catalog must hold for each batch to follow on: the
			// planned state, then what the previous batch left.
			expect := j.stored
			res := make(chan error, 1)
			// A batch is parsed while the previous one is written (the
			// parser waited for each write, so that a worker was idle as
			// long as the writer worked: 1.5 of two cores in a cold
			// metadata pass). It is sent only once that write succeeded,
			// so the catalog sees the same batches in the same order as
			// before. A file's last batch is not waited for: the worker
			// goes on to the next file, and a failed write still fails
			// the run (the writer's own error, writerDone). A batch
			// shares nothing with the parser once emitted: its rows are
			// copied out of the lines, and the parser's session record
			// is copied into it.
			pending := false
			wait := func() error {
				if !pending {
					return nil
				}
				pending = false
				return <-res
			}
			j.beforeFingerprint = ix.beforeFingerprint
			err := parseFile(gctx, j, func(b *batch) error {
				if err := wait(); err != nil {
					return err
				}
				b.expect = expect
				select {
				case reqs <- req{b: b, res: res}:
				case <-gctx.Done():
					return gctx.Err()
				}
				pending = true
				expect.Offset = b.file.Offset
				if b.reset {
					expect.Generation++
				}
				if b.last {
					pending = false // see above
				}
				return nil
			})
			// A batch still being written when the parse stopped early:
			// its write's failure comes first, as it did when each write
			// was waited for before parsing on.
			if werr := wait(); werr != nil {
				err = werr
			}
			switch {
			case errors.Is(err, errConflict):
				return nil // the other refresh owns this file now
			case err != nil && gctx.Err() == nil && !isWriteErr(err):
				// An unreadable file is reported and skipped, never fatal.
				ix.addError(st, j.cand.Path, err)
				return nil
			}
			return err
		})
	}
	gerr := g.Wait()
	close(reqs)
	werr := <-writerDone
	if werr != nil {
		return werr
	}
	return gerr
}

// writeErr marks errors from the catalog (fatal) as opposed to errors
// reading one session file (reported, not fatal).
type writeErr struct{ error }

func (e writeErr) Unwrap() error { return e.error }

func isWriteErr(err error) bool {
	var w writeErr
	return errors.As(err, &w)
}

// write applies one batch and accounts for it. It runs on the writer
// goroutine only, so it may touch st without locks.
func (ix *Indexer) write(ctx context.Context, stmts *stmtCache, b *batch, st *pidex.IndexStats) error {
	if ix.beforeApply != nil {
		ix.beforeApply(b)
	}
	if err := apply(ctx, stmts, b, &ix.seams); errors.Is(err, errConflict) {
		return err
	} else if err != nil {
		return writeErr{err}
	}
	if b.sideText && ix.side != nil && b.file.Kind == FileSession {
		ix.side.add(ctx, b)
	}
	st.Entries += int64(len(b.entries))
	st.Bytes += b.bytes
	if b.grew {
		st.Unchanged--
		if b.reset {
			st.Rewritten++
		} else {
			st.Appended++
		}
	}
	if !b.quiet {
		st.Warnings = append(st.Warnings, b.warns...)
	}
	if b.last && b.notSession {
		st.NotSessions = append(st.NotSessions, b.file.Path)
	}
	if b.last && b.file.Offset < b.file.Size && b.file.Kind != FileNotSession && b.file.Kind != FileUnreadable {
		st.Pending = append(st.Pending, b.file.Path)
	}
	if p := ix.Progress; p != nil {
		p.BytesDone.Add(b.bytes)
		if b.last {
			p.FilesDone.Add(1)
		}
	}
	if ix.afterApply != nil {
		if err := ix.afterApply(b); err != nil {
			return writeErr{err}
		}
	}
	return nil
}

// addError records a file that could not be read; worker goroutines call
// it at once.
func (ix *Indexer) addError(st *pidex.IndexStats, path string, err error) {
	ix.errMu.Lock()
	defer ix.errMu.Unlock()
	st.Errors = append(st.Errors, fmt.Sprintf("%s: %v", path, err))
}

// Derivation is the version of the ingest logic: what the indexer derives
// from the files into the catalog's rows. Bump it whenever a release
// derives anything differently (a new column or table, a changed rule);
// a catalog stamped with another derivation is rebuilt from the files
// (engine.Open), since it is only a cache.
//
//	1: the first catalog (not stamped)
//	2: usage keeps cacheWrite1h and reasoning; entry meaning from package pi
//	3: entries.ts_ms; the full-text index (text_index, files.text_offset)
//	4: tool_calls
//	5: the cost report's derived columns and rollup
//	6: tool-call arguments searched as decoded strings; sources (pi, omp,
//	   openclaw) and oh-my-pi's format (title slot, kinds, usage)
//	7: the text index without positions, by line (migration 00010); entry
//	   previews kept at ingest (entry_previews)
//	8: a line of JSON null is skipped, as pi skips it (it was an entry
//	   without id or type)
//	9: what pidex stats counts (migration 00017): entries' stop reasons,
//	   errors, context sizes and commands; tool result sizes; the activity
//	   rows (indexer/activity.go)
//	10: the rollups keep the calls pi recorded at $0 with tokens apart
//	    (zero_cost, migration 00018): honest prices
//	11: subagents linked to the session that started them (sessions.
//	   spawned_by, family, run; pi-subagents' child runs discovered)
//	12: the entry diet (migration 00021): edges a view of entries; entries'
//	    type, role, ts and msg_ts and usage's source and attribution stored
//	    in short forms behind generated columns
//	13: the entries off their session's current path (off_path,
//	    migration 00023), for searches of the active branch
const Derivation = 13

// reserveIDs gives new files their catalog ids in the order of their
// names before they are read (in parallel, biggest first): pi names a
// session file after its start time, so file ids — and with them the
// text index's rowids — grow with session time, and search can take the
// newest matches of a very common term first. The rows are placeholders
// (kind empty, no stat) until the file's first batch fills them; each
// job of one has its id as textID (a bulk load's side text uses it).
func (ix *Indexer) reserveIDs(ctx context.Context, jobs []job) error {
	var fresh []*job
	for i := range jobs {
		if j := &jobs[i]; j.file.ID == 0 && j.file.Path == "" {
			fresh = append(fresh, j)
		}
	}
	if len(fresh) < 2 {
		return nil
	}
	// By name, then path: files of the same name in several folders (a
	// copy, another root) get their ids in one order on every run, which
	// a team catalog's search follows too (postgres orders by the same keys).
	sort.Slice(fresh, func(a, b int) bool {
		pa, pb := fresh[a].cand.Path, fresh[b].cand.Path
		if ba, bb := filepath.Base(pa), filepath.Base(pb); ba != bb {
			return ba < bb
		}
		return pa < pb
	})
	tx, err := ix.DB.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("reserve file ids: %w", err)
	}
	defer tx.Rollback()
	for _, j := range fresh {
		// No row when another process reserved the path first.
		err := tx.QueryRowContext(ctx, `INSERT OR IGNORE INTO files (path, root, kind) VALUES (?, ?, 'empty') RETURNING id`,
			j.cand.Path, j.cand.Root).Scan(&j.textID)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("reserve file ids: %w", err)
		}
	}
	return tx.Commit()
}
