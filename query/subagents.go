package query

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pidex-dev/pidex"
)

// Subagents: which session started which is the indexer's rule
// (indexer/spawn.go), kept in the catalog (sessions.spawned_by, family,
// run). Here it is read: a listing shows a subagent beneath the session
// that started it, and a cost report may roll a session's subagents into
// it (rollup below). The fields session.child, session.nested and
// session.family (where.go) say it in conditions.

// attachSubagents puts beneath each listed session the subagents it
// started, theirs beneath them, in the order they started. They are not
// filtered: a session's subagents come with it whatever its filters
// matched.
func (rd *Reader) attachSubagents(ctx context.Context, machine string, out []pidex.Session) error {
	cs := append(inRoots(rd.roots()), is("session.nested", true))
	if machine != "" {
		cs = append(cs, eq("machine.name", machine))
	}
	rows, _, err := rd.backend().Sessions(ctx, &ListPlan{Where: cs, Few: true}) // subagents under a listed parent
	if err != nil || len(rows) == 0 {
		return err
	}
	// The children of each file, by machine and path, oldest first.
	type key struct{ machine, path string }
	kids := map[key][]*SessionRow{}
	for _, r := range rows {
		k := key{r.Machine, r.SpawnedBy}
		kids[k] = append(kids[k], r)
	}
	for _, ks := range kids {
		slices.SortFunc(ks, func(a, b *SessionRow) int {
			return cmp.Or(cmp.Compare(created(a), created(b)), strings.Compare(a.Path, b.Path))
		})
	}
	// Depth-first from each listed session; seen ends a loop of links,
	// which paths cannot make but a catalog's rows could hold.
	seen := map[key]bool{}
	var under func(s *pidex.Session)
	under = func(s *pidex.Session) {
		k := key{s.Machine, s.Path}
		if seen[k] {
			return
		}
		seen[k] = true
		for _, r := range kids[k] {
			c := r.Session()
			under(&c)
			s.Subagents = append(s.Subagents, c)
		}
	}
	for i := range out {
		under(&out[i])
	}
	return nil
}

// Subagents are the sessions ref started, in the order they started, each
// with its own beneath it.
func (rd *Reader) Subagents(ctx context.Context, ref pidex.SessionRef) ([]pidex.Session, error) {
	s := []pidex.Session{{Path: ref.Path, Machine: ref.Machine}}
	if err := rd.attachSubagents(ctx, ref.Machine, s); err != nil {
		return nil, err
	}
	return s[0].Subagents, nil
}

// created is a row's start time, for the order of subagents (an
// unparsable header time first).
func created(r *SessionRow) int64 {
	if r.CreatedMs == nil {
		return -1 << 62
	}
	return *r.CreatedMs
}

// A report (cost, stats) rolls a subagent's calls and activity into the
// session at the top of its chain (pidex.CostOptions.Rollup): by session,
// the key of a row is that session's id (sessionKeySQL, over familyJoin's
// tables; a row whose top session's file is gone keeps its own session's
// id), and a session named alone brings the rows of every session below
// it (sessionCond). Only keys and which files are read change: each row
// is still counted once, so totals are the same with and without.

// byFamily: the report's rows by session are keyed by the session at the
// top of each chain of subagents.
func byFamily(f pidex.CostFilter) bool { return f.Rollup && slices.Contains(f.By, "session") }

// sessionKeySQL is a report's session key over the session s: its own
// id, or rolled up, the id of the session at the top of its chain (over
// familyJoin's tables).
func sessionKeySQL(rollup bool) string {
	if rollup {
		return familySessionSQL
	}
	return "s.session_id"
}

// sessionCond is a report's condition on the session it names
// (f.FileID; none when it names none): its file, or rolled up, its file
// and those of every session below it.
func (rd *Reader) sessionCond(ctx context.Context, f pidex.CostFilter) (Conds, error) {
	switch {
	case f.FileID == 0:
		return nil, nil
	case !f.Rollup:
		return Conds{numEq("call.file", f.FileID)}, nil
	}
	ids, err := rd.withSubagents(ctx, f.FileID)
	if err != nil {
		return nil, err
	}
	return Conds{numIn("call.file", ids)}, nil
}

// familyJoin joins the file ff and session fs at the top of the chain of
// the session s of file f (none for a session nobody started).
func familyJoin(d Dialect) string {
	return " LEFT JOIN files ff ON ff.path = s.family" + d.sameMachine("ff", "f") + " LEFT JOIN sessions fs ON fs.file_id = ff.id" + d.sameMachine("fs", "ff")
}

// familySessionSQL is the session id of s's family, over familyJoin.
const familySessionSQL = "COALESCE(fs.session_id, s.session_id)"

// withSubagents is the file of the session fileID and the files of every
// session below it in its chain of subagents: the sessions of its family
// (one index lookup), then the links from it down, followed in Go.
func (rd *Reader) withSubagents(ctx context.Context, fileID int64) ([]int64, error) {
	b := rd.backend()
	d, db := b.Dialect(), b.Rows()
	var top struct {
		Path   string `db:"path"`
		Family string `db:"family"`
	}
	err := db.GetContext(ctx, &top, db.Rebind(`SELECT f.path, s.family`+d.sessionsFrom()+` WHERE `+d.FileIs("s")), fileID)
	if err != nil {
		return nil, sessionError(fileID, err)
	}
	family := cmp.Or(top.Family, top.Path)
	var rows []struct {
		FileID    int64  `db:"file_id"`
		Path      string `db:"path"`
		SpawnedBy string `db:"spawned_by"`
	}
	q := `SELECT s.file_id, f.path, s.spawned_by FROM sessions s JOIN files f ON f.id = s.file_id` + d.sameMachine("f", "s") + ` WHERE s.family = ?`
	args := []any{family}
	if d.Machines {
		q += ` AND s.machine_id = (SELECT machine_id FROM files WHERE id = ?)`
		args = append(args, fileID)
	}
	if err := db.SelectContext(ctx, &rows, db.Rebind(q), args...); err != nil {
		return nil, fmt.Errorf("sum usage: %w", err)
	}
	ids := []int64{fileID}
	below := map[string]bool{top.Path: true}
	for grew := true; grew; {
		grew = false
		for _, r := range rows {
			if below[r.SpawnedBy] && !below[r.Path] {
				below[r.Path], grew = true, true
				ids = append(ids, r.FileID)
			}
		}
	}
	slices.Sort(ids)
	return ids, nil
}
