package jsonl

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

type got struct {
	Offset, Number int64
	Data           string
	Unterminated   bool
}

func readAll(t testing.TB, in string, off, lines int64) ([]got, *Reader) {
	t.Helper()
	r := NewReader(strings.NewReader(in[off:]), off, lines)
	var out []got
	for {
		l, err := r.Next()
		if err == io.EOF {
			return out, r
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got{l.Offset, l.Number, string(l.Data), l.Unterminated})
	}
}

func TestReader(t *testing.T) {
	long := `{"x":"` + strings.Repeat("a", 3*bufSize) + `"}`
	tests := []struct {
		name     string
		in       string
		want     []got
		wantOff  int64
		pending  int64
		wantLine int64
	}{
		{"empty", "", nil, 0, 0, 0},
		{"two lines", "{\"a\":1}\n{\"b\":2}\n",
			[]got{{0, 1, `{"a":1}`, false}, {8, 2, `{"b":2}`, false}}, 16, 0, 2},
		{"blank lines skipped but counted", "\n  \n{\"a\":1}\n\n",
			[]got{{4, 3, `{"a":1}`, false}}, 13, 0, 4},
		{"crlf", "{\"a\":1}\r\n{\"b\":2}\r\n",
			[]got{{0, 1, "{\"a\":1}\r", false}, {9, 2, "{\"b\":2}\r", false}}, 18, 0, 2},
		{"complete unterminated tail is read", "{\"a\":1}\n{\"b\":2}",
			[]got{{0, 1, `{"a":1}`, false}, {8, 2, `{"b":2}`, true}}, 15, 0, 2},
		{"torn tail is pending", "{\"a\":1}\n{\"b\":",
			[]got{{0, 1, `{"a":1}`, false}}, 8, 5, 1},
		{"malformed middle line is yielded (caller decides)", "{\"a\":1}\nnot json\n{\"c\":3}\n",
			[]got{{0, 1, `{"a":1}`, false}, {8, 2, `not json`, false}, {17, 3, `{"c":3}`, false}}, 25, 0, 3},
		{"line longer than the buffer", long + "\n{\"b\":2}\n",
			[]got{{0, 1, long, false}, {int64(len(long)) + 1, 2, `{"b":2}`, false}}, int64(len(long)) + 9, 0, 2},
		{"blank unterminated tail is pending", "{\"a\":1}\n   ", []got{{0, 1, `{"a":1}`, false}}, 8, 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, r := readAll(t, tt.in, 0, 0)
			if len(out) != len(tt.want) {
				t.Fatalf("got %d lines, want %d: %+v", len(out), len(tt.want), out)
			}
			for i := range out {
				if out[i] != tt.want[i] {
					t.Errorf("line %d: got %+v, want %+v", i, out[i], tt.want[i])
				}
			}
			if r.Offset() != tt.wantOff || r.pending != tt.pending || r.Lines() != tt.wantLine {
				t.Errorf("offset/pending/lines = %d/%d/%d, want %d/%d/%d",
					r.Offset(), r.pending, r.Lines(), tt.wantOff, tt.pending, tt.wantLine)
			}
		})
	}
}

// Resuming at the offset and line count a previous read ended at yields
// exactly the lines a full read yields after that point.
func TestReaderResume(t *testing.T) {
	in := "{\"a\":1}\n\n{\"b\":2}\n{\"c\":3}\n"
	all, _ := readAll(t, in, 0, 0)
	first, r := readAll(t, in[:10], 0, 0) // stops inside the blank + before b
	rest, _ := readAll(t, in, r.Offset(), r.Lines())
	joined := append(first, rest...)
	if len(joined) != len(all) {
		t.Fatalf("resumed read: %+v, want %+v", joined, all)
	}
	for i := range all {
		if joined[i] != all[i] {
			t.Errorf("line %d: %+v, want %+v", i, joined[i], all[i])
		}
	}
}

// FuzzReader checks the invariants that incremental ingest relies on, for
// any input: offsets and lengths address the file's bytes exactly, the
// consumed offset never passes the end, and reading in two pieces (split at
// the first read's stopping point) gives the same lines as one read.
func FuzzReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"b\":"), 3)
	f.Add([]byte("\r\n{}\r\n[1]\n\"x\""), 5)
	f.Add([]byte("{\"a\":1}\n\n\nnot\n{"), 0)
	f.Fuzz(func(t *testing.T, in []byte, cut int) {
		if cut < 0 || cut > len(in) {
			cut = len(in) / 2
		}
		lines, r := readAll(t, string(in), 0, 0)
		for _, l := range lines {
			end := l.Offset + int64(len(l.Data))
			if end > int64(len(in)) || !bytes.Equal(in[l.Offset:end], []byte(l.Data)) {
				t.Fatalf("line %+v does not address the input", l)
			}
			if l.Unterminated && !json.Valid([]byte(l.Data)) {
				t.Fatalf("unterminated line yielded but not valid JSON: %q", l.Data)
			}
		}
		if r.Offset()+r.pending != int64(len(in)) {
			t.Fatalf("offset %d + pending %d != size %d", r.Offset(), r.pending, len(in))
		}
		// Read a prefix (a file being appended), then resume from where it stopped.
		first, r1 := readAll(t, string(in[:cut]), 0, 0)
		if len(first) > 0 && first[len(first)-1].Unterminated {
			return // an unterminated prefix line is re-checked by the indexer (OpenTail)
		}
		rest, _ := readAll(t, string(in), r1.Offset(), r1.Lines())
		joined := append(first, rest...)
		if len(joined) != len(lines) {
			t.Fatalf("split at %d: %d lines, want %d", cut, len(joined), len(lines))
		}
		for i := range lines {
			if joined[i] != lines[i] {
				t.Fatalf("split at %d, line %d: %+v, want %+v", cut, i, joined[i], lines[i])
			}
		}
	})
}
