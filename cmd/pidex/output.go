package main

import (
	"bufio"
	"os"

	"github.com/pidex-dev/pidex/internal/render"
)

func itoa(n int64) string { return render.Itoa(n) }

// flush pushes buffered stdout out now (a watch prints as it goes).
func (a *app) flush() error {
	if b, ok := a.stdout.(*bufWriter); ok {
		return b.Flush()
	}
	return nil
}

// bufWriter buffers stdout (thousands of rows are thousands of writes
// otherwise) and keeps the file's descriptor visible, for terminal checks.
type bufWriter struct {
	*bufio.Writer
	file *os.File
}

func newBufWriter(f *os.File) *bufWriter {
	return &bufWriter{Writer: bufio.NewWriterSize(f, 64<<10), file: f}
}

// Fd is the descriptor of the file behind the buffer.
func (b *bufWriter) Fd() uintptr { return b.file.Fd() }
