package main

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// `pidex show` over a session with one huge line (a 24 MB tool result,
// like the 200 MB one of the hardening issue) reads that line as a stream
// and shows it cut: memory does not grow with the line, nor does a search
// hit's snippet in it. --json still prints it exactly.
func TestShowHugeLine(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "--w--", "a.jsonl")
	output := "BEGIN " + strings.Repeat(`line of tool output\n`, 24<<20/20) + "the final stretch"
	writeSession(t, file, `{"type":"session","version":3,"id":"huge","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w"}`,
		userLine("u1", "", "hello"),
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-05-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"calling"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"yes"}}],"provider":"anthropic","model":"claude-sonnet-4-5","timestamp":1777629602000}}`,
		`{"type":"message","id":"t1","parentId":"a1","timestamp":"2026-05-01T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"`+output+`"}],"isError":false,"timestamp":1777629603000}}`,
		userLine("u2", "t1", "after"))
	db := filepath.Join(t.TempDir(), "catalog.sqlite")
	run := func(args ...string) (string, uint64) {
		t.Helper()
		var out, errb bytes.Buffer
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := newApp(&out, &errb).execute(context.Background(), append([]string{"--db", db, "--sessions", root}, args...))
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errb.String())
		}
		return out.String(), after.TotalAlloc - before.TotalAlloc
	}
	run("index", "-q")
	for _, args := range [][]string{{"show", "huge"}, {"show", "huge", "--context"}} {
		out, alloc := run(append(args, "--no-refresh")...)
		if alloc > 4<<20 {
			t.Errorf("%v allocated %d MB for a 24 MB line", args, alloc>>20)
		}
		for _, want := range []string{"hello", "after", "BEGIN line of tool output", "25.2 MiB line, cut", "… more lines\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: no %q in\n%.2000s", args, want, out)
			}
		}
	}
	// A search hit in the line: its snippet is read from a cut copy
	// (before: the line read and decoded whole, over 1 GB allocated), or,
	// when the match lies beyond it, from a window around the match in the
	// line's text read as a stream. A phrase is confirmed on that stream,
	// wherever it lies (before: the line, its text and a string a token,
	// 1.1 GB allocated for `"line of tool"`; issue 39, item 6).
	for _, tc := range []struct {
		args    []string
		snippet string
	}{
		{[]string{"search", "BEGIN"}, "BEGIN line of tool output"},
		{[]string{"search", "BEGIN", "--json"}, "BEGIN line of tool output"},
		{[]string{"search", "stretch"}, "line of tool output the final stretch"},
		{[]string{"search", `"final stretch"`}, "line of tool output the final stretch"},
		{[]string{"search", `"line of tool"`, "--json"}, "BEGIN line of tool output"},
		{[]string{"search", `"tool output the final"`, "--json"}, "line of tool output the final stretch"},
	} {
		out, alloc := run(append(tc.args, "--no-refresh")...)
		t.Logf("%v: %.1f MB allocated", tc.args, float64(alloc)/(1<<20))
		if alloc > 8<<20 {
			t.Errorf("%v allocated %d MB for a 24 MB line", tc.args, alloc>>20)
		}
		if !strings.Contains(out, tc.snippet) {
			t.Errorf("%v: no snippet %q in\n%.2000s", tc.args, tc.snippet, out)
		}
	}
	out, _ := run("show", "huge", "--json", "--no-refresh")
	if !strings.Contains(out, output) {
		t.Errorf("show --json does not hold the whole line")
	}
}
