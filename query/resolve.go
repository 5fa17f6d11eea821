package query

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pidex-dev/pidex"
)

const refColumns = `s.file_id, f.path, s.session_id, COALESCE(s.name, '') AS name
	FROM sessions s JOIN files f ON f.id = s.file_id`

// candidates is how many sessions an ambiguity error lists.
const candidates = 20

// Resolve finds one session by, in order: file path, full session id,
// unique id prefix, or unique session name. No match is
// pidex.ErrNotFound; several are a *pidex.AmbiguousError, with the
// candidates. A local catalog has no machines: machine must be "".
func (rd *Reader) Resolve(ctx context.Context, ref, machine string) (pidex.SessionRef, error) {
	if machine != "" {
		return pidex.SessionRef{}, ErrNoMachines
	}
	if strings.TrimSpace(ref) == "" {
		return pidex.SessionRef{}, pidex.Usagef("no session given (an id, a unique prefix of one, a name or a file path)")
	}
	if looksLikePath(ref) {
		if abs, err := filepath.Abs(ref); err == nil {
			if got, err := rd.pick(ctx, ref, "f.path = ?", abs); err != pidex.ErrNotFound {
				return got, err
			}
		}
	}
	for _, where := range []string{"s.session_id = ?", "substr(s.session_id, 1, length(?1)) = ?1", "s.name = ?"} {
		got, err := rd.pick(ctx, ref, where, ref)
		if err != pidex.ErrNotFound {
			return got, err
		}
	}
	return pidex.SessionRef{}, fmt.Errorf("session %q: %w", ref, pidex.ErrNotFound)
}

// ErrNoMachines: a machine filter or key on a local catalog, which holds
// one machine's sessions and no machine names.
var ErrNoMachines = pidex.Usagef("a local catalog has no machines: --machine and --by machine read a team catalog (--catalog postgres://…)")

func looksLikePath(ref string) bool {
	if strings.ContainsRune(ref, os.PathSeparator) || strings.HasSuffix(ref, ".jsonl") {
		return true
	}
	_, err := os.Stat(ref)
	return err == nil
}

// pick returns the single match, pidex.ErrNotFound for none (unwrapped,
// so the caller can try the next rule), or an ambiguity error with the
// number of matches and the first candidates.
func (rd *Reader) pick(ctx context.Context, ref, where string, args ...any) (pidex.SessionRef, error) {
	var refs []pidex.SessionRef
	q := "SELECT " + refColumns + " WHERE " + where + " ORDER BY f.path LIMIT " + fmt.Sprint(candidates+1)
	if err := rd.db.SelectContext(ctx, &refs, q, args...); err != nil {
		return pidex.SessionRef{}, fmt.Errorf("resolve session %q: %w", ref, err)
	}
	switch len(refs) {
	case 0:
		return pidex.SessionRef{}, pidex.ErrNotFound
	case 1:
		return refs[0], nil
	}
	n := len(refs)
	if n > candidates {
		if err := rd.db.GetContext(ctx, &n, "SELECT count(*) FROM sessions s JOIN files f ON f.id = s.file_id WHERE "+where, args...); err != nil {
			return pidex.SessionRef{}, fmt.Errorf("resolve session %q: %w", ref, err)
		}
		refs = refs[:candidates]
	}
	return pidex.SessionRef{}, &pidex.AmbiguousError{Ref: ref, Matches: n, Candidates: refs}
}
