package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/catalogtest"
)

// branched is a session that forked at a2: the first branch (a3, a4,
// labelled) was left, the second (b3 …) goes on past a compaction.
const branched = `{"type":"session","version":3,"id":"br","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w/app"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"user","content":"fix the build","timestamp":1777629601000}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-05-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"which target?"}],"provider":"anthropic","model":"claude-x","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.1}},"timestamp":1777629602000}}
{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-05-01T10:00:03.000Z","message":{"role":"user","content":"the docs","timestamp":1777629603000}}
{"type":"message","id":"a4","parentId":"a3","timestamp":"2026-05-01T10:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"docs built"}],"provider":"anthropic","model":"claude-x","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.2}},"timestamp":1777629604000}}
{"type":"label","id":"l1","parentId":"a4","timestamp":"2026-05-01T10:00:05.000Z","targetId":"a4","label":"first try"}
{"type":"message","id":"b3","parentId":"a2","timestamp":"2026-05-01T10:00:06.000Z","message":{"role":"user","content":"the binary","timestamp":1777629606000}}
{"type":"message","id":"b4","parentId":"b3","timestamp":"2026-05-01T10:00:07.000Z","message":{"role":"assistant","content":[{"type":"text","text":"binary built"}],"provider":"anthropic","model":"claude-x","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.3}},"timestamp":1777629607000}}
{"type":"compaction","id":"c1","parentId":"b4","timestamp":"2026-05-01T10:00:08.000Z","summary":"Built the binary.","firstKeptEntryId":"b3","tokensBefore":5000}
{"type":"message","id":"b5","parentId":"c1","timestamp":"2026-05-01T10:00:09.000Z","message":{"role":"user","content":"ship it","timestamp":1777629609000}}
`

func TestOverview(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	catalogtest.WriteFile(t, filepath.Join(root, "--w-app--", "br.jsonl"), branched)
	e := open(t, filepath.Join(t.TempDir(), "c.sqlite"), root, nil)
	refresh(t, e)
	ref, err := e.Resolve(ctx, "br", "")
	if err != nil {
		t.Fatal(err)
	}
	o, err := e.Overview(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.BranchPoints) != 1 || o.BranchPoints[0].ID != "a2" || o.BranchPoints[0].Preview != "which target?" {
		t.Fatalf("branch points %+v", o.BranchPoints)
	}
	bs := o.BranchPoints[0].Branches
	want := []pidex.Branch{
		{EntryMark: pidex.EntryMark{ID: "a3"}, Leaf: "l1", Entries: 3, Current: false},
		{EntryMark: pidex.EntryMark{ID: "b3"}, Leaf: "b5", Entries: 4, Current: true},
	}
	for i, w := range want {
		if b := bs[i]; b.ID != w.ID || b.Leaf != w.Leaf || b.Entries != w.Entries || b.Current != w.Current || b.Time == nil || b.Preview == "" {
			t.Errorf("branch %d: %+v, want %+v", i, b, w)
		}
	}
	if len(o.Labels) != 1 || o.Labels[0].ID != "a4" || o.Labels[0].Label != "first try" || o.Labels[0].OnBranch {
		t.Errorf("labels %+v", o.Labels)
	}
	if len(o.Compactions) != 1 || o.Compactions[0].TokensBefore != 5000 || o.Compactions[0].FirstKept != "b3" ||
		!o.Compactions[0].OnBranch || o.Compactions[0].Preview != "Built the binary." {
		t.Errorf("compactions %+v", o.Compactions)
	}
	if o.AbandonedCalls != 1 || o.AbandonedCost < 0.2-1e-9 || o.AbandonedCost > 0.2+1e-9 || o.Roots != 1 {
		t.Errorf("abandoned %v in %d calls, %d roots", o.AbandonedCost, o.AbandonedCalls, o.Roots)
	}

	tests := []struct{ entry, leaf string }{{"a3", "l1"}, {"a2", "b5"}, {"b3", "b5"}, {"b5", "b5"}}
	for _, tc := range tests {
		if leaf, err := e.BranchThrough(ctx, ref, tc.entry); err != nil || leaf != tc.leaf {
			t.Errorf("BranchThrough(%s) = %q, %v; want %q", tc.entry, leaf, err, tc.leaf)
		}
	}
	if _, err := e.BranchThrough(ctx, ref, "nope"); !errors.Is(err, pidex.ErrNotFound) {
		t.Errorf("unknown entry: %v", err)
	}
}

// Suggestions for a reference that matched nothing: sessions whose name
// contains it, else the most recent.
func TestSuggest(t *testing.T) {
	ctx := context.Background()
	root := corpus(t, 4)
	catalogtest.WriteFile(t, filepath.Join(root, "--w-app--", "named.jsonl"), strings.Replace(header, "%s", "named", 1)+
		`{"type":"session_info","id":"i1","parentId":null,"timestamp":"2026-05-01T10:00:01.000Z","name":"Release notes"}`+"\n")
	e := open(t, filepath.Join(t.TempDir(), "c.sqlite"), root, nil)
	refresh(t, e)
	got, err := e.Suggest(ctx, "release", 3)
	if err != nil || len(got) != 1 || got[0].ID != "named" {
		t.Errorf("by name: %v, %v", got, err)
	}
	got, err = e.Suggest(ctx, "zzz", 3)
	if err != nil || len(got) != 3 {
		t.Errorf("most recent: %v, %v", got, err)
	}
}
