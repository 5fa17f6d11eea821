package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/pgtest"
)

// Subagents against the agents' layout, read here from the paths alone
// (not through pidex's rule, indexer/spawn.go): a subagent's file lies
// under the folder named like its parent's file without .jsonl
// (pi-subagents: <parent>/<run id>/run-<i>/session.jsonl; oh-my-pi:
// <parent>/<task id>.jsonl), so the top of its chain is the outermost
// session file whose folder holds it. The fixtures hold a pi-subagents
// parent with two child runs and an oh-my-pi session with two subagents.

// topOf maps each session file to the file at the top of its chain of
// subagents (itself for a session nobody started).
func topOf(paths []string) map[string]string {
	top := map[string]string{}
	for _, p := range paths {
		top[p] = p
		for _, q := range paths {
			if q != p && strings.HasPrefix(p, strings.TrimSuffix(q, ".jsonl")+string(filepath.Separator)) && len(q) < len(top[p]) {
				top[p] = q
			}
		}
	}
	return top
}

// families are the session files that started subagents, each with its
// subagents' files, checked to include the fixtures' two families.
func families(t *testing.T, top map[string]string) map[string][]string {
	t.Helper()
	fam := map[string][]string{}
	for p, tp := range top {
		if p != tp {
			fam[tp] = append(fam[tp], p)
		}
	}
	var pi, omp bool
	for parent, kids := range fam {
		slices.Sort(kids)
		pi = pi || len(kids) >= 2 && strings.HasSuffix(kids[0], filepath.Join("run-0", "session.jsonl")) && strings.HasSuffix(kids[1], filepath.Join("run-1", "session.jsonl"))
		omp = omp || len(kids) >= 2 && strings.Contains(parent, "sessions-omp")
	}
	if !pi || !omp {
		t.Fatalf("the fixtures lack a pi-subagents parent with two runs (%v) or an oh-my-pi session with two subagents (%v): %v", pi, omp, fam)
	}
	return fam
}

// fileCalls is a session file's LLM calls as its lines hold them: every
// message with usage (the families' files are no fork's, so each call
// is its own).
type fileCalls struct {
	calls       int64
	totalTokens float64
	cost        float64
}

func (a *fileCalls) add(b fileCalls) {
	a.calls, a.totalTokens, a.cost = a.calls+b.calls, a.totalTokens+b.totalTokens, a.cost+b.cost
}

func readCalls(t *testing.T, path string) fileCalls {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c fileCalls
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var l struct {
			Type    string
			Message struct {
				Role  string
				Usage *struct {
					TotalTokens float64
					Cost        struct{ Total float64 }
				}
			}
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Type != "message" || l.Message.Usage == nil || l.Message.Role != "assistant" {
			continue
		}
		c.calls++
		c.totalTokens += l.Message.Usage.TotalTokens
		c.cost += l.Message.Usage.Cost.Total
	}
	return c
}

// listed is a session of list --json, as this test reads it.
type listed struct {
	ID        string
	Path      string
	Created   string
	SpawnedBy string
	Run       string
	Subagents []listed
}

// costDoc is what the test reads of cost --json.
type costDoc struct {
	Rows []struct {
		Session     string
		Calls       int64
		TotalTokens float64
		Cost        float64
	}
	Totals struct {
		Calls       int64
		TotalTokens float64
		Cost        float64
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// Every session is listed once: a subagent beneath the session that
// started it (in the order they started), never at the top; --subagents
// lists every one at the top. cost --rollup of a parent is its own calls
// plus its subagents', by session and with --session, and neither the
// totals nor any other session's row moves. On the local catalog and on a
// team catalog in PostgreSQL it was pushed into.
func TestSubagentsBeneathTheirParents(t *testing.T) {
	root, _ := filepath.Abs("../../testdata/sessions")
	omp, _ := filepath.Abs("../../testdata/sessions-omp/agent/sessions")
	db := filepath.Join(t.TempDir(), "c.sqlite")
	local := []string{"--db", db, "--sessions", root, "--sessions", "omp:" + omp, "-q"}
	cli(t, 3, append(slices.Clone(local), "index")...)
	var rows []struct{ Path, SessionID string }
	if err := json.Unmarshal([]byte(cli(t, 0, append(slices.Clone(local), "--no-refresh", "sql", "--format", "json",
		"SELECT path, session_id AS sessionid FROM sessions_v")...)), &rows); err != nil {
		t.Fatal(err)
	}
	var paths []string
	idOf := map[string]string{}
	for _, r := range rows {
		paths = append(paths, r.Path)
		idOf[r.Path] = r.SessionID
	}
	top := topOf(paths)
	fam := families(t, top)
	catalogs := []struct {
		name string
		args func(t *testing.T) []string
	}{
		{"sqlite", func(*testing.T) []string { return local }},
		{"postgres", func(t *testing.T) []string {
			url := pgtest.URL(t)
			cli(t, 3, append(slices.Clone(local), "push", "--to", url, "--machine", "m1")...)
			return []string{"--catalog", url}
		}},
	}
	for _, c := range catalogs {
		t.Run(c.name, func(t *testing.T) {
			args := append(c.args(t), "--no-refresh")
			run := func(more ...string) string { return cli(t, 0, slices.Concat(args, more)...) }
			var list, flat []listed
			if err := json.Unmarshal([]byte(run("list", "--json")), &list); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(run("list", "--json", "--subagents")), &flat); err != nil {
				t.Fatal(err)
			}

			// The listing: each file once, beneath its parent.
			seen := map[string]int{}
			var walk func(ss []listed, parent string)
			walk = func(ss []listed, parent string) {
				for i, s := range ss {
					seen[s.Path]++
					if parent == "" && top[s.Path] != s.Path {
						t.Errorf("%s is listed at the top; it is a subagent of %s", s.Path, top[s.Path])
					}
					if parent != "" && (s.SpawnedBy != parent || top[s.Path] != top[parent]) {
						t.Errorf("%s is beneath %s, spawnedBy %q", s.Path, parent, s.SpawnedBy)
					}
					if parent != "" && (s.Run == "" || !strings.HasPrefix(s.Path, strings.TrimSuffix(parent, ".jsonl")+string(filepath.Separator))) {
						t.Errorf("%s beneath %s: run %q", s.Path, parent, s.Run)
					}
					if i > 0 && parent != "" && ss[i-1].Created > s.Created {
						t.Errorf("beneath %s, %s (%s) before %s (%s): want the order they started", parent, ss[i-1].Path, ss[i-1].Created, s.Path, s.Created)
					}
					walk(s.Subagents, s.Path)
				}
			}
			walk(list, "")
			for _, p := range paths {
				if seen[p] != 1 {
					t.Errorf("%s is listed %d times", p, seen[p])
				}
			}
			for parent, kids := range fam {
				i := slices.IndexFunc(list, func(s listed) bool { return s.Path == parent })
				if i < 0 || len(list[i].Subagents) != len(kids) {
					t.Errorf("%s: not listed with its %d subagents: %+v", parent, len(kids), list)
				}
			}
			if len(flat) != len(paths) || slices.ContainsFunc(flat, func(s listed) bool { return len(s.Subagents) > 0 }) {
				t.Errorf("list --subagents: %d sessions, want %d, none nested", len(flat), len(paths))
			}
			// Piped: each subagent's row right after its parent's, naming it.
			lines := strings.Split(run("list"), "\n")
			for parent, kids := range fam {
				i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "\t"+parent+"\t") })
				if i < 0 || i+len(kids) >= len(lines) {
					t.Fatalf("piped list: no row of %s", parent)
				}
				for _, l := range lines[i+1 : i+1+len(kids)] {
					cells := strings.Split(l, "\t")
					if len(cells) < 3 || cells[len(cells)-2] != parent || !slices.ContainsFunc(kids, func(k string) bool { return slices.Contains(cells, k) }) {
						t.Errorf("piped list: after %s's row: %q", parent, l)
					}
				}
			}

			// show's header names a session's subagents, and a subagent's parent.
			for parent, kids := range fam {
				head := run("show", parent)
				head = head[:strings.Index(head, "\n\n")]
				if !strings.Contains(head, "Started  2 subagents: ") || strings.Count(head, "(") < 2 {
					t.Errorf("show %s:\n%s", parent, head)
				}
				for _, k := range kids {
					head := run("show", k)
					if !strings.Contains(head[:strings.Index(head, "\n\n")], "started by "+parent) {
						t.Errorf("show %s:\n%s", k, head)
					}
				}
			}

			// cost: each call once, rolled up or not.
			readCost := func(more ...string) costDoc {
				var d costDoc
				if err := json.Unmarshal([]byte(run(append([]string{"cost", "--json"}, more...)...)), &d); err != nil {
					t.Fatal(err)
				}
				return d
			}
			own, rolled := readCost("--by", "session"), readCost("--by", "session", "--rollup")
			// (Sums in another order may differ in their last digit.)
			sameTotals := func(a, b costDoc) bool {
				return a.Totals.Calls == b.Totals.Calls && near(a.Totals.Cost, b.Totals.Cost) && near(a.Totals.TotalTokens, b.Totals.TotalTokens)
			}
			if byDay := readCost(); !sameTotals(own, rolled) || !sameTotals(byDay, readCost("--rollup")) || !sameTotals(own, byDay) {
				t.Errorf("totals: %+v, rolled up %+v", own.Totals, rolled.Totals)
			}
			want := map[string]fileCalls{}
			for _, r := range own.Rows {
				want[r.Session] = fileCalls{r.Calls, r.TotalTokens, r.Cost}
			}
			for parent, kids := range fam {
				w := readCalls(t, parent)
				if got := want[idOf[parent]]; got.calls != w.calls || !near(got.cost, w.cost) || !near(got.totalTokens, w.totalTokens) {
					t.Errorf("%s's own row: %+v, its file %+v", parent, got, w)
				}
				for _, k := range kids {
					kw := readCalls(t, k)
					if got := want[idOf[k]]; got.calls != kw.calls || !near(got.cost, kw.cost) {
						t.Errorf("subagent %s's own row: %+v, its file %+v", k, got, kw)
					}
					w.add(kw)
					delete(want, idOf[k]) // rolled into its parent's
				}
				want[idOf[parent]] = w
				if d := readCost("--session", parent); d.Totals.Calls != readCalls(t, parent).calls || !near(d.Totals.Cost, readCalls(t, parent).cost) {
					t.Errorf("cost --session %s: %+v, want its own calls", parent, d.Totals)
				}
				if d := readCost("--session", parent, "--rollup"); d.Totals.Calls != w.calls || !near(d.Totals.Cost, w.cost) || !near(d.Totals.TotalTokens, w.totalTokens) {
					t.Errorf("cost --session %s --rollup: %+v, want its own and its subagents' %+v", parent, d.Totals, w)
				}
				if d := readCost("--session", kids[0], "--rollup"); d.Totals.Calls != readCalls(t, kids[0]).calls {
					t.Errorf("cost --session %s --rollup (a subagent without subagents): %+v", kids[0], d.Totals)
				}
			}
			if len(rolled.Rows) != len(want) {
				t.Errorf("rolled up by session: %d rows, want %d", len(rolled.Rows), len(want))
			}
			for _, r := range rolled.Rows {
				if w, ok := want[r.Session]; !ok || r.Calls != w.calls || !near(r.Cost, w.cost) || !near(r.TotalTokens, w.totalTokens) {
					t.Errorf("rolled up, session %s: %+v, want %+v (%v)", r.Session, r, w, ok)
				}
			}
		})
	}
}
