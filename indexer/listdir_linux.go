package indexer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/pidex-dev/pidex/internal/files"
)

// listDirFast lists dir with one fstatat per entry relative to the
// folder's descriptor: the kernel resolves a name, not the whole path, and
// no FileInfo is made per file. A no-change refresh is mostly these stats
// (3,000 files: 7.6 → 4.8 ms in one goroutine). Links and anything that
// is neither a regular file nor a folder go through lstat and
// dirListing.file, as listDir's portable path does.
func listDirFast(dir, root string) (dirListing, bool) {
	var l dirListing
	f, err := files.OpenDir(dir) // a FIFO named as a root (sessionDir) never blocks the open
	if err != nil {
		l.errs = dirError(dir, root, err)
		return l, true
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		l.errs = dirError(dir, root, err)
		return l, true
	}
	slices.Sort(names) // as os.ReadDir lists them
	l.files = make([]candidate, 0, len(names))
	fd := int(f.Fd())
	var st unix.Stat_t
	// dir is clean (roots are, and subfolders are made here): Join would
	// only clean each path again (a tenth of a no-change refresh).
	prefix := dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) { // "/" as a root
		prefix += string(filepath.Separator)
	}
	for _, name := range names {
		p := prefix + name
		jsonl := strings.HasSuffix(name, ".jsonl")
		if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			if jsonl {
				fi, err := os.Lstat(p) // its error, in the portable words
				l.file(p, root, fi, err)
			}
			continue // gone since the listing
		}
		switch kind := st.Mode & unix.S_IFMT; {
		case kind == unix.S_IFREG && jsonl:
			l.files = append(l.files, candidate{Path: p, Root: root, fileStat: fileStat{Size: st.Size,
				MtimeNs: st.Mtim.Sec*1e9 + st.Mtim.Nsec, Dev: int64(st.Dev), Ino: int64(st.Ino)}})
		case kind == unix.S_IFDIR:
			if !jsonl { // a folder named *.jsonl is no session file
				l.subdirs = append(l.subdirs, p)
			}
		case kind == unix.S_IFLNK && !jsonl:
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				l.subdirs = append(l.subdirs, p)
			}
		case jsonl: // a link, a FIFO, a device, a socket
			fi, err := os.Lstat(p)
			l.file(p, root, fi, err)
		}
	}
	if len(l.files) == 0 {
		l.files = nil // as the portable listing has it
	}
	return l, true
}
