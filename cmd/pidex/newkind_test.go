package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/catalog"
	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// A new entry kind is one edit: this test registers a kind pidex has never
// heard of ("checkpoint", with a field schema.Line does not decode), as
// kinds.go would, and checks that ingest (usage facts), tree (preview),
// show (summary) and the context rebuild all use it with no other change.
func TestNewKindIsOneEdit(t *testing.T) {
	pi.Register(pi.Kind{
		Type:    "checkpoint",
		Example: `{"type":"checkpoint","id":"k","parentId":null,"timestamp":"2026-05-01T10:00:00.000Z","title":"before the refactor"}`,
		Carries: true,
		Text:    func(l *schema.Line) string { return title(l) },
		Preview: func(l *schema.Line) string { return "⚑ " + title(l) },
		Show: func(l *schema.Line, _ pi.Where) pi.Shown {
			return pi.Shown{Title: "checkpoint", Detail: title(l)}
		},
		Facts: func(l *schema.Line) pi.Facts {
			if l.Usage == nil {
				return pi.Facts{}
			}
			return pi.Facts{Usage: []pi.UsageRecord{{Source: "checkpoint", Usage: *l.Usage}}}
		},
		Context: func(o js.Object) []json.RawMessage {
			m := js.Object{{Key: "role", Val: js.JSONString("custom")}, {Key: "content", Val: o.Get("title")}}
			b, _ := m.MarshalJSON()
			return []json.RawMessage{b}
		},
		Settings: func(js.Object, *pi.Settings) {},
	})

	root := t.TempDir()
	file := filepath.Join(root, "--w-app--", "s.jsonl")
	lines := []string{
		`{"type":"session","version":3,"id":"newkind-1","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w/app"}`,
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"user","content":"refactor the parser","timestamp":1777629601000}}`,
		`{"type":"checkpoint","id":"k1","parentId":"a1","timestamp":"2026-05-01T10:00:02.000Z","title":"before the refactor","usage":{"input":3,"output":4,"cacheRead":0,"cacheWrite":0,"totalTokens":7,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}}}`,
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "c.sqlite")
	run := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if err := newApp(&out, &errb).execute(context.Background(), append([]string{"--db", dbPath, "--sessions", root}, args...)); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errb.String())
		}
		return out.String()
	}
	if tree := run("tree", "newkind-1"); !strings.Contains(tree, "k1 checkpoint  ⚑ before the refactor") {
		t.Errorf("tree does not preview the new kind:\n%s", tree)
	}
	if show := run("show", "newkind-1"); !strings.Contains(show, "checkpoint · k1 · 2026-05-01 10:00:02 · before the refactor") {
		t.Errorf("show does not summarise the new kind:\n%s", show)
	}
	var sc struct{ Messages []map[string]any }
	ctxJSON := run("show", "newkind-1", "--context", "--json")
	if err := json.Unmarshal([]byte(ctxJSON), &sc); err != nil || len(sc.Messages) != 2 || sc.Messages[1]["content"] != "before the refactor" {
		t.Errorf("the context lacks the new kind's message (%v):\n%s", err, ctxJSON)
	}
	db, err := catalog.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var cost float64
	if err := db.Get(&cost, `SELECT cost_total FROM usage WHERE source = 'checkpoint'`); err != nil || cost != 0.5 {
		t.Errorf("the new kind's usage was not ingested: %v, %v", cost, err)
	}
	if got := run("list", "--json"); !strings.Contains(got, `"cost":0.5`) {
		t.Errorf("the session's cost lacks the new kind's usage:\n%s", got)
	}
}

func title(l *schema.Line) string { return js.StringOr(js.Field(l.Raw, "title"), "") }
