package render

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// TerminalJSON wraps w, a terminal, for JSON: encoding/json escapes C0
// controls (ESC, BEL, backspace) itself but writes the C1 controls
// (U+0080–U+009F: CSI, OSC, DCS as one character, which some terminals
// obey) and DEL as they are. Written through TerminalJSON they are \u
// escapes, which is the same JSON: they can only occur inside strings.
// Files and pipes get the exact bytes (the caller wraps only a terminal).
func TerminalJSON(w io.Writer) io.Writer { return &termJSON{w: w} }

type termJSON struct {
	w       io.Writer
	pending bool // the last write ended with 0xC2, which may start a C1
}

func (t *termJSON) Write(p []byte) (int, error) {
	in := p
	if t.pending {
		in = append([]byte{0xc2}, p...)
		t.pending = false
	}
	b := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		switch c := in[i]; {
		case c == 0x7f:
			b = append(b, `\u007f`...)
		case c == 0xc2 && i+1 == len(in):
			t.pending = true // the next write says what it starts
		case c == 0xc2 && in[i+1] >= 0x80 && in[i+1] < 0xa0:
			b = fmt.Appendf(b, `\u%04x`, in[i+1])
			i++
		default:
			b = append(b, c)
		}
	}
	if _, err := t.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}
