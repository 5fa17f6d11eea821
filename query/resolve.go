package query

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pidex-dev/pidex"
)

// candidates is how many sessions an ambiguity error lists.
const candidates = 20

// A lookup rule: how a reference may name a session, tried in order.
type lookup struct {
	where string
	path  bool // only for a reference that looks like a path
	arg   func(ref string) []any
}

// lookups are the rules of Resolve: a file path (absolute, or as a
// machine of a team catalog wrote it), a full session id, a unique id
// prefix, a unique session name.
var lookups = []lookup{
	{where: "f.path = ?", path: true, arg: func(ref string) []any {
		if abs, err := filepath.Abs(ref); err == nil {
			return []any{abs}
		}
		return nil
	}},
	{where: "f.path = ?", path: true, arg: func(ref string) []any { return []any{ref} }},
	{where: "s.session_id = ?", arg: func(ref string) []any { return []any{ref} }},
	{where: "substr(s.session_id, 1, length(CAST(? AS TEXT))) = ?", arg: func(ref string) []any { return []any{ref, ref} }},
	{where: "s.name = ?", arg: func(ref string) []any { return []any{ref} }},
}

// Resolve finds one session by, in order: file path, full session id,
// unique id prefix, or unique session name, among machine's sessions (a
// team catalog's; "": any machine's). A session the reference does not
// name is a *pidex.NotFoundError; several are a *pidex.AmbiguousError,
// with the candidates. Lookups cover the whole catalog, not only the
// reader's roots.
func (rd *Reader) Resolve(ctx context.Context, ref, machine string) (pidex.SessionRef, error) {
	if err := rd.CheckMachine(machine); err != nil {
		return pidex.SessionRef{}, err
	}
	if strings.TrimSpace(ref) == "" {
		return pidex.SessionRef{}, pidex.Usagef("no session given (an id, a unique prefix of one, a name or a file path)")
	}
	isPath := looksLikePath(ref)
	for _, l := range lookups {
		args := l.arg(ref)
		if l.path && !isPath || args == nil {
			continue
		}
		got, err := rd.pick(ctx, ref, machine, l.where, args)
		if !errors.Is(err, errNoMatch) {
			return got, err
		}
	}
	return pidex.SessionRef{}, &pidex.NotFoundError{Ref: ref}
}

var errNoMatch = errors.New("no match")

func looksLikePath(ref string) bool {
	if strings.ContainsAny(ref, `/\`) || strings.HasSuffix(ref, ".jsonl") {
		return true
	}
	_, err := os.Stat(ref)
	return err == nil
}

// pick returns the single match, errNoMatch for none, or an ambiguity
// error with the number of matches and the first candidates.
func (rd *Reader) pick(ctx context.Context, ref, machine, where string, args []any) (pidex.SessionRef, error) {
	b := rd.backend()
	d, db := b.Dialect(), b.Rows()
	if machine != "" {
		where += " AND mm.name = ?"
		args = append(args, machine)
	}
	var refs []pidex.SessionRef
	q := `SELECT s.file_id, f.path, s.session_id, COALESCE(s.name, '') AS name, ` + d.machineCol() + ` AS machine` +
		d.sessionsFrom() + ` WHERE ` + where + ` ORDER BY f.path, machine LIMIT ` + strconv.Itoa(candidates+1)
	if err := db.SelectContext(ctx, &refs, db.Rebind(q), args...); err != nil {
		return pidex.SessionRef{}, fmt.Errorf("resolve session %q: %w", ref, err)
	}
	switch len(refs) {
	case 0:
		return pidex.SessionRef{}, errNoMatch
	case 1:
		return refs[0], nil
	}
	n := len(refs)
	if n > candidates {
		if err := db.GetContext(ctx, &n, db.Rebind(`SELECT count(*)`+d.sessionsFrom()+` WHERE `+where), args...); err != nil {
			return pidex.SessionRef{}, fmt.Errorf("resolve session %q: %w", ref, err)
		}
		refs = refs[:candidates]
	}
	return pidex.SessionRef{}, &pidex.AmbiguousError{Ref: ref, Matches: n, Candidates: refs}
}

// SessionIDs lists every session id of the catalog: what a short id must
// be unique among (Resolve matches the whole catalog).
func (rd *Reader) SessionIDs(ctx context.Context) ([]string, error) {
	var ids []string
	if err := rd.backend().Rows().SelectContext(ctx, &ids, `SELECT DISTINCT session_id FROM sessions`); err != nil {
		return nil, fmt.Errorf("list session ids: %w", err)
	}
	return ids, nil
}

// ShortIDs returns the shortest unique prefix of each of ids among every
// session of the catalog (pidex.ShortIDs): what a listing shows, so that
// the id a reader copies resolves.
func (rd *Reader) ShortIDs(ctx context.Context, ids []string) (map[string]string, error) {
	all, err := rd.SessionIDs(ctx)
	if err != nil {
		return nil, err
	}
	return pidex.ShortIDs(all, ids), nil
}

// ErrNoMachines: a machine filter or key on a local catalog, which holds
// one machine's sessions and no machine names.
var ErrNoMachines = pidex.Usagef("a local catalog has no machines: --machine and --by machine read a team catalog (--catalog postgres://…)")

// CheckMachine refuses a machine filter (non-empty) on a catalog without
// machines, as every read would; a face checks a machine it applies to
// all its calls once, up front.
func (rd *Reader) CheckMachine(machine string) error {
	if machine != "" && !rd.Team() {
		return ErrNoMachines
	}
	return nil
}

// Team reports whether the catalog holds several machines' sessions (a
// team catalog, pushed by pidex push).
func (rd *Reader) Team() bool { return rd.backend().Dialect().Machines }
