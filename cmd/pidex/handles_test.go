package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/mcp"
)

// Two files hold one session id (a session and an older copy of it, as
// a backup or a synced folder leaves, here with the same file name): each
// opens by the handle pidex prints for it — in the listing, the ambiguity
// error and search's open hints — in show, tree, path, export, resume,
// the web pages and the MCP tools; and every command pidex prints to open
// a hit works when run.
func TestEveryCopyOpensByItsHandle(t *testing.T) {
	const id = "019ebb22-69c0-7a0e-8b5c-3d2e1f0a9b8c"
	base := t.TempDir()
	live, backup := filepath.Join(base, "sessions"), filepath.Join(base, "backup")
	name := filepath.Join("--w-app--", "2026-05-01T10-00-00-000Z_"+id+".jsonl")
	lines := []string{
		`{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w/app"}`,
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"user","content":"如月 asks about the harbour"}}`,
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-05-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"The harbour opens at six."}],"provider":"anthropic","model":"claude-x"}}`,
		`{"type":"message","id":"u2","parentId":"a1","timestamp":"2026-05-01T10:00:03.000Z","message":{"role":"user","content":"And on 如月's holiday?"}}`,
	}
	older := strings.Join(lines[:3], "\n") + "\n" // the backup: two entries fewer
	catalogtest.WriteFile(t, filepath.Join(live, name), strings.Join(lines, "\n")+"\n")
	catalogtest.WriteFile(t, filepath.Join(backup, name), older)
	paths := []string{filepath.Join(backup, name), filepath.Join(live, name)} // handle order: by path
	entries := map[string]int{paths[0]: 2, paths[1]: 3}
	db := filepath.Join(t.TempDir(), "c.sqlite")
	args := []string{"--db", db, "--sessions", live, "--sessions", backup, "-q"}
	run := func(want int, more ...string) string {
		t.Helper()
		return cli(t, want, append(slices.Clone(args), more...)...)
	}
	run(0, "index")

	// The handles pidex prints: the listing on a terminal, the ambiguity
	// error, search's hints (piped: the full id).
	var out, errb bytes.Buffer
	a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &errb, OutTTY: true, Width: 200, Height: 40})
	if err := a.execute(t.Context(), append(slices.Clone(args), "list", "--no-pager")); err != nil {
		t.Fatal(err)
	}
	short := regexp.MustCompile(`\b019ebb22\S*@[12]\b`).FindAllString(out.String(), -1)
	slices.Sort(short)
	if !slices.Equal(short, []string{"019ebb22@1", "019ebb22@2"}) {
		t.Fatalf("the listing's handles %v, want 019ebb22@1 and @2:\n%s", short, out.String())
	}
	out.Reset()
	err := newAppIO(&render.IOStreams{Out: &out, ErrOut: &errb}).execute(t.Context(), append(slices.Clone(args), "show", "019ebb22"))
	if msg := describe(err); !strings.Contains(msg, "019ebb22@1  "+paths[0]) || !strings.Contains(msg, "019ebb22@2  "+paths[1]) {
		t.Errorf("the ambiguity error does not name each file's handle:\n%s", msg)
	}
	hits := strings.Split(strings.TrimSpace(run(0, "search", "如月")), "\n")[1:]
	if len(hits) != 3 {
		t.Fatalf("search found %d hits, want 3 (two in the live file, one in the backup)", len(hits))
	}
	for _, h := range hits {
		f := strings.Split(h, "\t")
		path, open, resume := f[7], f[10], f[11]
		for _, hint := range []string{open, resume + " --print"} {
			got := run(0, strings.Fields(hint)[1:]...) // every printed command works as printed
			if !strings.Contains(got, path) {
				t.Errorf("%s does not open %s:\n%.500s", hint, path, got)
			}
		}
	}

	eng, err := engine.Open(context.Background(), engine.Options{DBPath: db, Roots: []string{live, backup}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	get := webGetter(t, eng)
	cs := mcpClient(t, mcp.New(eng, mcp.Options{}))
	for i, path := range paths {
		for _, h := range []string{short[i], id + "@" + string(rune('1'+i))} {
			t.Run(h, func(t *testing.T) {
				for _, cmd := range [][]string{{"show", h}, {"tree", h}, {"export", h}, {"resume", h, "--print"}, {"show", h, "--json"}} {
					if got := run(0, cmd...); !strings.Contains(got, path) && !strings.Contains(got, "u1") {
						t.Errorf("pidex %s: not the file %s:\n%.400s", strings.Join(cmd, " "), path, got)
					}
				}
				if got := run(0, "show", h); !strings.Contains(got, "File     "+path+"\n") {
					t.Errorf("pidex show %s opened another file:\n%.300s", h, got)
				}
				var es []json.RawMessage
				if err := json.Unmarshal([]byte(run(0, "path", h, "--json")), &es); err != nil || len(es) != entries[path] {
					t.Errorf("pidex path %s: %d entries, want %d (%v)", h, len(es), entries[path], err)
				}
				// The live file alone holds the second question.
				if page := get("/s/" + h); strings.Contains(page, "holiday") != (path == paths[1]) {
					t.Errorf("/s/%s does not show the file %s", h, path)
				}
				var info struct{ Path string }
				if err := json.Unmarshal([]byte(get("/api/sessions/"+h)), &info); err != nil || info.Path != path {
					t.Errorf("/api/sessions/%s: %q, want %s (%v)", h, info.Path, path, err)
				}
				for _, tool := range []string{"get_session", "read_session", "export_session"} {
					res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tool, Arguments: map[string]any{"session": h}})
					if err != nil || res.IsError {
						t.Fatalf("%s session=%s: %v %+v", tool, h, err, res)
					}
					b, _ := json.Marshal(res.StructuredContent)
					if !bytes.Contains(b, []byte(`"path":"`+path+`"`)) {
						t.Errorf("%s session=%s: not the file %s: %.300s", tool, h, path, b)
					}
				}
			})
		}
	}
}
