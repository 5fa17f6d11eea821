package render

import (
	"bytes"
	"encoding/json"
	"io"
)

// WriteJSON prints v as indented JSON: the --json contract.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteJSONLine prints v compactly on one line (streams of objects).
func WriteJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteJSONLines prints a JSON array with one compact element per line:
// still one JSON document, but also greppable line by line, and it skips
// re-indenting megabytes of first messages (a third of `list --json`).
// The document is built whole before it is written: a value that cannot
// be encoded fails the command without printing half an array.
func WriteJSONLines[T any](w io.Writer, items []T) error {
	var buf bytes.Buffer
	buf.WriteString("[")
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range items {
		if i == 0 {
			buf.WriteString("\n")
		} else {
			buf.Truncate(buf.Len() - 1) // the encoder's newline
			buf.WriteString(",\n")
		}
		if err := enc.Encode(items[i]); err != nil {
			return err
		}
	}
	buf.WriteString("]\n")
	_, err := w.Write(buf.Bytes())
	return err
}

// errWriter remembers the first write error, so a renderer can write
// freely and check once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) bytes(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *errWriter) str(s string) { e.bytes([]byte(s)) }
