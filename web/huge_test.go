package web

import (
	"runtime"
	"strings"
	"testing"
)

// A hit in one huge line (a 24 MB tool result, like the 300 MB one of
// issue 16) costs kilobytes, not its size several times over: the search
// page's and the API's snippets, the conversation and the model context
// read it cut (before: the snippet read and decoded it whole, the context
// view read every line whole).
func TestHugeLineCostsLittle(t *testing.T) {
	const id = "40000000-0000-4000-8000-000000000024"
	output := "zqxjbegin " + strings.Repeat(`line of tool output\n`, 24<<20/20) + "the final stretch"
	session := strings.Join([]string{
		`{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"user","content":"hello","timestamp":1777629601000}}`,
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-05-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"yes"}}],"provider":"anthropic","model":"claude-sonnet-4-5","timestamp":1777629602000}}`,
		`{"type":"message","id":"t1","parentId":"a1","timestamp":"2026-05-01T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"` + output + `"}],"isError":false,"timestamp":1777629603000}}`,
		`{"type":"message","id":"u2","parentId":"t1","timestamp":"2026-05-01T10:00:04.000Z","message":{"role":"user","content":"after","timestamp":1777629604000}}`,
	}, "\n") + "\n"
	f := newFixtureWith(t, Options{}, session)
	for _, tc := range []struct{ path, want string }{
		{"/search?q=zqxjbegin", "zqxjbegin"},
		{"/api/search?q=zqxjbegin", `"snippet":"bash zqxjbegin line of tool output`},
		// A phrase, confirmed on the line's text read as a stream (issue 39,
		// item 6: 1.1 GB peak for a 100 MB line), wherever it lies.
		{"/search?q=%22final+stretch%22", "line of tool output the <mark>final stretch</mark>"},
		{"/api/search?q=%22final+stretch%22", `line of tool output the final stretch"`},
		{"/api/search?q=stretch", `line of tool output the final stretch"`},
		{"/api/search?q=%22line+of+tool%22", `"entryId":"t1"`},
		{"/s/" + id + "?view=context", "after"},
		{"/s/" + id, "after"},
		{"/s/" + id + "?at=t1", "after"},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code, _, body := f.get(t, tc.path)
		runtime.ReadMemStats(&after)
		if code != 200 || !strings.Contains(body, tc.want) {
			t.Fatalf("%s: %d, no %q in %.500s", tc.path, code, tc.want, body)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		if alloc > 12<<20 {
			t.Errorf("%s allocated %d MB for a 24 MB line", tc.path, alloc>>20)
		}
		t.Logf("%s: %.1f MB allocated", tc.path, float64(alloc)/(1<<20))
	}
}
