package query_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
)

// TestGoldenContext compares pidex's rebuilt model context with the one
// pi computed (buildSessionContext) for every session that has one.
func TestGoldenContext(t *testing.T) {
	for _, gs := range goldenSets {
		testGoldenContext(t, gs)
	}
}

func testGoldenContext(t *testing.T, gs goldenSet) {
	db := corpusOf(t, gs)
	ctx := context.Background()
	checked := 0
	for _, g := range loadGoldensOf(t, gs) {
		want := g.Context
		if len(want) == 0 || string(want) == "null" || g.Hangs {
			continue
		}
		t.Run(gs.name+"/"+filepath.Base(g.File), func(t *testing.T) {
			ref, ok := sessionRefOf(t, gs, db, g)
			if !ok {
				t.Fatalf("pi has a context, pidex has no session")
			}
			sc, err := exactContext(ctx, db, ref, "")
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(sc)
			if err != nil {
				t.Fatal(err)
			}
			if diff := jsonDiff(got, want); diff != "" {
				t.Errorf("context differs from pi's (-pidex +pi):\n%s", diff)
			}
			// The projection's messages are the context's messages.
			var n int
			for _, e := range sc.Entries {
				n += len(e.Messages)
			}
			if n != len(sc.Messages) {
				t.Errorf("projection has %d messages, context %d", n, len(sc.Messages))
			}
		})
		checked++
	}
	if checked < gs.min*2/3 {
		t.Errorf("%s: only %d goldens with a context", gs.name, checked)
	}
}

// TestContextCycle: a parent cycle must neither hang nor fail.
func TestContextCycle(t *testing.T) {
	db := corpus(t)
	for _, g := range loadGoldens(t) {
		if !g.Hangs {
			continue
		}
		ref, ok := sessionRef(t, db, g)
		if !ok {
			t.Fatalf("%s: not a session", g.File)
		}
		sc, err := exactContext(context.Background(), db, ref, "")
		if err != nil {
			t.Fatalf("%s: %v", g.File, err)
		}
		if len(sc.Path) == 0 || len(sc.Path) > g.EntryCount {
			t.Errorf("%s: path of %d entries", g.File, len(sc.Path))
		}
	}
}

// TestContextLeaf: --leaf rebuilds the context at another entry, and an
// unknown leaf is not found.
func TestContextLeaf(t *testing.T) {
	db := corpus(t)
	ctx := context.Background()
	ref, err := newReader(db, nil).Resolve(ctx, absPath(t, "--home-ann-legacy--/2025-12-29T10-02-11-470Z_4c0ffee0-1d2e-4f3a-8b4c-5d6e7f8091a2.jsonl"), "")
	if err != nil {
		t.Fatal(err)
	}
	// b7c8d9e0 is the abandoned branch: it has no branch summary, and the
	// hookMessage on it is read as custom (v2 file).
	sc, err := exactContext(ctx, db, ref, "b7c8d9e0")
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range sc.Messages {
		var v struct{ Role string }
		_ = json.Unmarshal(m, &v)
		roles = append(roles, v.Role)
	}
	if got, want := strings.Join(roles, ","), "user,assistant,custom,user,assistant"; got != want {
		t.Errorf("roles %s, want %s", got, want)
	}
	if got := sc.Model.String(); got != "anthropic/claude-opus-4-5" || sc.Level() != "low" {
		t.Errorf("model %s thinking %s", got, sc.Level())
	}
	if _, err := exactContext(ctx, db, ref, "nope"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("unknown leaf: %v", err)
	}
}

// TestBuildContextEdges runs pi's context rules on hand-written paths.
// Every expectation is the JSON.stringify output of pi 1.6.0's own
// migrateSessionEntries + buildSessionContext (dist/core/session-manager.js)
// run once on the same entries (behind a header of the given version).
func TestBuildContextEdges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version int
		lines   []string
		want    string
	}{
		{
			name: "context edits: latest per target, null drops, string becomes a text block for toolResult, stays a string for user",
			lines: []string{
				`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi","timestamp":1}}`,
				`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"x"}],"provider":"p","model":"m","timestamp":2}}`,
				`{"type":"message","id":"t1","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"long"}],"isError":false,"timestamp":3}}`,
				`{"type":"context_edit","id":"e1","parentId":"t1","timestamp":"2026-01-01T00:00:03.000Z","targetId":"t1","replacement":{"content":"first"}}`,
				`{"type":"context_edit","id":"e2","parentId":"e1","timestamp":"2026-01-01T00:00:04.000Z","targetId":"t1","replacement":{"content":"short"}}`,
				`{"type":"context_edit","id":"e3","parentId":"e2","timestamp":"2026-01-01T00:00:05.000Z","targetId":"u1","replacement":{"content":"hello"}}`,
				`{"type":"context_edit","id":"e4","parentId":"e3","timestamp":"2026-01-01T00:00:06.000Z","targetId":"a1","replacement":null}`,
				`{"type":"context_edit","id":"e5","parentId":"e4","timestamp":"2026-01-01T00:00:07.000Z","targetId":"m1","replacement":{"content":"x"}}`,
				`{"type":"model_change","id":"m1","parentId":"e5","timestamp":"2026-01-01T00:00:08.000Z","provider":"q"}`,
			},
			want: `{"messages":[{"role":"user","content":"hello","timestamp":1},{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"short"}],"isError":false,"timestamp":3}],"thinkingLevel":"off","model":{"provider":"q"}}`,
		},
		{
			name: "edit without content removes it; non-object message passes; null content normalised; custom_message defaults",
			lines: []string{
				`{"type":"thinking_level_change","id":"k1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}`,
				`{"type":"message","id":"u1","parentId":"k1","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","timestamp":1}}`,
				`{"type":"message","id":"s1","parentId":"u1","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"system","content":null}}`,
				`{"type":"message","id":"x1","parentId":"s1","timestamp":"2026-01-01T00:00:00.000Z","message":"odd"}`,
				`{"type":"custom_message","id":"c1","parentId":"x1","timestamp":"2026-01-01T00:00:09.5Z","customType":"r"}`,
				`{"type":"custom_message","id":"c2","parentId":"c1","timestamp":"not a date","content":"s","display":true,"details":null}`,
				`{"type":"branch_summary","id":"b1","parentId":"c2","timestamp":"2026-01-01","summary":"went back"}`,
				`{"type":"context_edit","id":"e1","parentId":"b1","timestamp":"2026-01-01T00:00:00.000Z","targetId":"c1","replacement":{}}`,
				`{"type":"context_edit","id":"e2","parentId":"e1","timestamp":"2026-01-01T00:00:00.000Z","targetId":"b1","replacement":{"content":"ignored"}}`,
			},
			want: `{"messages":[{"role":"user","timestamp":1,"content":[]},{"role":"system","content":""},"odd",{"role":"custom","customType":"r","timestamp":1767225609500},{"role":"custom","content":"s","display":true,"details":null,"timestamp":null},{"role":"branchSummary","summary":"went back","timestamp":1767225600000}],"model":null}`,
		},
		{
			name: "latest compaction: systemMessage first, kept range without system messages, older compaction silent, edits only from context entries",
			lines: []string{
				`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"old","timestamp":1}}`,
				`{"type":"context_edit","id":"e0","parentId":"u1","timestamp":"2026-01-01T00:00:00.000Z","targetId":"u2","replacement":null}`,
				`{"type":"compaction","id":"k1","parentId":"e0","timestamp":"2026-01-01T00:00:01.000Z","summary":"first","firstKeptEntryId":"u1","tokensBefore":10}`,
				`{"type":"message","id":"u2","parentId":"k1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"kept","timestamp":2}}`,
				`{"type":"message","id":"s1","parentId":"u2","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"system","content":"sys"}}`,
				`{"type":"compaction","id":"k2","parentId":"s1","timestamp":"2026-01-01T00:00:03.000Z","summary":"second","firstKeptEntryId":"k1","tokensBefore":20,"systemMessage":{"role":"system","content":"snap"}}`,
				`{"type":"message","id":"a1","parentId":"k2","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"assistant","content":null,"provider":"p","model":"m","timestamp":4}}`,
				`{"type":"thinking_level_change","id":"t1","parentId":"a1","timestamp":"2026-01-01T00:00:05.000Z","thinkingLevel":"high"}`,
			},
			want: `{"messages":[{"role":"system","content":"snap"},{"role":"compactionSummary","summary":"second","tokensBefore":20,"timestamp":1767225603000},{"role":"user","content":"kept","timestamp":2},{"role":"assistant","content":[],"provider":"p","model":"m","timestamp":4}],"thinkingLevel":"high","model":{"provider":"p","modelId":"m"}}`,
		},
		{
			name:    "v2: hookMessage becomes custom, and its content can be edited",
			version: 2,
			lines: []string{
				`{"type":"message","id":"h1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"hookMessage","customType":"x","content":"c","display":true,"timestamp":1}}`,
				`{"type":"context_edit","id":"e1","parentId":"h1","timestamp":"2026-01-01T00:00:00.000Z","targetId":"h1","replacement":{"content":"d"}}`,
			},
			want: `{"messages":[{"role":"custom","customType":"x","content":"d","display":true,"timestamp":1}],"thinkingLevel":"off","model":null}`,
		},
		{
			name:    "v3: hookMessage is not migrated and passes unchanged",
			version: 3,
			lines: []string{
				`{"type":"message","id":"h1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"hookMessage","content":null,"timestamp":1}}`,
				`{"type":"context_edit","id":"e1","parentId":"h1","timestamp":"2026-01-01T00:00:00.000Z","targetId":"h1","replacement":{"content":"d"}}`,
			},
			want: `{"messages":[{"role":"hookMessage","content":null,"timestamp":1}],"thinkingLevel":"off","model":null}`,
		},
		{
			name: "timestamps: new Date(x).getTime() of odd forms (NaN is null)",
			lines: []string{
				`{"type":"custom_message","id":"c0","parentId":null,"timestamp":"2026-02-30","customType":"t","content":"0","display":true}`,
				`{"type":"custom_message","id":"c1","parentId":"c0","timestamp":"2026-09-14T09:12Z","customType":"t","content":"1","display":true}`,
				`{"type":"custom_message","id":"c2","parentId":"c1","timestamp":"2026","customType":"t","content":"2","display":true}`,
				`{"type":"custom_message","id":"c3","parentId":"c2","timestamp":"2026-09","customType":"t","content":"3","display":true}`,
				`{"type":"custom_message","id":"c4","parentId":"c3","timestamp":"2026-09-14T24:00:00Z","customType":"t","content":"4","display":true}`,
				`{"type":"custom_message","id":"c5","parentId":"c4","timestamp":"2026-09-14T09:12:03+02:00","customType":"t","content":"5","display":true}`,
				`{"type":"custom_message","id":"c6","parentId":"c5","timestamp":"2026-09-14t09:12:03z","customType":"t","content":"6","display":true}`,
				`{"type":"custom_message","id":"c7","parentId":"c6","timestamp":"+002026-09-14T00:00:00Z","customType":"t","content":"7","display":true}`,
				`{"type":"custom_message","id":"c8","parentId":"c7","timestamp":"2026-09-14T09:12:03.1179Z","customType":"t","content":"8","display":true}`,
				`{"type":"custom_message","id":"c9","parentId":"c8","timestamp":"2026-09-14T09:12:03.117+0200","customType":"t","content":"9","display":true}`,
				`{"type":"custom_message","id":"c10","parentId":"c9","timestamp":"2026-09-14 09:12:03Z","customType":"t","content":"10","display":true}`,
				`{"type":"custom_message","id":"c11","parentId":"c10","timestamp":1.7,"customType":"t","content":"11","display":true}`,
				`{"type":"custom_message","id":"c12","parentId":"c11","timestamp":-1.7,"customType":"t","content":"12","display":true}`,
				`{"type":"custom_message","id":"c13","parentId":"c12","timestamp":null,"customType":"t","content":"13","display":true}`,
				`{"type":"custom_message","id":"c14","parentId":"c13","timestamp":true,"customType":"t","content":"14","display":true}`,
				`{"type":"custom_message","id":"c15","parentId":"c14","timestamp":9e15,"customType":"t","content":"15","display":true}`,
				`{"type":"custom_message","id":"c16","parentId":"c15","timestamp":"yesterday","customType":"t","content":"16","display":true}`,
				`{"type":"custom_message","id":"c17","parentId":"c16","timestamp":"","customType":"t","content":"17","display":true}`,
				`{"type":"custom_message","id":"c18","parentId":"c17","timestamp":"2026-13-01","customType":"t","content":"18","display":true}`,
				`{"type":"custom_message","id":"c19","parentId":"c18","timestamp":{},"customType":"t","content":"19","display":true}`,
			},
			want: `{"messages":[{"role":"custom","customType":"t","content":"0","display":true,"timestamp":1772409600000},{"role":"custom","customType":"t","content":"1","display":true,"timestamp":1789377120000},{"role":"custom","customType":"t","content":"2","display":true,"timestamp":1767225600000},{"role":"custom","customType":"t","content":"3","display":true,"timestamp":1788220800000},{"role":"custom","customType":"t","content":"4","display":true,"timestamp":1789430400000},{"role":"custom","customType":"t","content":"5","display":true,"timestamp":1789369923000},{"role":"custom","customType":"t","content":"6","display":true,"timestamp":1789377123000},{"role":"custom","customType":"t","content":"7","display":true,"timestamp":1789344000000},{"role":"custom","customType":"t","content":"8","display":true,"timestamp":1789377123117},{"role":"custom","customType":"t","content":"9","display":true,"timestamp":1789369923117},{"role":"custom","customType":"t","content":"10","display":true,"timestamp":1789377123000},{"role":"custom","customType":"t","content":"11","display":true,"timestamp":1},{"role":"custom","customType":"t","content":"12","display":true,"timestamp":-1},{"role":"custom","customType":"t","content":"13","display":true,"timestamp":0},{"role":"custom","customType":"t","content":"14","display":true,"timestamp":1},{"role":"custom","customType":"t","content":"15","display":true,"timestamp":null},{"role":"custom","customType":"t","content":"16","display":true,"timestamp":null},{"role":"custom","customType":"t","content":"17","display":true,"timestamp":null},{"role":"custom","customType":"t","content":"18","display":true,"timestamp":null},{"role":"custom","customType":"t","content":"19","display":true,"timestamp":null}],"thinkingLevel":"off","model":null}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			version := tc.version
			if version == 0 {
				version = 3
			}
			path := make([]pi.Entry, len(tc.lines))
			for i, l := range tc.lines {
				var base struct {
					ID       string  `json:"id"`
					ParentID *string `json:"parentId"`
					Type     string  `json:"type"`
				}
				if err := json.Unmarshal([]byte(l), &base); err != nil {
					t.Fatal(err)
				}
				path[i] = pi.Entry{Entry: pidex.Entry{ID: base.ID, ParentID: base.ParentID, Type: base.Type,
					Line: int64(i + 2)}, Raw: []byte(l)}
			}
			sc, err := pi.BuildContext(path, version, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(sc)
			if diff := jsonDiff(got, []byte(tc.want)); diff != "" {
				t.Errorf("(-pidex +pi):\n%s\npidex: %s", diff, got)
			} else if string(got) != tc.want { // same values: the key order must be pi's too
				t.Errorf("key order differs:\npidex %s\npi    %s", got, tc.want)
			}
		})
	}
}

// TestShowJSON checks the annotated entries of plain `show --json` on a
// file with a compaction and context edits.
func TestShowJSON(t *testing.T) {
	db := corpus(t)
	ctx := context.Background()
	ref, err := newReader(db, nil).Resolve(ctx, absPath(t, "--home-ann-legacy--/2025-12-10T16-19-58-004Z_7d1c0f3e-5a2b-4c8e-9f10-2b3c4d5e6f70.jsonl"), "")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := exactContext(ctx, db, ref, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(sc.Path)
	if err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	if err := json.Unmarshal(b, &items); err != nil {
		t.Fatal(err)
	}
	if len(items) != 14 {
		t.Fatalf("%d entries", len(items))
	}
	var comp map[string]any
	compacted := 0
	for i, it := range items {
		if it["line"] != float64(i+2) || it["id"] != sc.Path[i].ID {
			t.Errorf("item %d: line %v id %v", i, it["line"], it["id"])
		}
		if it["compacted"] == true {
			compacted++
		}
		if it["type"] == "compaction" {
			comp = it
		}
	}
	// firstKeptEntryIndex 9 = line 10 (the user message "And make lint…"):
	// lines 2..9 are compacted, v1 ids are synthetic.
	if compacted != 8 || comp == nil || comp["firstKeptEntryId"] != items[8]["id"] || comp["firstKeptEntryIndex"] != nil {
		t.Errorf("compacted %d, compaction %v", compacted, comp)
	}
	if !strings.HasPrefix(sc.Path[0].ID, "v1:") || items[0]["parentId"] != nil || items[1]["parentId"] != sc.Path[0].ID {
		t.Errorf("v1 ids: %v %v", items[0]["id"], items[1]["parentId"])
	}
}

// jsonDiff compares two JSON documents semantically (numbers as float64)
// and lists the differing paths; "" when they are equal.
func jsonDiff(got, want []byte) string {
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		return "pidex: invalid JSON: " + err.Error()
	}
	if err := json.Unmarshal(want, &w); err != nil {
		return "pi: invalid JSON: " + err.Error()
	}
	if reflect.DeepEqual(g, w) {
		return ""
	}
	var out []string
	diffValue(&out, "$", g, w)
	if len(out) > 40 {
		out = append(out[:40], fmt.Sprintf("… %d more", len(out)-40))
	}
	return strings.Join(out, "\n")
}

func diffValue(out *[]string, path string, g, w any) {
	switch gv := g.(type) {
	case map[string]any:
		wv, ok := w.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range gv {
			keys[k] = true
		}
		for k := range wv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			a, inG := gv[k]
			b, inW := wv[k]
			switch {
			case !inG:
				*out = append(*out, fmt.Sprintf("%s.%s: - <absent> + %s", path, k, short(b)))
			case !inW:
				*out = append(*out, fmt.Sprintf("%s.%s: - %s + <absent>", path, k, short(a)))
			default:
				diffValue(out, path+"."+k, a, b)
			}
		}
		return
	case []any:
		wv, ok := w.([]any)
		if !ok {
			break
		}
		if len(gv) != len(wv) {
			*out = append(*out, fmt.Sprintf("%s: length - %d + %d", path, len(gv), len(wv)))
		}
		for i := 0; i < len(gv) && i < len(wv); i++ {
			diffValue(out, fmt.Sprintf("%s[%d]", path, i), gv[i], wv[i])
		}
		return
	}
	if !reflect.DeepEqual(g, w) {
		*out = append(*out, fmt.Sprintf("%s: - %s + %s", path, short(g), short(w)))
	}
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
