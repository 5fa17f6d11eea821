package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
)

const (
	branchy  = "01a0a561-3aba-724f-a634-c15148c18a5a" // two branch points, two labels
	copied   = "019f5be5-7b1a-7000-8a7c-db42f66cd116" // two files share this id
	copyFile = "gjcfork-inline-agent-design.jsonl"
)

// The API answers with exactly the bytes of the CLI's --json, which are
// render's writers over the engine's answers.
func TestAPIMatchesCLIJSON(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	ref, err := f.eng.Resolve(ctx, branchy, "")
	if err != nil {
		t.Fatal(err)
	}
	want := func(write func(*bytes.Buffer) error) string {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	list := func(lf pidex.ListOptions) string {
		ss, err := f.eng.List(ctx, lf)
		if err != nil {
			t.Fatal(err)
		}
		return want(func(b *bytes.Buffer) error { return render.WriteJSONLines(b, ss) })
	}
	tree, _ := f.eng.Tree(ctx, ref, pidex.TreeOptions{})
	flatTree, _ := f.eng.Tree(ctx, ref, pidex.TreeOptions{})
	sc, _ := f.eng.Context(ctx, ref, "")
	entries := []json.RawMessage{}
	if err := f.eng.EntryObjects(ctx, ref, "", func(e json.RawMessage) error { entries = append(entries, e); return nil }); err != nil {
		t.Fatal(err)
	}
	path, _ := f.eng.Path(ctx, ref, "")
	info, _ := f.eng.Info(ctx, ref)
	hits, _ := f.eng.Search(ctx, pidex.SearchOptions{Query: "login", Limit: 5, Role: "user"})
	cost, err := f.eng.Cost(ctx, pidex.CostOptions{By: []string{"day", "model"}, TZ: "UTC", Branch: "abandoned"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/api/cost?by=day,model&tz=UTC&branch=abandoned", want(func(b *bytes.Buffer) error { return render.CostJSON(b, cost) })},
		{"/api/sessions", list(pidex.ListOptions{})},
		{"/api/sessions?project=alpha&sort=cost&limit=2", list(pidex.ListOptions{Where: pidex.Where{"project": "alpha"}, Sort: "cost", Limit: 2})},
		{"/api/sessions?name=flaky", list(pidex.ListOptions{Where: pidex.Where{"name": "flaky"}})},
		{"/api/sessions/" + branchy, want(func(b *bytes.Buffer) error { return render.WriteJSON(b, info) })},
		{"/api/sessions/" + branchy + "/tree", want(func(b *bytes.Buffer) error { return render.TreeJSON(b, tree) })},
		{"/api/sessions/" + branchy + "/tree?flat=1", want(func(b *bytes.Buffer) error { return render.WriteJSONLines(b, render.FlatTree(flatTree)) })},
		{"/api/sessions/" + branchy + "/context", want(func(b *bytes.Buffer) error { return render.WriteJSON(b, sc) })},
		{"/api/sessions/" + branchy + "/entries", want(func(b *bytes.Buffer) error { return render.WriteJSON(b, entries) })},
		{"/api/sessions/" + branchy + "/path", want(func(b *bytes.Buffer) error { return render.WriteJSON(b, path) })},
		{"/api/search?q=login&limit=5&role=user", want(func(b *bytes.Buffer) error { return render.WriteJSONLines(b, hits) })},
	} {
		t.Run(tc.path, func(t *testing.T) {
			code, ctype, body := f.get(t, tc.path)
			if code != 200 || ctype != "application/json" {
				t.Fatalf("%d %s: %s", code, ctype, body)
			}
			if body != tc.want {
				t.Errorf("body differs from the CLI's JSON:\n got %.300s\nwant %.300s", body, tc.want)
			}
		})
	}
}

// The shapes other tools rely on, and the errors: a bad parameter is 400,
// an unknown session or entry 404, an id two files share 409 (until
// ?file= picks one), a path instead of an id 404, a write 405.
func TestAPIShapesAndErrors(t *testing.T) {
	f := newFixture(t, Options{})
	for _, tc := range []struct {
		path string
		code int
		has  []string // substrings of the body
	}{
		{"/api/sessions?limit=1", 200, []string{`"path":`, `"id":`, `"firstMessage":`, `"messageCount":`, `"cost":`, `"modified":`}},
		{"/api/sessions/" + branchy + "/tree?flat=1", 200, []string{`"depth":0`, `"label":`}},
		{"/api/sessions/" + branchy + "/tree?pathOnly=1", 200, []string{`"leaf":true`}},
		{"/api/sessions/" + branchy + "/context", 200, []string{`"messages":`, `"thinkingLevel":`, `"model":`}},
		{"/api/search?q=login&sessionsOnly=1", 200, []string{`"hits":`, `"sessionId":`}},
		{"/api/search?q=login", 200, []string{`"snippet":`, `"highlights":`, `"score":`, `"entryId":`}},
		{"/api/search?q=login&session=" + branchy[:8], 200, []string{}},
		{"/api/sessions?since=yesterday-ish", 400, []string{`"error":`, `since \"yesterday-ish\"`}},
		{"/api/sessions?sort=age", 400, []string{`"error":`}},
		{"/api/sessions?limit=-1", 400, []string{`"error":`}},
		{"/api/search?q=%22unclosed", 400, []string{`unclosed quote`}},
		{"/api/search?q=a" + strings.Repeat("+-x", 257), 400, []string{`too many exclusions (at most 64)`}},
		{"/api/search?q=" + strings.Repeat("(x+", 25) + "a" + strings.Repeat(")", 25), 400, []string{`nested too deep`}},
		{"/api/search", 400, []string{`"error":`}},
		{"/api/search?q=x&role=robot", 400, []string{`role`}},
		{"/api/search?q=x&branch=dead", 400, []string{`branch`}},
		{"/api/sessions/nope-nope", 404, []string{`"error":`}},
		{"/api/sessions/" + branchy + "/path?leaf=nope", 404, []string{`"error":`}},
		{"/api/sessions/..%2F..%2Fetc%2Fpasswd/tree", 404, []string{`"error":`}},
		{"/api/sessions/x.jsonl", 404, []string{`"error":`}},
		{"/api/sessions/" + copied, 409, []string{`matches 2 sessions`}},
		{"/api/sessions/" + copied + "?file=" + copyFile, 200, []string{`"messageCount": 152`}},
		{"/api/nothing", 404, []string{`"error":`}},
		{"/api/cost", 200, []string{`"rows":`, `"totals":`, `"day":`, `"cacheWrite":`, `"calls":`}},
		{"/api/cost?by=month,project&tz=Asia/Kathmandu&since=2026-01-01", 200, []string{`"month": "2026-09"`, `"project":`}},
		{"/api/cost?by=hour", 400, []string{`hour`}},
		{"/api/cost?tz=Mars/Olympus", 400, []string{`tz \"Mars/Olympus\"`}},
		{"/api/cost?branch=dead", 400, []string{`branch`}},
		{"/api/cost?session=" + branchy + "&by=model", 200, []string{`"model":`}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			code, ctype, body := f.get(t, tc.path)
			if code != tc.code || ctype != "application/json" {
				t.Fatalf("got %d %s, want %d: %.300s", code, ctype, tc.code, body)
			}
			if !json.Valid([]byte(body)) {
				t.Fatalf("not JSON: %.300s", body)
			}
			for _, s := range tc.has {
				if !strings.Contains(body, s) {
					t.Errorf("body lacks %s: %.300s", s, body)
				}
			}
		})
	}
}

func TestStatusMapsSentinels(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
	}{
		{pidex.ErrUsage, 400},
		{pidex.ErrNotFound, 404},
		{pidex.ErrAmbiguous, 409},
		{errMethod, 405},
		{errForbidden, 403},
		{errUnauthorized, 401},
		{fmt.Errorf("open session file: %w", fs.ErrNotExist), 404},
		{fmt.Errorf("read line 3: EOF: %w", pidex.ErrFileChanged), 409},
		{context.Canceled, 499},
		{http.ErrBodyNotAllowed, 500},
	} {
		if got := status(tc.err); got != tc.code {
			t.Errorf("status(%v) = %d, want %d", tc.err, got, tc.code)
		}
	}
}

// Read-only, loopback names only, and the token on every request.
func TestGuard(t *testing.T) {
	f := newFixture(t, Options{})
	port := f.ts.Listener.Addr().(interface{ String() string }).String()
	_, p, _ := strings.Cut(port, ":")
	for _, tc := range []struct {
		name   string
		method string
		host   string
		code   int
	}{
		{"bound address", "GET", "", 200},
		{"localhost", "GET", "localhost:" + p, 200},
		{"rebound name", "GET", "evil.example:" + p, 403},
		{"other port", "GET", "localhost:1", 403},
		{"no port", "GET", "localhost", 403},
		{"post", "POST", "", 405},
		{"delete", "DELETE", "", 405},
		{"head", "HEAD", "", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, f.ts.URL+"/api/sessions?limit=1", nil)
			if tc.host != "" {
				req.Host = tc.host
			}
			res, err := f.ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.code {
				t.Errorf("%s %s: %d, want %d", tc.method, tc.host, res.StatusCode, tc.code)
			}
		})
	}

	tok := newFixture(t, Options{Token: "s3cret"})
	for _, tc := range []struct {
		name   string
		path   string
		header []string
		code   int
	}{
		{"none", "/api/sessions?limit=1", nil, 401},
		{"wrong", "/api/sessions?limit=1", []string{"Authorization", "Bearer nope"}, 401},
		{"bearer", "/api/sessions?limit=1", []string{"Authorization", "Bearer s3cret"}, 200},
		{"cookie", "/api/sessions?limit=1", []string{"Cookie", tokenCookie + "=s3cret"}, 200},
		{"query", "/?token=s3cret", nil, 200},
		{"query wrong", "/?token=s3cre", nil, 401},
		{"static too", "/static/app.css", nil, 401},
	} {
		t.Run("token "+tc.name, func(t *testing.T) {
			if code, _, body := tok.get(t, tc.path, tc.header...); code != tc.code {
				t.Errorf("%d, want %d: %.200s", code, tc.code, body)
			}
		})
	}
}

// A page of another site or origin cannot make the server work, on any
// route: Sec-Fetch-Site cross-site or same-site (another port of
// localhost), or a foreign Origin, is 403 before the route runs; the
// server's own pages and the user's navigation pass.
func TestCrossSiteRefused(t *testing.T) {
	f := newFixture(t, Options{})
	routes := []string{"/", "/s/" + branchy, "/s/" + branchy + "/export?format=html", "/search?q=login", "/cost", "/activity", "/events", "/static/app.js", "/static/shared.js",
		"/api/sessions", "/api/sessions/" + branchy, "/api/sessions/" + branchy + "/tree", "/api/sessions/" + branchy + "/path",
		"/api/sessions/" + branchy + "/context", "/api/sessions/" + branchy + "/entries", "/api/search?q=login", "/api/cost", "/api/stats", "/nothing"}
	for _, h := range [][]string{
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"},
		{"Origin", "https://evil.example"},
		{"Origin", "null"},
		{"Sec-Fetch-Site", "same-origin", "Origin", "http://localhost:1"},
	} {
		for _, path := range routes {
			req, _ := http.NewRequest("GET", f.ts.URL+path, nil)
			for i := 0; i+1 < len(h); i += 2 {
				req.Header.Set(h[i], h[i+1])
			}
			res, err := f.ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var body []byte
			if res.StatusCode == 403 { // an answer that is not the refusal may be a stream (/events): not read
				body, _ = io.ReadAll(res.Body)
			}
			res.Body.Close()
			if res.StatusCode != 403 || !strings.Contains(string(body), "another site") {
				t.Errorf("%s with %v: %d, want 403: %.200s", path, h, res.StatusCode, body)
			}
		}
	}
	own := "http://" + f.ts.Listener.Addr().String()
	for _, h := range [][]string{{"Sec-Fetch-Site", "same-origin"}, {"Sec-Fetch-Site", "none"}, {"Sec-Fetch-Site", "same-origin", "Origin", own}} {
		if code, _, _ := f.get(t, "/api/sessions?limit=1", h...); code != 200 {
			t.Errorf("with %v: %d, want 200", h, code)
		}
	}
}

func TestHostAllowedUnspecified(t *testing.T) {
	s := &Server{opts: Options{Addr: "0.0.0.0:7373"}}
	if !s.hostAllowed("pidex.lan:7373") {
		t.Error("a server on every interface has no one name: the token protects it")
	}
	s = &Server{opts: Options{Addr: "[::1]:7373"}}
	if !s.hostAllowed("[::1]:7373") || !s.hostAllowed("localhost:7373") || s.hostAllowed("evil:7373") {
		t.Error("IPv6 loopback")
	}
}

func TestPages(t *testing.T) {
	f := newFixture(t, Options{})
	sess := "/s/" + branchy
	for _, tc := range []struct {
		path string
		code int
		has  []string
	}{
		{"/", 200, []string{"Sessions 1–", `<table class="sessions">`, "flaky login test"}},
		{"/?project=alpha", 200, []string{"proj-alpha"}},
		{"/?project=zzz-none", 200, []string{"No sessions"}},
		{"/?since=bad", 400, []string{"since &#34;bad&#34;"}},
		{"/?partial=1", 200, []string{"Sessions 1–"}},
		{sess, 200, []string{`class="tree"`, `class="entries"`, `2 branches`, `class="label"`}},
		{sess + "?view=context", 200, []string{"messages pi sends to the model", `id="toggle-context" class="on"`}},
		// The downloads are of the branch (or context) shown; the HTML
		// page holds every branch, opening on that one.
		{sess + "?view=context&leaf=aeb87ffe", 200, []string{`href="/s/` + branchy + `/export?context=1&amp;format=md&amp;leaf=aeb87ffe"`,
			`href="/s/` + branchy + `/export?format=html&amp;leaf=aeb87ffe"`, `href="/s/` + branchy + `/export?context=1&amp;format=json&amp;leaf=aeb87ffe"`,
			`<code id="resume-command">cd /home/ann/proj-alpha &amp;&amp; pi --session `, "type /tree and choose entry aeb87ffe"}},
		{"/search?q=login", 200, []string{`<mark>`, "/s/"}},
		{"/search?q=login&sessionsOnly=1", 200, []string{`<td class="num">`}},
		{"/search?q=%22open", 400, []string{"unclosed quote"}},
		{"/search?q=a" + strings.Repeat("+-x", 257), 400, []string{"too many exclusions"}},
		{"/search?q=login&partial=1", 200, []string{`<ol class="hits">`}},
		{"/search", 200, []string{`id="q"`}},
		{"/cost?tz=UTC", 200, []string{`<svg class="cost-chart"`, `<rect class="c0"`, "abandoned branches", `<table class="cost">`}},
		{"/cost?tz=UTC&period=month&stack=project&partial=1", 200, []string{"proj-alpha", "Cost per month by project"}},
		{"/cost?tz=Nowhere/City", 400, []string{"tz &#34;Nowhere/City&#34;"}},
		{"/activity?tz=UTC", 200, []string{`<table class="stats rows"`, "By week", `id="heatmap"`, `id="list-tools"`, "Assistant errors, most frequent",
			"Slowest tool calls", `<a href="/activity" class="on">Activity</a>`}},
		{"/activity?tz=UTC&by=project&partial=1", 200, []string{"By project", "/home/ann/proj-alpha", `href="/activity?by=session&amp;cwd=%2Fhome%2Fann%2Fproj-alpha&amp;tz=UTC"`}},
		{"/activity?tz=UTC&by=none", 200, []string{`id="figures"`, `href="/activity?by=session&amp;tz=UTC"`}},
		{"/activity?cwd=/home/ann/proj-alpha&tz=UTC", 200, []string{`<input type="hidden" name="cwd" value="/home/ann/proj-alpha">`, "cwd /home/ann/proj-alpha"}},
		{"/activity?tz=Nowhere/City", 400, []string{"tz &#34;Nowhere/City&#34;"}},
		{"/activity?by=hour", 400, []string{"by &#34;hour&#34;"}},
		{sess + "", 200, []string{"on abandoned branches"}},
		{"/s/nope", 404, []string{"404"}},
		{"/nowhere", 404, []string{"404"}},
		{"/static/app.js", 200, []string{"EventSource"}},
		{"/static/app.css", 200, []string{"--bg"}},
		{"/static/shared.js", 200, []string{"function treePanel", "function copyButtons"}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			code, _, body := f.get(t, tc.path)
			if code != tc.code {
				t.Fatalf("%d, want %d: %.400s", code, tc.code, body)
			}
			for _, s := range tc.has {
				if !strings.Contains(body, s) {
					t.Errorf("page lacks %q", s)
				}
			}
		})
	}
}

// A search hit opens its session on the hit's branch, scrolled to it.
func TestHitOpensItsBranch(t *testing.T) {
	f := newFixture(t, Options{})
	_, _, body := f.get(t, "/api/sessions/"+branchy+"/tree?flat=1")
	var nodes []struct {
		ID       string `json:"id"`
		ParentID string `json:"parentId"`
		Leaf     bool   `json:"leaf"`
	}
	for _, l := range strings.Split(strings.Trim(body, "[]\n"), ",\n") {
		var n struct {
			ID       string `json:"id"`
			ParentID string `json:"parentId"`
			Leaf     bool   `json:"leaf"`
		}
		if err := json.Unmarshal([]byte(l), &n); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	// An entry off the current branch: a node with a sibling that is not
	// on the leaf's path.
	onPath := map[string]bool{}
	var pathJSON []struct {
		ID string `json:"id"`
	}
	_, _, pb := f.get(t, "/api/sessions/"+branchy+"/path")
	if err := json.Unmarshal([]byte(pb), &pathJSON); err != nil {
		t.Fatal(err)
	}
	for _, p := range pathJSON {
		onPath[p.ID] = true
	}
	off := ""
	for _, n := range nodes {
		if !onPath[n.ID] {
			off = n.ID
			break
		}
	}
	if off == "" {
		t.Fatal("no entry off the current branch")
	}
	code, _, page := f.get(t, "/s/"+branchy+"?at="+url.QueryEscape(off))
	if code != 200 {
		t.Fatal(code, page)
	}
	for _, s := range []string{`class="entry`, `target" id="e-` + off + `"`, "not the current leaf"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
}

// A session file that went away or changed since it was indexed (the
// watcher catches up within a second) is 404 or 409 with words saying so,
// not a 500 in the server's log: the stress test's requests found it.
func TestSessionFileGoneOrChanged(t *testing.T) {
	var mu sync.Mutex
	var logs []string
	f := newFixture(t, Options{Log: func(m string) { mu.Lock(); defer mu.Unlock(); logs = append(logs, m) }})
	path := filepath.Join(f.root, "--evil--", "evil.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Rewritten with other bytes at the indexed offsets (same size: the
	// catalog's stamp is not checked before reading).
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), len(b)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/s/" + evilID, "/api/sessions/" + evilID + "/entries"} {
		if code, _, body := f.get(t, p); code != 409 || !strings.Contains(body, "changed while it was read") {
			t.Errorf("%s of a changed file: %d %.300s", p, code, body)
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/s/" + evilID, "/api/sessions/" + evilID + "/context"} {
		if code, _, body := f.get(t, p); code != 404 || !strings.Contains(body, "no longer there") {
			t.Errorf("%s of a removed file: %d %.300s", p, code, body)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// The request log has a line for each (they failed), but none is an
	// internal error: no cause is logged, and no 500.
	for _, l := range logs {
		if !strings.HasPrefix(l, "GET ") || strings.Contains(l, " 500 ") {
			t.Errorf("logged as an internal error: %q", l)
		}
	}
	if len(logs) != 4 {
		t.Errorf("logged %q, want one line per request", logs)
	}
}
