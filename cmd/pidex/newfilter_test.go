package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/pgtest"
	"github.com/pidex-dev/pidex/mcp"
	"github.com/pidex-dev/pidex/web"
)

// A new filter is one edit: this test registers a filter pidex has never
// had ("opening", the session's first message contains a word), as
// filter.go would, and checks that every face takes it with no other
// change — the command line's list, search and cost, the web API's, the
// MCP tools' — on a local catalog and on a team catalog in PostgreSQL,
// each answering only the sessions it selects.
func TestNewFilterIsOneEdit(t *testing.T) {
	opening := pidex.On{Field: "session.first_message", Help: "sessions whose first message contains SUBSTRING (ignoring case)"}
	pidex.RegisterFilter(pidex.Filter{Name: "opening", Arg: "SUBSTRING", Match: pidex.Contains,
		List: opening, Search: opening, Cost: opening})

	root := t.TempDir()
	for i, s := range []struct{ file, id, cwd, first, cost string }{
		{"--w-app--/a.jsonl", "nf-a", "/w/app", "Refactor the parser", "0.25"},
		{"--w-app--/b.jsonl", "nf-b", "/w/app", "Write the docs", "0.5"},
		{"--w-lib--/c.jsonl", "nf-c", "/w/lib", "refactor the lexer", "1"},
	} {
		day := fmt.Sprintf("2026-05-0%d", i+1) // calls of their own, not a fork's copies
		catalogtest.WriteFile(t, filepath.Join(root, s.file), strings.Join([]string{
			`{"type":"session","version":3,"id":"` + s.id + `","timestamp":"` + day + `T10:00:00.000Z","cwd":"` + s.cwd + `"}`,
			`{"type":"message","id":"` + s.id + `-u","parentId":null,"timestamp":"` + day + `T10:00:01.000Z","message":{"role":"user","content":"` + s.first + `, zebra"}}`,
			`{"type":"message","id":"` + s.id + `-a","parentId":"` + s.id + `-u","timestamp":"` + day + `T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"on it, zebra"}],"provider":"anthropic","model":"claude-x","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":` + s.cost + `}}}}`,
		}, "\n")+"\n")
	}
	db := filepath.Join(t.TempDir(), "c.sqlite")
	local := []string{"--db", db, "--sessions", root}
	cli(t, 0, append(local, "-q", "index")...)
	// The local catalog, and a team catalog it is pushed into (skipped,
	// saying so, where no PostgreSQL can be had).
	catalogs := []struct {
		name string
		open func(t *testing.T) ([]string, engine.Options)
	}{
		{"sqlite", func(*testing.T) ([]string, engine.Options) {
			return local, engine.Options{DBPath: db, Roots: []string{root}}
		}},
		{"postgres", func(t *testing.T) ([]string, engine.Options) {
			url := pgtest.URL(t)
			cli(t, 0, append(local, "--machine", "m1", "-q", "push", "--to", url)...)
			return []string{"--catalog", url}, engine.Options{Catalog: url}
		}},
	}
	// What the filter keeps: the two sessions that open with "refactor",
	// whatever its case; their hits; their cost.
	want := []string{"nf-a", "nf-c"}
	for _, c := range catalogs {
		t.Run(c.name, func(t *testing.T) {
			args, opts := c.open(t)
			check := func(face string, ids []string, cost float64) {
				t.Helper()
				slices.Sort(ids)
				if !slices.Equal(slices.Compact(ids), want) {
					t.Errorf("%s: sessions %v, want %v", face, ids, want)
				}
				if cost != 1.25 {
					t.Errorf("%s: cost %v, want 1.25", face, cost)
				}
			}
			// The command line: a flag of each command.
			run := func(more ...string) string { return cli(t, 0, append(append([]string{}, args...), more...)...) }
			check("pidex list/search/cost --opening",
				append(sessionIDsOf(t, run("list", "--opening", "REFACTOR", "--json"), "id"),
					sessionIDsOf(t, run("search", "--opening", "refactor", "--json", "zebra"), "sessionId")...),
				costOf(t, run("cost", "--opening", "refactor", "--by", "model", "--json")))
			help := run("list", "--help")
			if !strings.Contains(help, "--opening") || !strings.Contains(help, "first message contains") {
				t.Errorf("list --help lacks the filter:\n%s", help)
			}

			eng, err := engine.Open(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			// The web API: a parameter of each endpoint.
			get := webGetter(t, eng)
			check("/api/sessions, /api/search, /api/cost ?opening=",
				append(sessionIDsOf(t, get("/api/sessions?opening=Refactor"), "id"),
					sessionIDsOf(t, get("/api/search?q=zebra&opening=refactor"), "sessionId")...),
				costOf(t, get("/api/cost?by=model&opening=refactor&"+url.Values{"tz": {"UTC"}}.Encode())))

			// The MCP tools: an argument of each.
			cs := mcpClient(t, mcp.New(eng, mcp.Options{}))
			call := func(tool string, args map[string]any) map[string]any {
				t.Helper()
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
				if err != nil || res.IsError {
					t.Fatalf("%s %v: %v %+v", tool, args, err, res)
				}
				var out map[string]any
				b, _ := json.Marshal(res.StructuredContent)
				if err := json.Unmarshal(b, &out); err != nil {
					t.Fatal(err)
				}
				return out
			}
			var ids []string
			for _, s := range call("list_sessions", map[string]any{"opening": "refactor"})["sessions"].([]any) {
				ids = append(ids, s.(map[string]any)["session"].(map[string]any)["id"].(string))
			}
			for _, h := range call("search_sessions", map[string]any{"query": "zebra", "opening": "refactor"})["hits"].([]any) {
				ids = append(ids, h.(map[string]any)["session"].(map[string]any)["id"].(string))
			}
			totals := call("cost_report", map[string]any{"opening": "refactor", "by": []string{"model"}})["totals"].(map[string]any)
			check("list_sessions, search_sessions, cost_report {opening}", ids, totals["cost"].(float64))
		})
	}
}

// sessionIDsOf reads the session ids of a JSON array of objects (the key
// names the field).
func sessionIDsOf(t *testing.T, doc, key string) []string {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal([]byte(doc), &rows); err != nil {
		t.Fatalf("%v:\n%s", err, doc)
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r[key].(string))
	}
	return ids
}

// costOf is the total cost of a cost report's JSON.
func costOf(t *testing.T, doc string) float64 {
	t.Helper()
	var r struct{ Totals struct{ Cost float64 } }
	if err := json.Unmarshal([]byte(doc), &r); err != nil {
		t.Fatalf("%v:\n%s", err, doc)
	}
	return r.Totals.Cost
}

// mcpClient connects an SDK client to srv in process.
func mcpClient(t *testing.T, srv *mcp.Server) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// webGetter serves cat with pidex serve's handler for the test's life and
// returns a GET of a path that must answer 200, as the body.
func webGetter(t *testing.T, cat web.Catalog) func(path string) string {
	ts := httptest.NewServer(nil)
	t.Cleanup(ts.Close)
	srv, err := web.New(cat, web.Options{Addr: ts.Listener.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = srv.Handler()
	return func(path string) string {
		t.Helper()
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
}
