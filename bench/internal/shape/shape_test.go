package shape

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite real.json from the real files in RealFixtures")

// real.json is what Measure finds in the real files; -update rewrites it.
func TestRealJSON(t *testing.T) {
	files, err := RealFiles(RealFixtures)
	if err != nil {
		if *update {
			t.Fatal(err)
		}
		t.Skipf("no real fixtures here: %v", err)
	}
	f, err := Measure(files...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *update {
		if err := os.WriteFile("real.json", b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(b, realJSON) {
		t.Errorf("real.json differs from what Measure finds in %s (go test ./bench/internal/shape -update)", RealFixtures)
	}
	if r := Real(); r.Entries != f.Entries || r.Kinds["message/assistant"].Count != f.Kinds["message/assistant"].Count {
		t.Errorf("Real() does not read real.json back: %+v", r.Sizes)
	}
}

func writeFile(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestMeasure(t *testing.T) {
	dir := t.TempDir()
	hdr := `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`
	user := `{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","data":"x","mimeType":"image/png"}],"timestamp":1}}`
	asst := `{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"h"},{"type":"toolCall","id":"c","name":"ls","arguments":{}},{"type":"toolCall","id":"d","name":"ls","arguments":{}}]}}`
	str := `{"type":"message","id":"c","parentId":"b","timestamp":"t","message":{"role":"user","content":"plain"}}`
	tlc := `{"type":"thinking_level_change","id":"d","parentId":"c","timestamp":"t","thinkingLevel":"high"}`
	writeFile(t, filepath.Join(dir, "p", "a.jsonl"), hdr, user, asst, `{"broken`, str)
	writeFile(t, filepath.Join(dir, "p", "q", "b.jsonl"), hdr, tlc, "", tlc)
	writeFile(t, filepath.Join(dir, "notes.txt"), "not a session")
	f, err := Measure(dir)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, l := range []string{hdr, user, asst, `{"broken`, str, hdr, tlc, "", tlc} {
		total += int64(len(l) + 1)
	}
	sizes := []int{len(tlc) + 1, len(tlc) + 1, len(str) + 1, len(user) + 1, len(asst) + 1} // sorted
	want := Figures{Files: 2, Bytes: total, Entries: 5, Malformed: 1}
	if f.Files != want.Files || f.Bytes != want.Bytes || f.Entries != want.Entries || f.Malformed != want.Malformed {
		t.Errorf("totals %d files %d bytes %d entries %d malformed, want %+v", f.Files, f.Bytes, f.Entries, f.Malformed, want)
	}
	sum := 0
	for _, s := range sizes {
		sum += s
	}
	ws := Sizes{EntriesPerMB: round(5/(float64(total)/1e6), 1), P10: sizes[0], P50: sizes[2], P90: sizes[4], P99: sizes[4], Mean: round(float64(sum)/5, 1)}
	if f.Sizes != ws {
		t.Errorf("sizes %+v, want %+v", f.Sizes, ws)
	}
	kinds := map[string]int64{"message/user": 2, "message/assistant": 1, "thinking_level_change": 2}
	if len(f.Kinds) != len(kinds) {
		t.Errorf("kinds %v", f.Kinds)
	}
	for k, n := range kinds {
		if kd := f.Kinds[k]; kd == nil || kd.Count != n || kd.Share != round(float64(n)/5, 5) {
			t.Errorf("kind %s: %+v, want %d", k, kd, n)
		}
	}
	if kd := f.Kinds["thinking_level_change"]; kd.Bytes != 2*int64(len(tlc)+1) || kd.P10 != len(tlc)+1 || kd.P50 != len(tlc)+1 || kd.P90 != len(tlc)+1 {
		t.Errorf("thinking_level_change bytes %d p50 %d", kd.Bytes, kd.P50)
	}
	blocks := map[string]int64{"user/text": 1, "user/image": 1, "assistant/thinking": 1, "assistant/toolCall": 2}
	if len(f.Blocks) != len(blocks) {
		t.Errorf("blocks %v", f.Blocks)
	}
	for b, n := range blocks {
		if f.Blocks[b] != n {
			t.Errorf("block %s: %d, want %d", b, f.Blocks[b], n)
		}
	}
	if r := f.BlockRates(); r["assistant/toolCall"] != 2 || r["user/text"] != 0.5 {
		t.Errorf("rates %v", r)
	}
	// A file named directly is read whatever its name; no file at all is an error.
	if g, err := Measure(filepath.Join(dir, "notes.txt")); err != nil || g.Files != 1 || g.Malformed != 1 || g.Entries != 0 {
		t.Errorf("notes.txt: %+v, %v", g, err)
	}
	if _, err := Measure(t.TempDir()); err == nil {
		t.Error("an empty folder measured without error")
	}
}

func TestPercentile(t *testing.T) {
	s := []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct {
		p    float64
		want int
	}{{0.1, 1}, {0.5, 5}, {0.9, 9}, {0.99, 10}, {1, 10}, {0, 1}} {
		if got := percentile(s, c.p); got != c.want {
			t.Errorf("p%v = %d, want %d", c.p, got, c.want)
		}
	}
}

func TestCompare(t *testing.T) {
	real := &Figures{Entries: 1000, Kinds: map[string]*Kind{
		"message/assistant": {Count: 400, Share: 0.4}, "message/user": {Count: 100, Share: 0.1}, "custom": {Count: 10, Share: 0.01}},
		Blocks: map[string]int64{"assistant/thinking": 120}}
	want := Sizes{EntriesPerMB: 300, P10: 200, P50: 600, P90: 3000, P99: 30000, Mean: 3000}
	for _, c := range []struct {
		name string
		got  Figures
		off  []string
	}{
		{"equal", Figures{Sizes: want, Kinds: real.Kinds, Blocks: real.Blocks}, nil},
		{"within", Figures{Sizes: Sizes{EntriesPerMB: 329, P10: 181, P50: 660, P90: 2701, P99: 32999, Mean: 3299},
			Kinds: map[string]*Kind{"message/assistant": {Count: 439, Share: 0.439}, "message/user": {Count: 91, Share: 0.091},
				"custom": {Count: 16, Share: 0.016}, "label": {Count: 2, Share: 0.002}}, // custom: within 2·√10 of 1000
			Blocks: map[string]int64{"assistant/thinking": 140}}, nil},
		{"off", Figures{Sizes: Sizes{EntriesPerMB: 331, P10: 200, P50: 539, P90: 3000, P99: 30000, Mean: 3000},
			Kinds: map[string]*Kind{"message/assistant": {Count: 400, Share: 0.4}, "message/user": {Count: 100, Share: 0.1},
				"custom": {Count: 10, Share: 0.01}, "label": {Count: 3, Share: 0.003}},
			Blocks: map[string]int64{"assistant/thinking": 180}},
			[]string{"entries/MB", "line p50", "kind label", "block assistant/thinking"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var off []string
			for _, r := range Compare(&c.got, want, real) {
				if !r.OK {
					off = append(off, r.Name)
				}
			}
			if strings.Join(off, ",") != strings.Join(c.off, ",") {
				t.Errorf("off: %v, want %v", off, c.off)
			}
		})
	}
}
