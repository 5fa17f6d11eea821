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

// StreamJSON writes, one element at a time as fill adds them, the bytes
// WriteJSON writes for the whole slice of them (an indented array; "[]"
// when fill adds none): a document of any size costs the memory of one
// element. Nothing is written before the first element, so an error
// before it leaves no output, as WriteJSON's does; an error after it
// closes the array all the same (what was written stays one valid JSON
// document) and is returned.
func StreamJSON(w io.Writer, fill func(add func(v any) error) error) error {
	ew := &errWriter{w: w}
	n, err := streamArray(ew, "", fill)
	switch {
	case n > 0:
		ew.str("\n")
	case err == nil:
		ew.str("[]\n")
	}
	if err != nil {
		return err
	}
	return ew.err
}

// valueEncoder encodes one value as WriteJSON writes it nested at an
// indent prefix, without the encoder's newline (what follows decides).
type valueEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newValueEncoder(prefix string) *valueEncoder {
	e := &valueEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetIndent(prefix, "  ")
	e.enc.SetEscapeHTML(false)
	return e
}

// encode returns v's bytes, valid until the next call.
func (e *valueEncoder) encode(v any) ([]byte, error) {
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	return e.buf.Bytes()[:e.buf.Len()-1], nil
}

// streamArray writes the array fill adds to as WriteJSON writes it at the
// indent prefix, but for "[]" when there is nothing (left to the caller,
// who may write nothing at all), and returns how many elements it wrote.
func streamArray(ew *errWriter, prefix string, fill func(add func(v any) error) error) (int, error) {
	enc := newValueEncoder(prefix + "  ") // each element one level in
	n := 0
	add := func(v any) error {
		b, err := enc.encode(v)
		if err != nil {
			return err
		}
		if n == 0 {
			ew.str("[\n" + prefix + "  ")
		} else {
			ew.str(",\n" + prefix + "  ")
		}
		n++
		ew.bytes(b)
		return ew.err
	}
	err := fill(add)
	if n > 0 {
		ew.str("\n" + prefix + "]")
	}
	return n, err
}

// objectStream writes an indented JSON object a member at a time, the
// bytes WriteJSON writes for the whole object: a member that is a long
// list is written an element at a time (array).
type objectStream struct {
	ew  *errWriter
	n   int
	enc *valueEncoder
}

func newObjectStream(w io.Writer) *objectStream {
	return &objectStream{ew: &errWriter{w: w}, enc: newValueEncoder("  ")}
}

// key starts the member k (a plain ASCII name).
func (o *objectStream) key(k string) {
	if o.n == 0 {
		o.ew.str("{\n  \"" + k + "\": ")
	} else {
		o.ew.str(",\n  \"" + k + "\": ")
	}
	o.n++
}

func (o *objectStream) member(k string, v any) error {
	b, err := o.enc.encode(v)
	if err != nil {
		return err
	}
	o.key(k)
	o.ew.bytes(b)
	return o.ew.err
}

// array writes the member k, an array of what fill adds (never null).
func (o *objectStream) array(k string, fill func(add func(v any) error) error) error {
	o.key(k)
	n, err := streamArray(o.ew, "  ", fill)
	if n == 0 { // after an error too: the document stays valid
		o.ew.str("[]")
	}
	if err != nil {
		return err
	}
	return o.ew.err
}

// close ends the object (and the document).
func (o *objectStream) close() error {
	if o.n == 0 {
		o.ew.str("{}\n")
	} else {
		o.ew.str("\n}\n")
	}
	return o.ew.err
}
