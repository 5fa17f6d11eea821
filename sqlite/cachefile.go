package sqlite

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pidex-dev/pidex/internal/files"
)

// A read cache's blob lives in a file beside the catalog
// (<catalog>-<name>, e.g. index.sqlite-listing), and its row in
// read_caches holds only a token naming that file's contents. Read from
// the row, a blob of megabytes was copied twice into fresh memory (by
// SQLite, gathering its overflow pages, then by the driver), and on a
// machine whose fresh pages cost 5–16 µs each those copies were a third of
// `pidex list`; a file is mapped from the page cache as it is.
//
// The row stays the truth: a file counts only while its token is the
// row's, which a transaction sets with data_gen, so a file left by a
// crash, by another catalog at the same path or by a rebuild never
// answers. Where the file cannot be written (a read-only folder, an
// in-memory catalog) the blob goes into the row as before.

// cacheMagic begins every cache file; the version is its last byte.
const cacheMagic = "pidexrc\x01"

// tokenMark begins a token in read_caches.data: no blob format version
// (NewBlob) is 0xFF, so a pidex that predates the files reads a token as a
// malformed blob (ErrBlob) and makes the blob again from the rows.
const tokenMark = 0xFF

// cacheHeader: magic, token, CRC-32C of the data, its length.
const (
	tokenLen    = 17
	cacheHeader = len(cacheMagic) + tokenLen + 4 + 8
)

// maxMapped bounds the cache files a OneShot handle maps (and never
// unmaps): a one-shot command maps one or two; a long-lived process
// mistakenly marked OneShot reads copies after these instead of piling up
// mappings.
const maxMapped = 8

// castagnoli is the CRC-32C table: hash/crc32 makes it on first use
// (made at package initialisation, it took a third of a millisecond of
// every command's start).
func castagnoli() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }

// cacheFile is the file of the read cache name, or "" when the catalog is
// not a plain file (":memory:", a URI).
func (c *DB) cacheFile(name string) string {
	if c.Path == "" || c.Path == ":memory:" || strings.HasPrefix(c.Path, "file:") {
		return ""
	}
	return c.Path + "-" + name
}

// CompanionSuffixes name the files that belong to a catalog beside it, for
// whoever removes one: SQLite's own and the read caches' (cacheFile).
func CompanionSuffixes() []string {
	out := []string{"-wal", "-shm", "-journal"}
	for _, name := range cacheNames() {
		out = append(out, "-"+name)
	}
	return out
}

func isToken(b []byte) bool { return len(b) == tokenLen && b[0] == tokenMark }

func newToken() ([]byte, error) {
	t := make([]byte, tokenLen)
	t[0] = tokenMark
	if _, err := rand.Read(t[1:]); err != nil {
		return nil, fmt.Errorf("make cache token: %w", err)
	}
	return t, nil
}

// writeCacheFile replaces the file at path with data under token: written
// whole to a temporary file, then renamed over it, so that a reader sees
// the old file or the new one, never a part (a reader's mapping of the old
// one stays valid).
func writeCacheFile(path string, token, data []byte) error {
	removeStaleTemps(path)
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write cache file: %w", err)
	}
	hdr := make([]byte, 0, cacheHeader)
	hdr = append(append(hdr, cacheMagic...), token...)
	hdr = binary.LittleEndian.AppendUint32(hdr, crc32.Checksum(data, castagnoli()))
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(data)))
	_, err = f.Write(hdr)
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write cache file: %w", err)
	}
	return nil
}

// removeStaleTemps removes what a writer killed between creating its
// temporary file and renaming it left behind (a live writer's is seconds
// old at most).
func removeStaleTemps(path string) {
	matches, _ := filepath.Glob(GlobEscape(path) + ".*.tmp")
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && time.Since(fi.ModTime()) > time.Minute {
			os.Remove(m)
		}
	}
}

// GlobEscape quotes the glob metacharacters of a literal path.
func GlobEscape(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// errNoCacheFile: the file is missing, or holds another token, or does not
// check: the blob is made again from the rows.
var errNoCacheFile = errors.New("no valid cache file")

// readCacheFile returns the data of the file at path if it holds token:
// mapped (and never unmapped) when mapped is set, else read into memory.
func readCacheFile(path string, token []byte, mapped bool) ([]byte, error) {
	f, err := files.OpenRegular(path)
	if err != nil {
		return nil, errNoCacheFile
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < int64(cacheHeader) {
		return nil, errNoCacheFile
	}
	if mapped {
		if b, err := mapFile(f, int(fi.Size())); err == nil {
			data, err := checkCacheFile(b, token)
			if err != nil {
				unmapFile(b) // nothing refers to it yet
			}
			return data, err
		}
	}
	b := make([]byte, fi.Size())
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, errNoCacheFile
	}
	return checkCacheFile(b, token)
}

// checkCacheFile returns the data of a cache file's bytes b if they hold
// token, whole and as written.
func checkCacheFile(b, token []byte) ([]byte, error) {
	if len(b) < cacheHeader || string(b[:len(cacheMagic)]) != cacheMagic {
		return nil, errNoCacheFile
	}
	h := b[len(cacheMagic):cacheHeader]
	if !bytes.Equal(h[:tokenLen], token) {
		return nil, errNoCacheFile
	}
	sum := binary.LittleEndian.Uint32(h[tokenLen:])
	n := binary.LittleEndian.Uint64(h[tokenLen+4:])
	data := b[cacheHeader:]
	if uint64(len(data)) != n || crc32.Checksum(data, castagnoli()) != sum {
		return nil, errNoCacheFile
	}
	return data, nil
}

// mappedCount counts a handle's mappings (maxMapped).
type mappedCount struct{ n atomic.Int32 }

func (m *mappedCount) take() bool {
	if m.n.Add(1) > maxMapped {
		m.n.Add(-1)
		return false
	}
	return true
}
