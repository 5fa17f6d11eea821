package pgsearch

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A search row travels to PostgreSQL in tsvector's binary format, which
// tsvector_recv takes as it is when its lexemes come sorted and each
// one's positions ascend: the number of lexemes (int32), then each lexeme
// NUL-terminated, its number of positions (uint16) and each position
// (uint16: the weight in the top two bits, D = 0, and the position). The
// text literal had the server tokenize, sort and merge every row: a fifth
// of its time in a push (BENCHMARKS.md, "Push").

// encodeVec writes the tsvector of order's lexemes (distinct), each with
// its positions in pos (ascending; none without pos), sorted as
// PostgreSQL keeps them: bytewise, a prefix first (tsCompareString).
func encodeVec(order []string, pos map[string][]int) []byte {
	lex := slices.Clone(order)
	slices.Sort(lex)
	n := 4
	for _, t := range lex {
		n += len(t) + 3 + 2*len(pos[t])
	}
	b := make([]byte, 0, n)
	b = binary.BigEndian.AppendUint32(b, uint32(len(lex)))
	for _, t := range lex {
		b = append(b, t...)
		b = append(b, 0)
		p := pos[t]
		b = binary.BigEndian.AppendUint16(b, uint16(len(p)))
		for _, x := range p {
			b = binary.BigEndian.AppendUint16(b, uint16(x))
		}
	}
	return b
}

// eachLexeme calls fn with each lexeme of a binary tsvector and its
// positions.
func eachLexeme(vec []byte, fn func(word string, pos []int)) error {
	bad := func(what string) error { return fmt.Errorf("read tsvector: %s", what) }
	if len(vec) < 4 {
		return bad("no count")
	}
	n := binary.BigEndian.Uint32(vec)
	vec = vec[4:]
	for range n {
		end := bytes.IndexByte(vec, 0)
		if end < 0 || len(vec) < end+3 {
			return bad("a lexeme cut short")
		}
		word := string(vec[:end])
		np := int(binary.BigEndian.Uint16(vec[end+1:]))
		vec = vec[end+3:]
		if len(vec) < 2*np {
			return bad("positions cut short")
		}
		pos := make([]int, np)
		for i := range pos {
			pos[i] = int(binary.BigEndian.Uint16(vec[2*i:]) & 0x3fff)
		}
		vec = vec[2*np:]
		fn(word, pos)
	}
	if len(vec) > 0 {
		return bad("bytes after the last lexeme")
	}
	return nil
}

// Literal is the row as a tsvector literal, as PostgreSQL prints it
// (tests and the benchmark's text COPY; a push sends Vec).
func (r Row) Literal() string {
	var b strings.Builder
	err := eachLexeme(r.Vec, func(word string, pos []int) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		writeLexeme(&b, word)
		for k, p := range pos {
			if k == 0 {
				b.WriteByte(':')
			} else {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(p))
		}
	})
	if err != nil {
		panic(err) // Vec is encodeVec's
	}
	return b.String()
}
