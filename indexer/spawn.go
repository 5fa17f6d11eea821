package indexer

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/pidex-dev/pidex"
)

// Subagents: which session file started which is one rule, written here
// and stored with each session (sessions.spawned_by, family, run), so that
// both catalogs and every reader follow it. It is the agents' layout, read
// from the path alone, so a child whose parent file is gone (or not yet
// indexed) is still known as a child, and of whom:
//
//   - pi-subagents (a pi extension) runs each child as a pi session in
//     <dir of the parent>/<parent name without .jsonl>/<run id>/run-<i>/session.jsonl
//     (getSubagentSessionRoot, then sessionDirForIndex in its
//     subagent-executor.ts); a child that starts subagents of its own gets
//     them the same way beside its own session.jsonl:
//     …/run-<i>/session/<run id>/run-<j>/session.jsonl.
//   - oh-my-pi writes a subagent's transcript as <id>.jsonl in the artifacts
//     folder of the session that ran the task, a folder named like its file
//     without .jsonl (task/executor.ts); a nested subagent shares the top
//     session's folder, its id prefixed with its parent's and a dot
//     ("Scout.Grep", task/output-manager.ts), except the advisor's
//     transcripts, "__advisor.jsonl" and "__advisor.<slug>.jsonl", which
//     belong to the session itself.

// spawn is how a session file was started: by which session file, the top
// of that chain (the session a person started), and the run's name.
// Zero for a session nobody spawned.
type spawn struct {
	By     string // the parent's file path
	Family string // the top ancestor's file path (By for a direct child)
	Run    string // oh-my-pi's task id; pi-subagents' "<run id>/run-<i>"
}

// maxSpawnDepth bounds the chain of parents a path may name (and so the
// folders discovery descends into): pi-subagents' own default depth limit
// is far below it.
const maxSpawnDepth = 8

// spawnOf says which session file started the session file path, found
// under root in source's layout.
func spawnOf(root, source, path string) spawn {
	by, run := parentOf(root, source, path)
	if by == "" {
		return spawn{}
	}
	s := spawn{By: by, Family: by, Run: run}
	for range maxSpawnDepth {
		up, _ := parentOf(root, source, s.Family)
		if up == "" {
			break
		}
		s.Family = up
	}
	return s
}

// parentOf is the session file that started path, by the layout of its
// agent, and the run's name ("" when path is no subagent's).
func parentOf(root, source, path string) (parent, run string) {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return "", ""
	}
	parts := strings.Split(rel, string(filepath.Separator))
	n := len(parts)
	switch source {
	case pidex.SourcePi:
		// …/<parent>/<run id>/run-<i>/session.jsonl, with at least the
		// parent's name before it.
		if n >= 4 && parts[n-1] == "session.jsonl" && isRunDir(parts[n-2]) {
			return filepath.Join(root, filepath.Join(parts[:n-3]...)) + ".jsonl", parts[n-3] + "/" + parts[n-2]
		}
	case pidex.SourceOmp:
		// <project>/<session>/<id>.jsonl
		if n != 3 || !strings.HasSuffix(parts[2], ".jsonl") {
			return "", ""
		}
		id := strings.TrimSuffix(parts[2], ".jsonl")
		folder := filepath.Join(root, parts[0], parts[1])
		if dot := strings.LastIndexByte(id, '.'); dot > 0 && !strings.HasPrefix(id, "__advisor") {
			return filepath.Join(folder, id[:dot]) + ".jsonl", id
		}
		return folder + ".jsonl", id
	}
	return "", ""
}

// InChildRun says whether path is a pi-subagents child run under root
// (which discovery finds there, however deep).
func InChildRun(root, path string) bool {
	parent, _ := parentOf(root, pidex.SourcePi, path)
	return parent != ""
}

// isRunDir: a pi-subagents run folder, run-<index>.
func isRunDir(name string) bool {
	digits, ok := strings.CutPrefix(name, "run-")
	if !ok || digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// runFiles finds pi-subagents' child sessions under dir, a subfolder of a
// project folder (or of a flat root, whose subfolders are children's
// folders themselves): <dir>/<run id>/run-<i>/session.jsonl, and, for a
// child that ran subagents, its own children's beside it. It reads only
// folders that can lead to one (any name two levels down, then run-<i>,
// then session), so a project folder's other folders cost one listing
// each; a folder reached twice through links is read once, and the depth
// is bounded, so a link loop ends.
func runFiles(dir, root string) ([]candidate, []error) {
	w := runWalk{root: root, seen: map[[2]int64]bool{}}
	w.walk(dir, 0, 0)
	return w.files, w.errs
}

// runDirs are the folders runFiles reads under dir: a watcher watches
// them, for the appends of a child that is running.
func runDirs(dir string) []string {
	w := runWalk{root: dir, seen: map[[2]int64]bool{}}
	w.walk(dir, 0, 0)
	return w.dirs
}

type runWalk struct {
	root  string
	seen  map[[2]int64]bool // folders read, by device and inode
	files []candidate
	dirs  []string
	errs  []error
}

// walk reads dir, depth folders below the child's parent folder (0: the
// parent folder, 1: the run id, 2: run-<i>), nest children deep.
func (w *runWalk) walk(dir string, depth, nest int) {
	if fi, err := os.Stat(dir); err != nil {
		return // gone since it was listed
	} else if st := statOf(fi); st.Ino != 0 {
		key := [2]int64{st.Dev, st.Ino}
		if w.seen[key] {
			return
		}
		w.seen[key] = true
	}
	files, subdirs, errs := listDir(dir, w.root)
	w.errs = append(w.errs, errs...)
	w.dirs = append(w.dirs, dir)
	run := isRunDir(filepath.Base(dir))
	if run {
		for _, f := range files {
			if filepath.Base(f.Path) == "session.jsonl" {
				w.files = append(w.files, f)
			}
		}
	}
	for _, d := range subdirs {
		switch name := filepath.Base(d); {
		case run && name == "session" && nest < maxSpawnDepth:
			w.walk(d, 0, nest+1) // the child's own children
		case depth < 1, depth < 2 && isRunDir(name):
			w.walk(d, depth+1, nest)
		}
	}
}
