package ftsbench

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/internal/fts"
)

// TestShards measures what a second FTS5 writer would give the text pass
// of a cold index (issue 20, BENCHMARKS.md): the same text inserted into
// one FTS5 table by one writer, then into two tables in two database
// files by two writers at once (each file has its own write lock, so the
// writers do not queue on one). The table is pidex's (migration 00010),
// the text pidex's (pi.Text, fts.Prepare), in rowid order, in
// transactions of about textCommitBytes, with FTS5's default merging.
// Readers (decoding lines back) are left out: this is the writers'
// ceiling. PIDEX_BENCH_MB bounds the text (default 400).
//
//	PIDEX_BENCH_CORPUS=/work/scratch/corpus/r3000 go test ./bench/ftsbench -run Shards -v -timeout 30m
func TestShards(t *testing.T) {
	mb := envInt("PIDEX_BENCH_MB", 400)
	all := texts(t, mb<<20)
	for i := range all {
		all[i] = fts.Prepare(all[i])
	}
	for _, shards := range []int{1, 2} {
		dir := t.TempDir()
		parts := make([][]string, shards)
		for i, s := range all { // contiguous runs, as files would be split by id
			k := i * shards / len(all)
			parts[k] = append(parts[k], s)
		}
		start := time.Now()
		var wg sync.WaitGroup
		errs := make([]error, shards)
		for k := range shards {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[k] = writeShard(filepath.Join(dir, fmt.Sprintf("shard%d.sqlite", k)), parts[k])
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		el := time.Since(start)
		t.Logf("%d writer(s): %.1f s, %.1f MB/s of text", shards, el.Seconds(), float64(mb)/el.Seconds())
	}
}

// writeShard inserts texts into a new FTS5 table at path, one
// transaction per ~48 MB of text.
func writeShard(path string, texts []string) error {
	db, err := sqlx.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE text_index USING fts5(text, content = '', contentless_delete = 1, detail = none, tokenize = 'unicode61 remove_diacritics 2')`,
		`INSERT INTO text_index (text_index, rank) VALUES ('hashsize', 33554432)`,
	} {
		if _, err := db.Exec(q); err != nil {
			return err
		}
	}
	ctx := context.Background()
	var tx *sql.Tx
	var stmt *sql.Stmt
	size := 0
	for i, s := range texts {
		if tx == nil {
			if tx, err = db.BeginTx(ctx, nil); err != nil {
				return err
			}
			if stmt, err = tx.Prepare(`INSERT INTO text_index (rowid, text) VALUES (?, ?)`); err != nil {
				return err
			}
		}
		if _, err := stmt.Exec(int64(i+1), s); err != nil {
			return err
		}
		if size += len(s); size >= 48<<20 || i == len(texts)-1 {
			stmt.Close()
			if err := tx.Commit(); err != nil {
				return err
			}
			tx, size = nil, 0
		}
	}
	return nil
}

// envInt is the integer in the environment variable name, else def.
func envInt(name string, def int) int {
	var n int
	if _, err := fmt.Sscan(os.Getenv(name), &n); err != nil || n <= 0 {
		return def
	}
	return n
}
