package indexer

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/files"
)

// candidate is a discovered .jsonl file and its stat.
type candidate struct {
	Path   string
	Root   string
	Source string // the root's agent (pidex.Sources)
	// Spawn: a subagent's session, and which session started it
	// (spawn.go); listed beneath that one.
	Spawn spawn
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

// discover lists the .jsonl files of root the way its agent lays them
// out: the files in each immediate subfolder (pi's and omp's project
// folders, symlinks to folders included) and the files directly in root,
// for pi's flat session folders (--session-dir, sessionDir,
// PI_CODING_AGENT_SESSION_DIR). Deeper only where the agent puts
// sessions: omp's subagent transcripts in a session's artifacts folder
// (<project>/<session>/<agent>.jsonl), pi-subagents' child runs
// (<project>/<session>/<run id>/run-<i>/session.jsonl, runFiles), OpenClaw's
// agents (<agent>/sessions/*.jsonl, its *.trajectory.jsonl traces left
// out). Elsewhere it never recurses: extension artefacts live deeper and
// are not sessions. A root that does not exist yields nothing; unreadable
// folders are reported, not fatal.
func discover(root, source string) ([]candidate, []error) {
	out, subdirs, errs := listDir(root, root)
	// The folders are listed in parallel: a no-change refresh is mostly
	// these stat calls, and the kernel serves them on every core.
	type listing struct {
		files []candidate
		errs  []error
	}
	var mu sync.Mutex
	var deeper []string
	res := make([]listing, len(subdirs))
	var g errgroup.Group
	g.SetLimit(4)
	for i, d := range subdirs {
		g.Go(func() error {
			var sub []string
			res[i].files, sub, res[i].errs = listDir(d, root)
			if more := deeperDirs(source, sub); len(more) > 0 {
				mu.Lock()
				deeper = append(deeper, more...)
				mu.Unlock()
			}
			return nil
		})
	}
	_ = g.Wait()
	n := len(out)
	for _, r := range res {
		n += len(r.files)
	}
	// Grown once: appending folder by folder copied the candidates again
	// and again into fresh memory (a tenth of a no-change refresh's page
	// faults, which cost 5-16 µs each on some virtual machines).
	out = slices.Grow(out, n-len(out))
	for _, r := range res {
		out = append(out, r.files...)
		errs = append(errs, r.errs...)
	}
	// Subagents' and OpenClaw's agents' folders, in parallel too: a
	// session that ran subagents has a folder of them.
	sort.Strings(deeper) // found in parallel: in one order on every run
	more := make([]listing, len(deeper))
	for i, d := range deeper {
		g.Go(func() error {
			if source == pidex.SourcePi {
				more[i].files, more[i].errs = runFiles(d, root)
			} else {
				more[i].files, _, more[i].errs = listDir(d, root)
			}
			for j := range more[i].files {
				more[i].files[j].Spawn = spawnOf(root, source, more[i].files[j].Path) // none for OpenClaw's agents
			}
			return nil
		})
	}
	_ = g.Wait()
	for _, r := range more {
		out = append(out, r.files...)
		errs = append(errs, r.errs...)
	}
	out = slices.DeleteFunc(out, func(c candidate) bool { return skipFile(source, c.Path) })
	for i := range out {
		out[i].Source = source
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, errs
}

// deeperDirs are the folders of a project (or agent) folder that hold
// sessions in the agent's layout: every one for omp (a session's
// artifacts folder, which holds its subagents' transcripts) and for pi
// (where pi-subagents keeps a session's child runs, read by runFiles),
// "sessions" for OpenClaw.
func deeperDirs(source string, subdirs []string) []string {
	switch source {
	case pidex.SourceOmp, pidex.SourcePi:
		return subdirs
	case pidex.SourceOpenClaw:
		var out []string
		for _, d := range subdirs {
			if filepath.Base(d) == "sessions" {
				out = append(out, d)
			}
		}
		return out
	}
	return nil
}

// skipFile: a .jsonl file of the layout that is not a session (OpenClaw's
// trajectory traces), left out instead of reported as not a session.
func skipFile(source, path string) bool {
	return source == pidex.SourceOpenClaw && strings.HasSuffix(path, ".trajectory.jsonl")
}

// listDir returns the regular .jsonl files in dir and its subfolders
// (listDirFast where the platform has one: listdir_linux.go).
func listDir(dir, root string) (files []candidate, subdirs []string, errs []error) {
	l, ok := listDirFast(dir, root)
	if !ok {
		l = listDirPortable(dir, root)
	}
	return l.files, l.subdirs, l.errs
}

// listDirPortable is listDir with os.ReadDir: an lstat per entry by path.
func listDirPortable(dir, root string) dirListing {
	ents, err := files.ReadDir(dir)
	if err != nil {
		return dirListing{errs: dirError(dir, root, err)}
	}
	var l dirListing
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			if isDir(e, p) {
				l.subdirs = append(l.subdirs, p)
			}
			continue
		}
		fi, err := e.Info() // the lstat ReadDir already did: one stat per file
		l.file(p, root, fi, err)
	}
	return l
}

// dirListing is what listDir found in one folder.
type dirListing struct {
	files   []candidate
	subdirs []string
	errs    []error
}

// dirError is a folder that could not be listed: an error, unless it is
// a root that does not exist (pi may not have run yet).
func dirError(dir, root string, err error) []error {
	if dir == root && os.IsNotExist(err) {
		return nil
	}
	return []error{fmt.Errorf("read dir %s: %w", dir, err)}
}

// file adds the .jsonl entry p, lstat'ed as fi (or err), to the listing:
// a link counts as its target, a dangling one as itself.
func (l *dirListing) file(p, root string, fi fs.FileInfo, err error) {
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if target, terr := os.Stat(p); terr == nil {
			fi = target
		} else {
			// A dangling or looping link: a candidate with the link's
			// own stat, which the parser records as unreadable once.
			l.files = append(l.files, candidate{Path: p, Root: root, fileStat: statOf(fi)})
			return
		}
	}
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("stat %s: %w", p, err))
		return
	}
	switch {
	case fi.Mode().IsRegular():
		l.files = append(l.files, candidate{Path: p, Root: root, fileStat: statOf(fi)})
	case !fi.IsDir(): // a folder named *.jsonl is no session file; anything else is listed by warnings
		l.files = append(l.files, candidate{Path: p, Root: root, fileStat: statOf(fi), irregular: files.Kind(fi.Mode())})
	}
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
