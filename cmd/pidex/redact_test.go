package main

import (
	"bytes"
	"compress/gzip"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/pgtest"
	"github.com/pidex-dev/pidex/internal/redact"
)

// push --redact holds: secrets of every planted kind, in every field of
// every kind of entry (catalogtest.PlantedSession), pushed into a real
// PostgreSQL, are nowhere in a full pg_dump of the team catalog, nor in
// what show --json, list and sql read back from it; and the push's count
// is the number of markers it wrote. Pushed without --redact, the same
// sessions put secrets in every column the test names: the test sees
// what it looks for.
func TestPushRedactLeavesNoSecret(t *testing.T) {
	local, ids := plantedCatalog(t)

	plain := pgtest.URL(t)
	cli(t, 0, append(local, "--no-refresh", "push", "--to", plain)...)
	checkPlanted(t, plain)

	url := pgtest.URL(t)
	var st struct {
		Files    int   `json:"files"`
		Redacted int64 `json:"redacted"`
	}
	if err := json.Unmarshal([]byte(cli(t, 0, append(local, "--no-refresh", "push", "--redact", "--json", "--to", url)...)), &st); err != nil {
		t.Fatal(err)
	}
	if st.Files != len(catalogtest.Planted) {
		t.Fatalf("%d files pushed, want %d", st.Files, len(catalogtest.Planted))
	}
	dump := pgtest.Dump(t, url)
	if !strings.Contains(dump, "COPY public.line_chunks") {
		t.Fatalf("the dump holds no line_chunks:\n%.2000s", dump)
	}
	noSecret(t, "pg_dump", readable(dump))
	if markers := markersWritten(dump); int64(markers) != st.Redacted {
		t.Errorf("push said redacted: %d; the catalog holds %d markers (besides the search text derived from the lines)", st.Redacted, markers)
	}
	if st.Redacted < int64(15*len(catalogtest.Planted)) {
		t.Errorf("redacted: %d, want at least 15 a session", st.Redacted)
	}

	team := []string{"--catalog", url}
	noSecret(t, "sql entries_v", cli(t, 0, append(team, "sql", "--json", "SELECT * FROM entries_v")...))
	noSecret(t, "sql sessions_v", cli(t, 0, append(team, "sql", "--json", "SELECT * FROM sessions_v")...))
	noSecret(t, "list", cli(t, 0, append(team, "list", "--json", "--limit", "0")...))
	for _, id := range ids {
		noSecret(t, "show "+id, cli(t, 0, append(team, "show", "--json", id)...))
		noSecret(t, "tree "+id, cli(t, 0, append(team, "tree", "--json", id)...))
	}
}

// plantedCatalog indexes the planted sessions (catalogtest.Planted) into
// a local catalog of machine "laptop": the arguments that name it, and the
// sessions' ids.
func plantedCatalog(t *testing.T) (local, ids []string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "sessions")
	for i, p := range catalogtest.Planted {
		rel, lines := catalogtest.PlantedSession(i, p)
		catalogtest.WriteFile(t, filepath.Join(root, rel), strings.Join(lines, "\n")+"\n")
		ids = append(ids, strings.TrimSuffix(filepath.Base(rel)[len("2026-05-01T10-00-00-000Z_"):], ".jsonl"))
	}
	local = []string{"--db", filepath.Join(base, "local.sqlite"), "--sessions", root, "--machine", "laptop", "-q"}
	cli(t, 0, append(local, "index")...)
	return local, ids
}

// push --redact over HTTP holds as a direct push does: the values are
// redacted before they leave, so the team server is sent no secret (every
// request body, its raw lines decoded, holds none), the team catalog it
// writes holds none, and the client's count is the number of markers
// written.
func TestPushHTTPRedact(t *testing.T) {
	local, _ := plantedCatalog(t)
	tc := newTokenCatalog(t, "laptop")
	srv := startPushServer(t, tc.server)
	target, err := url.Parse(srv.url)
	if err != nil {
		t.Fatal(err)
	}
	// A proxy between client and server keeps every request's body.
	var mu sync.Mutex
	var bodies []string
	forward := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		plain := b
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err == nil {
				plain, err = io.ReadAll(zr)
			}
			if err != nil {
				t.Errorf("%s: gunzip the body: %v", r.URL.Path, err)
			}
		}
		mu.Lock()
		bodies = append(bodies, string(plain))
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		forward.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	t.Setenv("PIDEX_PUSH_TOKEN", tc.tokens["laptop"])
	t.Setenv("PIDEX_PUSH_TOKEN_FILE", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var st struct {
		Files    int   `json:"files"`
		Redacted int64 `json:"redacted"`
	}
	if err := json.Unmarshal([]byte(cli(t, 0, append(local, "--no-refresh", "push", "--redact", "--json", "--to", proxy.URL)...)), &st); err != nil {
		t.Fatal(err)
	}
	if st.Files != len(catalogtest.Planted) {
		t.Fatalf("%d files pushed, want %d", st.Files, len(catalogtest.Planted))
	}
	mu.Lock()
	sent := strings.Join(bodies, "\n")
	mu.Unlock()
	text, lines := sentText(t, sent)
	if lines == 0 || !strings.Contains(text, redact.Marker) {
		t.Fatalf("%d raw lines, none redacted, among the %d requests sent", lines, len(bodies))
	}
	noSecret(t, "sent to the team server", text)
	dump := pgtest.Dump(t, tc.owner)
	if !strings.Contains(dump, "COPY public.line_chunks") {
		t.Fatalf("the dump holds no line_chunks:\n%.2000s", dump)
	}
	noSecret(t, "pg_dump", readable(dump))
	if markers := markersWritten(dump); int64(markers) != st.Redacted {
		t.Errorf("push said redacted: %d; the catalog holds %d markers (besides the search text derived from the lines)", st.Redacted, markers)
	}
	if st.Redacted < int64(15*len(catalogtest.Planted)) {
		t.Errorf("redacted: %d, want at least 15 a session", st.Redacted)
	}
}

// sentText is what a push's requests carried, decoded: every string of
// their JSON, and the bytes (raw lines "r", byte values "b") that travel
// as base64; and how many raw lines there were.
func sentText(t *testing.T, sent string) (text string, lines int) {
	t.Helper()
	var b strings.Builder
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case string:
			if key == "r" || key == "b" {
				raw, err := base64.StdEncoding.DecodeString(x)
				if err != nil {
					t.Fatalf("a %q value is not base64: %v", key, err)
				}
				if key == "r" {
					lines++
				}
				x = string(raw)
			}
			b.WriteString(x)
			b.WriteByte('\n')
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		case map[string]any:
			for k, e := range x {
				walk(k, e)
			}
		}
	}
	for _, line := range strings.Split(sent, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("a request body's line is not JSON: %v\n%.300s", err, line)
		}
		walk("", v)
	}
	return b.String(), lines
}

// noSecret fails for each planted secret (or a piece of one a search
// index may hold) in s.
func noSecret(t *testing.T, where, s string) {
	t.Helper()
	s = strings.ToLower(s)
	for _, p := range catalogtest.Planted {
		for _, probe := range p.Probes() {
			if i := strings.Index(s, probe); i >= 0 {
				t.Errorf("%s: %s secret %q left, in …%q…", where, p.Kind, probe, s[max(0, i-160):min(len(s), i+len(probe)+40)])
				break
			}
		}
	}
}

// byteaHex is a bytea value in a dump (COPY's text format doubles the
// backslash).
var byteaHex = regexp.MustCompile(`\\\\x([0-9a-f]+)`)

// readable is a dump with its bytea values (the raw lines) decoded.
func readable(dump string) string {
	return byteaHex.ReplaceAllStringFunc(dump, func(m string) string {
		b, err := hex.DecodeString(m[3:])
		if err != nil {
			return m
		}
		return string(b)
	})
}

// markersWritten counts the markers in a dump's data, but for the search
// text and rows, which a push derives from the lines it redacted.
func markersWritten(dump string) int {
	n, table := 0, ""
	for _, line := range strings.Split(dump, "\n") {
		switch {
		case strings.HasPrefix(line, "COPY "):
			table = strings.Fields(line)[1]
			continue
		case line == `\.`:
			table = ""
		}
		if table != "" && table != "public.entry_text" && table != "public.text_index" {
			n += strings.Count(readable(line), redact.Marker)
		}
	}
	return n
}

// checkPlanted: pushed without --redact, the planted secrets are in every
// column that holds session text, names or ids of the sessions (at least
// 20 kinds in each).
func checkPlanted(t *testing.T, url string) {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []string{"files.path", "sessions.cwd", "sessions.parent_session", "sessions.name", "sessions.first_message",
		"sessions.models", "entries.provider", "entries.model", "entries.error", "entries.command", "labels.label", "tool_calls.name",
		"tool_calls.command", "usage.provider", "usage.model", "usage_rollup.model", "activity_events.text", "activity_tools.name",
		"entry_text.text", "convert_from(entry_lines.raw, 'UTF8')"} {
		table, col, _ := strings.Cut(c, ".")
		if strings.HasPrefix(c, "convert_from") {
			table, col = "entry_lines", c
		}
		var vals []string
		rows, err := db.Query(fmt.Sprintf(`SELECT lower(%s) FROM %s WHERE %[1]s IS NOT NULL`, col, table))
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			vals = append(vals, v)
		}
		rows.Close()
		all := strings.Join(vals, "\n")
		kinds := 0
		for _, p := range catalogtest.Planted {
			probes := append(p.Probes(), strings.ToLower(p.Secret[:min(12, len(p.Secret))]))
			for _, probe := range probes {
				if strings.Contains(all, probe) {
					kinds++
					break
				}
			}
		}
		want := 20
		if c == "entries.command" || c == "tool_calls.command" {
			want = 15 // a command's first word: the kinds whose secret alone has a shape
		}
		if kinds < want {
			t.Errorf("pushed without --redact, %s holds %d kinds of planted secrets, want at least %d", c, kinds, want)
		}
	}
}
