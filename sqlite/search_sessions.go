package sqlite

import (
	"context"
	"fmt"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/query"
)

// A query the index cannot run exactly (a phrase, an identifier, a CJK
// word: see fts.IndexMatch) has candidates that are confirmed on their
// lines. Confirming every candidate of a phrase of common words reads
// most of the corpus (10 s for "the test" over 3,000 sessions), so
// --sessions-only confirms in the page's order instead: by score, a
// session's best hit is its first candidate that confirms, and once the
// page's sessions are found no later candidate can place a session before
// them. Only the page's sessions then have every candidate confirmed, for
// their counts.

// sessionCand is one candidate entry of a loose search.
type sessionCand struct {
	file, offset, length, modified int64
	path                           string
	score                          float64
}

// sessionFound is a session of the answer: its file and, once counted,
// its hits. Its candidates before next (in byFile order) have been
// confirmed already, the last of them a hit and the others not.
type sessionFound struct {
	file, modified, hits int64
	path                 string
	next                 int
}

// searchSessionsLoose is SearchSessions for loose matches m: the same
// rows, in the same order, as confirming every candidate first.
func (rd *Reader) searchSessionsLoose(ctx context.Context, p *query.SearchPlan, m matched) ([]pidex.SessionHits, error) {
	cands, err := rd.sessionCands(ctx, p, m)
	if err != nil {
		return nil, err
	}
	byFile := map[int64][]int{}
	for i, c := range cands {
		byFile[c.file] = append(byFile[c.file], i)
	}
	cf := newConfirmer(p.Query)
	defer cf.close()
	var found []*sessionFound
	if p.Newest {
		found, err = newestSessions(ctx, cf, cands, byFile, p.Offset+p.Limit)
	} else {
		found, err = bestSessions(ctx, cf, cands, p.Offset+p.Limit)
	}
	if err != nil {
		return nil, err
	}
	page := found[min(p.Offset, len(found)):min(p.Offset+p.Limit, len(found))]
	for _, s := range page {
		rest, err := countConfirmed(ctx, cf, cands, byFile[s.file][s.next:])
		if err != nil {
			return nil, err
		}
		s.hits = 1 + rest // the hit that found the session, and the rest
	}
	return rd.sessionRows(ctx, page)
}

// sessionCands lists the candidates within f: by score, or (Newest) by
// session, most recently modified first.
func (rd *Reader) sessionCands(ctx context.Context, p *query.SearchPlan, m matched) ([]sessionCand, error) {
	from, fargs := searchFrom(p)
	order := "m.score, modified DESC, f.path, e.offset"
	if p.Newest {
		order = "modified DESC, f.path, e.offset"
	}
	return query.Collect(ctx, rd.db, "search", m.with+`SELECT e.file_id, f.path, e.offset, e.length, m.score,
		COALESCE(s.last_activity_ms, s.created_ms, f.mtime_ns / 1000000) AS modified
		FROM `+from+` ORDER BY `+order, append(m.args, fargs...), func(c *sessionCand) []any {
		return []any{&c.file, &c.path, &c.offset, &c.length, &c.score, &c.modified}
	})
}

// bestSessions finds the first n sessions by best score (then modified,
// newest first, then path), confirming candidates in that order: a
// session's best hit is its first candidate that confirms, and the
// candidates come ordered by those same keys, so the sessions are found
// in the answer's order.
func bestSessions(ctx context.Context, cf *confirmer, cands []sessionCand, n int) ([]*sessionFound, error) {
	seen := map[int64]bool{}
	tried := map[int64]int{} // candidates of each file confirmed so far, in byFile order
	var found []*sessionFound
	for _, c := range cands {
		if len(found) >= n {
			break
		}
		if seen[c.file] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tried[c.file]++
		if cf.match(c.path, c.offset, c.length) {
			seen[c.file] = true
			found = append(found, &sessionFound{file: c.file, path: c.path, modified: c.modified, next: tried[c.file]})
		}
	}
	return found, nil
}

// newestSessions finds the first n sessions with a confirmed hit, most
// recently modified first (cands come session by session in that order).
func newestSessions(ctx context.Context, cf *confirmer, cands []sessionCand, byFile map[int64][]int, n int) ([]*sessionFound, error) {
	var found []*sessionFound
	for i := 0; i < len(cands) && len(found) < n; {
		c := cands[i]
		idx := byFile[c.file]
		for k, j := range idx {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if cf.match(cands[j].path, cands[j].offset, cands[j].length) {
				found = append(found, &sessionFound{file: c.file, path: c.path, modified: c.modified, next: k + 1})
				break
			}
		}
		i = idx[len(idx)-1] + 1 // the session's candidates are consecutive
	}
	return found, nil
}

// countConfirmed counts the candidates idx that confirm.
func countConfirmed(ctx context.Context, cf *confirmer, cands []sessionCand, idx []int) (int64, error) {
	var n int64
	for _, j := range idx {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if cf.match(cands[j].path, cands[j].offset, cands[j].length) {
			n++
		}
	}
	return n, nil
}

// sessionRows reads the page's sessions, in its order.
func (rd *Reader) sessionRows(ctx context.Context, page []*sessionFound) ([]pidex.SessionHits, error) {
	out := []pidex.SessionHits{}
	for _, p := range page {
		h := pidex.SessionHits{Path: p.path, Hits: p.hits, Modified: pidex.Time(p.modified)}
		err := rd.db.QueryRowContext(ctx, `SELECT s.session_id, s.name, COALESCE(s.first_message, '(no messages)'), s.cwd
			FROM sessions s WHERE s.file_id = ?`, p.file).Scan(&h.SessionID, &h.Name, &h.FirstMessage, &h.Cwd)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		out = append(out, h)
	}
	return out, nil
}
