//go:build unix

package files

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every kind of path a settings file, an index or a folder of sessions
// may turn out to be: each open or read returns (none blocks), and what is
// not what it must be is an error naming it.
func TestOpenNeverBlocks(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	write := func(name string, n int) string {
		if err := os.WriteFile(path(name), []byte(strings.Repeat("x", n)), 0o644); err != nil {
			t.Fatal(err)
		}
		return path(name)
	}
	if err := syscall.Mkfifo(path("fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(path("fifo"), path("to-fifo")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", path("to-zero")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(path("loop"), path("loop")); err != nil {
		t.Fatal(err)
	}
	small, exact, over := write("small", 10), write("exact", 1024), write("over", 1025)
	if err := os.Mkdir(path("folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(path("folder"), path("to-folder")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		do   func() error
		want error  // nil: no error
		says string // in the error
	}{
		{"ReadSmall a small file", func() error { _, err := ReadSmall(small, 1024); return err }, nil, ""},
		{"ReadSmall at the limit", func() error { _, err := ReadSmall(exact, 1024); return err }, nil, ""},
		{"ReadSmall over the limit", func() error { _, err := ReadSmall(over, 1024); return err }, ErrTooLarge, "longer than 1 KiB"},
		{"ReadSmall a FIFO", func() error { _, err := ReadSmall(path("fifo"), 1024); return err }, ErrNotRegular, "a named pipe (FIFO)"},
		{"ReadSmall a link to a FIFO", func() error { _, err := ReadSmall(path("to-fifo"), 1024); return err }, ErrNotRegular, "a named pipe (FIFO)"},
		{"ReadSmall a link to /dev/zero", func() error { _, err := ReadSmall(path("to-zero"), 1<<20); return err }, ErrNotRegular, "a character device"},
		{"ReadSmall a folder", func() error { _, err := ReadSmall(path("folder"), 1024); return err }, ErrNotRegular, "a folder"},
		{"ReadSmall a missing file", func() error { _, err := ReadSmall(path("missing"), 1024); return err }, fs.ErrNotExist, ""},
		{"ReadSmall a link loop", func() error { _, err := ReadSmall(path("loop"), 1024); return err }, syscall.ELOOP, ""},
		{"OpenRegular /dev/null", func() error { f, err := OpenRegular("/dev/null"); f.Close(); return err }, ErrNotRegular, "a character device"},
		{"ReadDir a folder", func() error { _, err := ReadDir(path("folder")); return err }, nil, ""},
		{"ReadDir a link to a folder", func() error { _, err := ReadDir(path("to-folder")); return err }, nil, ""},
		{"ReadDir a FIFO", func() error { _, err := ReadDir(path("fifo")); return err }, nil, "not a folder: it is a named pipe (FIFO)"},
		{"ReadDir a link to a FIFO", func() error { _, err := ReadDir(path("to-fifo")); return err }, nil, "not a folder: it is a named pipe (FIFO)"},
		{"ReadDir a file", func() error { _, err := ReadDir(small); return err }, nil, "not a folder: it is a file"},
		{"ReadDir a missing folder", func() error { _, err := ReadDir(path("missing")); return err }, fs.ErrNotExist, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- tc.do() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second): // not a timing assertion: a blocked open never returns
				t.Fatal("blocked")
			}
			switch {
			case tc.want == nil && tc.says == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Fatalf("error %v, want %v", err, tc.want)
			case tc.says != "" && (err == nil || !strings.Contains(err.Error(), tc.says)):
				t.Fatalf("error %v, want one saying %q", err, tc.says)
			}
		})
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 64 << 10: "64 KiB", 1536: "1536 bytes", 512: "512 bytes", 3 << 20: "3 MiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
