package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/pgtest"
	"github.com/pidex-dev/pidex/internal/render"
	pgmigrations "github.com/pidex-dev/pidex/migrations/postgres"
)

// The team catalog answers as a local catalog over the union of its
// machines' files: three roots pushed as three machines (the bundled
// corpus; generated sessions with usage across days, models, forks,
// branches, labels and entries past PostgreSQL's tsvector limits; copies
// and forks of the others' files, so that calls are held by two machines)
// give, for every read command's --json, the bytes one local catalog over
// the three roots gives (the machine fields aside, which a local catalog
// has not). Then the roots change (appends, a rewrite, a removal, new
// forks) and the machines push again: still equal. Before the changes,
// a part of the commands (all of them with PIDEX_TEAM_FULL=1); after, all.
//
// Twice: on plain tables, and on a catalog whose machine tables are hash-
// partitioned by machine. That one is pushed, taken back to migration
// 00010's schema (rows and all, as a pidex of then left it), and migrated
// by team init --partitions 4 into machine keys and 4 partitions before
// it is compared; after the changes, the part of the commands again
// (all with PIDEX_TEAM_FULL=1: the suite, twice, is the package's
// longest test).
func TestTeamCatalogEqualsLocal(t *testing.T) {
	for _, partitions := range []int{0, 4} {
		t.Run(fmt.Sprintf("partitions=%d", partitions), func(t *testing.T) {
			url := pgtest.URL(t)
			var migrate func()
			if partitions > 0 {
				pgtest.RequireCreateRole(t, url)
				migrate = func() { migrateFrom10(t, url, partitions) }
			}
			teamCatalogEqualsLocal(t, url, migrate)
			checkLayout(t, url, partitions)
		})
	}
}

// migrateFrom10 takes the team catalog back to migration 00010's schema
// (keys without the machine, usage_xm without it, files.id an identity),
// then migrates it with team init --partitions: every row kept, the
// cross-machine flags with their machine, the layout its own for good.
func migrateFrom10(t *testing.T, url string, partitions int) {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func(q string) int {
		t.Helper()
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	const rows = `SELECT (SELECT count(*) FROM entries) + (SELECT count(*) FROM usage) + (SELECT count(*) FROM text_index) + (SELECT count(*) FROM files)`
	entries, overrides := count(rows), count(`SELECT count(*) FROM usage_xm`)
	p, err := goose.NewProvider(goose.DialectPostgres, db, pgmigrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(t.Context(), 10); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM migration_sums WHERE version > 10`); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT count(*) FROM information_schema.columns WHERE table_name = 'usage_xm' AND column_name = 'machine_id'`) +
		count(`SELECT count(*) FROM information_schema.columns WHERE table_name = 'files' AND column_name = 'id' AND is_identity = 'NO'`); n != 0 {
		t.Fatal("not 00010's schema after the migrations down")
	}
	cli(t, 0, "-q", "team", "init", "--to", url, "--apply", "--partitions", strconv.Itoa(partitions))
	checkLayout(t, url, partitions)
	if n := count(rows); n != entries {
		t.Errorf("%d rows after the migration, %d before", n, entries)
	}
	if n := count(`SELECT count(*) FROM usage_xm x JOIN usage u USING (machine_id, file_id, "offset")`); n != overrides {
		t.Errorf("%d cross-machine overrides with their usage row after the migration, %d before", n, overrides)
	}
	// The layout is the catalog's own: another is refused.
	var out, errb bytes.Buffer
	a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &errb, Width: 120, Height: 40})
	args := []string{"-q", "team", "init", "--to", url, "--apply", "--partitions", strconv.Itoa(partitions * 2)}
	if err := a.execute(t.Context(), args); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("laid out as %d partitions", partitions)) {
		t.Errorf("team init --partitions %d on a catalog of %d: %v", partitions*2, partitions, err)
	}
}

// checkLayout checks that the team catalog's machine tables are laid out
// as partitions hash partitions by machine (plain tables for 0), and that
// each machine's rows are in one partition of each.
func checkLayout(t *testing.T, url string, partitions int) {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var parents, children, strategies, owned int
	err = db.QueryRow(`SELECT count(*), COALESCE(sum((SELECT count(*) FROM pg_inherits i WHERE i.inhparent = p.partrelid)), 0),
			count(*) FILTER (WHERE p.partstrat = 'h' AND p.partnatts = 1 AND
				(SELECT attname FROM pg_attribute WHERE attrelid = p.partrelid AND attnum = p.partattrs[0]) = 'machine_id'),
			cardinality(pidex_machine_tables())
		FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid
		WHERE c.relnamespace = current_schema()::regnamespace`).Scan(&parents, &children, &strategies, &owned)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	if partitions > 0 {
		want = owned
	}
	if parents != want || strategies != want || children != want*partitions {
		t.Fatalf("%d partitioned tables (%d by hash of machine_id) with %d partitions, want %d with %d each", parents, strategies, children, want, partitions)
	}
	if partitions == 0 {
		return
	}
	var machines, split, used int
	err = db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE n > 1), (SELECT count(DISTINCT tableoid) FROM entries)
		FROM (SELECT machine_id, count(DISTINCT tableoid) AS n FROM entries GROUP BY machine_id) m`).Scan(&machines, &split, &used)
	if err != nil || machines < 2 || split != 0 || used < 2 {
		t.Fatalf("entries of %d machines, %d of them in several partitions, in %d partitions (%v): want each machine's in one, and at least two used",
			machines, split, used, err)
	}
}

// teamCatalogEqualsLocal runs the suite on the team catalog at url,
// after migrate (if any) once the machines have pushed.
func teamCatalogEqualsLocal(t *testing.T, url string, migrate func()) {
	base := t.TempDir()
	roots := teamCorpus(t, base)
	machines := []string{"laptop", "desktop", "server"}
	union := []string{"--db", filepath.Join(base, "union.sqlite")}
	for _, r := range roots {
		union = append(union, "--sessions", r)
	}
	push := func() {
		t.Helper()
		for i, r := range roots {
			cli(t, 3, "--db", filepath.Join(base, machines[i]+".sqlite"), "--sessions", r, "--machine", machines[i], "-q", "push", "--to", url)
		}
		cli(t, 3, append(union, "-q", "index")...)
	}
	push()
	// Calls held by two machines (the server's copies and forks) are
	// counted once over the union: the test is worth its name only if some
	// flags of the union differ from a machine's own.
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var overrides int
	if err := db.QueryRow(`SELECT count(*) FROM usage_xm`).Scan(&overrides); err != nil || overrides == 0 {
		t.Fatalf("%d cross-machine overrides (%v): the corpus holds no call on two machines", overrides, err)
	}
	if migrate != nil {
		migrate()
	}
	eq := &teamEq{t: t, local: append(union, "--no-refresh"), team: []string{"--catalog", url}, machines: machines}
	full := os.Getenv("PIDEX_TEAM_FULL") != ""
	eq.all(roots, full)

	// The machines' files change; each pushes again.
	teamChanges(t, roots)
	push()
	eq.all(roots, full || migrate == nil)
}

// teamEq compares a command's output on the local and the team catalog.
type teamEq struct {
	t           *testing.T
	local, team []string
	machines    []string
	n           int
}

var machineField = regexp.MustCompile(`,"machine":"(laptop|desktop|server)"`)

func (e *teamEq) same(args ...string) string {
	e.t.Helper()
	e.n++
	lo := cli(e.t, -1, append(e.local, args...)...)
	to := cli(e.t, -1, append(e.team, args...)...)
	stripped := machineField.ReplaceAllString(to, "")
	if stripped != lo {
		e.t.Errorf("pidex %s: the team catalog answers otherwise:\n%s", strings.Join(args, " "), firstDiff(lo, stripped))
	}
	return lo
}

// firstDiff shows where two outputs part.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(la), len(lb)); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			cut := func(s string) string {
				if len(s) > 600 {
					return s[:600] + "…"
				}
				return s
			}
			return fmt.Sprintf("line %d:\n local %s\n team  %s", i+1, cut(x), cut(y))
		}
	}
	return "(same lines, different bytes)"
}

func (e *teamEq) all(roots []string, full bool) {
	t := e.t
	// list, with every filter and order
	list := e.same("list", "--json")
	if !strings.Contains(cli(t, -1, append(e.team, "list", "--json")...), `"machine":"server"`) {
		t.Error("the team catalog's listing names no machine")
	}
	for _, args := range [][]string{{"--project", "alpha"}, {"--project", "REAL"}, {"--cwd", "/w/team"}, {"--name", "design"},
		{"--since", "2026-05-10"}, {"--until", "2026-05-12"}, {"--limit", "7"}, {"--sort", "created"}, {"--sort", "cost"},
		{"--sort", "size"}, {"--sort", "cost", "--limit", "5"}, {"--since", "2026-05-05", "--sort", "created", "--limit", "9"}} {
		e.same(append([]string{"list", "--json"}, args...)...)
	}
	// tree, path, show and show --context of every session, by path (the
	// copies share their ids), and of some branches
	paths := regexp.MustCompile(`"path":"([^"]+)"`).FindAllStringSubmatch(list, -1)
	if len(paths) < 60 {
		t.Fatalf("%d sessions listed", len(paths))
	}
	for i, m := range paths {
		if !full && i%4 != 0 {
			continue
		}
		p := m[1]
		e.same("tree", "--json", p)
		e.same("tree", "--json", "--flat", "--path-only", p)
		e.same("path", "--json", p)
		show := e.same("show", "--json", p)
		e.same("show", "--context", "--json", p)
		if ids := regexp.MustCompile(`"id":"([^"]+)","parentId"`).FindAllStringSubmatch(show, -1); len(ids) > 3 && i%3 == 0 {
			leaf := ids[len(ids)/2][1]
			e.same("path", "--json", "--leaf", leaf, p)
			e.same("show", "--context", "--json", "--leaf", leaf, p)
		}
	}
	// search: the recall cases, with every filter, order and page
	queries := []string{"cafe", "CAFÉ", "parse_header", "session-manager.ts", "ERR_MODULE_NOT_FOUND", "src/query/path.go",
		`"quick brown fox"`, "quick fox", "migrat*", "cafe*", "lighthouse OR cafeteria", "fox -brown", "quick -(brown OR menu)",
		"検索", "インデックス", "再構築", "压缩", "数据库", "검색", "検*", "ン*", "header parse", `"header parse"`,
		"zqplant00", "zqplant07", "deadlock", "the", "the index", "session OR model", "golden -fixture", "token*",
		"alpha beta", `"alpha beta"`, "needle", "gamma", "hexhash*", "f4094 -\"alpha beta\"", `"filler needle"`,
		longPhrase(4020, 4094), longPhrase(1, 70) + " -" + longPhrase(4020, 4094), "alpha -" + longPhrase(4020, 4094)}
	for _, q := range queries {
		e.same("search", "--json", "--limit", "30", "--", q)
	}
	for k, args := range [][]string{{"--sort", "newest"}, {"--sessions-only"}, {"--sessions-only", "--sort", "newest"},
		{"--branch", "active"}, {"--role", "tool"}, {"--role", "user"}, {"--role", "summary"}, {"--model", "opus"},
		{"--project", "team"}, {"--since", "2026-05-08"}, {"--until", "2026-05-09"}, {"--limit", "5"}} {
		for _, q := range []string{"the", "session OR model", "検索", "zqplant03", "needle"} {
			if full || k%3 == 0 {
				e.same(append(append([]string{"search", "--json"}, args...), "--", q)...)
			}
		}
	}
	// cost: every grouping, branch and zone, with edges cut by --since/--until
	for _, by := range []string{"day", "week", "month", "model", "provider", "project", "session", "source", "day,model",
		"month,project,source", "week,provider,session"} {
		for _, tz := range []string{"UTC", "America/Los_Angeles", "Asia/Kathmandu"} {
			e.same("cost", "--json", "--by", by, "--tz", tz)
		}
		if !full {
			continue
		}
		for _, br := range []string{"active", "abandoned"} {
			e.same("cost", "--json", "--by", by, "--tz", "Europe/Paris", "--branch", br)
		}
	}
	for _, args := range [][]string{{"--no-dedup"}, {"--no-dedup", "--by", "session"}, {"--since", "2026-05-06T10:07:00Z"},
		{"--until", "2026-05-12T13:52:30Z", "--by", "day,model"}, {"--since", "2026-05-06T10:07:00Z", "--until", "2026-05-06T10:08:00Z"},
		{"--since", "2026-05-04", "--until", "2026-05-09", "--tz", "Asia/Kolkata", "--branch", "active"},
		{"--source", "assistant,compaction"}, {"--model", "sonnet", "--by", "model"}, {"--project", "team", "--by", "project"},
		{"--session", filepath.Join(roots[1], "--w-team--", "t005.jsonl"), "--by", "source"},
		{"--estimate"}, {"--estimate", "--by", "model,day", "--tz", "UTC"}, {"--estimate", "--since", "2026-05-01T10:00:00Z", "--by", "model"}} {
		e.same(append([]string{"cost", "--json"}, args...)...)
	}
	// The unpriced calls are the team catalog's too: the fixture's, and
	// the real sessions' kimi and glm.
	if tot := e.same("cost", "--json", "--by", "model", "--estimate"); !regexp.MustCompile(`"totals": \{.*"unpricedCalls": [1-9][0-9]*, .*"ollama/glm-4\.6"`).MatchString(tot) {
		t.Errorf("no unpriced calls in the report:\n%s", tot)
	}
	e.same("prices", "--missing", "--json")
	// sql: each view, in a total order
	for _, q := range []string{
		"SELECT * FROM sessions_v ORDER BY path",
		"SELECT * FROM entries_v ORDER BY path, 3",
		"SELECT * FROM messages_v ORDER BY path, 3",
		"SELECT * FROM tool_calls_v ORDER BY path, 3, call_id",
		"SELECT * FROM usage_v ORDER BY path, 3",
		"SELECT * FROM labels_v ORDER BY path, target_id",
		"SELECT * FROM active_path_v ORDER BY path, 3, depth",
		// (Not sum() over costs: PostgreSQL adds doubles naively where
		// SQLite compensates, so such a sum may differ in its last digit.)
		"SELECT source, count(*) AS n, max(cost) AS most FROM usage_v WHERE is_fork_copy = 0 GROUP BY source ORDER BY source",
	} {
		e.same("sql", "--json", q)
	}
	t.Logf("%d commands compared", e.n)
}

// cli runs pidex in-process and returns its stdout; want is the exit
// code it must end with (-1: 0 or 3, "done, some input unreadable").
func cli(t *testing.T, want int, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &errb, Width: 120, Height: 40})
	err := a.execute(t.Context(), args)
	code := exitCode(err, a.warned)
	if code != want && !(want == -1 && (code == 0 || code == 3)) && !(want == 3 && code == 0) {
		t.Fatalf("pidex %s: exit %d (%v)\n%s", strings.Join(args, " "), code, err, errb.String())
	}
	return out.String()
}

// teamCorpus writes three machines' session roots under base.
func teamCorpus(t *testing.T, base string) []string {
	roots := []string{filepath.Join(base, "laptop"), filepath.Join(base, "desktop"), filepath.Join(base, "server")}
	// The laptop: the bundled corpus (damaged files, v1 and v2, real
	// sessions, forks, branches, labels).
	copyTree(t, "../../testdata/sessions", roots[0])
	r := rand.New(rand.NewPCG(18, 1))
	// The desktop: sessions with usage over two weeks of hours, four
	// models, forks among themselves, and entries past PostgreSQL's limits.
	var written []string
	for i := range 24 {
		p := filepath.Join(roots[1], "--w-team--", fmt.Sprintf("t%03d.jsonl", i))
		catalogtest.WriteFile(t, p, teamSession(r, fmt.Sprintf("t%03d", i), "/w/team", i))
		written = append(written, p)
	}
	// Calls pi recorded at $0 (issue 36), on the desktop and, copied, on
	// the server: unpriced over the union as over each machine.
	catalogtest.WriteFile(t, filepath.Join(roots[1], "--home-ann-honest--", "h.jsonl"), catalogtest.UnpricedSession())
	catalogtest.WriteFile(t, filepath.Join(roots[2], "--home-ann-honest--", "h.jsonl"), catalogtest.UnpricedSession())
	long := filepath.Join(roots[1], "--w-team--", "long.jsonl")
	catalogtest.WriteFile(t, long, longSession())
	for i := 0; i < 24; i += 6 { // forks: the same entries (ids, times, usage), then their own
		b, err := os.ReadFile(written[i])
		if err != nil {
			t.Fatal(err)
		}
		fork := strings.Replace(string(b), fmt.Sprintf(`"id":"t%03d"`, i), fmt.Sprintf(`"id":"f%03d"`, i), 1) +
			teamEntries(r, fmt.Sprintf("f%03d", i), fmt.Sprintf("t%03d-e%d", i, 20), 100, 5)
		catalogtest.WriteFile(t, filepath.Join(roots[1], "--w-team--", fmt.Sprintf("zf%03d.jsonl", i)), fork)
	}
	// The server: copies of the others' files (the same session on two
	// machines), forks of the desktop's sessions, sessions of its own.
	for i, src := range []string{written[1], written[7], written[12]} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		catalogtest.WriteFile(t, filepath.Join(roots[2], "--w-team--", fmt.Sprintf("t%03d.jsonl", []int{1, 7, 12}[i])), string(b))
		fork := strings.Replace(string(b), `"type":"session","version":3,"id":"t`, `"type":"session","version":3,"id":"x`, 1) +
			teamEntries(r, fmt.Sprintf("x%d", i), "", 200, 4)
		catalogtest.WriteFile(t, filepath.Join(roots[2], "--w-srv--", fmt.Sprintf("xf%d.jsonl", i)), fork)
	}
	b, err := os.ReadFile(filepath.Join(roots[0], "--real--", "gjcfork-inline-agent-design.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	catalogtest.WriteFile(t, filepath.Join(roots[2], "--real--", "gjcfork-inline-agent-design.jsonl"), string(b))
	for i := range 10 {
		catalogtest.WriteFile(t, filepath.Join(roots[2], "--w-srv--", fmt.Sprintf("s%03d.jsonl", i)),
			teamSession(r, fmt.Sprintf("s%03d", i), "/srv/app", 30+i))
	}
	return roots
}

// teamChanges changes the machines' files as pi and people do: appends
// (one to a file another machine also holds), a rewrite, a removal, a new
// fork.
func teamChanges(t *testing.T, roots []string) {
	r := rand.New(rand.NewPCG(18, 2))
	catalogtest.AppendFile(t, filepath.Join(roots[1], "--w-team--", "t003.jsonl"), teamEntries(r, "t003", "t003-e19", 300, 6))
	catalogtest.AppendFile(t, filepath.Join(roots[2], "--w-team--", "t007.jsonl"), teamEntries(r, "t007", "t007-e5", 310, 3))
	catalogtest.WriteFile(t, filepath.Join(roots[2], "--w-srv--", "s004.jsonl"), teamSession(r, "s004", "/srv/app", 77))
	if err := os.Remove(filepath.Join(roots[1], "--w-team--", "t010.jsonl")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(roots[1], "--w-team--", "t012.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	catalogtest.WriteFile(t, filepath.Join(roots[0], "--w-team--", "late-fork.jsonl"),
		strings.Replace(string(b), `"id":"t012"`, `"id":"lf012"`, 1)+teamEntries(r, "lf012", "t012-e9", 400, 3))
}

var (
	teamWords = strings.Fields(`the index search session branch compaction summary model token cost café naïve Zürich
		parse_header session-manager.ts ERR_MODULE_NOT_FOUND src/query/path.go build test failed passed refactor goroutine
		channel mutex deadlock writer reader offset catalog ingest watcher rollup usage provider golden fixture quick brown
		fox lighthouse cafeteria menu header parse migration`)
	teamCJK    = []rune("検索索引全文数据库压缩测试通过失败构建部署会话分支模型インデックスデータベーステスト한국어검색")
	teamModels = [][2]string{{"anthropic", "claude-opus-4-5"}, {"anthropic", "claude-sonnet-4-5"}, {"openai", "gpt-5"}, {"google", "gemini-2.5-pro"}}
)

func teamText(r *rand.Rand) string {
	var b strings.Builder
	for range 4 + r.IntN(20) {
		switch x := r.IntN(30); {
		case x == 0:
			fmt.Fprintf(&b, "zqplant%02d", r.IntN(10))
		case x < 3:
			for range 2 + r.IntN(8) {
				b.WriteRune(teamCJK[r.IntN(len(teamCJK))])
			}
		default:
			b.WriteString(teamWords[r.IntN(len(teamWords))])
		}
		b.WriteString([]string{" ", " ", ", ", ".\n", "\t"}[r.IntN(5)])
	}
	return b.String()
}

// teamSession is a session whose entries are spread over May 2026 (hours
// and days in every zone's sense), with usage.
func teamSession(r *rand.Rand, id, cwd string, k int) string {
	start := time.Date(2026, 5, 3+k%12, (k*7)%24, (k*13)%60, 0, 0, time.UTC)
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":%q,"timestamp":%q,"cwd":%q}`+"\n", id, start.Format(time.RFC3339Nano), cwd)
	if k%4 == 1 {
		fmt.Fprintf(&b, `{"type":"session_info","id":"%s-name","parentId":null,"timestamp":%q,"name":"design %s"}`+"\n", id, start.Format(time.RFC3339Nano), id)
		b.WriteString(teamEntries(r, id, id+"-name", k*40, 20))
	} else {
		b.WriteString(teamEntries(r, id, "", k*40, 20))
	}
	return b.String()
}

// teamEntries writes n entries of session id after parent, at minutes
// from minute on: user and assistant messages with usage (a model each),
// tool results, a compaction, a branch, a label.
func teamEntries(r *rand.Rand, id, parent string, minute, n int) string {
	var b strings.Builder
	at := func(i int) string {
		return time.Date(2026, 5, 3, 0, 0, 0, 0, time.UTC).Add(time.Duration(minute*7+i*47) * time.Minute).Format("2006-01-02T15:04:05.000Z")
	}
	pj := func(p string) string {
		if p == "" {
			return "null"
		}
		return `"` + p + `"`
	}
	first := len(parent) > 0 && !strings.HasSuffix(parent, "-name")
	base := 0
	if first {
		base = minute + 1000 // ids distinct from those of the copied entries
	}
	for i := range n {
		eid := fmt.Sprintf("%s-e%d", id, base+i)
		if i == n/2 && parent != "" && r.IntN(2) == 0 { // a branch back
			parent = fmt.Sprintf("%s-e%d", id, base+max(0, i-3))
		}
		m := teamModels[r.IntN(len(teamModels))]
		switch i % 6 {
		case 0, 3:
			fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":%q,"message":{"role":"user","content":[{"type":"text","text":%q}]}}`+"\n",
				eid, pj(parent), at(i), teamText(r))
		case 1, 4:
			in, out := 100+r.IntN(5000), 10+r.IntN(900)
			fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":%q,"message":{"role":"assistant","content":[{"type":"thinking","thinking":%q},{"type":"text","text":%q},{"type":"toolCall","id":"c%s","name":"read","arguments":{"path":"src/query/path.go","n":%d}}],"provider":%q,"model":%q,"usage":{"input":%d,"output":%d,"cacheRead":%d,"cacheWrite":%d,"totalTokens":%d,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":%v}}}}`+"\n",
				eid, pj(parent), at(i), teamText(r), teamText(r), eid, i, m[0], m[1], in, out, r.IntN(3000), r.IntN(400), in+out, float64(in)*3e-6+float64(out)*1.5e-5)
		case 2:
			fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":%q,"message":{"role":"toolResult","toolCallId":"c%s-e%d","toolName":"read","content":[{"type":"text","text":%q}],"isError":%v}}`+"\n",
				eid, pj(parent), at(i), id, base+i-1, teamText(r), r.IntN(5) == 0)
		case 5:
			if i == 5 {
				fmt.Fprintf(&b, `{"type":"compaction","id":%q,"parentId":%s,"timestamp":%q,"summary":%q,"firstKeptEntryId":%s,"tokensBefore":1000,"usage":{"input":900,"output":120,"cacheRead":0,"cacheWrite":0,"totalTokens":1020,"cost":{"total":0.0043}}}`+"\n",
					eid, pj(parent), at(i), "Summary: "+teamText(r), pj(parent))
			} else {
				fmt.Fprintf(&b, `{"type":"label","id":%q,"parentId":%s,"timestamp":%q,"targetId":%s,"label":%q}`+"\n",
					eid, pj(parent), at(i), pj(parent), "mark "+teamWords[r.IntN(len(teamWords))])
			}
		}
		parent = eid
	}
	return b.String()
}

// longSession holds entries past PostgreSQL's tsvector limits: a phrase
// after 20,000 tokens, a word more than 256 times before a phrase, a word
// longer than a lexeme, a phrase across a window's end.
func longSession() string {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"long","timestamp":"2026-05-07T09:00:00.000Z","cwd":"/w/team"}` + "\n")
	texts := []string{
		strings.Repeat("filler ", 20000) + "alpha beta " + strings.Repeat("filler ", 10) + "needle",
		strings.Repeat("gamma ", 300) + "gamma delta",
		"hexhash" + strings.Repeat("0123456789abcdef", 200) + " and alpha beta",
	}
	var w strings.Builder
	for i := range 4095 {
		fmt.Fprintf(&w, "f%d ", i)
	}
	texts = append(texts, w.String()+"alpha beta omega", "needle filler and more")
	parent := "null"
	for i, text := range texts {
		id := fmt.Sprintf("long-%d", i)
		fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-05-07T09:0%d:00.000Z","message":{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":%q}],"isError":false}}`+"\n",
			id, parent, i, text)
		parent = `"` + id + `"`
	}
	return b.String()
}

// copyTree copies the files under src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	var files []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for _, p := range files {
		rel, _ := filepath.Rel(src, p)
		in, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, rel))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		out.Close()
	}
}

// longPhrase is the phrase "f<from> … f<to>" (of longSession's fourth
// entry: over 64 tokens, and from 4020 on across its first window's end).
func longPhrase(from, to int) string {
	var w []string
	for i := from; i <= to; i++ {
		w = append(w, fmt.Sprintf("f%d", i))
	}
	return `"` + strings.Join(w, " ") + `"`
}
