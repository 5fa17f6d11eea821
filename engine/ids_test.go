package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/catalogtest"
)

// UUIDv7 ids from one clock share their first dozen characters: the
// listing's short ids are the shortest unique prefixes, each resolves to
// its session, and a shared prefix is an error that counts every match
// (not the candidates it lists) and ends with what to do.
func TestShortIDsResolveAndAmbiguity(t *testing.T) {
	root := t.TempDir()
	const n = 30
	var ids []string
	for i := range n {
		id := fmt.Sprintf("019f5be5-7b%02x-7000-8a7c-db42f66cd116", i*7)
		ids = append(ids, id)
		catalogtest.WriteFile(t, filepath.Join(root, "--w--", fmt.Sprintf("s%02d.jsonl", i)), session(id, 1))
	}
	e := open(t, filepath.Join(t.TempDir(), "c.sqlite"), root, nil)
	refresh(t, e)
	ctx := context.Background()
	refs := make([]pidex.SessionRef, len(ids))
	for i, id := range ids {
		refs[i] = pidex.SessionRef{SessionID: id, Path: filepath.Join(root, "--w--", fmt.Sprintf("s%02d.jsonl", i))}
	}
	short, err := e.Handles(ctx, refs, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		p := short[i]
		if len(p) >= len(id) || !strings.HasPrefix(id, p) {
			t.Errorf("short id %q of %q", p, id)
			continue
		}
		ref, err := e.Resolve(ctx, p, "")
		if err != nil || ref.SessionID != id {
			t.Errorf("Resolve(%q) = %v, %v; want %s", p, ref.SessionID, err, id)
		}
		// One character less matches another session.
		if _, err := e.Resolve(ctx, p[:len(p)-1], ""); !errors.Is(err, pidex.ErrAmbiguous) {
			t.Errorf("Resolve(%q): %v, want ambiguous", p[:len(p)-1], err)
		}
	}
	_, err = e.Resolve(ctx, "019f5be5", "")
	var amb *pidex.AmbiguousError
	if !errors.As(err, &amb) || amb.Matches != n || len(amb.Candidates) != 20 {
		t.Fatalf("Resolve of a shared prefix: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{`session "019f5be5" matches 30 sessions:`, "… and 10 more\n", "name one by its handle as shown, more of its id"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.HasSuffix(msg, "ambiguous") || strings.HasSuffix(msg, ": usage error") {
		t.Errorf("message ends with a sentinel's words:\n%s", msg)
	}
}
