package main

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"
	"testing"
)

type forkEntry struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	ParentID  *string         `json:"parentId"`
	Timestamp string          `json:"timestamp"`
	Parent    string          `json:"parentSession"`
	Usage     json.RawMessage `json:"usage"`
	Message   struct {
		Role  string          `json:"role"`
		Usage json.RawMessage `json:"usage"`
	} `json:"message"`
	line []byte
}

func parseSession(t *testing.T, data []byte) []*forkEntry {
	t.Helper()
	var out []*forkEntry
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		e := &forkEntry{line: line}
		if err := json.Unmarshal(line, e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// Forks copy their original's entries with the original's ids, timestamps
// and usage, under a header of their own that points at the original; other
// files are the same as without -forks.
func TestForks(t *testing.T) {
	const n = 12
	dir := t.TempDir()
	st, err := generate(config{out: dir, files: 40, size: 16_000_000, seed: 2, projects: 2, workers: 2, forks: n})
	if err != nil {
		t.Fatal(err)
	}
	checkPiV3(t, dir, st)
	plain := t.TempDir()
	if _, err := generate(config{out: plain, files: 40, size: 16_000_000, seed: 2, projects: 2, workers: 2}); err != nil {
		t.Fatal(err)
	}
	files, before := readTree(t, dir), readTree(t, plain)
	byPiPath := map[string][]*forkEntry{}
	for rel, data := range files {
		byPiPath[homeDir+"/.pi/agent/sessions/"+rel] = parseSession(t, data)
	}
	kinds := map[string]int{}
	usageCopies := 0
	for rel, data := range files {
		ents := byPiPath[homeDir+"/.pi/agent/sessions/"+rel]
		orig, ok := byPiPath[ents[0].Parent]
		if !ok || !sharesIDs(ents, orig) {
			if !bytes.Equal(data, before[rel]) {
				t.Errorf("%s is not a fork but differs from the corpus without -forks", rel)
			}
			continue
		}
		if ents[0].ID == orig[0].ID || path.Dir(ents[0].Parent) != path.Dir(homeDir+"/.pi/agent/sessions/"+rel) {
			t.Errorf("%s: header %s does not stand for a fork of %s in the same project", rel, ents[0].line, ents[0].Parent)
		}
		origByID := map[string]*forkEntry{}
		for _, e := range orig[1:] {
			origByID[e.ID] = e
		}
		copies, prefix, prev := 0, true, ""
		for i, e := range ents[1:] {
			o := origByID[e.ID]
			if o == nil {
				break // the fork's own entries (and re-made labels) follow the copies
			}
			copies++
			if o.Timestamp != e.Timestamp || o.Type != e.Type || !bytes.Equal(o.Usage, e.Usage) || !bytes.Equal(o.Message.Usage, e.Message.Usage) {
				t.Errorf("%s: copy of %s differs from the original: %s", rel, e.ID, e.line)
			}
			if len(e.Message.Usage) > 0 || len(e.Usage) > 0 {
				usageCopies++
			}
			prefix = prefix && bytes.Equal(e.line, orig[i+1].line)
			if parent := ""; !prefix {
				if e.ParentID != nil {
					parent = *e.ParentID
				}
				if parent != prev {
					t.Errorf("%s: branched copy %s has parent %q, not the previous copy %q", rel, e.ID, parent, prev)
				}
			}
			prev = e.ID
		}
		if copies == 0 || copies == len(ents)-1 {
			t.Errorf("%s: %d copies of %d entries (want copies, then entries of its own)", rel, copies, len(ents)-1)
		}
		if prefix {
			// forkFrom, or a branch of a file that had none: a byte-identical prefix.
			kinds["prefix"]++
			continue
		}
		kinds["path"]++
		// The copies are the original's path to the last copy, labels left out.
		var want []string
		for e := origByID[prev]; e != nil; {
			if e.Type != "label" {
				want = append([]string{e.ID}, want...)
			}
			if e.ParentID == nil {
				break
			}
			e = origByID[*e.ParentID]
		}
		var got []string
		for _, e := range ents[1 : 1+copies] {
			got = append(got, e.ID)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: copies %v, want the original's path %v", rel, got, want)
		}
	}
	if kinds["prefix"]+kinds["path"] != n || kinds["prefix"] == 0 || kinds["path"] == 0 || usageCopies == 0 {
		t.Errorf("forks found %v with %d usage copies; want %d, some copying a prefix and some a branch, with usage", kinds, usageCopies, n)
	}
	t.Logf("forks %v (by plan: %v), %d usage records copied", kinds, st.forks, usageCopies)
	if st.forks[forkWhole] == 0 || st.forks[forkBefore] == 0 || st.forks[forkAt] == 0 || st.forks[forkWhole]+st.forks[forkBefore]+st.forks[forkAt] != n {
		t.Errorf("stats count forks %v", st.forks)
	}
}

func sharesIDs(a, b []*forkEntry) bool {
	ids := map[string]bool{}
	for _, e := range b[1:] {
		ids[e.ID] = true
	}
	for _, e := range a[1:] {
		if ids[e.ID] {
			return true
		}
	}
	return false
}
