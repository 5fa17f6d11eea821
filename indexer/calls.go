package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
)

// What the cost report derives from the usage rows (migration 00005):
//
//   - attribution: a record without a model (compaction, branch summary,
//     tool result) is attributed to the model in effect on the path at its
//     entry: the nearest model_change or assistant message among its
//     ancestors;
//   - on_path: the record lies on its file's current root-to-leaf path;
//   - is_copy: an earlier record holds the same call — entry id, timestamp,
//     source and token counts equal; earlier = the session created first,
//     then the path, then the offset — so a fork's copies count once;
//   - call_active: some record of the same call is on its file's path;
//   - the rollups (pidex.Rollups): the file's sums per quarter hour and
//     per hour, model, source and flags, the calls pi recorded at $0 with
//     tokens apart from the others (zero_cost, pidex.ZeroCostSQL).
//
// An append moves a file's leaf, which can move its records on or off the
// path, which changes call_active in every file holding the same calls;
// a fork changes which record of a call is the original. So a batch
// derives its file's rows and every row sharing an entry id with them
// (before a file's rows are cleared, its entry ids are noted in
// calls_touched), all in the batch's transaction. A bulk load (a cold
// index) instead derives everything once at the end: per-row lookups by
// entry id would need the index it drops.

// touchCalls notes the entry ids of a file's usage rows before they are
// cleared, so that the records of the same calls in other files are
// derived again.
func touchCalls(ctx context.Context, tx *wtx, id int64) error {
	if tx.stmts.bulk {
		return nil
	}
	if err := tx.exec(ctx, `INSERT OR IGNORE INTO calls_touched SELECT entry_id FROM usage WHERE file_id = ?`, id); err != nil {
		return fmt.Errorf("note touched calls: %w", err)
	}
	return nil
}

// deriveCalls derives file id's usage rows (id 0: only the touched calls,
// for a removed file) and every row sharing an entry id with them. In a
// bulk load only the path flags are set, at each file's last batch.
func deriveCalls(ctx context.Context, tx *wtx, id int64, b *batch) error {
	if id != 0 && (b.last || !tx.stmts.bulk) {
		if err := markFilePath(ctx, tx, id, b.pathUsage); err != nil {
			return err
		}
	}
	if tx.stmts.bulk {
		return nil
	}
	if id != 0 {
		if err := touchCalls(ctx, tx, id); err != nil {
			return err
		}
		if err := attribute(ctx, tx, "AND u.file_id = ?", id); err != nil {
			return err
		}
	}
	const touched = "entry_id IN (SELECT entry_id FROM calls_touched)"
	if err := markCopies(ctx, tx, touched, touched); err != nil {
		return err
	}
	if err := resum(ctx, tx, `WHERE file_id IN (SELECT DISTINCT file_id FROM usage
		WHERE entry_id IN (SELECT entry_id FROM calls_touched))`); err != nil {
		return err
	}
	if err := tx.exec(ctx, `DELETE FROM calls_touched`); err != nil {
		return fmt.Errorf("derive calls: %w", err)
	}
	return nil
}

// deriveAll derives every usage row and rebuilds the rollup, in one
// transaction: the end of a bulk load, and the repair of one that stopped
// before its end (meta calls_stale). The path flags are already set: by
// each file's last batch, and a file whose last batch did not commit is
// read again.
func deriveAll(ctx context.Context, tx *wtx) error {
	if err := attribute(ctx, tx, ""); err != nil {
		return err
	}
	// A call held twice has an entry id held twice: only those need the
	// window (fork copies are a small part of all calls).
	const dup = "entry_id IN (SELECT entry_id FROM usage GROUP BY entry_id HAVING count(*) > 1)"
	if err := markCopies(ctx, tx, "1", dup); err != nil {
		return err
	}
	return resum(ctx, tx, "")
}

// markFilePath sets on_path for a file's usage rows: at its last batch
// from the offsets on the path (batch.pathUsage), on a batch before it by
// walking the stored tree from the leaf (pi's path: the leaf, then parent by
// parent through the id map; UNION, not UNION ALL: an id loop in a
// hostile file ends instead of walking forever).
func markFilePath(ctx context.Context, tx *wtx, id int64, onPath []int64) error {
	var err error
	if onPath != nil {
		list, _ := json.Marshal(onPath)
		err = tx.exec(ctx, `UPDATE usage SET on_path = offset IN (SELECT value FROM json_each(?))
			WHERE file_id = ?`, string(list), id)
	} else {
		err = tx.exec(ctx, `WITH RECURSIVE walk(id) AS (
				SELECT leaf_id FROM sessions WHERE file_id = ?1 AND leaf_id IS NOT NULL
				UNION
				SELECT ed.parent_id FROM walk w CROSS JOIN edges ed ON ed.file_id = ?1 AND ed.child_id = w.id
				WHERE ed.parent_id IS NOT NULL),
			path(offset) AS MATERIALIZED (
				SELECT ed.offset FROM walk w CROSS JOIN edges ed ON ed.file_id = ?1 AND ed.child_id = w.id)
			UPDATE usage SET on_path = offset IN (SELECT offset FROM path) WHERE file_id = ?1`, id)
	}
	if err != nil {
		return fmt.Errorf("mark usage on the current path: %w", err)
	}
	return nil
}

// attribute fills attr_provider/attr_model where they are still NULL: a
// record with a model keeps its own (set on insert); one without walks up
// its ancestors (pi's id map: edges) to the nearest model_change or
// assistant message, stopping there; failing that, the last one before it
// in the file.
//
// The work is linear in the entries the walks pass, whatever the shape of
// the tree (files are anyone's input): SQLite lists each entry above the
// records once (UNION: a parent cycle ends), stopping at model-bearing
// ones, and the walks run here over that list, memoized per entry, a
// cycle found once. (One recursive walk per record, as before, cost
// records × depth: 400 tool results under a two-entry parent cycle walked
// 100,000 steps each, 128 s and 1.28 GB.)
func attribute(ctx context.Context, tx *wtx, where string, args ...any) error {
	type seed struct {
		FileID int64   `db:"file_id"`
		Offset int64   `db:"offset"`
		Parent *string `db:"parent_id"`
	}
	const seedSQL = `SELECT u.file_id, u.offset, e.parent_id FROM usage u
		JOIN entries e ON e.file_id = u.file_id AND e.offset = u.offset
		WHERE u.attr_model IS NULL `
	var seeds []seed
	if err := tx.sel(ctx, &seeds, seedSQL+where, args...); err != nil {
		return fmt.Errorf("attribute usage to models: %w", err)
	}
	if len(seeds) == 0 {
		return nil
	}
	rows, err := tx.query(ctx, `WITH RECURSIVE seed(file_id, parent) AS MATERIALIZED (
			SELECT file_id, parent_id FROM (`+seedSQL+where+`)),
		reach(file_id, id) AS (
			SELECT DISTINCT file_id, parent FROM seed WHERE parent IS NOT NULL
			UNION
			SELECT r.file_id, en.parent_id FROM reach r
			CROSS JOIN edges ed ON ed.file_id = r.file_id AND ed.child_id = r.id
			JOIN entries en ON en.file_id = ed.file_id AND en.offset = ed.offset
			WHERE en.parent_id IS NOT NULL AND NOT `+namesModel()+`)
		SELECT r.file_id, r.id, en.parent_id, `+namesModel()+`, COALESCE(en.provider, ''), COALESCE(en.model, '')
		FROM reach r CROSS JOIN edges ed ON ed.file_id = r.file_id AND ed.child_id = r.id
		JOIN entries en ON en.file_id = ed.file_id AND en.offset = ed.offset`, args...)
	if err != nil {
		return fmt.Errorf("attribute usage to models: %w", err)
	}
	w := walker{nodes: map[entryKey]attrNode{}, memo: map[entryKey]attr{}}
	for rows.Next() {
		var k entryKey
		var n attrNode
		if err := rows.Scan(&k.file, &k.id, &n.parent, &n.stop, &n.model.provider, &n.model.model); err != nil {
			rows.Close()
			return fmt.Errorf("attribute usage to models: %w", err)
		}
		w.nodes[k] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("attribute usage to models: %w", err)
	}
	if tx.seams.onAttribute != nil {
		tx.seams.onAttribute(len(seeds), len(w.nodes))
	}
	out := make([]attributed, len(seeds))
	var bare []int // no model on the path: the file order decides
	for i, s := range seeds {
		out[i] = attributed{s.FileID, s.Offset, attr{}}
		if s.Parent != nil {
			out[i].attr = w.resolve(entryKey{s.FileID, *s.Parent})
		}
		if out[i].model == "" {
			bare = append(bare, i)
		}
	}
	if err := lastModelBefore(ctx, tx, out, bare); err != nil {
		return err
	}
	list, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("attribute usage to models: %w", err)
	}
	err = tx.exec(ctx, `UPDATE usage SET attr_p = j.value ->> 2, attr_m = j.value ->> 3
		FROM json_each(?) j WHERE usage.file_id = j.value ->> 0 AND usage.offset = j.value ->> 1`, string(list))
	if err != nil {
		return fmt.Errorf("attribute usage to models: %w", err)
	}
	return nil
}

// namesModel: entry en names the model in effect from there on (an entry
// of a kind or role that sets the model, pi.SetsModelSQL: a model_change,
// an assistant message; and it has a model). Never NULL: the role of an
// entry that is not a message is.
// Built at each use: the registry is the truth, kinds registered late
// (tests) included.
func namesModel() string {
	return `(COALESCE(` + pi.SetsModelSQL("en") + `, 0) AND en.model IS NOT NULL)`
}

type entryKey struct {
	file int64
	id   string
}

// attr is a model a record is attributed to ("" for none).
type attr struct{ provider, model string }

// attrNode is an entry a walk passes: its parent, and whether it names
// the model in effect (a model_change or an assistant message with one).
type attrNode struct {
	parent *string
	stop   bool
	model  attr
}

// attributed is one record's attribution, written as a JSON array
// [file id, offset, provider, model].
type attributed struct {
	file, offset int64
	attr
}

func (a attributed) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{a.file, a.offset, a.provider, a.model})
}

// walker resolves the model in effect at each entry, each entry once.
type walker struct {
	nodes map[entryKey]attrNode
	memo  map[entryKey]attr
}

// resolve walks up from k to the nearest entry that names a model. Every
// entry it passes gets the answer too, so later walks stop there. A walk
// that meets an entry already on it has gone round a cycle with no model
// on it: all of it has none, as has a walk that ends at a root or at a
// parent id no entry has.
func (w *walker) resolve(k entryKey) attr {
	var path []entryKey
	onPath := map[entryKey]bool{}
	var a attr
	for {
		if m, ok := w.memo[k]; ok {
			a = m
			break
		}
		n, ok := w.nodes[k]
		if !ok || onPath[k] {
			break
		}
		if n.stop {
			a = n.model
			w.memo[k] = a
			break
		}
		path = append(path, k)
		onPath[k] = true
		if n.parent == nil {
			break
		}
		k = entryKey{k.file, *n.parent}
	}
	for _, p := range path {
		w.memo[p] = a
	}
	return a
}

// lastModelBefore attributes the records of out listed in bare (no model
// on their path: a branch summary pi placed at the root of the tree) to
// the last model_change or assistant message with a model before them in
// their file: one scan per file, up to the last such record.
func lastModelBefore(ctx context.Context, tx *wtx, out []attributed, bare []int) error {
	byFile := map[int64][]int{}
	for _, i := range bare {
		byFile[out[i].file] = append(byFile[out[i].file], i)
	}
	for file, idx := range byFile {
		var upto int64
		for _, i := range idx {
			upto = max(upto, out[i].offset)
		}
		var models []struct {
			Offset   int64  `db:"offset"`
			Provider string `db:"provider"`
			Model    string `db:"model"`
		}
		err := tx.SelectContext(ctx, &models, `SELECT en.offset, COALESCE(en.provider, '') AS provider, en.model FROM entries en
			WHERE en.file_id = ? AND en.offset < ? AND `+pi.SetsModelSQL("en")+`
			AND en.model IS NOT NULL AND en.model != '' ORDER BY en.offset`, file, upto)
		if err != nil {
			return fmt.Errorf("attribute usage to models: %w", err)
		}
		for _, i := range idx {
			// the last one before the record
			j := sort.Search(len(models), func(j int) bool { return models[j].Offset >= out[i].offset }) - 1
			if j >= 0 {
				out[i].attr = attr{models[j].Provider, models[j].Model}
			}
		}
	}
	return nil
}

// markCopies sets is_copy and call_active for the rows that scope selects
// (a condition on entry_id: all of a call's rows are selected together).
// A row whose entry id no other row in scope has is its call's only
// record; only the rows of entry ids in dup (those held more than once)
// go through the window.
func markCopies(ctx context.Context, tx *wtx, scope, dup string) error {
	err := tx.exec(ctx, `UPDATE usage SET is_copy = 0, call_active = on_path
		WHERE `+scope+` AND (is_copy != 0 OR call_active != on_path)`)
	if err != nil {
		return fmt.Errorf("mark fork copies: %w", err)
	}
	err = tx.exec(ctx, `WITH k AS MATERIALIZED (
			SELECT u.file_id, u.offset,
				row_number() OVER (call ORDER BY COALESCE(s.created_ms, 0), f.path, u.offset) > 1 AS copy,
				max(u.on_path) OVER call AS act
			FROM usage u LEFT JOIN sessions s ON s.file_id = u.file_id JOIN files f ON f.id = u.file_id WHERE u.`+dup+`
			WINDOW call AS (PARTITION BY u.entry_id, u.source, u.ts_ms, u.input, u.output, u.cache_read, u.cache_write))
		UPDATE usage SET is_copy = k.copy, call_active = k.act FROM k
		WHERE usage.file_id = k.file_id AND usage.offset = k.offset
		AND (usage.is_copy, usage.call_active) IS NOT (k.copy, k.act)`)
	if err != nil {
		return fmt.Errorf("mark fork copies: %w", err)
	}
	return nil
}

// resum rebuilds the rollups' rows of the files where selects ("": all),
// and counts the re-derivation in their derived_seq (a push re-sends
// their usage rows and rollups when it moved).
func resum(ctx context.Context, tx *wtx, where string) error {
	for _, r := range pidex.Rollups {
		if err := tx.exec(ctx, `DELETE FROM `+r.Table+` `+where); err != nil {
			return fmt.Errorf("clear usage rollup: %w", err)
		}
		if err := sumInto(ctx, tx, r, where); err != nil {
			return err
		}
	}
	files := ""
	if where != "" {
		files = ` WHERE id IN (SELECT file_id FROM usage ` + where + `)`
	}
	if err := tx.exec(ctx, `UPDATE files SET derived_seq = derived_seq + 1`+files); err != nil {
		return fmt.Errorf("count derivations: %w", err)
	}
	return nil
}

func sumInto(ctx context.Context, tx *wtx, r pidex.Rollup, where string) error {
	unit := strconv.FormatInt(r.Unit, 10)
	err := tx.exec(ctx, `INSERT INTO `+r.Table+` (file_id, bucket, provider, model, source, is_copy, active, zero_cost,
			calls, input, output, cache_read, cache_write, cache_write_1h, total_tokens, cost)
		SELECT file_id, COALESCE(ts_ms / `+strconv.FormatInt(r.Unit*pidex.BucketMs, 10)+` * `+unit+`, -1),
			COALESCE(attr_provider, provider), COALESCE(attr_model, model),
			source, is_copy, call_active, `+pidex.ZeroCostSQL("")+`,
			count(*), total(input), total(output), total(cache_read), total(cache_write), total(cache_write_1h),
			total(total_tokens), total(cost_total)
		FROM usage `+where+`
		GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`)
	if err != nil {
		return fmt.Errorf("sum usage buckets: %w", err)
	}
	return nil
}
