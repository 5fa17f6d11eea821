package web

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/catalogtest"
)

// secretSession holds a secret (the shape of an Anthropic key) in its
// name, a message and a tool output.
const (
	secretID = "5ec12e70-0000-4000-8000-000000000001"
	secret   = "sk-ant-api03-Zq3xYv9WmT4pLr8NcK2bHd6JfA1sEg5uQ0oIxRt7"
)

var secretSession = strings.Join([]string{
	`{"type":"session","version":3,"id":"` + secretID + `","timestamp":"2026-10-02T10:00:00.000Z","cwd":"/home/ann/keys"}`,
	`{"type":"session_info","id":"n1","parentId":null,"timestamp":"2026-10-02T10:00:00.500Z","name":"key ` + secret + `"}`,
	`{"type":"message","id":"u1","parentId":"n1","timestamp":"2026-10-02T10:00:01.000Z","message":{"role":"user","content":"use ` + secret + ` please","timestamp":1790935201000}}`,
	`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-10-02T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"provider":"p","model":"m","stopReason":"stop","timestamp":1790935202000}}`,
}, "\n") + "\n"

// download fetches a path and returns its status, headers and body.
func (f *fixture) download(t *testing.T, path string) (int, http.Header, string) {
	t.Helper()
	res, err := f.ts.Client().Get(f.ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, string(b)
}

// GET /s/{id}/export is pidex export: the session as a file to save, in
// each format, of the branch asked for, redacted when asked; a bad option
// is 400 with the words of the CLI's usage error.
func TestDownloads(t *testing.T) {
	f := newFixtureWith(t, Options{}, secretSession)
	const branchyFile = "2026-09-15T14-03-27-802Z_01a0a561-3aba-724f-a634-c15148c18a5a"
	for _, tc := range []struct {
		path       string
		code       int
		ctype      string
		file       string // the attachment's name
		has, lacks []string
	}{
		{"/s/" + branchy + "/export", 200, "text/markdown; charset=utf-8", branchyFile + ".md", []string{"# Add a --json flag", "**Resume:**", "**Branch:** the current one"}, nil},
		{"/s/" + branchy + "/export?format=md&leaf=aeb87ffe", 200, "text/markdown; charset=utf-8", branchyFile + ".md", []string{"not the current leaf", "`aeb87ffe`"}, nil},
		{"/s/" + branchy + "/export?format=md&leaf=aeb87ffe&context=1", 200, "text/markdown; charset=utf-8", branchyFile + ".md", []string{"**Model context** at entry `aeb87ffe`"}, nil},
		{"/s/" + branchy + "/export?format=html&leaf=aeb87ffe", 200, "text/html; charset=utf-8", branchyFile + ".html", []string{"<!doctype html>", `data-shown="aeb87ffe"`, `data-id="aeb87ffe"`}, []string{"/static/"}},
		{"/s/" + branchy + "/export?format=json", 200, "application/json", branchyFile + ".json", []string{`"id": "0a844e5b"`}, nil},
		{"/s/" + branchy + "/export?format=json&context=1", 200, "application/json", branchyFile + ".json", []string{`"messages":`}, nil},
		{"/s/" + secretID + "/export?format=md", 200, "", "", []string{secret}, nil},
		{"/s/" + secretID + "/export?format=md&redact=1", 200, "", "", []string{"[REDACTED]"}, []string{secret}},
		{"/s/" + secretID + "/export?format=html&redact=1", 200, "", "", []string{"[REDACTED]"}, []string{secret}},
		{"/s/" + secretID + "/export?format=json&redact=1", 200, "", "", []string{"[REDACTED]"}, []string{secret}},
		{"/s/" + copied + "@1/export?format=json", 200, "", "gjcfork-inline-agent-design.earlier-snapshot.json", nil, nil},
		{"/s/" + copied + "@2/export?format=json", 200, "", "gjcfork-inline-agent-design.json", nil, nil},
		{"/s/" + branchy + "/export?format=pdf", 400, "text/html; charset=utf-8", "", []string{"format &#34;pdf&#34;", "want md, html or json"}, nil},
		{"/s/" + branchy + "/export?format=html&context=1", 400, "", "", []string{"an HTML export holds every branch"}, nil},
		{"/s/" + branchy + "/export?maxOutput=-1", 400, "", "", []string{"maxOutput"}, nil},
		{"/s/" + branchy + "/export?leaf=nope", 404, "", "", []string{"nope"}, nil},
		{"/s/nope/export", 404, "", "", nil, nil},
		{"/s/" + copied + "/export", 409, "", "", []string{"matches 2 sessions"}, nil},
	} {
		t.Run(tc.path, func(t *testing.T) {
			code, h, body := f.download(t, tc.path)
			if code != tc.code {
				t.Fatalf("%d, want %d: %.300s", code, tc.code, body)
			}
			if tc.ctype != "" && h.Get("Content-Type") != tc.ctype {
				t.Errorf("Content-Type %q, want %q", h.Get("Content-Type"), tc.ctype)
			}
			if disp, params, _ := mime.ParseMediaType(h.Get("Content-Disposition")); tc.file != "" && (disp != "attachment" || params["filename"] != tc.file) {
				t.Errorf("Content-Disposition %q, want an attachment named %s", h.Get("Content-Disposition"), tc.file)
			}
			if code == 200 && h.Get("Content-Disposition") == "" {
				t.Error("a download that is not an attachment")
			}
			if code == 200 && strings.HasPrefix(h.Get("Content-Type"), "application/json") && !json.Valid([]byte(body)) {
				t.Errorf("not JSON: %.200s", body)
			}
			for _, s := range tc.has {
				if !strings.Contains(body, s) {
					t.Errorf("lacks %q: %.300s", s, body)
				}
			}
			for _, s := range tc.lacks {
				if strings.Contains(body, s) {
					t.Errorf("holds %q", s)
				}
			}
		})
	}
}

var reSessionLink = regexp.MustCompile(`href="(/s/[^"?#]*)[^"]*"`)

// Every page links to a session by its handle (/s/ID, /s/ID@N where
// several files hold the id), one that opens exactly that file, even
// where two copies have the same base name in different folders; an old
// link's ?file= still picks a copy.
func TestSessionLinksAreHandles(t *testing.T) {
	f := newFixtureWith(t, Options{}, "")
	// A copy of a session in another folder, under the same base name,
	// one entry longer.
	src, err := os.ReadFile("../testdata/sessions/--home-ann-proj-alpha--/2026-09-16T08-41-55-030Z_01a0a961-3456-724f-a634-c154c86e8c46.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const twin = "01a0a961-3456-724f-a634-c154c86e8c46"
	base := "2026-09-16T08-41-55-030Z_" + twin + ".jsonl"
	catalogtest.WriteFile(t, filepath.Join(f.root, "--backup--", base), string(src)+
		`{"type":"message","id":"zz000001","parentId":"c11678ed","timestamp":"2026-09-16T09:00:00.000Z","message":{"role":"user","content":"only in the backup twinword","timestamp":1789549200000}}`+"\n")
	if _, err := f.eng.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.RefreshText(context.Background()); err != nil {
		t.Fatal(err)
	}

	links := func(path string) []string {
		t.Helper()
		code, _, body := f.get(t, path)
		if code != 200 {
			t.Fatalf("%s: %d %.300s", path, code, body)
		}
		if strings.Contains(body, "file=") {
			t.Errorf("%s links by ?file=", path)
		}
		var out []string
		for _, m := range reSessionLink.FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
		return out
	}
	list := links("/")
	for _, want := range []string{"/s/" + twin + "@1", "/s/" + twin + "@2", "/s/" + copied + "@1", "/s/" + copied + "@2", "/s/" + branchy} {
		if !contains(list, want) {
			t.Errorf("the sessions page does not link to %s", want)
		}
	}
	// Each handle opens its own file, numbered by path: the backup (in a
	// temporary folder, which may sort before or after the checkout) holds
	// the extra entry.
	orig, err := filepath.Abs("../testdata/sessions")
	if err != nil {
		t.Fatal(err)
	}
	backup, other := twin+"@1", twin+"@2"
	if orig < f.root {
		backup, other = other, backup
	}
	for handle, extra := range map[string]bool{backup: true, other: false} {
		code, _, body := f.get(t, "/s/"+handle)
		if code != 200 || strings.Contains(body, "only in the backup") != extra {
			t.Errorf("/s/%s: %d, shows the backup's entry: %v, want %v", handle, code, !extra, extra)
		}
		// The page's own links (its views, tree, downloads) keep the handle.
		for _, l := range links("/s/" + handle) {
			if strings.HasPrefix(l, "/s/") && !strings.HasPrefix(l, "/s/"+handle) {
				t.Errorf("/s/%s links to %s", handle, l)
			}
		}
	}
	for _, path := range []string{"/search?q=twinword", "/search?q=twinword&sessionsOnly=1", "/search?q=twinword&group=session"} {
		if l := links(path); !contains(l, "/s/"+backup) {
			t.Errorf("%s links to %v, want %s", path, l, backup)
		}
	}
	if code, _, body := f.get(t, "/s/"+copied+"?file="+copyFile); code != 200 || !strings.Contains(body, "152 messages") {
		t.Errorf("an old link with ?file=: %d", code)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
