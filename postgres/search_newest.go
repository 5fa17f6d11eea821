package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/pgsearch"
	"github.com/pidex-dev/pidex/query"
)

// A local catalog reads a query's posting lists backwards, newest first,
// and stops where it has enough: the capped candidates of a page, or the
// confirmed matches of a phrase's totals. The team catalog has no rowids
// in that order; it ranks the files newest first (a few thousand rows)
// and searches them in growing batches, so that a common word reads the
// heap rows of the newest files' matches, not of all of them.

// newestFirst orders files f (with their machines fm) newest first: by
// name (pi's names start with the session's start time), path and
// machine, the order of a local catalog's text rowids backwards (file ids
// follow names, then paths).
const newestFirst = `f.base DESC, f.path DESC, fm.name DESC`

// fileRanks is every file's id and rank r (from 1) in newestFirst order.
const fileRanks = `SELECT f.id, row_number() OVER (ORDER BY ` + newestFirst + `) AS r
	FROM files f JOIN machines fm ON fm.id = f.machine_id`

// newestBatch is the first batch of files searched (ReaderOptions'
// FirstBatch); each next one is eight times as many.
const newestBatch = 128

// rankedFile is a file's key; rankFiles lists them newest first.
type rankedFile struct {
	Machine int32 `db:"machine_id"`
	ID      int64 `db:"id"`
}

func rankFiles(ctx context.Context, tx *sqlx.Tx) ([]rankedFile, error) {
	var ranked []rankedFile
	if err := tx.SelectContext(ctx, &ranked, `SELECT f.machine_id, f.id FROM files f JOIN machines fm ON fm.id = f.machine_id
		ORDER BY `+newestFirst); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return ranked, nil
}

// fileBatch is a run of ranked files searched in one statement: those
// from rank from on (0-based), files, or, when rest, every file from
// there on.
type fileBatch struct {
	from  int
	files []rankedFile
	rest  bool
}

// eachBatch calls fn on the ranked files in batches, the newest first,
// first files, then as many as fn asks for next (0: stop). Once a batch
// would reach half of the files, the rest is one batch, searched
// unrestricted (a rare word's GIN lookup) with the files already read
// left out.
func eachBatch(ranked []rankedFile, first int, fn func(b fileBatch) (next int, err error)) error {
	for from, n := 0, first; from < len(ranked) && n > 0; {
		b := fileBatch{from: from, files: ranked[from:min(from+n, len(ranked))]}
		if from+n >= len(ranked)/2 {
			b.files, b.rest = ranked[from:], true
		}
		next, err := fn(b)
		if err != nil || b.rest {
			return err
		}
		from, n = from+len(b.files), next
	}
	return nil
}

// grow is the next batch's size after one of n files that left the
// search short: eight times as many.
func grow(n int) int { return n * 8 }

// toFind sizes the next batch after b, of files in all, found of want
// candidates found in the files before and in b. When the yield so far
// says all the files hold fewer than want, the next batch is the rest:
// one GIN lookup answers a word that rare (zqplant0001 over 20 machines:
// 0.2 ms, where the next 1,024 files' keys cost 15 ms). Otherwise it is
// twice the files the yield says would hold the rest, between two and
// eight times b's size. The newest files hold fewer matches each the
// further back they go: three common words ANDed, 1,563 candidates in
// the newest 128 files, 3,104 in the next 421. Each batch costs a
// statement (15–40 ms) however small, and the next 1,024 files, which
// the rule before sizing read, cost 100–140.
func toFind(b fileBatch, files, found, want int) int {
	if found >= want {
		return 0
	}
	n := len(b.files)
	if found == 0 {
		return grow(n)
	}
	read := b.from + n
	if found*files <= want*read {
		return files - read
	}
	return max(2*n, min(2*read*(want-found)/found, grow(n)))
}

// table is the search rows of b's files, or text_index whole for the
// rest. The files are grouped by machine, each machine's its own
// condition: so the primary key is searched once per file, and its
// bitmap intersected with the GIN index's (the newest 1,024 files' rows
// holding three common words: 46–60 ms). Restricted instead by
// "machine_id = ANY(…) AND file_id = ANY(…)", the btree searched every
// pair of a machine and a file (20,480 for 1,024 files on 20 machines),
// the planner priced that above the heap rows of every GIN match, which
// it underestimated (3,097 expected, 36,771 read), and read those for
// each batch (100–140 ms).
func (a *args) table(b fileBatch) string {
	if b.rest {
		return "text_index"
	}
	var machines []int32
	files := map[int32][]int64{}
	for _, f := range b.files {
		if files[f.Machine] == nil {
			machines = append(machines, f.Machine)
		}
		files[f.Machine] = append(files[f.Machine], f.ID)
	}
	conds := make([]string, len(machines))
	for i, m := range machines {
		conds[i] = `(machine_id = ` + a.add(m) + ` AND file_id = ANY(` + a.add(files[m]) + `::bigint[]))`
	}
	return `(SELECT * FROM text_index WHERE ` + strings.Join(conds, " OR ") + `) t`
}

// ranks is the CTE fo of b's files and their ranks r: the batch's own
// (an array with its order), or, for the rest, fileRanks past b.from.
func (a *args) ranks(b fileBatch) string {
	if b.rest {
		return `fo AS (SELECT * FROM (` + fileRanks + `) x WHERE r > ` + strconv.Itoa(b.from) + `)`
	}
	files := make([]int64, len(b.files))
	for i, f := range b.files {
		files[i] = f.ID
	}
	return `fo AS (SELECT id, r + ` + strconv.Itoa(b.from) + ` AS r FROM unnest(` + a.add(files) + `::bigint[]) WITH ORDINALITY fo(id, r))`
}

// newestLoose lists the newest p.Cap entries matching p's loose query
// (fts.Loose) within its filters when it has any (SearchPlan.Filtered),
// a local catalog's capped candidates: by file rank
// (newestFirst) and offset backwards, the order of a local catalog's text
// rowids backwards (`the` over 1.3 GB: 188,000 matches, 0.9 s whole; the
// newest 128 files' hold enough).
func (r *Reader) newestLoose(ctx context.Context, tx *sqlx.Tx, p *query.SearchPlan) (keys, error) {
	loose, _ := fts.Loose(p.Query)
	// The matches by the GIN index alone (see seqscan).
	if err := seqscan(ctx, tx, false); err != nil {
		return keys{}, err
	}
	ranked, err := rankFiles(ctx, tx)
	if err != nil {
		return keys{}, err
	}
	if p.Filtered() {
		// Each candidate's rows by key (see nested): the planner hashed the
		// entries for a batch (`--branch active the`, 2 s).
		if err := set(ctx, tx, nested...); err != nil {
			return keys{}, err
		}
	}
	rank := make(map[int64]int, len(ranked))
	for i, f := range ranked {
		rank[f.ID] = i
	}
	type key struct {
		machine   int32
		file, off int64
	}
	var found []key
	err = eachBatch(ranked, r.o.FirstBatch, func(b fileBatch) (int, error) {
		var a args
		stmt := a.matchSQLIn(loose, a.table(b))
		if p.Filtered() {
			// Within the filters, each candidate tested by key (filterFrom).
			stmt = `WITH m AS (` + stmt + `) SELECT c.machine_id, c.file_id, c."offset" FROM ` + filterFrom(p, false) + and(a.where(p), activeIf(p))
		}
		rows, err := tx.QueryContext(ctx, stmt, a...)
		if err != nil {
			return 0, fmt.Errorf("search: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var k key
			if err := rows.Scan(&k.machine, &k.file, &k.off); err != nil {
				return 0, fmt.Errorf("search: %w", err)
			}
			if r, ok := rank[k.file]; ok && r >= b.from {
				found = append(found, k)
			}
		}
		if err := rows.Err(); err != nil {
			return 0, fmt.Errorf("search: %w", err)
		}
		return toFind(b, len(ranked), len(found), p.Cap), nil
	})
	if err != nil {
		return keys{}, err
	}
	slices.SortFunc(found, func(a, b key) int { return cmp.Or(cmp.Compare(rank[a.file], rank[b.file]), cmp.Compare(b.off, a.off)) })
	found = found[:min(len(found), p.Cap)]
	var out keys
	for _, k := range found {
		out.add(k.machine, k.file, k.off)
	}
	return out, seqscan(ctx, tx, true)
}

// searchTotalsLoose is searchTotalsSQL for a query with a phrase, by a
// local catalog's rule (sqlite's confirmSome): its loose candidates
// within the filters, the newest first (the files' ranks, then the
// offsets backwards), each confirmed in turn, until CountCap+1 matches,
// or until the reader's ConfirmBudget bytes of lines are passed and the
// page's matches found: the totals then say "at least". The newest files
// are searched first, in batches (eachBatch): gathering and ranking every
// loose candidate before confirming the first took 330 ms for "the test"
// over 20 machines. Each batch's candidates are read through a cursor,
// each confirmed as it is fetched, so that the server stops where the
// count does.
func (r *Reader) searchTotalsLoose(ctx context.Context, tx *sqlx.Tx, p *query.SearchPlan) (pidex.SearchTotals, error) {
	if err := seqscan(ctx, tx, false); err != nil {
		return pidex.SearchTotals{}, err
	}
	ranked, err := rankFiles(ctx, tx)
	if err != nil {
		return pidex.SearchTotals{}, err
	}
	c := tally{need: p.Offset + p.Limit + 1, budget: r.o.ConfirmBudget, files: map[int64]bool{}}
	every := true // every candidate read
	err = eachBatch(ranked, r.o.FirstBatch, func(b fileBatch) (int, error) {
		stmt, a := totalsSQL(p, b)
		done, err := c.confirm(ctx, tx, stmt, a)
		every = !done
		if done {
			return 0, err
		}
		return grow(len(b.files)), err
	})
	if err != nil {
		return pidex.SearchTotals{}, err
	}
	t := pidex.SearchTotals{Hits: c.hits, Sessions: len(c.files), AtLeast: !every}
	if t.Hits > pidex.CountCap {
		t.Hits, t.AtLeast = pidex.CountCap, true
	}
	return t, nil
}

// totalsSQL is the statement of batch b's loose candidates of p, in the
// files' ranks and offsets backwards, each with its file, its length and
// whether it matches p (ok), after p's filters.
func totalsSQL(p *query.SearchPlan, b fileBatch) (string, args) {
	loose, _ := fts.Loose(p.Query)
	var a args
	with := `WITH RECURSIVE m AS MATERIALIZED (` + a.matchSQLIn(loose, a.table(b)) + `)`
	// A windowed candidate is confirmed on its own windows (a few rows by
	// key, for each one the cursor reaches): over every candidate's file,
	// the windows' phrase query ran once, whole, as soon as the first
	// windowed candidate was read (0.5 s for "the test" over 20 machines).
	own := `(SELECT * FROM text_index WHERE machine_id = c.machine_id AND file_id = c.file_id AND "offset" = c."offset") t`
	tq := pgsearch.ToQuery(p.Query, own, keyCols, len(a)+2)
	q := a.add(tq.TSQuery)
	a = append(a, tq.Args...)
	where := a.where(p)
	ranks := a.ranks(b)
	// The candidates ordered by the files' ranks (a join on one column:
	// joined on two, to the entries, the planner expected two rows and
	// nested the files' ranking 4,000 times), then each joined to its
	// entry, filtered and confirmed as the cursor reaches it (LATERAL
	// keeps the order and the laziness).
	from := strings.Replace(hitFrom(p, true), "m c", "(SELECT 1) one", 1)
	return with + `,
		` + ranks + `,
		c AS (SELECT m.machine_id, m.file_id, m."offset", fo.r FROM m JOIN fo ON fo.id = m.file_id
			ORDER BY fo.r, m."offset" DESC OFFSET 0)
		SELECT c.file_id, x.length, x.ok FROM c CROSS JOIN LATERAL (
			SELECT e.length, CASE WHEN ti.win THEN (ti.machine_id, ti.file_id, ti."offset") IN (SELECT ` + keyCols + ` FROM (` + tq.Windows + `) w)
				ELSE ti.tsv @@ ` + q + `::tsquery END AS ok
			FROM ` + from + and(`e.machine_id = c.machine_id AND e.file_id = c.file_id AND e."offset" = c."offset"`, where) + `) x
		ORDER BY c.r, c."offset" DESC`, a
}

// tally counts a phrase's confirmed candidates in the order they come,
// across statements, until CountCap+1 hits, or until budget bytes of
// lines are read with need hits found.
type tally struct {
	need         int
	budget, read int64
	hits         int
	files        map[int64]bool
}

// confirm reads stmt's rows (file, length, ok) through a cursor and
// counts them; done says the tally stopped before the rows' end.
func (c *tally) confirm(ctx context.Context, tx *sqlx.Tx, stmt string, a args) (done bool, err error) {
	if _, err := tx.ExecContext(ctx, `DECLARE totals NO SCROLL CURSOR FOR `+stmt, a...); err != nil {
		return false, fmt.Errorf("search: %w", err)
	}
	for n := 500; !done && n == 500; {
		if n, done, err = c.fetch(ctx, tx); err != nil {
			return false, err
		}
	}
	if _, err := tx.ExecContext(ctx, `CLOSE totals`); err != nil {
		return false, fmt.Errorf("search: %w", err)
	}
	return done, nil
}

// fetch counts the cursor's next 500 rows: n read, done if the tally
// stopped.
func (c *tally) fetch(ctx context.Context, tx *sqlx.Tx) (n int, done bool, err error) {
	rows, err := tx.QueryContext(ctx, `FETCH 500 FROM totals`)
	if err != nil {
		return 0, false, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		n++
		var file, length int64
		var ok bool
		if err := rows.Scan(&file, &length, &ok); err != nil {
			return n, false, fmt.Errorf("search: %w", err)
		}
		if c.hits > pidex.CountCap || (c.read+length > c.budget && c.hits >= c.need) {
			return n, true, nil
		}
		c.read += length
		if ok {
			c.hits++
			c.files[file] = true
		}
	}
	if err := rows.Err(); err != nil {
		return n, false, fmt.Errorf("search: %w", err)
	}
	return n, false, nil
}
