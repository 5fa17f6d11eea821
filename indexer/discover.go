package indexer

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"
)

// DefaultRoots returns the session roots pi itself would use, in pi's
// order of precedence: $PI_CODING_AGENT_SESSION_DIR (pi's flat session
// folder), else $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions.
func DefaultRoots() []string {
	if d := os.Getenv("PI_CODING_AGENT_SESSION_DIR"); d != "" {
		return []string{expandHome(d)}
	}
	if d := os.Getenv("PI_CODING_AGENT_DIR"); d != "" {
		return []string{filepath.Join(expandHome(d), "sessions")}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	return []string{filepath.Join(home, ".pi", "agent", "sessions")}
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// candidate is a discovered .jsonl file and its stat.
type candidate struct {
	Path string
	Root string
	fileStat
	// irregular says what the path is when it is not a regular file (a
	// FIFO, a device, a socket, directly or through a link): never opened
	// (opening a FIFO blocks), recorded as unreadable.
	irregular string
}

type fileStat struct {
	Size    int64
	MtimeNs int64
	Dev     int64
	Ino     int64
}

// statOf takes what the planner compares from a stat already made; the
// device and inode come from the platform's stat (stat_unix.go,
// stat_other.go).
func statOf(fi fs.FileInfo) fileStat {
	s := fileStat{Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano()}
	s.Dev, s.Ino = devIno(fi)
	return s
}

// discover lists the .jsonl files of root the way pi does — the files in
// each immediate subfolder (project folders, symlinks to folders included)
// — and also the files directly in root, for pi's flat session folders
// (--session-dir, PI_CODING_AGENT_SESSION_DIR). It never recurses deeper:
// extension artefacts live deeper and are not sessions. A root that does
// not exist yields nothing; unreadable folders are reported, not fatal.
func discover(root string) ([]candidate, []error) {
	out, subdirs, errs := listDir(root, root)
	// The folders are listed in parallel: a no-change refresh is mostly
	// these stat calls, and the kernel serves them on every core.
	type listing struct {
		files []candidate
		errs  []error
	}
	res := make([]listing, len(subdirs))
	var g errgroup.Group
	g.SetLimit(4)
	for i, d := range subdirs {
		g.Go(func() error {
			res[i].files, _, res[i].errs = listDir(d, root)
			return nil
		})
	}
	_ = g.Wait()
	for _, r := range res {
		out = append(out, r.files...)
		errs = append(errs, r.errs...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, errs
}

// listDir returns the regular .jsonl files in dir and its subfolders.
func listDir(dir, root string) (files []candidate, subdirs []string, errs []error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if !(dir == root && os.IsNotExist(err)) {
			errs = append(errs, fmt.Errorf("read dir %s: %w", dir, err))
		}
		return nil, nil, errs
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			if isDir(e, p) {
				subdirs = append(subdirs, p)
			}
			continue
		}
		fi, err := e.Info() // the lstat ReadDir already did: one stat per file
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if target, terr := os.Stat(p); terr == nil {
				fi = target
			} else {
				// A dangling or looping link: a candidate with the link's
				// own stat, which the parser records as unreadable once.
				files = append(files, candidate{Path: p, Root: root, fileStat: statOf(fi)})
				continue
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("stat %s: %w", p, err))
			continue
		}
		switch {
		case fi.Mode().IsRegular():
			files = append(files, candidate{Path: p, Root: root, fileStat: statOf(fi)})
		case !fi.IsDir(): // a folder named *.jsonl is no session file; anything else is listed by warnings
			files = append(files, candidate{Path: p, Root: root, fileStat: statOf(fi), irregular: modeName(fi.Mode())})
		}
	}
	return files, subdirs, errs
}

// modeName names what a file that is not regular is, for its warning.
func modeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

func isDir(e fs.DirEntry, p string) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink != 0 {
		fi, err := os.Stat(p)
		return err == nil && fi.IsDir()
	}
	return false
}
