package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func smallCorpus(t *testing.T, workers int) (string, *stats) {
	t.Helper()
	dir := t.TempDir()
	st, err := generate(config{out: dir, files: 20, size: 2_000_000, seed: 1, projects: 5, workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return dir, st
}

var (
	hexID    = regexp.MustCompile(`^[0-9a-f]{8}$`)
	fileName = regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z)_([0-9a-f-]{36})\.jsonl$`)
)

func TestCorpusIsValidPiV3(t *testing.T) {
	dir, st := smallCorpus(t, 3)
	if st.files != 20 {
		t.Fatalf("files = %d", st.files)
	}
	if st.bytes < 1_500_000 || st.bytes > 3_000_000 {
		t.Errorf("total bytes %d not close to 2MB", st.bytes)
	}
	checkPiV3(t, dir, st)
}

// checkPiV3 parses every line of every file under dir and checks the pi v3
// structure: header, names, ids, parent links, timestamps, message fields.
func checkPiV3(t *testing.T, dir string, st *stats) {
	t.Helper()
	checkPi(t, dir, st, false)
}

// checkPi is checkPiV3, or with eras (-shape real) each file in the format
// of its start time (formatAt): v1 headers name the model and have no
// version, v1 entries no ids (a compaction names its first kept entry by
// index), v1 and v2 name the parent branchedFrom, usage has no totalTokens
// before 2025-12-06.
func checkPi(t *testing.T, dir string, st *stats, eras bool) {
	t.Helper()
	formats := map[int]int{}
	types := map[string]int{}
	roles := map[string]int{}
	var total int64
	nonLinear := 0
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		rel, _ := filepath.Rel(dir, path)
		folder, name := filepath.Split(rel)
		folder = strings.TrimSuffix(folder, string(filepath.Separator))
		m := fileName.FindStringSubmatch(name)
		if m == nil {
			t.Errorf("%s: bad file name", rel)
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		total += int64(len(data))
		if !utf8.Valid(data) {
			t.Errorf("%s: invalid UTF-8", rel)
		}
		if len(data) == 0 || data[len(data)-1] != '\n' {
			t.Errorf("%s: does not end with newline", rel)
		}
		ids := map[string]bool{}
		prev := ""
		format, noTotal := 3, false
		var parsed []string // type/role of each line (v1 compactions point into it)
		r := bufio.NewReader(bytes.NewReader(data))
		for ln := 1; ; ln++ {
			line, err := r.ReadBytes('\n')
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			line = line[:len(line)-1]
			if bytes.ContainsAny(line, "\r\n") {
				t.Errorf("%s:%d: raw CR/LF inside a line", rel, ln)
			}
			var e map[string]any
			if err := json.Unmarshal(line, &e); err != nil {
				t.Errorf("%s:%d: invalid JSON: %v", rel, ln, err)
				continue
			}
			typ, _ := e["type"].(string)
			kind := typ
			if msg, ok := e["message"].(map[string]any); ok {
				kind += "/" + fmt.Sprint(msg["role"])
			}
			parsed = append(parsed, kind)
			if ln == 1 {
				ts, _ := e["timestamp"].(string)
				if eras {
					start, err := time.Parse(time.RFC3339, ts)
					if err != nil {
						t.Errorf("%s: header timestamp: %v", rel, err)
					}
					format, noTotal = formatAt(start.UnixMilli()), start.UnixMilli() < totalTokensSince
				}
				formats[format]++
				prefix, version := `{"type":"session","version":3,"id":"`, any(float64(3))
				switch format {
				case 2:
					prefix, version = `{"type":"session","version":2,"id":"`, float64(2)
				case 1:
					prefix, version = `{"type":"session","id":"`, nil
					for _, k := range []string{"provider", "modelId", "thinkingLevel"} {
						if _, ok := e[k].(string); !ok {
							t.Errorf("%s: v1 header without %s", rel, k)
						}
					}
				}
				if typ != "session" || e["version"] != version {
					t.Errorf("%s: first line is not a v%d session header: %s", rel, format, line[:min(len(line), 200)])
				}
				if !bytes.HasPrefix(line, []byte(prefix)) {
					t.Errorf("%s: header key order differs from pi", rel)
				}
				if _, ok := e["parentSession"]; ok && format < 3 {
					t.Errorf("%s: a v%d header names its parent parentSession, not branchedFrom", rel, format)
				}
				if strings.NewReplacer(":", "-", ".", "-").Replace(ts) != m[1] || e["id"] != m[2] {
					t.Errorf("%s: name does not match header ts/id", rel)
				}
				cwd, _ := e["cwd"].(string)
				if enc := "--" + strings.ReplaceAll(strings.TrimPrefix(cwd, "/"), "/", "-") + "--"; enc != folder {
					t.Errorf("%s: folder %q != encoded cwd %q", rel, folder, enc)
				}
				continue
			}
			if typ == "session" {
				t.Errorf("%s:%d: duplicate header", rel, ln)
			}
			types[typ]++
			if format == 1 {
				checkV1Entry(t, rel, ln, e, parsed, noTotal)
				continue
			}
			if format == 2 && (typ == "session_info" || typ == "usage" || typ == "context_edit") {
				t.Errorf("%s:%d: %s in a v2 file", rel, ln, typ)
			}
			id, _ := e["id"].(string)
			if !hexID.MatchString(id) {
				t.Errorf("%s:%d: id %q is not 8 lowercase hex", rel, ln, id)
			}
			if ids[id] {
				t.Errorf("%s:%d: duplicate id %s", rel, ln, id)
			}
			switch p := e["parentId"].(type) {
			case nil:
				if ln != 2 {
					t.Errorf("%s:%d: unexpected root", rel, ln)
				}
			case string:
				if !ids[p] {
					t.Errorf("%s:%d: parentId %s is not an earlier entry", rel, ln, p)
				}
				if p != prev {
					nonLinear++
				}
			default:
				t.Errorf("%s:%d: parentId has type %T", rel, ln, p)
			}
			if _, err := time.Parse("2006-01-02T15:04:05.000Z", e["timestamp"].(string)); err != nil {
				t.Errorf("%s:%d: timestamp: %v", rel, ln, err)
			}
			for _, ref := range []string{"firstKeptEntryId", "targetId"} {
				if v, ok := e[ref].(string); ok && !ids[v] {
					t.Errorf("%s:%d: %s %s not found", rel, ln, ref, v)
				}
			}
			if typ == "message" {
				msg := e["message"].(map[string]any)
				role, _ := msg["role"].(string)
				roles[role]++
				if _, ok := msg["timestamp"].(float64); !ok {
					t.Errorf("%s:%d: message.timestamp not a number", rel, ln)
				}
				if role == "assistant" {
					checkUsage(t, rel, ln, msg, noTotal)
				}
			}
			ids[id] = true
			prev = id
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files != st.files || total != st.bytes {
		t.Errorf("walked %d files / %d bytes, stats say %d / %d", files, total, st.files, st.bytes)
	}
	for _, typ := range []string{"message", "model_change", "thinking_level_change"} {
		if types[typ] == 0 {
			t.Errorf("no %s entries", typ)
		}
	}
	for _, role := range []string{"user", "assistant", "toolResult"} {
		if roles[role] == 0 {
			t.Errorf("no %s messages", role)
		}
	}
	if !eras && (len(formats) != 1 || formats[3] == 0) {
		t.Errorf("formats %v without eras", formats)
	}
	t.Logf("types %v roles %v non-linear parents %d, files by format %v", types, roles, nonLinear, formats)
}

func checkUsage(t *testing.T, rel string, ln int, msg map[string]any, noTotal bool) {
	t.Helper()
	u := msg["usage"].(map[string]any)
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"} {
		if _, ok := u[k]; ok != (k != "totalTokens" || !noTotal) {
			t.Errorf("%s:%d: usage.%s present = %v", rel, ln, k, ok)
		}
	}
}

// checkV1Entry: what pi wrote before entries had ids (format 1). parsed
// holds the kind of every line so far, the header first.
func checkV1Entry(t *testing.T, rel string, ln int, e map[string]any, parsed []string, noTotal bool) {
	t.Helper()
	for _, k := range []string{"id", "parentId"} {
		if _, ok := e[k]; ok {
			t.Errorf("%s:%d: a v1 entry with %s", rel, ln, k)
		}
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", fmt.Sprint(e["timestamp"])); err != nil {
		t.Errorf("%s:%d: timestamp: %v", rel, ln, err)
	}
	switch typ := e["type"].(string); typ {
	case "message":
		msg := e["message"].(map[string]any)
		if msg["role"] == "assistant" {
			checkUsage(t, rel, ln, msg, noTotal)
		}
	case "thinking_level_change", "model_change":
	case "compaction":
		i, ok := e["firstKeptEntryIndex"].(float64)
		if !ok || i < 1 || int(i) >= len(parsed)-1 {
			t.Errorf("%s:%d: firstKeptEntryIndex %v", rel, ln, e["firstKeptEntryIndex"])
		} else if k := parsed[int(i)]; k != "message/user" && k != "message/assistant" && k != "message/bashExecution" {
			t.Errorf("%s:%d: firstKeptEntryIndex %v names a %s", rel, ln, i, k)
		}
		if _, ok := e["firstKeptEntryId"]; ok {
			t.Errorf("%s:%d: a v1 compaction with firstKeptEntryId", rel, ln)
		}
	default:
		t.Errorf("%s:%d: %s in a v1 file", rel, ln, typ)
	}
}

// Output must not depend on the number of workers.
func TestDeterministic(t *testing.T) {
	a, _ := smallCorpus(t, 1)
	b, _ := smallCorpus(t, 4)
	n := 0
	filepath.WalkDir(a, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, path)
		x, _ := os.ReadFile(path)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between runs", rel)
		}
		n++
		return nil
	})
	if n != 20 {
		t.Errorf("compared %d files", n)
	}
}

// A bigger corpus exercises the rarer entry kinds; only checks JSON validity
// and that the rare kinds show up.
func TestRareKinds(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := t.TempDir()
	st, err := generate(config{out: dir, files: 60, size: 40_000_000, seed: 1, projects: 8, workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, _ := os.Open(path)
		defer f.Close()
		r := bufio.NewReaderSize(f, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) == 0 && err != nil {
				break
			}
			var e struct {
				Type    string `json:"type"`
				Message struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if err := json.Unmarshal(line, &e); err != nil {
				t.Errorf("%s: invalid JSON: %v", path, err)
				return nil
			}
			seen[e.Type]++
			if e.Message.Role != "" {
				seen["role:"+e.Message.Role]++
			}
			if bytes.Contains(e.Message.Content, []byte(`"type":"image"`)) {
				seen["image"]++
			}
		}
		return nil
	})
	for _, k := range []string{"compaction", "branch_summary", "label", "session_info", "custom", "custom_message", "usage", "role:bashExecution", "image"} {
		if seen[k] == 0 {
			t.Errorf("no %s in a %d-file corpus", k, st.files)
		}
	}
	if st.branchFiles == 0 {
		t.Error("no in-file branches")
	}
	t.Logf("%v", seen)
}

// ---------------------------------------------------------------------------
// -text realistic

func realisticCorpus(t *testing.T, out string, workers int) *stats {
	t.Helper()
	st, err := generate(config{out: out, files: 30, size: 6_000_000, seed: 1, projects: 5, workers: workers, text: "realistic", plant: 50})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		m[filepath.ToSlash(rel)], err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var cjkRun = regexp.MustCompile(`[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]{8,}`)

func TestRealistic(t *testing.T) {
	for name, l := range map[string][]string{"ja": jaSentences, "zh": zhSentences} {
		if len(l) < 150 {
			t.Errorf("%d %s sentences, want >= 150", len(l), name)
		}
	}
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	st := realisticCorpus(t, a, 3)
	realisticCorpus(t, b, 1)
	if st.pools.real == nil {
		t.Fatal("realistic pools not used")
	}
	checkPiV3(t, a, st)

	// Deterministic across runs and worker counts, manifest included.
	ta, tb := readTree(t, a), readTree(t, b)
	if len(ta) != 30 || len(ta) != len(tb) {
		t.Fatalf("%d vs %d files", len(ta), len(tb))
	}
	for rel, x := range ta {
		if !bytes.Equal(x, tb[rel]) {
			t.Errorf("%s differs between runs", rel)
		}
	}
	ma, err := os.ReadFile(a + ".plants.json")
	if err != nil {
		t.Fatal(err)
	}
	if mb, _ := os.ReadFile(b + ".plants.json"); !bytes.Equal(ma, mb) {
		t.Error("manifests differ between runs")
	}

	// Real text, not the synthetic vocabulary; CJK in some user and assistant messages.
	var all []byte
	for _, x := range ta {
		all = append(all, x...)
	}
	for _, s := range []string{"--- PASS: Test", "ok  \\t", "func (", "src/", "\\tif err != nil {\\n"} {
		if !bytes.Contains(all, []byte(s)) {
			t.Errorf("no %q in the corpus", s)
		}
	}
	cjk := map[string]int{}
	for _, x := range ta {
		for _, line := range bytes.Split(x, []byte("\n")) {
			var e struct {
				Message struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if len(line) == 0 || json.Unmarshal(line, &e) != nil {
				continue
			}
			var text string
			if json.Unmarshal(e.Message.Content, &text) != nil {
				var blocks []struct{ Type, Text, Thinking string }
				json.Unmarshal(e.Message.Content, &blocks)
				for _, bl := range blocks {
					text += bl.Text + bl.Thinking
				}
			}
			if cjkRun.MatchString(text) {
				cjk[e.Message.Role]++
			}
		}
	}
	if cjk["user"] == 0 || cjk["assistant"] == 0 || st.cjkUsers == 0 || st.cjkTexts == 0 {
		t.Errorf("CJK messages by role %v; stats: %d user, %d assistant texts", cjk, st.cjkUsers, st.cjkTexts)
	}
	t.Logf("CJK messages by role %v, %d of %d user messages, %d of %d assistant texts", cjk, st.cjkUsers, st.users, st.cjkTexts, st.texts)

	// The manifest is exact: a word is listed for a file iff the file contains it.
	var manifest map[string][]string
	if err := json.Unmarshal(ma, &manifest); err != nil {
		t.Fatal(err)
	}
	if len(manifest) != 50 {
		t.Errorf("%d plants in the manifest, want 50", len(manifest))
	}
	for _, w := range []string{"zqplant0001", "zqplant0050", "Zürichplant07", "鼷鼱", "ゾルヴァキン", "퀣뷁"} {
		if _, ok := manifest[w]; !ok {
			t.Errorf("plant %q missing from the manifest", w)
		}
	}
	inFiles := map[string]bool{}
	for w, files := range manifest {
		if len(files) < 1 || len(files) > 20 || !sort.StringsAreSorted(files) {
			t.Errorf("plant %q: files %v (want 1-20, sorted)", w, files)
		}
		listed := map[string]bool{}
		for _, f := range files {
			listed[f] = true
			inFiles[f] = true
		}
		for rel, x := range ta {
			if has := bytes.Contains(x, []byte(w)); has != listed[rel] {
				t.Errorf("plant %q: file %s contains it = %v, manifest says %v", w, rel, has, listed[rel])
			}
		}
	}
	// Plants sit in text of several kinds.
	kinds := map[string]bool{}
	for rel := range inFiles {
		for _, line := range bytes.Split(ta[rel], []byte("\n")) {
			if !bytes.Contains(line, []byte("plant")) && !cjkPlant.Match(line) {
				continue
			}
			var e struct {
				Type    string `json:"type"`
				Message struct {
					Role string `json:"role"`
				} `json:"message"`
			}
			json.Unmarshal(line, &e)
			kinds[e.Type+"/"+e.Message.Role] = true
		}
	}
	if len(kinds) < 3 {
		t.Errorf("plants only in %v", kinds)
	}
	t.Logf("plants in %v", kinds)
}

var cjkPlant = regexp.MustCompile(`鼷鼱|ゾルヴァキン|퀣뷁`)

// Building the pools twice from scratch gives the same bytes.
func TestRealisticPoolsDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	goroot, err := resolveGOROOT("")
	if err != nil {
		t.Fatal(err)
	}
	p1, err := buildRealPools(7, goroot)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := buildRealPools(7, goroot)
	if err != nil {
		t.Fatal(err)
	}
	for i, pair := range [][2]*pool{{p1.prose, p2.prose}, {p1.code, p2.code}, {p1.logs, p2.logs}, {p1.real.grep, p2.real.grep}, {p1.real.cjk[0], p2.real.cjk[0]}} {
		if !bytes.Equal(pair[0].buf, pair[1].buf) || !slices.Equal(pair[0].offs, pair[1].offs) {
			t.Errorf("pool %d differs between builds", i)
		}
	}
	if !slices.Equal(p1.real.commands, p2.real.commands) || !slices.Equal(p1.real.idents, p2.real.idents) {
		t.Error("commands or idents differ between builds")
	}
	t.Logf("prose %d KB, code %d KB, logs %d KB, grep %d KB; %d idents, %d paths; built in %v",
		len(p1.prose.buf)>>10, len(p1.code.buf)>>10, len(p1.logs.buf)>>10, len(p1.real.grep.buf)>>10, len(p1.real.idents), len(p1.real.paths), p1.real.build)
}
