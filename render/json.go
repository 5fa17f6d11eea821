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
func WriteJSONLines[T any](w io.Writer, items []T) error {
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
