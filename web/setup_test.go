package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/catalogtest"
)

// The test catalog: the repository's testdata sessions plus one session,
// written here, whose every text field tries to inject markup.

const evilID = "e0000000-0000-4000-8000-00000000e71c"

// evilSession puts <script> and <img onerror> in the cwd, the name, a
// label, user and assistant text, thinking, a tool call, tool output, a
// Markdown link and code, and offers an SVG image.
var evilSession = strings.Join([]string{
	`{"type":"session","version":3,"id":"` + evilID + `","timestamp":"2026-10-01T10:00:00.000Z","cwd":"/home/<img src=x onerror=alert('cwd')>/proj"}`,
	`{"type":"session_info","id":"n1","parentId":null,"timestamp":"2026-10-01T10:00:00.500Z","name":"<script>alert('name')</script>"}`,
	`{"type":"message","id":"u1","parentId":"n1","timestamp":"2026-10-01T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"evilword <script>alert('user')</script> and <img src=x onerror=alert('user')> [click](javascript:alert('link')) [ok](https://example.com/?a=\"><script>alert('href')</script>) **<b>bold</b>** ` + "`<script>alert('code')</script>`" + `"},{"type":"image","mimeType":"image/svg+xml","data":"PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+"}],"timestamp":1790848801000}}`,
	`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-10-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"<script>alert('thinking')</script>"},{"type":"text","text":"Here:\n` + "```html\\n</code></pre><script>alert('fence')</script>\\n```" + `\n<iframe src=javascript:alert('frame')></iframe>"},{"type":"toolCall","id":"c1","name":"<img src=x onerror=alert('tool')>","arguments":{"command":"echo '<script>alert(\"args\")</script>'"}}],"provider":"p","model":"m<script>","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}},"stopReason":"toolUse","timestamp":1790848802000}}`,
	`{"type":"message","id":"t1","parentId":"a1","timestamp":"2026-10-01T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"<script>alert('toolname')</script>","content":[{"type":"text","text":"<script>alert('output')</script>"}],"isError":false,"timestamp":1790848803000}}`,
	`{"type":"label","id":"l1","parentId":"t1","timestamp":"2026-10-01T10:00:04.000Z","targetId":"u1","label":"<img src=x onerror=alert('label')>"}`,
}, "\n") + "\n"

type fixture struct {
	eng  *engine.Engine
	srv  *Server
	ts   *httptest.Server
	root string // the writable root (the evil session's)
}

// newFixture indexes the test sessions (text included) and serves them
// with opts (Addr is filled in with the test server's address).
func newFixture(t testing.TB, opts Options) *fixture {
	return newFixtureWith(t, opts, evilSession)
}

// newFixtureWith is newFixture with the given session in the writable
// root ("" for none: the repository's sessions alone).
func newFixtureWith(t testing.TB, opts Options, extra string) *fixture {
	t.Helper()
	root := t.TempDir()
	if extra != "" {
		catalogtest.WriteFile(t, filepath.Join(root, "--evil--", "evil.jsonl"), extra)
	}
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{DBPath: filepath.Join(t.TempDir(), "db.sqlite"),
		Roots: []string{"../testdata/sessions", root}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if _, err := eng.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.RefreshText(ctx); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	opts.Addr = ts.Listener.Addr().String()
	srv, err := New(eng, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = srv.Handler()
	ts.Start()
	t.Cleanup(ts.Close)
	return &fixture{eng: eng, srv: srv, ts: ts, root: root}
}

// get fetches a path and returns status, content type and body.
func (f *fixture) get(t testing.TB, path string, header ...string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest("GET", f.ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	res, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), string(b)
}
