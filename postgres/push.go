package postgres

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"
	"golang.org/x/sync/errgroup"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/sqlite"
)

// FormatVersion is the version of how a push writes a file's rows, beside
// the local catalog's derivation (sqlite.Derivation): a file pushed by a
// pidex with another is pushed again whole.
//
//	1: the first
//	2: search rows carry their first token's index (migration 00004)
const FormatVersion = 2

// PushOptions say what a push mirrors.
type PushOptions struct {
	// Machine names this machine in the team catalog (default: the host
	// name); its rows are its own, and a push touches no other machine's.
	Machine string
	// Roots are the session roots whose files are mirrored (absolute): the
	// files `pidex list` would show. A file of the machine the team catalog
	// holds that is not under them (or is filtered out) is removed there.
	Roots []string
	// Projects, if any, keep only the sessions whose working directory
	// contains one of them (ignoring ASCII case, as --project does);
	// Exclude leaves out those whose directory contains one of its.
	Projects, Exclude []string
	// Redact replaces the secrets found in the text (internal/redact) with
	// a marker before anything leaves the machine.
	Redact bool
	// Progress, if set, counts the files and bytes of the push.
	Progress *pidex.Progress
	// Version names the pidex that pushed (push_state.pushed_by).
	Version string
	// Token authenticates the machine to a team server (a push to an
	// https:// URL: PushToServer); never printed.
	Token string `json:"-"`
}

// PushStats say what a push did (`pidex push --json`).
type PushStats struct {
	Machine   string `json:"machine"`
	Files     int    `json:"files"` // the machine's files in the team catalog after the push
	New       int    `json:"new"`
	Appended  int    `json:"appended"`
	Rewritten int    `json:"rewritten"`
	// Rederived: files whose usage flags or rollups alone were sent again
	// (another file's change moved them: a fork), or whose local catalog
	// was rebuilt with the same content.
	Rederived int   `json:"rederived"`
	Removed   int   `json:"removed"`
	Unchanged int   `json:"unchanged"`
	Excluded  int   `json:"excluded"` // sessions left out by the project filters
	Entries   int64 `json:"entries"`  // entries sent
	Bytes     int64 `json:"bytes"`    // bytes of lines sent
	Redacted  int64 `json:"redacted"` // secrets replaced by the marker
	// Skipped lists the files that changed on disk while they were read (a
	// rewrite since the last refresh): the next push sends them.
	Skipped []string `json:"skipped"`
}

// action is what a file needs.
type action int

const (
	actNone     action = iota
	actTouch           // the file row only (its stat moved, its rows did not)
	actRederive        // the usage flags, rollups and session row
	actAppend          // the entries after the pushed offset, and the above
	actRewrite         // everything again
	actNew             // everything
	actRemove          // nothing: the file goes
)

// localFile is a file row of the local catalog.
type localFile struct {
	ID         int64   `db:"id"`
	Path       string  `db:"path"`
	Root       string  `db:"root"`
	Kind       string  `db:"kind"`
	Size       int64   `db:"size"`
	MtimeNs    int64   `db:"mtime_ns"`
	Offset     int64   `db:"offset"`
	HeadHash   string  `db:"head_hash"`
	TailHash   string  `db:"tail_hash"`
	OpenTail   bool    `db:"open_tail"`
	Lines      int64   `db:"lines"`
	Seq        int64   `db:"seq"`
	Version    int64   `db:"version"`
	LastID     string  `db:"last_id"`
	Warnings   int64   `db:"warnings"`
	Generation int64   `db:"generation"`
	DerivedSeq int64   `db:"derived_seq"`
	Cwd        *string `db:"cwd"`
	Source     *string `db:"source"`
}

const localFileSQL = `SELECT f.id, f.path, f.root, f.kind, f.size, f.mtime_ns, f.offset, f.head_hash, f.tail_hash,
	f.open_tail, f.lines, f.seq, f.version, f.last_id, f.warnings, f.generation, f.derived_seq, s.cwd, s.source
	FROM files f LEFT JOIN sessions s ON s.file_id = f.id`

// pushedFile is a file row of the team catalog, for the same machine.
type pushedFile struct {
	ID         int64
	Path       string
	Root       string
	Kind       string
	Size       int64
	MtimeNs    int64
	Offset     int64
	HeadHash   string
	TailHash   string
	OpenTail   bool
	Lines      int64
	Seq        int64
	Version    int64
	LastID     string
	Warnings   int64
	Generation int64
	DerivedSeq int64
	Catalog    string
	Format     string
}

// job is one file's work. The reader's local is the local catalog's row
// (the real path, to open the session file); the writer's is the row as
// it left the machine (fileHead: path, root and last id redacted with
// --redact).
type job struct {
	act    action
	local  localFile
	pushed *pushedFile
	id     int64    // the team catalog's file id
	out    outbound // the reader's: what its values go through on the way out
}

// decide says what a file needs: the local catalog's row against what
// the last push of it left (docs/postgres.md, Pushes).
func decide(l localFile, p *pushedFile, catalogID, format string) action {
	switch {
	case p == nil:
		return actNew
	case p.Format != format:
		return actRewrite // pushed by another pidex, or with other options
	case p.Catalog != catalogID:
		// The local catalog was rebuilt since: its generations and ids start
		// again, so only the content fingerprints tell whether the rows
		// pushed are still the file's.
		if l.Offset == p.Offset && l.HeadHash == p.HeadHash && l.TailHash == p.TailHash {
			return actRederive
		}
		return actRewrite
	case l.Generation != p.Generation || l.Offset < p.Offset:
		return actRewrite
	case l.Offset > p.Offset:
		return actAppend
	case l.DerivedSeq != p.DerivedSeq:
		return actRederive
	case l.Size != p.Size || l.MtimeNs != p.MtimeNs || l.Kind != p.Kind || l.Root != p.Root || l.Warnings != p.Warnings ||
		l.OpenTail != p.OpenTail || l.Lines != p.Lines || l.Seq != p.Seq || l.Version != p.Version || l.LastID != p.LastID ||
		l.HeadHash != p.HeadHash || l.TailHash != p.TailHash:
		return actTouch
	}
	return actNone
}

// errConflict: a file's row in the team catalog is not what the push
// planned from (another push of the same machine got there first).
var errConflict = errors.New("the team catalog's row of the file moved meanwhile")

// errChanged: a session file changed on disk since the local catalog
// indexed it.
var errChanged = errors.New("the file changed on disk since it was indexed")

// pusher is one push.
type pusher struct {
	mu      sync.Mutex // st, from the workers
	s       *Store
	local   *sqlx.DB // the local catalog, read-only
	o       PushOptions
	pc      *pgx.Conn
	machine int64
	// staged: the role is held to its machines by row-level security,
	// under which PostgreSQL refuses COPY: rows go through staging tables
	// (stage.go).
	staged    bool
	catalogID string
	format    string
	// derivation is the local catalog's (sqlite.Derivation): the version
	// of the ingest logic its rows were derived with.
	derivation int
	st         *PushStats
	// side is where the push goes: the team catalog (direct) or a team
	// server (over HTTP).
	side pushSide
	// serving: this pusher writes for a team server's client, a
	// transaction at a time (serve.go): each takes the machine's push lock.
	serving bool
}

// pushSide is where a push goes: the team catalog itself, connected as a
// role that pushes (directSide), or a team server that writes it with a
// machine's token (httpSide, pushhttp.go). The plan and the reads are the
// same; each group of files is applied by fileWriter, here or there.
type pushSide interface {
	// begin registers the machine, takes its push lock and lists what its
	// last push left (by path).
	begin(ctx context.Context) (map[string]*pushedFile, error)
	// remove removes the machine's files given, in one transaction.
	remove(ctx context.Context, files []*pushedFile) (int, error)
	// open gives a connection that applies groups.
	open(ctx context.Context) (groupConn, error)
	// finish records the push's end and returns the machine's file count.
	finish(ctx context.Context) (int, error)
	close()
}

// groupConn applies groups of files, each in one transaction: read hands
// a group's parts to emit (again, when the transaction is retried).
type groupConn interface {
	send(ctx context.Context, group []job, read func(context.Context, emitFunc) error) error
	close()
}

// Push mirrors the local catalog's files under o.Roots into the team
// catalog, as machine o.Machine: only what changed since the machine's
// last push travels (new and appended files, rewrites, files whose usage
// flags moved, removals), in transactions that each carry their files'
// rows with their cursors, so that a crash or a dropped connection leaves
// each either applied or not, and the next push goes on from there. The
// local catalog should be refreshed first; its session files are read for
// the entries' lines.
func (s *Store) Push(ctx context.Context, local *sqlite.DB, o PushOptions) (*PushStats, error) {
	p, done, err := newPusher(ctx, local, o)
	if err != nil {
		return nil, err
	}
	defer done()
	p.s = s
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to team catalog %s: %w", s.url, err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		p.pc = dc.(*stdlib.Conn).Conn()
		p.side = &directSide{p: p}
		return p.run(ctx)
	})
	if err != nil {
		return p.st, err
	}
	return p.st, nil
}

// newPusher prepares a push of the local catalog: its identity and
// derivation, and a read-only connection to it (closed by done).
func newPusher(ctx context.Context, local *sqlite.DB, o PushOptions) (p *pusher, done func(), err error) {
	if err := checkMachine(o.Machine); err != nil {
		return nil, nil, fmt.Errorf("push: %w", err)
	}
	catalogID, err := localCatalogID(ctx, local)
	if err != nil {
		return nil, nil, err
	}
	// The rows travel as the local catalog's ingest logic derived them.
	derivation, err := sqlite.Derivation(ctx, local.DB)
	if err != nil {
		return nil, nil, err
	}
	uri, err := sqlite.ReadOnlyURI(local.Path, "busy_timeout(10000)", sqlite.CachePragma)
	if err != nil {
		return nil, nil, fmt.Errorf("read local catalog: %w", err)
	}
	ro, err := sqlx.Open("sqlite", uri)
	if err != nil {
		return nil, nil, fmt.Errorf("read local catalog: %w", err)
	}
	p = &pusher{local: ro, o: o, catalogID: catalogID, derivation: derivation, st: &PushStats{Machine: o.Machine, Skipped: []string{}},
		format: pushFormat(derivation, o.Redact)}
	return p, func() { ro.Close() }, nil
}

// pushFormat is how a push writes a file's rows (files.format): a file
// pushed with another is pushed again whole.
func pushFormat(derivation int, redact bool) string {
	return fmt.Sprintf("derivation %d, push %d, redact %s", derivation, FormatVersion, redactFormat(redact))
}

// checkMachine refuses a name that could not be told apart in a listing.
func checkMachine(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return pidex.Usagef("no machine name (--machine)")
	case len(name) > 200 || !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return pidex.Usagef("machine name %q: want up to 200 printable characters", name)
	}
	return nil
}

// localCatalogID is the identity of the local catalog (meta catalog_id),
// made when first asked. A rebuilt or recreated catalog has none (a
// rebuild copies a new catalog's meta), so it gets a new one, which tells
// the next push that the local cursors start again.
func localCatalogID(ctx context.Context, local *sqlite.DB) (string, error) {
	var id string
	err := local.GetContext(ctx, &id, `SELECT value FROM meta WHERE key = 'catalog_id'`)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("read local catalog id: %w", err)
	}
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make local catalog id: %w", err)
	}
	if _, err := local.ExecContext(ctx, `INSERT OR IGNORE INTO meta (key, value) VALUES ('catalog_id', ?)`, hex.EncodeToString(b[:])); err != nil {
		return "", fmt.Errorf("record local catalog id: %w", err)
	}
	if err := local.GetContext(ctx, &id, `SELECT value FROM meta WHERE key = 'catalog_id'`); err != nil {
		return "", fmt.Errorf("read local catalog id: %w", err)
	}
	return id, nil
}

func (p *pusher) run(ctx context.Context) error {
	pushed, err := p.side.begin(ctx)
	if err != nil {
		return err
	}
	defer p.side.close()
	locals, excluded, err := p.localFiles(ctx)
	if err != nil {
		return err
	}
	p.st.Excluded = excluded
	var jobs []job
	var removed []*pushedFile
	seen := map[string]bool{}
	for _, l := range locals {
		out := p.outboundFor(l)
		path := out.path(l.Path) // the path in the team catalog
		if seen[path] {
			// Two files whose paths differ only by a secret, redacted.
			p.st.Skipped = append(p.st.Skipped, l.Path)
			continue
		}
		seen[path] = true
		pf := pushed[path]
		j := job{act: decide(l, pf, p.catalogID, p.format), local: l, pushed: pf, out: out}
		if pf != nil {
			j.id = pf.ID
		}
		jobs = append(jobs, j)
	}
	for path, pf := range pushed {
		if !seen[path] {
			removed = append(removed, pf)
		}
	}
	sort.Slice(removed, func(a, b int) bool { return removed[a].Path < removed[b].Path })
	n, err := p.side.remove(ctx, removed)
	p.st.Removed += n
	if err != nil {
		return err
	}
	if err := p.apply(ctx, jobs); err != nil {
		return err
	}
	files, err := p.side.finish(ctx)
	p.st.Files = files
	return err
}

// directSide is a push straight into the team catalog, on the push's
// connection (p.pc) and one per worker.
type directSide struct {
	p      *pusher
	unlock func()
}

func (d *directSide) begin(ctx context.Context) (map[string]*pushedFile, error) {
	p := d.p
	if err := p.register(ctx); err != nil {
		return nil, err
	}
	// The push's own session: a commit need not wait for its WAL to reach
	// the disk (a crash of the server may lose the last transactions, never
	// half of one, and their cursors with them: the next push sends them
	// again).
	if _, err := p.pc.Exec(ctx, `SET synchronous_commit = off`); err != nil {
		return nil, fmt.Errorf("start push: %w", err)
	}
	// One push per machine at a time (a --watch and a manual push): the
	// second waits.
	unlock, err := p.lockMachine(ctx)
	if err != nil {
		return nil, err
	}
	d.unlock = unlock
	if err := p.started(ctx); err != nil {
		return nil, err
	}
	return p.pushedFiles(ctx)
}

func (d *directSide) String() string { return d.p.s.url }

func (d *directSide) close() {
	if d.unlock != nil {
		d.unlock()
	}
}

func (d *directSide) remove(ctx context.Context, files []*pushedFile) (int, error) {
	return d.p.remove(ctx, files)
}
func (d *directSide) finish(ctx context.Context) (int, error) { return d.p.finish(ctx) }

// started records that the machine's push began.
func (p *pusher) started(ctx context.Context) error {
	if _, err := p.pc.Exec(ctx, `UPDATE push_state SET started_ms = $2, finished_ms = NULL WHERE machine_id = $1`,
		p.machine, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("start push: %w", err)
	}
	return nil
}

// finish records the push's end, its pidex and the local catalog it came
// from, and returns how many files the machine has.
func (p *pusher) finish(ctx context.Context) (int, error) {
	var files, bytes int64
	if err := p.pc.QueryRow(ctx, `SELECT count(*), COALESCE(sum("offset"), 0) FROM files WHERE machine_id = $1`, p.machine).Scan(&files, &bytes); err != nil {
		return 0, fmt.Errorf("finish push: %w", err)
	}
	_, err := p.pc.Exec(ctx, `UPDATE push_state SET finished_ms = $2, catalog_id = $3, derivation = $4, options = $5, pushed_by = $6,
		files = $7, bytes = $8 WHERE machine_id = $1`,
		p.machine, time.Now().UnixMilli(), p.catalogID, p.derivation, p.format, p.o.Version, files, bytes)
	if err == nil {
		_, err = p.pc.Exec(ctx, `UPDATE machines SET derivation = $2, text_version = $3 WHERE id = $1`, p.machine, p.derivation, FormatVersion)
	}
	if err != nil {
		return 0, fmt.Errorf("finish push: %w", err)
	}
	return int(files), nil
}

// localFiles lists the local catalog's files under the roots that the
// project filters keep, and how many sessions they left out.
func (p *pusher) localFiles(ctx context.Context) ([]localFile, int, error) {
	if len(p.o.Roots) == 0 {
		return nil, 0, nil
	}
	q, args, err := sqlx.In(localFileSQL+` WHERE f.root IN (?) ORDER BY f.path`, p.o.Roots)
	if err != nil {
		return nil, 0, fmt.Errorf("list local files: %w", err)
	}
	var all []localFile
	if err := p.local.SelectContext(ctx, &all, q, args...); err != nil {
		return nil, 0, fmt.Errorf("list local files: %w", err)
	}
	var out []localFile
	excluded := 0
	for _, l := range all {
		if p.keep(l) {
			out = append(out, l)
		} else if l.Cwd != nil {
			excluded++
		}
	}
	return out, excluded, nil
}

// keep applies the project filters: a session by its working directory
// (ASCII case ignored, as list's --project); a file that is not a session
// has no project, and is kept only without --project.
func (p *pusher) keep(l localFile) bool {
	if l.Cwd == nil {
		return len(p.o.Projects) == 0
	}
	cwd := text.ASCIILower(*l.Cwd)
	for _, x := range p.o.Exclude {
		if strings.Contains(cwd, text.ASCIILower(x)) {
			return false
		}
	}
	if len(p.o.Projects) == 0 {
		return true
	}
	for _, x := range p.o.Projects {
		if strings.Contains(cwd, text.ASCIILower(x)) {
			return true
		}
	}
	return false
}

func (p *pusher) pushedFiles(ctx context.Context) (map[string]*pushedFile, error) {
	rows, err := p.pc.Query(ctx, `SELECT id, path, root, kind, size, mtime_ns, "offset", head_hash, tail_hash, open_tail, lines,
		seq, version, last_id, warnings, generation, derived_seq, catalog, format FROM files WHERE machine_id = $1`, p.machine)
	if err != nil {
		return nil, fmt.Errorf("list pushed files: %w", err)
	}
	defer rows.Close()
	out := map[string]*pushedFile{}
	for rows.Next() {
		var f pushedFile
		if err := rows.Scan(&f.ID, &f.Path, &f.Root, &f.Kind, &f.Size, &f.MtimeNs, &f.Offset, &f.HeadHash, &f.TailHash, &f.OpenTail,
			&f.Lines, &f.Seq, &f.Version, &f.LastID, &f.Warnings, &f.Generation, &f.DerivedSeq, &f.Catalog, &f.Format); err != nil {
			return nil, fmt.Errorf("list pushed files: %w", err)
		}
		out[f.Path] = &f
	}
	return out, rows.Err()
}

// remove deletes files of the machine that are gone (or filtered out)
// locally, in one transaction: the cascades remove every row of them.
func (p *pusher) remove(ctx context.Context, files []*pushedFile) (int, error) {
	if len(files) == 0 {
		return 0, nil
	}
	ids := make([]int64, len(files))
	for i, f := range files {
		ids[i] = f.ID
	}
	err := p.tx(ctx, p.pc, func(tx pgx.Tx) error {
		var touched []string
		if err := collect(ctx, tx, &touched, `SELECT DISTINCT entry_id FROM usage WHERE machine_id = $1 AND file_id = ANY($2)`, p.machine, ids); err != nil {
			return fmt.Errorf("remove files: %w", err)
		}
		var n, toks int64
		if err := tx.QueryRow(ctx, `SELECT count(*), COALESCE(sum(tokens), 0) FROM text_index WHERE machine_id = $1 AND file_id = ANY($2) AND part = 0`, p.machine, ids).
			Scan(&n, &toks); err != nil {
			return fmt.Errorf("remove files: %w", err)
		}
		if err := p.lockCalls(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM files WHERE machine_id = $1 AND id = ANY($2)`, p.machine, ids); err != nil {
			return fmt.Errorf("remove files: %w", err)
		}
		if err := recomputeCalls(ctx, tx, touched); err != nil {
			return err
		}
		if err := p.account(ctx, tx, -n, -toks); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return len(files), nil
}

// tx runs fn in a transaction, again (up to a few times) when PostgreSQL
// aborted it for a deadlock or a serialization failure, which another
// machine's push at the same moment can cause.
func (p *pusher) tx(ctx context.Context, pc *pgx.Conn, fn func(pgx.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := pgx.BeginFunc(ctx, pc, func(tx pgx.Tx) error {
			if p.serving {
				if err := p.lockServed(ctx, tx); err != nil {
					return err
				}
			}
			return fn(tx)
		})
		// A team server's transaction reads its request's body: its client
		// sends it again.
		if err == nil || attempt >= 4 || p.serving || !isCode(err, deadlock, serialization) {
			return err
		}
	}
}

func collect[T any](ctx context.Context, tx pgx.Tx, out *[]T, q string, args ...any) error {
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return err
		}
		*out = append(*out, v)
	}
	return rows.Err()
}

// lockCalls takes the lock under which pushes derive the cross-machine
// flags (usage_xm), until the transaction ends: calls_lock's row, which
// only a pushing role may lock (see lockMachine). It is taken before a
// transaction deletes any usage row: deleting one cascades to usage_xm,
// which another machine's push may be rewriting.
//
// The wait is bounded (callsWait): a push holds the lock for one group's
// transaction, seconds, so a longer hold is a stalled push or a session of
// a pushing role left open with the row locked, and the push says so,
// naming the holder where the role may see it, instead of waiting for
// ever. The transaction's own lock_timeout is restored after.
func (p *pusher) lockCalls(ctx context.Context, tx pgx.Tx) error {
	var prior string
	if err := tx.QueryRow(ctx, `SELECT current_setting('lock_timeout'), set_config('lock_timeout', $1, true)`,
		strconv.FormatInt(callsWait.Milliseconds(), 10)).Scan(&prior, new(string)); err != nil {
		return fmt.Errorf("lock calls: %w", err)
	}
	_, err := tx.Exec(ctx, `SELECT one FROM calls_lock FOR UPDATE`)
	if isCode(err, lockNotAvailable) {
		return fmt.Errorf("lock calls: another session has held the team catalog's call lock (calls_lock) for over %s%s; a push holds it for seconds: the catalog's owner can see who holds it with SELECT pid, usename, xact_start FROM pg_stat_activity WHERE backend_xid = (SELECT xmax FROM calls_lock), end that session with pg_terminate_backend(pid), and push again",
			callsWait, p.callsHolder(ctx))
	}
	if err == nil {
		_, err = tx.Exec(ctx, `SELECT set_config('lock_timeout', $1, true)`, prior)
	}
	if err != nil {
		return fmt.Errorf("lock calls: %w", err)
	}
	return nil
}

// callsWait is how long lockCalls waits for another holder of the lock.
var callsWait = 2 * time.Minute

// callsHolder names the session holding calls_lock, as far as this role
// may see it (PostgreSQL shows another role's transaction ids to its
// owner and pg_read_all_stats only): " (role R, pid N)", or "".
func (p *pusher) callsHolder(ctx context.Context) string {
	var role string
	var pid int64
	err := p.s.db.QueryRowContext(ctx, `SELECT a.usename, a.pid FROM pg_stat_activity a
		WHERE a.backend_xid = (SELECT xmax FROM calls_lock) AND a.backend_xid <> '0'::xid`).Scan(&role, &pid)
	if err != nil {
		return ""
	}
	return fmt.Sprintf(" (role %q, pid %d)", role, pid)
}

// recomputeCalls derives again, over every machine, the flags of the
// calls whose records carry one of the touched entry ids: a call held by
// several machines counts once, under the record of the session created
// first (then path, then machine name, then offset: the local rule with
// the machine added), and is active when one of its records is on its
// file's path. Only the rows whose flags over the union differ from their
// machine's get a row in usage_xm (docs/postgres.md, Cost). The rule is
// pidex_derive_calls (migration 00009), which runs as the catalog's owner:
// the rows it writes belong to every machine's files.
func recomputeCalls(ctx context.Context, tx pgx.Tx, touched []string) error {
	if len(touched) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `SELECT pidex_derive_calls($1)`, touched); err != nil {
		return fmt.Errorf("derive calls across machines: %w", err)
	}
	return nil
}

// account moves the machine's search statistics (bm25's) and its change
// counter.
func (p *pusher) account(ctx context.Context, tx pgx.Tx, entries, tokens int64) error {
	_, err := tx.Exec(ctx, `UPDATE push_state SET text_entries = text_entries + $2, text_tokens = text_tokens + $3,
		changes = changes + 1 WHERE machine_id = $1`, p.machine, entries, tokens)
	if err != nil {
		return fmt.Errorf("count pushed text: %w", err)
	}
	return nil
}

// Transactions group files up to these sizes: a transaction per small
// file spent the push in commits; a large file has one of its own.
const (
	txBytes = 16 << 20
	txFiles = 64
)

// apply runs the jobs, a transaction per group of files. A file that
// changed on disk meanwhile is left for the next push.
func (p *pusher) apply(ctx context.Context, jobs []job) error {
	var todo []job
	for _, j := range jobs {
		switch j.act {
		case actNone:
			p.st.Unchanged++
			continue
		}
		todo = append(todo, j)
	}
	// New files by name (their team ids then follow session start times,
	// as the local ids do), the rest in path order.
	sort.SliceStable(todo, func(a, b int) bool {
		return filepath.Base(todo[a].local.Path) < filepath.Base(todo[b].local.Path)
	})
	if pr := p.o.Progress; pr != nil {
		pr.FilesTotal.Add(int64(len(todo)))
		for _, j := range todo {
			pr.BytesTotal.Add(j.sendBytes())
		}
	}
	var groups [][]job
	for start := 0; start < len(todo); {
		end, size := start, int64(0)
		for end < len(todo) && end-start < txFiles && (end == start || size+todo[end].sendBytes() <= txBytes) {
			size += todo[end].sendBytes()
			end++
		}
		groups = append(groups, todo[start:end])
		start = end
	}
	// Groups go through a few connections at once: PostgreSQL builds the
	// search rows' index entries on one core per connection (most of a
	// cold push), while this process reads and encodes the next files.
	// Each group is its own transaction: they never share a file.
	work := make(chan []job)
	g, gctx := errgroup.WithContext(ctx)
	for range min(pushWorkers(), len(groups)) {
		g.Go(func() error { return p.worker(gctx, work) })
	}
	g.Go(func() error {
		defer close(work)
		for _, group := range groups {
			select {
			case work <- group:
			case <-gctx.Done():
				return nil
			}
		}
		return nil
	})
	return g.Wait()
}

// pushWorkers is how many connections a push sends files through.
func pushWorkers() int { return max(2, min(4, runtime.GOMAXPROCS(0))) }

// worker sends groups of files on a connection of its own.
func (p *pusher) worker(ctx context.Context, work <-chan []job) error {
	c, err := p.side.open(ctx)
	if err != nil {
		return err
	}
	defer c.close()
	for group := range work {
		for len(group) > 0 {
			bad, err := p.applyGroup(ctx, c, group)
			if err == nil {
				break
			}
			if bad < 0 {
				return err
			}
			// One file changed under the push (or its team row moved):
			// leave it out, send the others.
			p.mu.Lock()
			p.st.Skipped = append(p.st.Skipped, group[bad].local.Path)
			p.mu.Unlock()
			group = slices.Delete(slices.Clone(group), bad, bad+1)
		}
	}
	return nil
}

// directConn applies groups on a connection of the team catalog.
type directConn struct {
	p    *pusher
	conn *sql.Conn
	pc   *pgx.Conn
}

func (d *directSide) open(ctx context.Context) (groupConn, error) {
	p := d.p
	conn, err := p.s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to team catalog %s: %w", p.s.url, err)
	}
	c := &directConn{p: p, conn: conn}
	err = conn.Raw(func(dc any) error {
		c.pc = dc.(*stdlib.Conn).Conn()
		if _, err := c.pc.Exec(ctx, `SET synchronous_commit = off`); err != nil { // see directSide.begin
			return fmt.Errorf("start push: %w", err)
		}
		if p.staged {
			return createStage(ctx, c.pc)
		}
		return nil
	})
	if err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

func (c *directConn) close() {
	_ = c.conn.Raw(func(any) error {
		_, err := c.pc.Exec(context.Background(), `RESET synchronous_commit`)
		return err
	})
	c.conn.Close()
}

// send applies a group in one transaction of the connection: the parts
// written as they are read.
func (c *directConn) send(ctx context.Context, _ []job, read func(context.Context, emitFunc) error) error {
	return c.p.tx(ctx, c.pc, func(tx pgx.Tx) error {
		w := &fileWriter{p: c.p, tx: tx}
		if err := read(ctx, w.put); err != nil {
			return err
		}
		return w.finish(ctx)
	})
}

// sendBytes is how many bytes of lines a job reads and sends.
func (j *job) sendBytes() int64 {
	switch j.act {
	case actNew, actRewrite:
		return j.local.Offset
	case actAppend:
		return j.local.Offset - j.pushed.Offset
	}
	return 0
}

// fileError names the job of a group that failed on its own account.
type fileError struct {
	index int
	err   error
}

func (e *fileError) Error() string { return e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// applyGroup sends a group of files in one transaction. bad is the index
// of the file that made it fail (-1: the transaction itself failed).
func (p *pusher) applyGroup(ctx context.Context, c groupConn, group []job) (bad int, err error) {
	var stats PushStats
	err = c.send(ctx, group, func(ctx context.Context, emit emitFunc) error {
		stats = PushStats{}
		return p.readGroup(ctx, group, &stats, emit)
	})
	var fe *fileError
	if errors.As(err, &fe) && (errors.Is(err, errChanged) || errors.Is(err, errConflict)) {
		return fe.index, err
	}
	if err != nil {
		return -1, fmt.Errorf("push %s: %w", p.side, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, j := range group {
		switch j.act {
		case actNew:
			p.st.New++
		case actAppend:
			p.st.Appended++
		case actRewrite:
			p.st.Rewritten++
		case actRederive:
			p.st.Rederived++
		case actTouch:
			p.st.Unchanged++
		}
		if pr := p.o.Progress; pr != nil {
			pr.FilesDone.Add(1)
			pr.BytesDone.Add(j.sendBytes())
		}
	}
	p.st.Entries += stats.Entries
	p.st.Bytes += stats.Bytes
	p.st.Redacted += stats.Redacted
	return 0, nil
}
