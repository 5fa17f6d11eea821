package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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
			if ln == 1 {
				if typ != "session" || e["version"] != float64(3) {
					t.Errorf("%s: first line is not a v3 session header: %s", rel, line[:min(len(line), 200)])
				}
				if !bytes.HasPrefix(line, []byte(`{"type":"session","version":3,"id":"`)) {
					t.Errorf("%s: header key order differs from pi", rel)
				}
				ts, _ := e["timestamp"].(string)
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
					u := msg["usage"].(map[string]any)
					for _, k := range []string{"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"} {
						if _, ok := u[k]; !ok {
							t.Errorf("%s:%d: usage.%s missing", rel, ln, k)
						}
					}
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
	if files != 20 || total != st.bytes {
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
	t.Logf("types %v roles %v non-linear parents %d", types, roles, nonLinear)
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
