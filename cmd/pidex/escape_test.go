package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/render"
)

// Session text cannot drive the user's terminal: escape sequences,
// bell and backspace in a name, message, cwd or label are shown escaped on
// a terminal; piped, a row stays one line; JSON stays exact.
func TestHostileTextIsEscaped(t *testing.T) {
	root := t.TempDir()
	evil := "\x1b]0;pwned\x07\x1b[2J\bX\tY\nZ\u009b"
	lines := []string{
		`{"type":"session","version":3,"id":"s1","timestamp":"2026-05-01T10:00:00.000Z","cwd":` + jsonString("/w/ap\tp\x1b[31m") + `}`,
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"user","content":` + jsonString("hello "+evil) + `,"timestamp":1777629601000}}`,
		`{"type":"label","id":"l1","parentId":"a1","timestamp":"2026-05-01T10:00:02.000Z","targetId":"a1","label":` + jsonString("\x1b]8;;http://x\x07link\x1b]8;;\x07") + `}`,
		`{"type":"session_info","id":"n1","parentId":"l1","timestamp":"2026-05-01T10:00:03.000Z","name":` + jsonString("name "+evil) + `}`,
	}
	catalogtest.WriteFile(t, filepath.Join(root, "--w--", "a.jsonl"), strings.Join(lines, "\n")+"\n")
	db := filepath.Join(t.TempDir(), "c.sqlite")
	run := func(tty bool, args ...string) string {
		t.Helper()
		var out bytes.Buffer
		a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &bytes.Buffer{}, OutTTY: tty, Width: 200, Height: 50})
		if err := a.execute(context.Background(), append([]string{"--db", db, "--sessions", root, "-q"}, args...)); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out.String()
	}
	for _, args := range [][]string{{"list"}, {"tree", "s1"}, {"show", "s1"}, {"show", "s1", "--context"}, {"search", "hello"}, {"path", "s1"}} {
		out := run(true, args...)
		if i := strings.IndexAny(out, "\x1b\x07\x08\u009b"); i >= 0 && !strings.Contains(out[i:min(i+4, len(out))], "\x1b[1m") && !strings.Contains(out[i:min(i+3, len(out))], "\x1b[0m") {
			t.Errorf("%v on a terminal prints a raw control character: %q", args, out[max(0, i-20):min(len(out), i+20)])
		}
		if !strings.Contains(out, `\e`) && args[0] != "path" {
			t.Errorf("%v on a terminal does not show the escapes: %q", args, out)
		}
	}
	piped := run(false, "list")
	if n := strings.Count(piped, "\n"); n != 2 {
		t.Errorf("piped list is %d lines, want a header and one row:\n%q", n, piped)
	}
	if !strings.Contains(piped, `hello \x1b]0;pwned`) && !strings.Contains(piped, "hello \x1b]0;pwned") {
		t.Errorf("piped list lost the text: %q", piped)
	}
	var ss []struct{ Name string }
	if err := json.Unmarshal([]byte(run(false, "list", "--json")), &ss); err != nil || len(ss) != 1 || ss[0].Name != "name "+evil {
		t.Errorf("JSON is not exact: %v %+v", err, ss)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// On a terminal no format lets session text drive it: sql --format
// csv|tsv|json|ndjson, cost --csv and every --json escape ESC, BEL,
// backspace, DEL and the C1 controls (JSON as \u escapes); piped, csv,
// tsv and JSON stay exact.
func TestHostileTextIsEscapedInEveryFormat(t *testing.T) {
	root := t.TempDir()
	evil := "\x1b]0;pwned\x07\x1b[2J\bX\x7f\u009b31m\u009d8;;x\u009c\x1bP1$r\x1b\\"
	lines := []string{
		`{"type":"session","version":3,"id":"s1","timestamp":"2026-05-01T10:00:00.000Z","cwd":` + jsonString("/w/"+evil) + `}`,
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"user","content":` + jsonString("hello "+evil) + `,"timestamp":1777629601000}}`,
		`{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-05-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"p","model":` + jsonString("m"+evil) +
			`,"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"total":0.5}}}}`,
	}
	catalogtest.WriteFile(t, filepath.Join(root, "--w--", "a.jsonl"), strings.Join(lines, "\n")+"\n")
	db := filepath.Join(t.TempDir(), "c.sqlite")
	run := func(tty bool, args ...string) string {
		t.Helper()
		var out bytes.Buffer
		a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &bytes.Buffer{}, OutTTY: tty, Width: 200, Height: 50})
		if err := a.execute(context.Background(), append([]string{"--db", db, "--sessions", root, "-q"}, args...)); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out.String()
	}
	stmt := "SELECT s.cwd, m.text, u.model FROM sessions_v s, messages_v m, usage_v u WHERE m.role = 'user'"
	raw := func(s string) int {
		return strings.IndexFunc(s, func(r rune) bool { return r == 0x1b || r == 7 || r == 8 || r == 0x7f || (r >= 0x80 && r < 0xa0) })
	}
	for _, args := range [][]string{
		{"sql", "--format", "csv", stmt}, {"sql", "--format", "tsv", stmt}, {"sql", "--format", "json", stmt},
		{"sql", "--format", "ndjson", stmt}, {"sql", "--format", "table", stmt},
		{"cost", "--csv", "--by", "model,project"}, {"cost", "--json", "--by", "model,project"}, {"cost", "--by", "model,project", "--chart"},
		{"list", "--json"}, {"search", "hello", "--json"}, {"show", "s1", "--json"}, {"show", "s1", "--context", "--json"},
		{"tree", "s1", "--json"}, {"tree", "s1", "--json", "--flat"}, {"path", "s1", "--json"}, {"index", "--json"},
	} {
		out := run(true, args...)
		if i := raw(out); i >= 0 {
			t.Errorf("%v on a terminal prints a raw control character: %q", args, out[max(0, i-20):min(len(out), i+20)])
		}
		if strings.Contains(strings.Join(args, " "), "json") && !slices.Contains(args, "ndjson") && !json.Valid([]byte(out)) {
			t.Errorf("%v on a terminal is not valid JSON: %q", args, out)
		}
	}
	// The terminal's JSON is the same JSON.
	var tty, piped []map[string]any
	if err := json.Unmarshal([]byte(run(true, "sql", "--json", stmt)), &tty); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(run(false, "sql", "--json", stmt)), &piped); err != nil {
		t.Fatal(err)
	}
	if len(tty) != 1 || tty[0]["text"] != "hello "+evil || tty[0]["cwd"] != piped[0]["cwd"] {
		t.Errorf("JSON on a terminal decodes to %q, want %q", tty, "hello "+evil)
	}
	// Piped, every format is exact.
	for _, args := range [][]string{{"sql", "--format", "csv", stmt}, {"sql", "--format", "ndjson", stmt}, {"cost", "--csv", "--by", "model"}} {
		if out := run(false, args...); !strings.Contains(out, "\u009b31m") && !strings.Contains(out, `\u009b31m`) {
			t.Errorf("%v piped lost the text: %q", args, out)
		}
	}
}

// Messages on a terminal's stderr quote session names, paths and
// candidates: their control characters are escaped there as on stdout,
// and written exactly to a file or pipe.
func TestHostileTextOnStderr(t *testing.T) {
	root := t.TempDir()
	evil := "\x1b]0;pwned\x07\x1b[2J\u009b"
	for i, dir := range []string{"--w--", "--w\x1b[31m--"} {
		lines := []string{
			fmt.Sprintf(`{"type":"session","version":3,"id":"s%d","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w"}`, i),
			`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1777629601000}}`,
			`{"type":"session_info","id":"n1","parentId":"a1","timestamp":"2026-05-01T10:00:03.000Z","name":` + jsonString("twin "+evil) + `}`,
			`{"type":"message","id":` + jsonString("torn "+evil),
		}
		catalogtest.WriteFile(t, filepath.Join(root, dir, "a.jsonl"), strings.Join(lines, "\n")+"\n")
	}
	db := filepath.Join(t.TempDir(), "c.sqlite")
	run := func(tty bool, args ...string) string {
		t.Helper()
		var errOut bytes.Buffer
		a := newAppIO(&render.IOStreams{Out: &bytes.Buffer{}, ErrOut: &errOut, ErrTTY: tty, Width: 200, Height: 50})
		a.fail(a.execute(context.Background(), append([]string{"--db", db, "--sessions", root}, args...)))
		return errOut.String()
	}
	for _, args := range [][]string{{"index", "--full"}, {"show", "twin " + evil}, {"warnings"}} {
		tty := run(true, args...)
		if i := strings.IndexAny(tty, "\x1b\x07\u009b"); i >= 0 {
			t.Errorf("%q on a terminal's stderr: a raw control character: %q", args, tty[max(0, i-30):min(len(tty), i+30)])
		}
		if !strings.Contains(tty, `\e`) && args[0] != "warnings" {
			t.Errorf("%q: stderr names nothing hostile: %q", args, tty)
		}
		if args[0] == "show" && !strings.Contains(run(false, args...), evil) {
			t.Errorf("%q piped: stderr is not exact", args)
		}
	}
}
