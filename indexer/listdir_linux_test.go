package indexer

import (
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// The fast listing finds what the portable one finds, entry by entry:
// files, links to files and folders, a dangling link, a FIFO, a folder
// named *.jsonl, other files, a folder that does not exist.
func TestListDirFastIsPortable(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "--w--")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	must(os.Mkdir(filepath.Join(dir, "folder.jsonl"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte("{}\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644))
	must(os.Symlink(filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "link.jsonl")))
	must(os.Symlink(filepath.Join(dir, "gone.jsonl"), filepath.Join(dir, "dangling.jsonl")))
	must(os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "linkdir")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo.jsonl"), 0o644))
	for _, d := range []string{dir, root, filepath.Join(root, "nowhere")} {
		fast, ok := listDirFast(d, root)
		if !ok {
			t.Fatal("no fast listing on Linux")
		}
		if slow := listDirPortable(d, root); !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s:\nfast     %+v\nportable %+v", d, fast, slow)
		}
	}
	if l, _ := listDirFast(dir, root); len(l.files) != 4 || len(l.subdirs) != 2 {
		t.Errorf("%+v: want a.jsonl, the two links and the FIFO; sub and linkdir", l)
	}
}
