package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
	"github.com/pidex-dev/pidex/sqlite"
)

// A new entry kind is one edit: this test registers a kind pidex has never
// heard of ("checkpoint", with a field schema.Line does not decode, its
// own search group and usage source), as kinds.go would, and checks that
// every face uses it with no other change: ingest (usage facts and the
// model they are attributed to), tree (preview), show (summary), the
// context rebuild, cost (--by source, --source), search (--role) on the
// command line, and the web page and JSON API.
func TestNewKindIsOneEdit(t *testing.T) {
	pi.Register(pi.Kind{
		Type:        "checkpoint",
		Example:     `{"type":"checkpoint","id":"k","parentId":null,"timestamp":"2026-05-01T10:00:00.000Z","title":"before the refactor"}`,
		Class:       "summary",
		Group:       "checkpoint",
		UsageSource: "checkpoint",
		Carries:     true,
		Text:        func(l *schema.Line) string { return title(l) },
		Preview:     func(l *schema.Line) string { return "⚑ " + title(l) },
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

	// A second kind puts a model in effect (as model_change does): records
	// after it without a model of their own are attributed to it.
	pi.Register(pi.Kind{
		Type:      "model_pin",
		Example:   `{"type":"model_pin","id":"p","parentId":null,"timestamp":"2026-05-01T10:00:00.000Z","pin":"openai/gpt-pin"}`,
		SetsModel: true,
		Text:      func(*schema.Line) string { return "" },
		Preview:   func(l *schema.Line) string { return pin(l) },
		Show:      func(l *schema.Line, _ pi.Where) pi.Shown { return pi.Shown{Title: "model pin", Detail: pin(l)} },
		Facts: func(l *schema.Line) pi.Facts {
			p, m, _ := strings.Cut(pin(l), "/")
			return pi.Facts{Provider: p, Model: m}
		},
		Context:  func(js.Object) []json.RawMessage { return nil },
		Settings: func(js.Object, *pi.Settings) {},
	})

	root := t.TempDir()
	file := filepath.Join(root, "--w-app--", "s.jsonl")
	lines := []string{
		`{"type":"session","version":3,"id":"newkind-1","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w/app"}`,
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"user","content":"refactor the parser","timestamp":1777629601000}}`,
		`{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-05-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"on it"}],"provider":"anthropic","model":"claude-x","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.25}},"timestamp":1777629602000}}`,
		`{"type":"model_pin","id":"p1","parentId":"a2","timestamp":"2026-05-01T10:00:02.500Z","pin":"openai/gpt-pin"}`,
		`{"type":"checkpoint","id":"k1","parentId":"p1","timestamp":"2026-05-01T10:00:03.000Z","title":"before the refactor","usage":{"input":3,"output":4,"cacheRead":0,"cacheWrite":0,"totalTokens":7,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}}}`,
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
	has := func(face, got string, wants ...string) {
		t.Helper()
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", face, w, got)
			}
		}
	}
	run("index")
	has("tree", run("tree", "newkind-1"), "k1 checkpoint  ⚑ before the refactor")
	has("show", run("show", "newkind-1"), "checkpoint · k1 · 2026-05-01 10:00:03 · before the refactor")
	var sc struct{ Messages []map[string]any }
	ctxJSON := run("show", "newkind-1", "--context", "--json")
	if err := json.Unmarshal([]byte(ctxJSON), &sc); err != nil || len(sc.Messages) != 3 || sc.Messages[2]["content"] != "before the refactor" {
		t.Errorf("the context lacks the new kind's message (%v):\n%s", err, ctxJSON)
	}
	has("list --json", run("list", "--json"), `"cost":0.75`)
	has("cost --by source", run("cost", "--by", "source", "--json"), `"source": "checkpoint"`, `"cost": 0.5`)
	has("cost --source", run("cost", "--source", "checkpoint", "--by", "model", "--json"),
		`"model": "openai/gpt-pin"`, `"cost": 0.5`) // attributed to the model in effect
	has("search --role", run("search", "--role", "checkpoint", "--json", "refactor"), `"entryId":"k1"`, `"role":"checkpoint"`)
	has("search --help", run("search", "--help"), "checkpoint")

	db, err := sqlite.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	var attr string
	if err := db.Get(&attr, `SELECT attr_model FROM usage WHERE source = 'checkpoint'`); err != nil || attr != "gpt-pin" {
		t.Errorf("the new kind's usage is attributed to %q (%v), want gpt-pin (the model the other new kind put in effect)", attr, err)
	}
	db.Close()

	// The web face: the page shows the entry with its look, the API
	// filters and searches by it.
	eng, err := engine.Open(context.Background(), engine.Options{DBPath: dbPath, Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	get := webGetter(t, eng)
	has("the session page", get("/s/newkind-1"), `class="entry summary`, "before the refactor")
	has("the tree panel", get("/s/newkind-1"), `<span class="k">checkpoint</span>`, "⚑ before the refactor")
	has("/api/cost?source=", get("/api/cost?source=checkpoint&by=source"), `"source": "checkpoint"`)
	has("/api/search?role=", get("/api/search?q=refactor&role=checkpoint"), `"entryId":"k1"`)
	has("the search page", get("/search?q=refactor"), "checkpoint")
}

func title(l *schema.Line) string { return js.StringOr(js.Field(l.Raw, "title"), "") }

func pin(l *schema.Line) string { return js.StringOr(js.Field(l.Raw, "pin"), "") }
