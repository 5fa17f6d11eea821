package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// list, search and cost read beside their refresh (readFresh); what they
// print is what a read after the refresh finds: after an append, a new
// session, a removal, and a touch of a session whose listed time is its
// file's (a header without a time, no messages), each shows the change at
// once.
func TestReadsBesideTheRefreshSeeIt(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "--w-app--", "a.jsonl")
	b := filepath.Join(root, "--w-app--", "b.jsonl")
	c := filepath.Join(root, "--w-lib--", "c.jsonl")
	writeSession(t, a, `{"type":"session","version":3,"id":"aaaa","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w/app"}`, userLine("u1", "", "first words"))
	writeSession(t, c, `{"type":"session","version":3,"id":"cccc","timestamp":"not a time","cwd":"/w/lib"}`)
	e := newSQLEnv(t, root)
	type listed struct {
		ID           string `json:"id"`
		MessageCount int    `json:"messageCount"`
		Modified     string `json:"modified"`
	}
	list := func() map[string]listed {
		t.Helper()
		out, err := e.run("list", "--json")
		if err != nil {
			t.Fatal(err)
		}
		var ss []listed
		if err := json.Unmarshal([]byte(out), &ss); err != nil {
			t.Fatal(err)
		}
		m := map[string]listed{}
		for _, s := range ss {
			m[s.ID] = s
		}
		return m
	}
	hits := func(word string) int {
		t.Helper()
		out, err := e.run("search", word, "--json")
		if err != nil {
			t.Fatal(err)
		}
		var hs []json.RawMessage
		if err := json.Unmarshal([]byte(out), &hs); err != nil {
			t.Fatal(err)
		}
		return len(hs)
	}
	cost := func() string {
		t.Helper()
		out, err := e.run("cost", "--by", "model", "--json")
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := list(); len(got) != 2 || got["aaaa"].MessageCount != 1 || hits("zebraword") != 0 {
		t.Fatalf("before: %+v", got)
	}
	before := cost()

	appendLine(t, a, userLine("u2", "u1", "zebraword here"))
	if got := list(); got["aaaa"].MessageCount != 2 {
		t.Errorf("an append: %+v", got["aaaa"])
	}
	appendLine(t, a, userLine("u3", "u2", "quaggaword here"))
	if n := hits("quaggaword"); n != 1 {
		t.Errorf("an append: search finds %d hits", n)
	}
	appendLine(t, a, `{"type":"message","id":"a4","parentId":"u3","timestamp":"2026-05-01T10:00:09.000Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"provider":"anthropic","model":"claude-x","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0.01,"output":0.02,"cacheRead":0,"cacheWrite":0,"total":0.03}},"stopReason":"stop","timestamp":1777629609000}}`)
	if after := cost(); after == before || !strings.Contains(after, "claude-x") {
		t.Errorf("an append: cost still %s", after)
	}

	writeSession(t, b, `{"type":"session","version":3,"id":"bbbb","timestamp":"2026-05-02T10:00:00.000Z","cwd":"/w/app"}`, userLine("u1", "", "okapiword"))
	if got := list(); len(got) != 3 {
		t.Errorf("a new session: %d listed", len(got))
	}
	if n := hits("okapiword"); n != 1 {
		t.Errorf("a new session: search finds %d hits", n)
	}
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	if got := list(); len(got) != 2 {
		t.Errorf("a removal: %d listed", len(got))
	}

	was := list()["cccc"].Modified
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(c, later, later); err != nil {
		t.Fatal(err)
	}
	if now := list()["cccc"].Modified; now == was {
		t.Errorf("a touch: modified still %s", now)
	}
}
