package mcp

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A hit in one huge line (a 24 MB tool result) costs kilobytes: the
// search's snippet, read_session and get_context read it cut (before,
// get_context read every line whole and the snippet decoded it whole).
func TestHugeLineCostsLittle(t *testing.T) {
	const id = "40000000-0000-4000-8000-000000000024"
	output := "zqxjbegin " + strings.Repeat(`line of tool output\n`, 24<<20/20)
	session := strings.Join([]string{
		`{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"user","content":"hello","timestamp":1777629601000}}`,
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-05-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"yes"}}],"provider":"anthropic","model":"claude-sonnet-4-5","timestamp":1777629602000}}`,
		`{"type":"message","id":"t1","parentId":"a1","timestamp":"2026-05-01T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"` + output + `"}],"isError":false,"timestamp":1777629603000}}`,
		`{"type":"message","id":"u2","parentId":"t1","timestamp":"2026-05-01T10:00:04.000Z","message":{"role":"user","content":"after","timestamp":1777629604000}}`,
	}, "\n") + "\n"
	dir := t.TempDir()
	p := filepath.Join(dir, "sessions", "--huge--", "h.jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(session), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := build(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search_sessions", map[string]any{"query": "zqxjbegin"}, "zqxjbegin"},
		{"get_context", map[string]any{"session": id}, "after"},
		{"read_session", map[string]any{"session": id, "tool_output": true}, "zqxjbegin line of tool output"},
		{"read_session", map[string]any{"session": id, "around": "t1"}, "after"},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res := f.ok(t, tc.tool, tc.args)
		runtime.ReadMemStats(&after)
		if !strings.Contains(res.text, tc.want) {
			t.Fatalf("%s %v: no %q in %.500s", tc.tool, tc.args, tc.want, res.text)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		if alloc > 12<<20 {
			t.Errorf("%s %v allocated %d MB for a 24 MB line", tc.tool, tc.args, alloc>>20)
		}
		t.Logf("%s %v: %.1f MB allocated", tc.tool, tc.args, float64(alloc)/(1<<20))
	}
}
