package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pidex-dev/pidex/engine"
)

// The tests drive the server in-process with the SDK's own client over
// its in-memory transport, on a copy of the bundled corpus
// (testdata/sessions), so that they can check the files are never
// written.

// copyCorpus copies testdata/sessions into root.
func copyCorpus(root string) error {
	src := filepath.Join("..", "testdata", "sessions")
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(root, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// digest is every file under root with its hash, to see that nothing was
// written.
func digest(t testing.TB, root string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fixture is a server over an engine over a fresh copy of the corpus,
// indexed, text included, and a client connected to it.
type fixture struct {
	root    string
	eng     *engine.Engine
	srv     *Server
	cs      *sdk.ClientSession
	mu      sync.Mutex
	logs    []string
	cleanup []func()
}

// build makes a fixture in dir.
func build(dir string, opts Options) (*fixture, error) {
	ctx := context.Background()
	f := &fixture{root: filepath.Join(dir, "sessions")}
	if err := copyCorpus(f.root); err != nil {
		return nil, err
	}
	eng, err := engine.Open(ctx, engine.Options{DBPath: filepath.Join(dir, "index.sqlite"), Roots: []string{f.root}})
	if err != nil {
		return nil, err
	}
	f.eng = eng
	f.cleanup = append(f.cleanup, func() { eng.Close() })
	if _, err := eng.Refresh(ctx); err != nil {
		f.close()
		return nil, err
	}
	if _, err := eng.RefreshText(ctx); err != nil {
		f.close()
		return nil, err
	}
	if opts.Log == nil {
		opts.Log = func(m string) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.logs = append(f.logs, m)
		}
	}
	f.srv = New(eng, opts)
	cs, closeFn, err := connect(f.srv)
	if err != nil {
		f.close()
		return nil, err
	}
	f.cs = cs
	f.cleanup = append(f.cleanup, closeFn)
	return f, nil
}

func (f *fixture) close() {
	for i := len(f.cleanup) - 1; i >= 0; i-- {
		f.cleanup[i]()
	}
}

func (f *fixture) logged() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.logs...)
}

func newFixture(t testing.TB, opts Options) *fixture {
	t.Helper()
	f, err := build(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.close)
	return f
}

// connect opens a client session to srv over the in-memory transport.
func connect(srv *Server) (*sdk.ClientSession, func(), error) {
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		return nil, nil, err
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		return nil, nil, err
	}
	return cs, func() { cs.Close(); ss.Close() }, nil
}

// result is a tool call's answer, decoded.
type result struct {
	isError bool
	text    string
	raw     json.RawMessage // the structured content
	data    map[string]any
}

func (f *fixture) call(t testing.TB, tool string, args any) result {
	t.Helper()
	return callOn(t, f.cs, tool, args)
}

func callOn(t testing.TB, cs *sdk.ClientSession, tool string, args any) result {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", tool, args, err)
	}
	var r result
	r.isError = res.IsError
	var texts []string
	for _, c := range res.Content {
		tc, ok := c.(*sdk.TextContent)
		if !ok {
			t.Fatalf("%s: content %T, want text", tool, c)
		}
		texts = append(texts, tc.Text)
	}
	r.text = strings.Join(texts, "\n")
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		r.raw = b
		if err := json.Unmarshal(b, &r.data); err != nil {
			t.Fatalf("%s: structured content is not an object: %s", tool, b)
		}
	}
	return r
}

// ok calls a tool that must succeed, and checks its structured content
// against the tool's output schema.
func (f *fixture) ok(t testing.TB, tool string, args any) result {
	t.Helper()
	r := f.call(t, tool, args)
	if r.isError {
		t.Fatalf("%s %v: tool error: %s", tool, args, r.text)
	}
	if r.data == nil || r.text == "" {
		t.Fatalf("%s %v: want structured and text content, got text %q, data %s", tool, args, r.text, r.raw)
	}
	f.validate(t, tool, r.raw)
	return r
}

// fail calls a tool that must fail with a tool error (never a protocol
// error) and returns its message.
func (f *fixture) fail(t testing.TB, tool string, args any) string {
	t.Helper()
	r := f.call(t, tool, args)
	if !r.isError {
		t.Fatalf("%s %v: want a tool error, got %.300s", tool, args, r.text)
	}
	if r.raw != nil {
		t.Errorf("%s: a tool error carries no structured content (it would have to match the output schema): %s", tool, r.raw)
	}
	return r.text
}

// validate checks data against the output schema the server lists for
// tool, as a client that validates would.
func (f *fixture) validate(t testing.TB, tool string, data json.RawMessage) {
	t.Helper()
	s := f.outputSchema(t, tool)
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("%s: structured content does not match its output schema: %v\n%.500s", tool, err, data)
	}
}

func (f *fixture) outputSchema(t testing.TB, tool string) *jsonschema.Resolved {
	t.Helper()
	for _, tl := range f.tools(t) {
		if tl.Name == tool {
			b, _ := json.Marshal(tl.OutputSchema)
			var s jsonschema.Schema
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			r, err := s.Resolve(nil)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
	}
	t.Fatalf("no tool %s", tool)
	return nil
}

func (f *fixture) tools(t testing.TB) []*sdk.Tool {
	t.Helper()
	res, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// str digs a string out of decoded JSON by a path of keys and indexes.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func digStr(v any, path ...any) string {
	s, _ := dig(v, path...).(string)
	return s
}

func digLen(v any, path ...any) int {
	a, _ := dig(v, path...).([]any)
	return len(a)
}
