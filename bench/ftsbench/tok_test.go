// Package ftsbench compares FTS5 table designs on real session text:
// insert speed and index size for the tokenizer and detail choices behind
// pidex's text index (see docs/search.md, "Search design"). It reads a corpus
// named by PIDEX_BENCH_CORPUS (go run ./bench/gencorpus -text realistic)
// and is skipped without one:
//
//	PIDEX_BENCH_CORPUS=/work/scratch/corpus/r3000 go test ./bench/ftsbench -run Tokenizers -v
package ftsbench

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite"

	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

func texts(t *testing.T, limit int) []string {
	root := os.Getenv("PIDEX_BENCH_CORPUS")
	if root == "" {
		t.Skip("PIDEX_BENCH_CORPUS not set")
	}
	files, _ := filepath.Glob(filepath.Join(root, "*", "*.jsonl"))
	sort.Strings(files)
	var out []string
	total := 0
	for _, f := range files {
		fh, _ := os.Open(f)
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			l, _ := schema.DecodeLine(sc.Bytes())
			if l == nil {
				continue
			}
			if s := pi.Text(l); s != "" {
				out = append(out, s)
				total += len(s)
			}
		}
		fh.Close()
		if total > limit {
			break
		}
	}
	t.Logf("%d texts, %d MB", len(out), total>>20)
	return out
}

func foldAll(s string) string {
	s = fts.Prepare(s)
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) {
			return r
		}
		return ' '
	}, fts.Fold(s))
}

func TestTokenizers(t *testing.T) {
	ts := texts(t, 60<<20)
	for _, c := range []struct {
		name, create string
		prep         func(string) string
	}{
		{"unicode61", `CREATE VIRTUAL TABLE x USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`, fts.Prepare},
		{"unicode61 detail=column", `CREATE VIRTUAL TABLE x USING fts5(text, content='', contentless_delete=1, detail=column, tokenize='unicode61 remove_diacritics 2')`, fts.Prepare},
		{"ascii prefolded", `CREATE VIRTUAL TABLE x USING fts5(text, content='', contentless_delete=1, tokenize='ascii')`, foldAll},
		{"unicode61 without bigrams", `CREATE VIRTUAL TABLE x USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`, func(s string) string { return s }},
		{"trigram", `CREATE VIRTUAL TABLE x USING fts5(text, content='', contentless_delete=1, tokenize='trigram')`, func(s string) string { return s }},
	} {
		p := filepath.Join(t.TempDir(), "x.sqlite")
		db := sqlx.MustOpen("sqlite", "file:"+p+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
		db.MustExec(c.create)
		db.MustExec(`INSERT INTO x (x, rank) VALUES ('hashsize', 33554432)`)
		start := time.Now()
		prepared := make([]string, len(ts))
		for i, s := range ts {
			prepared[i] = c.prep(s)
		}
		prep := time.Since(start)
		start = time.Now()
		tx := db.MustBegin()
		st, _ := tx.Prepare(`INSERT INTO x (rowid, text) VALUES (?, ?)`)
		for i, s := range prepared {
			st.Exec(i+1, s)
			if i%20000 == 19999 {
				tx.Commit()
				tx = db.MustBegin()
				st, _ = tx.Prepare(`INSERT INTO x (rowid, text) VALUES (?, ?)`)
			}
		}
		tx.Commit()
		ins := time.Since(start)
		// CJK words inside running text: found only with bigrams or trigrams
		// (a 2-character word is too short for a trigram).
		cjk := map[string]int{}
		for _, w := range []string{"検索", "压缩", "インデックス", "数据库"} {
			q := `"` + w + `"`
			if c.name != "trigram" && c.name != "unicode61 without bigrams" {
				n, _ := fts.Parse(w)
				q = n.Match()
			}
			var k int
			_ = db.Get(&k, `SELECT count(*) FROM x WHERE x MATCH ?`, q)
			cjk[w] = k
		}
		db.Close()
		fi, _ := os.Stat(p)
		t.Logf("%-26s prepare %6.2fs  insert %6.2fs  size %d MB  CJK rows found %v", c.name, prep.Seconds(), ins.Seconds(), fi.Size()>>20, cjk)
	}
}
