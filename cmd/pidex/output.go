package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/term"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// writeJSON prints v as indented JSON: the --json contract.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeJSONLine prints v compactly on one line (streams of objects).
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// flush pushes buffered stdout out now (a watch prints as it goes).
func (a *app) flush() error {
	if b, ok := a.stdout.(*bufWriter); ok {
		return b.Flush()
	}
	return nil
}

// writeJSONLines prints a JSON array with one compact element per line:
// still one JSON document, but also greppable line by line, and it skips
// re-indenting megabytes of first messages (a third of `list --json`).
func writeJSONLines[T any](w io.Writer, items []T) error {
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range items {
		buf.Reset()
		if err := enc.Encode(items[i]); err != nil {
			return err
		}
		b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		sep := ",\n"
		if i == 0 {
			sep = "\n"
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	end := "\n]\n"
	if len(items) == 0 {
		end = "]\n"
	}
	_, err := io.WriteString(w, end)
	return err
}

// table writes rows aligned for a terminal, or tab-separated with full
// values when stdout is piped (for cut, awk, sort).
type table struct {
	w   io.Writer
	tty bool
	tw  *tabwriter.Writer
}

func newTable(w io.Writer, tty bool, header ...string) *table {
	t := &table{w: w, tty: tty}
	if tty {
		t.tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	}
	t.row(header...)
	return t
}

func (t *table) row(cells ...string) {
	if t.tty {
		fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
		return
	}
	for i, c := range cells { // a tab or newline inside a value would break the columns
		if strings.ContainsAny(c, "\t\n\r") {
			cells[i] = flatten.Replace(c)
		}
	}
	fmt.Fprintln(t.w, strings.Join(cells, "\t"))
}

var flatten = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

func (t *table) flush() error {
	if t.tw != nil {
		return t.tw.Flush()
	}
	return nil
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// terminalWidth is the width of w if it is a terminal ($COLUMNS wins), else 120.
func terminalWidth(w io.Writer) int {
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c
	}
	if b, ok := w.(*bufWriter); ok {
		w = b.file
	}
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return 120
}

// bufWriter buffers stdout (thousands of rows are thousands of writes
// otherwise) and remembers the file, for terminal checks.
type bufWriter struct {
	*bufio.Writer
	file *os.File
}

func newBufWriter(f *os.File) *bufWriter {
	return &bufWriter{Writer: bufio.NewWriterSize(f, 64<<10), file: f}
}
