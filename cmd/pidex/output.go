package main

import (
	"bufio"
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
		cells[i] = flatten.Replace(c)
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
