package query_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/indexer"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/sqlite"
)

// The oh-my-pi corpus (testdata/sessions-omp, a fake ~/.omp written by
// @oh-my-pi/pi-coding-agent 18.2.3) against the goldens omp's own code
// computed from it (testdata/golden-omp, testdata/gen/omp/README.md):
// listing, tree, path, labels, the model context at every leaf, each
// file's usage statistics and omp stats' records.

const (
	ompSessions = "../testdata/sessions-omp"
	ompGoldens  = "../testdata/golden-omp"
)

var ompProfiles = []string{"agent", "profiles/work/agent"}

// ompGolden is the part of an omp golden these tests read.
type ompGolden struct {
	File   string               `json:"file"`
	Size   int64                `json:"size"`
	Listed *ompListed           `json:"listed"`
	Name   *string              `json:"name"`
	Leaf   *struct{ ID string } `json:"leaf"`
	Path   []goldenEntry        `json:"path"`
	Labels []struct {
		TargetID string `json:"targetId"`
		Label    string `json:"label"`
	} `json:"labels"`
	Tree              []*goldenNode   `json:"tree"`
	Context           json.RawMessage `json:"context"`
	OtherLeafContexts []struct {
		Leaf          struct{ ID string } `json:"leaf"`
		ThinkingLevel json.RawMessage     `json:"thinkingLevel"`
		Models        json.RawMessage     `json:"models"`
		Mode          string              `json:"mode"`
		Messages      []struct {
			Role      string  `json:"role"`
			Timestamp float64 `json:"timestamp"`
		} `json:"messages"`
	} `json:"otherLeafContexts"`
	UsageStatistics struct {
		Input, Output, CacheRead, CacheWrite, TotalTokens, Cost float64
	} `json:"usageStatistics"`
	StatsRecords []struct {
		EntryID   string `json:"entryId"`
		Provider  string `json:"provider"`
		Model     string `json:"model"`
		Timestamp int64  `json:"timestamp"`
		Usage     struct {
			Input, Output, CacheRead, CacheWrite, TotalTokens float64
			Cost                                              struct{ Total float64 }
		} `json:"usage"`
	} `json:"statsRecords"`
}

type ompListed struct {
	Path              string  `json:"path"`
	ID                string  `json:"id"`
	Cwd               string  `json:"cwd"`
	Title             *string `json:"title"`
	ParentSessionPath *string `json:"parentSessionPath"`
	Created           string  `json:"created"`
	Modified          string  `json:"modified"`
	MessageCount      int64   `json:"messageCount"`
	Size              int64   `json:"size"`
	FirstMessage      string  `json:"firstMessage"`
}

var (
	ompOnce sync.Once
	ompDB   *sqlite.DB
	ompDir  string
	ompErr  error
)

// ompCorpus copies the corpus (omp's listing reports the file mtime, so
// the copy gets the mtimes the goldens were computed with, _mtimes.json)
// and indexes both profiles' sessions folders once.
func ompCorpus(t *testing.T) (*sqlite.DB, string) {
	t.Helper()
	ompOnce.Do(func() {
		ompDir, ompErr = os.MkdirTemp("", "pidex-omp")
		if ompErr != nil {
			return
		}
		if ompErr = os.CopyFS(ompDir, os.DirFS(ompSessions)); ompErr != nil {
			return
		}
		var mtimes map[string]string
		b, err := os.ReadFile(filepath.Join(ompGoldens, "_mtimes.json"))
		if err == nil {
			err = json.Unmarshal(b, &mtimes)
		}
		if err != nil {
			ompErr = err
			return
		}
		for rel, ts := range mtimes {
			tm, err := time.Parse(time.RFC3339Nano, ts)
			if err != nil {
				ompErr = err
				return
			}
			if ompErr = os.Chtimes(filepath.Join(ompDir, rel), tm, tm); ompErr != nil {
				return
			}
		}
		ompDB, ompErr = sqlite.Open(context.Background(), filepath.Join(ompDir, "c.sqlite"))
		if ompErr != nil {
			return
		}
		var roots []string
		for _, p := range ompProfiles {
			roots = append(roots, "omp:"+filepath.Join(ompDir, p, "sessions"))
		}
		_, ompErr = (&indexer.Indexer{DB: ompDB, Roots: roots}).Refresh(context.Background())
	})
	if ompErr != nil {
		t.Fatal(ompErr)
	}
	return ompDB, ompDir
}

func loadOmpGoldens(t *testing.T) []ompGolden {
	t.Helper()
	var out []ompGolden
	err := filepath.WalkDir(ompGoldens, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") || strings.HasPrefix(d.Name(), "_") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var g ompGolden
		if err := json.Unmarshal(b, &g); err != nil {
			return err
		}
		out = append(out, g)
		return nil
	})
	if err != nil || len(out) < 11 {
		t.Fatalf("omp goldens: %d (%v)", len(out), err)
	}
	return out
}

// eachOmp runs fn for every omp golden, with its session.
func eachOmp(t *testing.T, fn func(t *testing.T, db *sqlite.DB, g ompGolden, ref pidex.SessionRef)) {
	db, dir := ompCorpus(t)
	for _, g := range loadOmpGoldens(t) {
		t.Run(strings.TrimSuffix(filepath.Base(g.File), ".jsonl"), func(t *testing.T) {
			ref, err := newReader(db, nil).Resolve(context.Background(), filepath.Join(dir, g.File), "")
			if err != nil {
				t.Fatalf("omp opens it; pidex: %v", err)
			}
			fn(t, db, g, ref)
		})
	}
}

// messageCount is the messages of the file as omp's loader has them.
func messageCount(ns []*goldenNode) int64 {
	var n int64
	for _, x := range ns {
		if x.Type == "message" {
			n++
		}
		n += messageCount(x.Children)
	}
	return n
}

// The listing: the order of omp's listAll per profile, and each row. pidex
// lists what omp's loader reads (the whole file): the title is the slot's
// (or the header's), the message count all the file's messages. omp's
// listing reads the first 4 KB: it counts the messages there, and shows a
// compaction's shortSummary as the title of a session without one.
func TestOmpGoldenListing(t *testing.T) {
	db, dir := ompCorpus(t)
	ctx := context.Background()
	goldens := map[string]ompGolden{}
	for _, g := range loadOmpGoldens(t) {
		goldens[g.File] = g
	}
	for _, profile := range ompProfiles {
		t.Run(profile, func(t *testing.T) {
			var want []ompListed
			b, err := os.ReadFile(filepath.Join(ompGoldens, profile, "_listAll.json"))
			if err == nil {
				err = json.Unmarshal(b, &want)
			}
			if err != nil || len(want) == 0 {
				t.Fatalf("listing golden: %v", err)
			}
			rd := newReader(db, []string{filepath.Join(dir, profile, "sessions")})
			got, err := rd.ListF(ctx, pidex.ListFilter{Where: pidex.Where{"agent": pidex.SourceOmp}})
			if err != nil {
				t.Fatal(err)
			}
			var gotPaths, wantPaths []string
			for _, s := range got {
				rel, _ := filepath.Rel(dir, s.Path)
				gotPaths = append(gotPaths, rel)
			}
			for _, w := range want {
				wantPaths = append(wantPaths, w.Path)
			}
			if strings.Join(gotPaths, "\n") != strings.Join(wantPaths, "\n") {
				t.Fatalf("order:\n%s\nomp:\n%s", strings.Join(gotPaths, "\n"), strings.Join(wantPaths, "\n"))
			}
			for i, w := range want {
				s, g := got[i], goldens[w.Path]
				check := func(field string, got, want any) {
					if gj, wj := jsonOf(got), jsonOf(want); gj != wj {
						t.Errorf("%s: %s = %s, omp %s", w.Path, field, gj, wj)
					}
				}
				check("id", s.ID, w.ID)
				check("cwd", s.Cwd, w.Cwd)
				check("parentSessionPath", s.ParentSessionPath, w.ParentSessionPath)
				check("created", s.Created, w.Created)
				check("modified", s.Modified, w.Modified)
				check("firstMessage", s.FirstMessage, w.FirstMessage)
				check("size", s.SizeBytes, w.Size)
				check("source", s.Source, pidex.SourceOmp)
				check("name", s.Name, g.Name) // the loader's title
				if g.Name == nil && w.Title != nil && !strings.Contains(string(g.Context)+jsonOf(g.Tree), "compaction") {
					t.Errorf("%s: omp lists the title %q without a compaction", w.Path, *w.Title)
				}
				if g.Name != nil && (w.Title == nil || *w.Title != *g.Name) {
					t.Errorf("%s: the loader's title %q, the listing's %v", w.Path, *g.Name, w.Title)
				}
				check("messageCount", s.MessageCount, messageCount(g.Tree))
				if w.Size <= 4096 {
					check("messageCount (omp's listing, whole file in its 4 KB)", s.MessageCount, w.MessageCount)
				}
			}
		})
	}
}

func TestOmpGoldenTreePathLabels(t *testing.T) {
	eachOmp(t, func(t *testing.T, db *sqlite.DB, g ompGolden, ref pidex.SessionRef) {
		rd := newReader(db, nil)
		ctx := context.Background()
		tree, err := rd.TreeOf(ctx, ref.FileID)
		if err != nil {
			t.Fatal(err)
		}
		// omp's tree nodes have labels but no label timestamps.
		var strip func(ns []*pidex.TreeNode)
		strip = func(ns []*pidex.TreeNode) {
			for _, n := range ns {
				n.LabelTimestamp = nil
				strip(n.Children)
			}
		}
		strip(tree)
		if gs, ws := treeString(tree, false), goldenTreeString(g.Tree, false); gs != ws {
			t.Errorf("tree differs:\n--- pidex\n%s\n--- omp\n%s", gs, ws)
		}
		path, err := rd.PathOf(ctx, ref.FileID, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(path) != len(g.Path) {
			t.Fatalf("path of %d entries, omp %d", len(path), len(g.Path))
		}
		for i, w := range g.Path {
			p := path[i]
			if p.Line != w.Line || p.Offset != w.Offset || p.ID != w.ID || !sameStr(p.ParentID, w.ParentID) ||
				p.Type != w.Type || p.Role != w.Role || p.Timestamp != w.Timestamp {
				t.Errorf("path[%d] = %+v, omp %+v", i, p, w)
			}
		}
		labels, err := rd.LabelsOf(ctx, ref.FileID)
		if err != nil {
			t.Fatal(err)
		}
		got, want := map[string]string{}, map[string]string{}
		for _, l := range labels {
			got[l.TargetID] = l.Label
		}
		for _, l := range g.Labels {
			want[l.TargetID] = l.Label
		}
		if !sameMap(got, want) {
			t.Errorf("labels %v, omp %v", got, want)
		}
	})
}

// The model context omp rebuilds (buildSessionContext after open(), blob
// references resolved): at the leaf, whole; at every other leaf of the
// tree, its settings and its messages' roles and times.
func TestOmpGoldenContext(t *testing.T) {
	eachOmp(t, func(t *testing.T, db *sqlite.DB, g ompGolden, ref pidex.SessionRef) {
		ctx := context.Background()
		sc, err := exactContext(ctx, db, ref, "")
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(sc)
		if err != nil {
			t.Fatal(err)
		}
		var gotObj map[string]json.RawMessage
		if err := json.Unmarshal(got, &gotObj); err != nil {
			t.Fatal(err)
		}
		delete(gotObj, "model") // pidex's own reading of models.default
		got, _ = json.Marshal(gotObj)
		if diff := jsonDiff(got, g.Context); diff != "" {
			t.Errorf("context differs from omp's (-pidex +omp):\n%s", diff)
		}
		for _, o := range g.OtherLeafContexts {
			sc, err := exactContext(ctx, db, ref, o.Leaf.ID)
			if err != nil {
				t.Fatalf("leaf %s: %v", o.Leaf.ID, err)
			}
			if diff := jsonDiff(sc.ThinkingLevel, o.ThinkingLevel); diff != "" {
				t.Errorf("leaf %s: thinking level %s, omp %s", o.Leaf.ID, sc.ThinkingLevel, o.ThinkingLevel)
			}
			if diff := jsonDiff(sc.Omp.Models, o.Models); diff != "" {
				t.Errorf("leaf %s: models %s, omp %s", o.Leaf.ID, sc.Omp.Models, o.Models)
			}
			if sc.Omp.Mode != o.Mode {
				t.Errorf("leaf %s: mode %q, omp %q", o.Leaf.ID, sc.Omp.Mode, o.Mode)
			}
			var gotMsgs []string
			for _, m := range sc.Messages {
				var x struct {
					Role      string
					Timestamp float64
				}
				_ = json.Unmarshal(m, &x)
				gotMsgs = append(gotMsgs, x.Role+jsonOf(x.Timestamp))
			}
			var wantMsgs []string
			for _, m := range o.Messages {
				wantMsgs = append(wantMsgs, m.Role+jsonOf(m.Timestamp))
			}
			if strings.Join(gotMsgs, " ") != strings.Join(wantMsgs, " ") {
				t.Errorf("leaf %s: messages\n%v\nomp:\n%v", o.Leaf.ID, gotMsgs, wantMsgs)
			}
		}
	})
}

// Each file's totals are omp's getUsageStatistics (assistant messages,
// model_usage entries, and the task results' subagent usage); the cost
// report counts omp stats' records (every assistant message and
// model_usage entry of every file, subagent transcripts included, never
// the task results' sums): all of them with --no-dedup, each call once
// without (the fork O5 repeats O1's calls).
func TestOmpGoldenUsage(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	eachOmp(t, func(t *testing.T, db *sqlite.DB, g ompGolden, ref pidex.SessionRef) {
		s, err := newReader(db, nil).Info(context.Background(), ref)
		if err != nil {
			t.Fatal(err)
		}
		u := g.UsageStatistics
		tk := s.Tokens
		if tk.Input != u.Input || tk.Output != u.Output || tk.CacheRead != u.CacheRead || tk.CacheWrite != u.CacheWrite ||
			tk.Total != u.TotalTokens || !near(s.Cost, u.Cost) {
			t.Errorf("totals %+v cost %v, omp %+v", tk, s.Cost, u)
		}
	})
	db, _ := ompCorpus(t)
	var raw, once pidex.CostSums
	seen := map[string]bool{}
	for _, g := range loadOmpGoldens(t) {
		for _, r := range g.StatsRecords {
			add := func(s *pidex.CostSums) {
				s.Calls++
				s.Input += r.Usage.Input
				s.Output += r.Usage.Output
				s.CacheRead += r.Usage.CacheRead
				s.CacheWrite += r.Usage.CacheWrite
				s.Cost += r.Usage.Cost.Total
			}
			add(&raw)
			key := jsonOf([]any{r.EntryID, r.Timestamp, r.Usage.Input, r.Usage.Output, r.Usage.CacheRead, r.Usage.CacheWrite})
			if !seen[key] {
				seen[key] = true
				add(&once)
			}
		}
	}
	for _, c := range []struct {
		name string
		f    pidex.CostFilter
		want pidex.CostSums
	}{{"--no-dedup", pidex.CostFilter{NoDedup: true}, raw}, {"each call once", pidex.CostFilter{}, once}} {
		r, err := newReader(db, nil).CostF(context.Background(), c.f)
		if err != nil {
			t.Fatal(err)
		}
		got := r.Totals
		if got.Calls != c.want.Calls || got.Input != c.want.Input || got.Output != c.want.Output ||
			got.CacheRead != c.want.CacheRead || got.CacheWrite != c.want.CacheWrite || !near(got.Cost, c.want.Cost) {
			t.Errorf("%s: pidex cost %+v, omp stats' records %+v", c.name, got, c.want)
		}
	}
	// Every model omp stats names, by model.
	r, err := newReader(db, nil).CostF(context.Background(), pidex.CostFilter{By: []string{"model"}, NoDedup: true})
	if err != nil {
		t.Fatal(err)
	}
	var gotModels, wantModels []string
	for _, row := range r.Rows {
		gotModels = append(gotModels, row.Keys[0])
	}
	models := map[string]bool{}
	for _, g := range loadOmpGoldens(t) {
		for _, rec := range g.StatsRecords {
			models[rec.Provider+"/"+rec.Model] = true
		}
	}
	for m := range models {
		wantModels = append(wantModels, m)
	}
	sort.Strings(gotModels)
	sort.Strings(wantModels)
	if strings.Join(gotModels, " ") != strings.Join(wantModels, " ") {
		t.Errorf("models %v, omp stats %v", gotModels, wantModels)
	}
}

// A tool output omp spilled to an artifact (the transcript keeps its head
// and tail and says "Read artifact://0 for full output") is found by a
// word of the part only the artifact holds, in the entry that points to
// it, with a snippet of it; titles are found by their title_change.
func TestOmpSearchArtifactsAndTitles(t *testing.T) {
	db, _ := ompCorpus(t)
	ix := &indexer.Indexer{DB: db, Roots: []string{"omp:" + filepath.Join(ompDir, "agent", "sessions")}}
	if _, err := ix.IndexText(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query    string
		entries  []string // entry ids, sorted
		snippets string   // in every snippet
	}{
		{"511ms", []string{"decdf984", "decdf984"}, "511ms"}, // O1's read result and its fork O5's copy
		{`"RequestTimeout after 5000ms"`, []string{"decdf984", "decdf984"}, "RequestTimeout after 5000ms"},
		{"Zeitzonen-Umrechnung", []string{"cc69904a"}, "Zeitzonen"},
	} {
		n, err := fts.Parse(c.query)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := newReader(db, nil).SearchF(context.Background(), n, pidex.SearchFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.EntryID)
			if !strings.Contains(h.Snippet, c.snippets) {
				t.Errorf("%s: snippet %q", c.query, h.Snippet)
			}
		}
		sort.Strings(ids)
		if strings.Join(ids, " ") != strings.Join(c.entries, " ") {
			t.Errorf("%s: hits %v, want %v", c.query, ids, c.entries)
		}
	}
}
