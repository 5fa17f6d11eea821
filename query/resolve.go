// Package query is the catalog's read side: resolving sessions, paths,
// listings. It never writes and never imports the indexer; callers refresh
// first when they want fresh answers.
package query

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/schema"
)

const refColumns = `s.file_id, f.path, s.session_id, COALESCE(s.name, '') AS name
	FROM sessions s JOIN files f ON f.id = s.file_id`

// Resolve finds one session by, in order: file path, full session id,
// unique id prefix, or unique session name. No match is schema.ErrNotFound;
// several are schema.ErrAmbiguous, with the candidates in the message.
func Resolve(ctx context.Context, db *sqlx.DB, ref string) (schema.SessionRef, error) {
	if ref == "" {
		return schema.SessionRef{}, fmt.Errorf("resolve session: empty reference: %w", schema.ErrUsage)
	}
	if looksLikePath(ref) {
		if abs, err := filepath.Abs(ref); err == nil {
			if got, err := pick(ctx, db, ref, "f.path = ?", abs); err != schema.ErrNotFound {
				return got, err
			}
		}
	}
	for _, try := range []struct{ where, arg string }{
		{"s.session_id = ?", ref},
		{"substr(s.session_id, 1, length(?)) = ?", ref},
		{"s.name = ?", ref},
	} {
		args := []any{try.arg}
		if strings.Count(try.where, "?") == 2 {
			args = append(args, try.arg)
		}
		got, err := pick(ctx, db, ref, try.where, args...)
		if err != schema.ErrNotFound {
			return got, err
		}
	}
	return schema.SessionRef{}, fmt.Errorf("resolve session %q: %w", ref, schema.ErrNotFound)
}

func looksLikePath(ref string) bool {
	if strings.ContainsRune(ref, os.PathSeparator) || strings.HasSuffix(ref, ".jsonl") {
		return true
	}
	_, err := os.Stat(ref)
	return err == nil
}

// pick returns the single match, ErrNotFound for none (unwrapped, so the
// caller can try the next rule), or an ambiguity error listing candidates.
func pick(ctx context.Context, db *sqlx.DB, ref, where string, args ...any) (schema.SessionRef, error) {
	var refs []schema.SessionRef
	q := "SELECT " + refColumns + " WHERE " + where + " ORDER BY f.path LIMIT 21"
	if err := db.SelectContext(ctx, &refs, q, args...); err != nil {
		return schema.SessionRef{}, fmt.Errorf("resolve session %q: %w", ref, err)
	}
	switch len(refs) {
	case 0:
		return schema.SessionRef{}, schema.ErrNotFound
	case 1:
		return refs[0], nil
	}
	var b strings.Builder
	for i, r := range refs {
		if i == 20 {
			b.WriteString("\n  …")
			break
		}
		fmt.Fprintf(&b, "\n  %s  %s", r.SessionID, r.Path)
		if r.Name != "" {
			fmt.Fprintf(&b, "  (%s)", r.Name)
		}
	}
	return schema.SessionRef{}, fmt.Errorf("session %q matches %d sessions:%s: %w", ref, len(refs), b.String(), schema.ErrAmbiguous)
}
