package pi

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/schema"
)

// keep are the fields whose values say what an entry is, not what it
// says: left as they are when an example is made long.
var keep = map[string]bool{"type": true, "role": true, "id": true, "parentId": true, "timestamp": true, "customType": true,
	"provider": true, "model": true, "modelId": true, "api": true, "stopReason": true, "toolCallId": true, "fromId": true,
	"targetId": true, "firstKeptEntryId": true, "thinkingLevel": true, "source": true, "updatedAt": true, "cwd": true}

// lengthen makes every string of v that is not in keep longer than
// streamString, with escapes, quotes, tabs and CJK in it.
func lengthen(v any) any {
	filler := strings.Repeat("alpha beta\tgamma \"delta\" é 漢字 <tag> ", 900)
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && keep[k] {
				x[k] = s
				continue
			}
			x[k] = lengthen(e)
		}
	case []any:
		for i := range x {
			x[i] = lengthen(x[i])
		}
	case string:
		return x + " " + filler + " end of " + x
	}
	return v
}

// streamed is what StreamSearchText hands out, joined.
func streamed(t *testing.T, path string, line []byte) string {
	t.Helper()
	var b strings.Builder
	whole, err := StreamSearchText(path, bytes.NewReader(line), 0, int64(len(line)), func(s string) error { b.WriteString(s); return nil })
	if err != nil || !whole {
		t.Fatal(whole, err)
	}
	return b.String()
}

// The searchable text streamed from a line's skeleton is the line's
// SearchText, word for word, for every kind and role with its strings
// made long (read in pieces), and short (the skeleton is the line).
func TestStreamSearchTextIsSearchText(t *testing.T) {
	var lines []string
	for _, k := range Kinds() {
		lines = append(lines, k.Example)
	}
	for _, r := range Roles() {
		lines = append(lines, `{"type":"message","id":"m1","parentId":null,"timestamp":"2026-05-01T10:00:00.000Z","message":`+r.Example+`}`)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	for _, ex := range lines {
		var v any
		if err := json.Unmarshal([]byte(ex), &v); err != nil {
			t.Fatal(err)
		}
		long, err := json.Marshal(lengthen(v))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range [][]byte{[]byte(ex), long} {
			l, err := schema.DecodeLineFast(line)
			if l == nil {
				t.Fatalf("%.80s: %v", line, err)
			}
			want := SearchText(path, l, true)
			if got := streamed(t, path, line); !slices.Equal(strings.Fields(got), strings.Fields(want)) {
				t.Errorf("%.80s (%d bytes): streamed %d words, SearchText %d:\n%.300q\n%.300q", line, len(line),
					len(strings.Fields(got)), len(strings.Fields(want)), got, want)
			}
		}
	}
}

// An omp line's artifacts are found wherever the line refers to them,
// inside its long strings too, in order, across the scan's windows.
func TestStreamSearchTextReadsArtifacts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	for name, text := range map[string]string{"0.bash.log": "zero artifact", "7.read.log": "seven artifact", "Scout.md": "scout output"} {
		if err := os.MkdirAll(filepath.Join(dir, "s"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "s", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pad := strings.Repeat("x ", 256<<10/2-7) // the first reference straddles the first window's edge
	out := pad + "Read artifact://0 for full output " + strings.Repeat("y ", 300<<10) + " see agent://Scout and artifact://7."
	line, _ := json.Marshal(map[string]any{"type": "message", "id": "t1", "parentId": nil, "timestamp": "2026-05-01T10:00:00.000Z",
		"message": map[string]any{"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": []any{map[string]any{"type": "text", "text": out}}}})
	l, _ := schema.DecodeLineFast(line)
	want := SearchText(path, l, true)
	if !strings.HasSuffix(want, "zero artifact\nscout output\nseven artifact") {
		t.Fatalf("SearchText ends %q", want[len(want)-60:])
	}
	if got := streamed(t, path, line); !slices.Equal(strings.Fields(got), strings.Fields(want)) {
		t.Errorf("streamed ends %q", got[max(0, len(got)-60):])
	}
}

// Streaming a 32 MB line's text holds none of it.
func TestStreamSearchTextIsBounded(t *testing.T) {
	out := strings.Repeat(`line of tool output\n`, 32<<20/21)
	line := []byte(`{"type":"message","id":"t1","parentId":"a1","timestamp":"2026-05-01T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"` + out + `"}],"isError":false}}`)
	out = ""
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := 0
	if whole, err := StreamSearchText(filepath.Join(t.TempDir(), "s.jsonl"), bytes.NewReader(line), 0, int64(len(line)), func(s string) error { n += len(s); return nil }); err != nil || !whole {
		t.Fatal(whole, err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 || n < 30<<20 {
		t.Errorf("%d bytes of text, %d KB allocated", n, alloc>>10)
	}
}

// A line the stream can give only in part says so, in bounded memory: a
// million short blocks (past the skeleton's budget), and a line holding
// the skeleton's mark (its cut copy's text).
func TestStreamSearchTextInPart(t *testing.T) {
	var blocks []string
	for i := range 1_000_000 {
		blocks = append(blocks, `{"type":"text","text":"block `+strconv.Itoa(i)+`"}`)
	}
	for _, tc := range []struct {
		name, line, first string
	}{
		{"a million blocks", `{"type":"message","id":"t1","parentId":null,"timestamp":"2026-05-01T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[` + strings.Join(blocks, ",") + `]}}`, "block 0"},
		{"the mark", `{"type":"message","id":"t1","parentId":null,"timestamp":"2026-05-01T10:00:03.000Z","message":{"role":"user","content":[{"type":"text","text":"\ufdd0 marked"},{"type":"text","text":"` + strings.Repeat("word ", 4<<20) + `"}]}}`, "marked\nword"},
	} {
		line := []byte(tc.line)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var b strings.Builder
		whole, err := StreamSearchText(filepath.Join(t.TempDir(), "s.jsonl"), bytes.NewReader(line), 0, int64(len(line)), func(s string) error {
			if b.Len() < 1<<10 {
				b.WriteString(s)
			}
			return nil
		})
		runtime.ReadMemStats(&after)
		if err != nil || whole || !strings.Contains(b.String(), tc.first) {
			t.Errorf("%s: whole %v, %v, text %.80q", tc.name, whole, err, b.String())
		}
		t.Logf("%s: %d MB allocated for a %d MB line", tc.name, (after.TotalAlloc-before.TotalAlloc)>>20, len(line)>>20)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 160<<20 {
			t.Errorf("%s: %d MB allocated for a %d MB line", tc.name, alloc>>20, len(line)>>20)
		}
	}
}
