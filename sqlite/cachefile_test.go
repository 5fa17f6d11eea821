package sqlite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// bumpCache changes the generation of a cache's rows, as a trigger does.
func bumpCache(t *testing.T, db *DB, name string) {
	t.Helper()
	if _, err := db.Exec(`UPDATE read_caches SET gen = gen + 1 WHERE name = ?`, name); err != nil {
		t.Fatal(err)
	}
}

func loadData(t *testing.T, db *DB, name string) []byte {
	t.Helper()
	c, err := db.LoadCache(context.Background(), db.DB, name)
	if err != nil {
		t.Fatal(err)
	}
	return c.Data
}

func storeData(t *testing.T, db *DB, name string, data []byte) {
	t.Helper()
	c, err := db.LoadCache(context.Background(), db.DB, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.StoreCache(context.Background(), name, c.Gen, data); err != nil {
		t.Fatal(err)
	}
}

// A stored blob goes into its file, the row holds the file's token, and
// the blob reads back whole, mapped or copied; a file that no longer
// holds what the row names (replaced, damaged, cut, gone) answers
// nothing, so the rows are read instead.
func TestCacheFile(t *testing.T) {
	for _, oneShot := range []bool{false, true} {
		db := openTemp(t)
		db.OneShot = oneShot
		data := bytes.Repeat([]byte("listing blob "), 10000)
		storeData(t, db, CacheListing, data)
		var row []byte
		if err := db.Get(&row, `SELECT data FROM read_caches WHERE name = 'listing'`); err != nil || !isToken(row) {
			t.Fatalf("the row holds %d bytes, not a token: %v", len(row), err)
		}
		file := db.Path + "-listing"
		if got := loadData(t, db, CacheListing); !bytes.Equal(got, data) {
			t.Fatalf("one-shot %v: read back %d bytes, want %d", oneShot, len(got), len(data))
		}
		good, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		breakers := map[string]func([]byte) []byte{
			"another token":  func(b []byte) []byte { b[len(cacheMagic)+3] ^= 1; return b },
			"a changed byte": func(b []byte) []byte { b[len(b)-7] ^= 1; return b },
			"cut short":      func(b []byte) []byte { return b[:len(b)-100] },
			"a header only":  func(b []byte) []byte { return b[:cacheHeader] },
			"empty":          func(b []byte) []byte { return nil },
			"another format": func(b []byte) []byte { b[len(cacheMagic)-1] = 9; return b },
		}
		for what, breakIt := range breakers {
			if err := os.WriteFile(file+".new", breakIt(bytes.Clone(good)), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(file+".new", file); err != nil {
				t.Fatal(err)
			}
			if got := loadData(t, db, CacheListing); got != nil {
				t.Errorf("one-shot %v: a file with %s read as %d bytes", oneShot, what, len(got))
			}
		}
		os.Remove(file)
		if got := loadData(t, db, CacheListing); got != nil {
			t.Errorf("one-shot %v: a missing file read as %d bytes", oneShot, len(got))
		}
		// Stored again, it reads again; once the rows change, it does not.
		storeData(t, db, CacheListing, data)
		if got := loadData(t, db, CacheListing); !bytes.Equal(got, data) {
			t.Fatal("stored again, not read back")
		}
		bumpCache(t, db, CacheListing)
		if got := loadData(t, db, CacheListing); got != nil {
			t.Error("a file of older rows was read")
		}
	}
}

// A catalog made again at the same path starts its generations again, so
// a file the old one left could match a generation by chance: only the
// token, which is the new catalog's own, makes a file count.
func TestCacheFileOfAnotherCatalog(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.sqlite")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	storeData(t, db, CacheStamps, []byte("the old catalog's stamps"))
	db.Close()
	for _, s := range []string{"", "-wal", "-shm"} {
		os.Remove(path + s)
	}
	if db, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := loadData(t, db, CacheStamps); got != nil {
		t.Fatalf("a new catalog read the old one's file: %q", got)
	}
	// Its own token, written without its file: the old file answers no
	// one either.
	tok, _ := newToken()
	if _, err := db.Exec(`UPDATE read_caches SET data = ?, data_gen = gen WHERE name = 'stamps'`, tok); err != nil {
		t.Fatal(err)
	}
	if got := loadData(t, db, CacheStamps); got != nil {
		t.Fatalf("a token read another token's file: %q", got)
	}
}

// Where no file can be written beside the catalog, the blob goes into the
// row, as before the files; a file that answers is never changed in place
// (readers may have it mapped), only replaced; and what a killed writer
// left is removed once it is old.
func TestCacheFileFallsBackToTheRow(t *testing.T) {
	db := openTemp(t)
	file := db.Path + "-stamps"
	if err := os.Mkdir(file, 0o700); err != nil { // the rename cannot replace a folder
		t.Fatal(err)
	}
	data := []byte("stamps in the row")
	storeData(t, db, CacheStamps, data)
	var row []byte
	if err := db.Get(&row, `SELECT data FROM read_caches WHERE name = 'stamps'`); err != nil || !bytes.Equal(row, data) {
		t.Fatalf("the row holds %q, want the blob: %v", row, err)
	}
	if got := loadData(t, db, CacheStamps); !bytes.Equal(got, data) {
		t.Fatalf("read %q", got)
	}
	if m, _ := filepath.Glob(file + ".*.tmp"); len(m) != 0 {
		t.Fatalf("a failed write left %v", m)
	}
	os.Remove(file)

	db.OneShot = true
	storeData(t, db, CacheStamps, []byte("first"))
	first := loadData(t, db, CacheStamps) // mapped
	bumpCache(t, db, CacheStamps)
	storeData(t, db, CacheStamps, []byte("other"))
	if string(first) != "first" || string(loadData(t, db, CacheStamps)) != "other" {
		t.Fatalf("a mapped blob changed when the file was replaced: %q", first)
	}

	stale := file + ".123.tmp"
	if err := os.WriteFile(stale, []byte("killed"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stale, old, old)
	bumpCache(t, db, CacheStamps)
	storeData(t, db, CacheStamps, []byte("again"))
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("a killed writer's temporary file is still there: %v", err)
	}
}

// A handle marked OneShot by mistake in a long-lived process maps a few
// files, then reads copies: never a mapping per refresh.
func TestCacheFileMapsBoundedly(t *testing.T) {
	db := openTemp(t)
	db.OneShot = true
	storeData(t, db, CacheStamps, []byte("stamps"))
	for i := 0; i < maxMapped+5; i++ {
		if string(loadData(t, db, CacheStamps)) != "stamps" {
			t.Fatal("not read")
		}
	}
	if n := db.mapped.n.Load(); n != maxMapped {
		t.Fatalf("%d mappings, want %d", n, maxMapped)
	}
}
