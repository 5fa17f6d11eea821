package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/render"
)

// Every mistake is said in the user's words, with what to do: no Go
// parser or type names, no sentinel's word glued to the end (": usage
// error", ": not found", ": ambiguous"), and the exit code of its kind.
func TestErrorTexts(t *testing.T) {
	root, _ := filepath.Abs(showSessions)
	db := filepath.Join(t.TempDir(), "c.sqlite")
	cli := func(args ...string) (string, int) {
		t.Helper()
		var out, errb bytes.Buffer
		a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &errb, Width: 100})
		err := a.execute(context.Background(), append([]string{"--db", db, "--sessions", root, "-q"}, args...))
		if err == nil {
			return "", exitCode(nil, a.warned)
		}
		return describe(err), exitCode(err, a.warned)
	}
	cli("index")
	tests := []struct {
		args []string
		want string
		code int
	}{
		{[]string{"list", "--json=id"}, `--json takes no value (got --json=id): write --json alone; see 'pidex list --help'`, exitUsage},
		{[]string{"list", "--json", "id"}, `--json takes no value, so "id" is not a field to print: --json prints every field (pick some with jq, as in pidex list --json | jq '.[].id'); see 'pidex list --help'`, exitUsage},
		{[]string{"cost", "--json", "rows"}, `--json takes no value, so "rows" is not a field to print: --json prints every field (pick some with jq); see 'pidex cost --help'`, exitUsage},
		{[]string{"index", "--quiet", "now"}, `--quiet takes no value, so "now" is an argument index does not take; see 'pidex index --help'`, exitUsage},
		{[]string{"list", "--limit", "-1"}, `--limit "-1": want a number, 0 or more`, exitUsage},
		{[]string{"list", "--limit", "x"}, `--limit "x": want a whole number, as in --limit 20; see 'pidex list --help'`, exitUsage},
		{[]string{"list", "--limit"}, `--limit needs a value, as in --limit VALUE or --limit=VALUE; see 'pidex list --help'`, exitUsage},
		{[]string{"list", "--limt", "3"}, `pidex list has no flag --limt (did you mean --limit?); 'pidex list --help' lists its flags`, exitUsage},
		{[]string{"list", "-x"}, `pidex list has no flag -x; 'pidex list --help' lists its flags`, exitUsage},
		{[]string{"lsit"}, `unknown command "lsit" (did you mean list?); 'pidex --help' lists the commands`, exitUsage},
		{[]string{"list", "--sort", "name"}, `--sort "name": want modified, created, cost or size`, exitUsage},
		{[]string{"cost", "--tz", "Mars/Olympus"}, `--tz "Mars/Olympus": want an IANA time zone such as Europe/Paris, America/New_York or UTC`, exitUsage},
		{[]string{"sql", "--timeout", "5", "SELECT 1"}, `--timeout "5": want a duration with its unit, as in --timeout 5s, 2m or 1h; see 'pidex sql --help'`, exitUsage},
		{[]string{"show", ""}, `show needs a SESSION, got an empty one: give its id, a unique prefix of one, its name or its file's path ('pidex list' shows them)`, exitUsage},
		{[]string{"tree"}, `tree needs a SESSION: its id, a unique prefix of one, its name or its file's path ('pidex list' shows them); see 'pidex tree --help'`, exitUsage},
		{[]string{"show", "nosuch"}, `no session matches "nosuch" (name a session by its id or the handle 'pidex list' shows, a unique prefix of an id, its name or its file's path)`, exitError},
		{[]string{"show", "01a09f30", "--leaf", "nope"}, `session 01a09f30-132d-724f-a634-c14fac694f8c has no entry "nope"; 'pidex tree 01a09f30-132d-724f-a634-c14fac694f8c' lists its entries`, exitError},
		{[]string{"sql", "selec 1"}, `selec is not a SQL statement this runs (did you mean SELECT?): start with SELECT, WITH, VALUES, EXPLAIN or PRAGMA`, exitUsage},
		{[]string{"sql", "DELETE FROM sessions"}, `SQL on the catalog is read-only: DELETE statements are refused (it runs SELECT, WITH, VALUES, EXPLAIN and PRAGMAs that read)`, exitUsage},
		{[]string{"sql", "SELECT * FROM nosuch"}, `sql: no such table: nosuch; 'pidex schema' lists the views and their columns`, exitStatement},
		{[]string{"sql", "--format", "xml", "SELECT 1"}, `--format "xml": want table, tsv, csv, json or ndjson`, exitUsage},
		{[]string{"sql", "--param", "x", "SELECT 1"}, `--param "x": want NAME=VALUE, as in --param since=2026-11-01 for :since`, exitUsage},
		{[]string{"serve", "--addr", "nope"}, `--addr "nope": want host:port, as in --addr 127.0.0.1:7373`, exitUsage},
		{[]string{"mcp", "--token", "t"}, `--token goes with --http (over stdio the client starts the server itself)`, exitUsage},
		{[]string{"search", `"unclosed`}, `search query: unclosed quote (at character 1)`, exitUsage},
	}
	// Warnings, too, say what is wrong with a line in the format's words.
	var out bytes.Buffer
	if err := newAppIO(&render.IOStreams{Out: &out, ErrOut: &bytes.Buffer{}}).execute(context.Background(),
		[]string{"--db", db, "--sessions", root, "-q", "--no-refresh", "warnings"}); err != nil {
		t.Fatal(err)
	}
	if w := out.String(); !strings.Contains(w, `"id" is a number, where pi writes a string`) || strings.Contains(w, "Go struct") || strings.Contains(w, "unmarshal") {
		t.Errorf("warnings:\n%s", w)
	}
	for _, tt := range tests {
		got, code := cli(append([]string{"--no-refresh"}, tt.args...)...)
		if got != tt.want || code != tt.code {
			t.Errorf("pidex %s:\n got  %q (exit %d)\n want %q (exit %d)", strings.Join(tt.args, " "), got, code, tt.want, tt.code)
		}
		for _, leak := range []string{"strconv", "Parse", "Go struct", "invalid syntax", "SQL logic error", ": usage", ": not found", ": ambiguous"} {
			if strings.Contains(got, leak) {
				t.Errorf("pidex %s: %q says %q", strings.Join(tt.args, " "), got, leak)
			}
		}
	}
}

// search says how many hits the whole answer has and how to get the next
// page, on stderr and only when it is a terminal (a person reads it; a
// script reading stderr does not get it).
func TestSearchCountLine(t *testing.T) {
	root, _ := filepath.Abs(showSessions)
	db := filepath.Join(t.TempDir(), "c.sqlite")
	run := func(errTTY bool, args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &errb, ErrTTY: errTTY, Width: 100})
		if err := a.execute(context.Background(), append([]string{"--db", db, "--sessions", root}, args...)); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return errb.String()
	}
	run(false, "-q", "index")
	tests := []struct {
		errTTY bool
		args   []string
		want   string
	}{
		{true, []string{"search", "test", "--limit", "3"}, "pidex: hits 1–3 of 83 in 10 sessions; --offset 3 shows the next page\n"},
		{true, []string{"search", "test", "--limit", "50", "--offset", "50"}, "pidex: hits 51–83 of 83 in 10 sessions\n"},
		{true, []string{"search", "test", "--sessions-only", "--limit", "5"}, "pidex: sessions 1–5 of 10 (83 hits); --offset 5 shows the next page\n"},
		{true, []string{"search", "zzzqqq"}, "pidex: no hits\n"},
		{true, []string{"-q", "search", "test"}, ""},
		{false, []string{"search", "test"}, ""},
	}
	for _, tt := range tests {
		if got := run(tt.errTTY, append([]string{"--no-refresh"}, tt.args...)...); got != tt.want {
			t.Errorf("%v (stderr a terminal: %v): stderr %q, want %q", tt.args, tt.errTTY, got, tt.want)
		}
	}
}
