package query

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
// unique id prefix, unique session name, or handle (ID@N: see Handles),
// among machine's sessions (a team catalog's; "": any machine's). A
// session the reference does not name is a *pidex.NotFoundError; several
// are a *pidex.AmbiguousError, with the candidates and their handles.
// Lookups cover the whole catalog, not only the reader's roots.
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
	if id, n, ok := splitHandle(ref); ok {
		return rd.nth(ctx, ref, id, n, machine)
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
	return pidex.SessionRef{}, rd.ambiguous(ctx, ref, n, refs)
}

// ambiguous is the error of a reference that matches n sessions, refs
// the first: each candidate with the handle that opens it.
func (rd *Reader) ambiguous(ctx context.Context, ref string, n int, refs []pidex.SessionRef) error {
	handles, err := rd.Handles(ctx, refs, true)
	if err != nil {
		return err
	}
	return &pidex.AmbiguousError{Ref: ref, Matches: n, Candidates: refs, Handles: handles}
}

// A handle opens exactly one file. It is the session's id, or its
// shortest prefix no other id starts with (pidex.ShortIDs); when several
// files hold that id (a copy of a file, a backup, a fork that kept its
// source's id, the same file on two machines of a team catalog), it is
// followed by @N, the file's place among them by path, then machine.

// splitHandle reads ID@N.
func splitHandle(ref string) (id string, n int, ok bool) {
	i := strings.LastIndexByte(ref, '@')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(ref[i+1:])
	if err != nil || n < 1 || strconv.Itoa(n) != ref[i+1:] {
		return "", 0, false
	}
	return ref[:i], n, true
}

// nth is the file a handle names: the Nth of the files holding the id
// that id names, in full or by a unique prefix.
func (rd *Reader) nth(ctx context.Context, ref, id string, n int, machine string) (pidex.SessionRef, error) {
	b := rd.backend()
	d, db := b.Dialect(), b.Rows()
	q := `SELECT s.file_id, f.path, s.session_id, COALESCE(s.name, '') AS name, ` + d.machineCol() + ` AS machine` + d.sessionsFrom()
	var refs []pidex.SessionRef
	if err := db.SelectContext(ctx, &refs, db.Rebind(q+` WHERE s.session_id = ? ORDER BY f.path, machine`), id); err != nil {
		return pidex.SessionRef{}, fmt.Errorf("resolve session %q: %w", ref, err)
	}
	if len(refs) == 0 {
		err := db.SelectContext(ctx, &refs, db.Rebind(q+` WHERE substr(s.session_id, 1, length(CAST(? AS TEXT))) = ?
			ORDER BY s.session_id, f.path, machine`), id, id)
		if err != nil {
			return pidex.SessionRef{}, fmt.Errorf("resolve session %q: %w", ref, err)
		}
	}
	if len(refs) > 0 && refs[0].SessionID != refs[len(refs)-1].SessionID { // the prefix names several ids
		return pidex.SessionRef{}, rd.ambiguous(ctx, ref, len(refs), refs[:min(len(refs), candidates)])
	}
	if n > len(refs) || (machine != "" && refs[n-1].Machine != machine) {
		return pidex.SessionRef{}, &pidex.NotFoundError{Ref: ref}
	}
	return refs[n-1], nil
}

// Handles are the handles of refs (see above), in their order: with the
// id's shortest unique prefix when short (what a person types), else the
// whole id (what a script keeps).
func (rd *Reader) Handles(ctx context.Context, refs []pidex.SessionRef, short bool) ([]string, error) {
	b := rd.backend()
	d, db := b.Dialect(), b.Rows()
	ids := make([]string, 0, len(refs))
	for _, r := range refs {
		if !slices.Contains(ids, r.SessionID) {
			ids = append(ids, r.SessionID)
		}
	}
	out := make([]string, len(refs))
	if len(ids) == 0 {
		return out, nil
	}
	// The files holding those ids, in handle order.
	type file struct{ ID, Path, Machine string }
	cond, args := Conds{in("session.id", ids)}.SQL(d)
	files, err := Collect(ctx, db, "name sessions", db.Rebind(`SELECT s.session_id, f.path, `+d.machineCol()+` AS machine`+d.sessionsFrom()+
		` WHERE `+cond+` ORDER BY s.session_id, f.path, machine`), args,
		func(f *file) []any { return []any{&f.ID, &f.Path, &f.Machine} })
	if err != nil {
		return nil, err
	}
	place, count := map[file]int{}, map[string]int{}
	for _, f := range files {
		count[f.ID]++
		place[f] = count[f.ID]
	}
	name := func(id string) string { return id }
	if short {
		all, err := rd.SessionIDs(ctx)
		if err != nil {
			return nil, err
		}
		prefix := pidex.ShortIDs(all, ids)
		name = func(id string) string { return prefix[id] }
	}
	for i, r := range refs {
		out[i] = name(r.SessionID)
		if count[r.SessionID] > 1 {
			out[i] += "@" + strconv.Itoa(place[file{r.SessionID, r.Path, r.Machine}])
		}
	}
	return out, nil
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
