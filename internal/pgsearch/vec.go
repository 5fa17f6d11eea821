package pgsearch

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A search row travels to PostgreSQL in tsvector's binary format, which
// tsvector_recv takes as it is when its lexemes come sorted and each
// one's positions ascend: the number of lexemes (int32), then each lexeme
// NUL-terminated, its number of positions (uint16) and each position
// (uint16: the weight in the top two bits, D = 0, and the position). The
// text literal had the server tokenize, sort and merge every row: a fifth
// of its time in a push (BENCHMARKS.md, "Push").

// vecBuf is the scratch of a row being built, reused (vecPool): a push
// builds one for every entry, and a map of slices per entry was a third
// of the pusher's time.
type vecBuf struct {
	ids   map[string]int32 // lexeme → id, in order of first appearance
	lex   []string         // by id
	count []int32          // positions of each id
	tok   []int32          // each token's id
	start []int32          // where each id's positions begin in pos
	pos   []uint16         // positions, grouped by id
	order []int32          // ids, sorted by lexeme
	next  []int32          // where each id's next position goes
}

var vecPool = sync.Pool{New: func() any { return &vecBuf{ids: map[string]int32{}} }}

// release empties b for the next row and returns it to the pool (a map
// grown by a long entry is dropped rather than cleared on every row).
func (b *vecBuf) release() {
	if len(b.ids) > 4096 {
		b.ids = map[string]int32{}
	} else {
		clear(b.ids)
	}
	b.lex, b.count, b.tok = b.lex[:0], b.count[:0], b.tok[:0]
	vecPool.Put(b)
}

// add notes a lexeme; isNew when it is the row's first of it.
func (b *vecBuf) add(t string) (id int32, isNew bool) {
	id, ok := b.ids[t]
	if !ok {
		id = int32(len(b.lex))
		b.ids[t] = id
		b.lex = append(b.lex, t)
		b.count = append(b.count, 0)
	}
	return id, !ok
}

// vector is the exact row of toks, if they fit the limits.
func vector(toks []string) (Row, bool) {
	if len(toks) > maxPos {
		return Row{}, false
	}
	b := vecPool.Get().(*vecBuf)
	defer b.release()
	size := 0
	for _, t := range toks {
		t = lexeme(t)
		id, isNew := b.add(t)
		if isNew {
			size += len(t) + 4
		}
		if b.count[id] == maxPosPerLx {
			return Row{}, false
		}
		b.count[id]++
		b.tok = append(b.tok, id)
		size += 2
	}
	if size > vectorRoom {
		return Row{}, false
	}
	return Row{Vec: b.encode(true), Exact: true}, true
}

// stripped is the row of toks' distinct lexemes, cut to a lexeme's length.
func stripped(toks []string) Row {
	b := vecPool.Get().(*vecBuf)
	defer b.release()
	for _, t := range toks {
		b.add(lexeme(t))
	}
	return Row{Vec: b.encode(false)}
}

// encode writes the tsvector of b's lexemes, with their positions
// (1-based token indexes) when withPos, sorted as PostgreSQL keeps them:
// bytewise, a prefix first (tsCompareString).
func (b *vecBuf) encode(withPos bool) []byte {
	n := len(b.lex)
	b.order = b.order[:0]
	for id := range n {
		b.order = append(b.order, int32(id))
	}
	slices.SortFunc(b.order, func(x, y int32) int { return cmp.Compare(b.lex[x], b.lex[y]) })
	size := 4
	for _, t := range b.lex {
		size += len(t) + 3
	}
	if withPos {
		size += 2 * len(b.tok)
		b.start = slices.Grow(b.start[:0], n+1)[:n+1]
		b.start[0] = 0
		for id, c := range b.count {
			b.start[id+1] = b.start[id] + c
		}
		b.pos = slices.Grow(b.pos[:0], len(b.tok))[:len(b.tok)]
		b.next = append(b.next[:0], b.start[:n]...)
		for i, id := range b.tok {
			b.pos[b.next[id]] = uint16(i + 1)
			b.next[id]++
		}
	}
	out := make([]byte, 0, size)
	out = binary.BigEndian.AppendUint32(out, uint32(n))
	for _, id := range b.order {
		out = append(out, b.lex[id]...)
		out = append(out, 0)
		if !withPos {
			out = append(out, 0, 0)
			continue
		}
		out = binary.BigEndian.AppendUint16(out, uint16(b.count[id]))
		for _, p := range b.pos[b.start[id]:b.start[id+1]] {
			out = binary.BigEndian.AppendUint16(out, p)
		}
	}
	return out
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
		panic(err) // Vec is encode's
	}
	return b.String()
}
