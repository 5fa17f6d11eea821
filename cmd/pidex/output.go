package main

import (
	"bufio"
	"io"
	"os"

	"github.com/pidex-dev/pidex/internal/render"
)

func itoa(n int64) string { return render.Itoa(n) }

// jsonOut is stdout for a JSON document: on a terminal, C1 controls and
// DEL inside its strings are written as \u escapes (render.TerminalJSON),
// so session text cannot drive the terminal; files and pipes get the
// exact bytes.
func (a *app) jsonOut() io.Writer {
	if a.io.OutTTY {
		return render.TerminalJSON(a.stdout)
	}
	return a.stdout
}

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
