package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrSyntax: Shrink met something that is not JSON.
var ErrSyntax = errors.New("invalid JSON")

// Shrink reads one JSON value from r as a stream and returns a small,
// valid copy of it for display: a string (or key) longer than maxString
// bytes keeps its first maxString bytes, cut on a character boundary and
// never inside an escape, and ends with "…"; once the copy holds budget
// bytes, further array elements are dropped, and so are object members
// below the top two levels (an entry's own fields and its message's stay:
// its type, role, ids, model and times). Memory is bounded by the budget
// and maxString, whatever the size of the value: it is how a 200 MB line
// is shown without holding 200 MB.
func Shrink(r io.Reader, maxString, budget int) ([]byte, error) {
	size := 64 << 10
	if sr, ok := r.(interface{ Size() int64 }); ok && sr.Size() < int64(size) {
		size = int(sr.Size()) // a short line needs no 64 KiB buffer (previews cut thousands)
	}
	s := &shrinker{r: bufio.NewReaderSize(r, size), maxString: maxString, budget: budget}
	return s.run()
}

// run reads the one value of s.r.
func (s *shrinker) run() ([]byte, error) {
	c, err := s.next()
	if err == nil {
		err = s.value(c, 0, true)
	}
	if err == nil {
		if _, err = s.next(); err == io.EOF {
			return s.out, nil
		} else if err == nil {
			err = fmt.Errorf("%w: data after the value", ErrSyntax)
		}
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return nil, fmt.Errorf("shrink JSON: %w", err)
}

type shrinker struct {
	r         *bufio.Reader
	out       []byte
	maxString int
	budget    int
	// Skeleton's: the refs to the long strings, the bytes read (for their
	// places); dropped: the budget left something out.
	refs    []Ref
	read    *countingReader
	dropped bool
}

func (s *shrinker) put(emit bool, b ...byte) {
	if emit {
		s.out = append(s.out, b...)
	}
}

// next returns the next byte that is not white space.
func (s *shrinker) next() (byte, error) {
	for {
		c, err := s.r.ReadByte()
		if err != nil || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			return c, err
		}
	}
}

// maxDepth bounds nesting as encoding/json does (its own limit), so a
// line of a million '[' fails instead of exhausting the stack.
const maxDepth = 10000

// value reads the value starting with c, copying it when emit.
func (s *shrinker) value(c byte, depth int, emit bool) error {
	if depth > maxDepth {
		return fmt.Errorf("%w: nested more than %d deep", ErrSyntax, maxDepth)
	}
	switch c {
	case '{':
		return s.object(depth, emit)
	case '[':
		return s.array(depth, emit)
	case '"':
		return s.str(emit, false)
	}
	return s.scalar(c, emit)
}

func (s *shrinker) object(depth int, emit bool) error {
	s.put(emit, '{')
	kept := 0
	return s.members('}', func(c byte) error {
		if c != '"' {
			return fmt.Errorf("%w: %q instead of a key", ErrSyntax, c)
		}
		// The top two levels' members stay (an entry's own fields); in a
		// Skeleton, up to twice the budget (a line of a million members).
		keep := emit && (depth < 2 && (s.read == nil || len(s.out) < 2*s.budget) || len(s.out) < s.budget)
		s.dropped = s.dropped || emit && !keep
		if keep && kept > 0 {
			s.put(true, ',')
		}
		if err := s.str(keep, true); err != nil {
			return err
		}
		if c, err := s.next(); err != nil || c != ':' {
			return orSyntax(err, c, "instead of ':'")
		}
		s.put(keep, ':')
		c, err := s.next()
		if err != nil {
			return err
		}
		if keep {
			kept++
		}
		return s.value(c, depth+1, keep)
	}, emit)
}

func (s *shrinker) array(depth int, emit bool) error {
	s.put(emit, '[')
	kept := 0
	return s.members(']', func(c byte) error {
		keep := emit && len(s.out) < s.budget
		s.dropped = s.dropped || emit && !keep
		if keep && kept > 0 {
			s.put(true, ',')
		}
		if keep {
			kept++
		}
		return s.value(c, depth+1, keep)
	}, emit)
}

// members reads the comma-separated members of an object or array up to
// its closing byte, handing each one's first byte to member.
func (s *shrinker) members(closing byte, member func(c byte) error, emit bool) error {
	c, err := s.next()
	for ; err == nil; c, err = s.next() {
		if c == closing {
			s.put(emit, closing)
			return nil
		}
		if err = member(c); err != nil {
			return err
		}
		if c, err = s.next(); err != nil || c == closing {
			s.put(emit && err == nil, closing)
			return err
		}
		if c != ',' {
			return orSyntax(nil, c, "instead of ',' or a closing bracket")
		}
	}
	return err
}

// str reads a string whose opening quote was read, copying at most
// maxString bytes of it (and a few more, for closeString to cut at a
// boundary) when emit. The rest is only scanned for the closing quote.
// A Skeleton's long string (not a key, which is cut) becomes its ref.
func (s *shrinker) str(emit, key bool) error {
	s.put(emit, '"')
	start := len(s.out)
	from := s.pos()
	slashes := 0 // backslashes just before the current position
	for {
		chunk, err := s.r.ReadSlice('"')
		if err != nil && err != bufio.ErrBufferFull {
			return err
		}
		if room := start + s.maxString + 8 - len(s.out); emit && room > 0 {
			s.out = append(s.out, chunk[:min(len(chunk), room)]...)
		}
		// A quote ends the string unless an odd run of backslashes escapes it.
		if err == nil && trailing(chunk[:len(chunk)-1], slashes)%2 == 0 {
			if s.read != nil && !key && emit && s.pos()-1-from > int64(s.maxString) {
				s.out = append(append(s.out[:start], RefMark(len(s.refs))...), '"')
				s.refs = append(s.refs, Ref{From: from, To: s.pos() - 1})
				return nil
			}
			if emit {
				s.closeString(start)
			}
			return nil
		}
		slashes = trailing(chunk, slashes)
	}
}

// trailing counts the backslashes at the end of b, adding those before
// it when b is all backslashes.
func trailing(b []byte, before int) int {
	n := 0
	for n < len(b) && b[len(b)-1-n] == '\\' {
		n++
	}
	if n == len(b) {
		return before + n
	}
	return n
}

// closeString ends the string copied from start (its content and maybe
// its closing quote): kept whole when it fits, else cut to maxString
// bytes at a boundary and marked with "…".
func (s *shrinker) closeString(start int) {
	content := s.out[start:]
	if len(content) > 0 && len(content) <= s.maxString+1 && content[len(content)-1] == '"' {
		return // whole, closing quote included
	}
	s.out = append(s.out[:start+safeCut(content, s.maxString)], "…\""...)
}

// safeCut is the longest prefix of the JSON string content b, at most n
// bytes, that ends neither inside an escape nor inside a UTF-8 character.
func safeCut(b []byte, n int) int {
	i := 0
	for i < len(b) {
		size := 1
		switch {
		case b[i] == '\\' && i+1 < len(b) && b[i+1] == 'u':
			size = 6
		case b[i] == '\\':
			size = 2
		case b[i] >= utf8.RuneSelf:
			if !utf8.FullRune(b[i:]) {
				return i
			}
			_, size = utf8.DecodeRune(b[i:])
		}
		if i+size > n || i+size > len(b) {
			return i
		}
		i += size
	}
	return i
}

// scalar reads a number or literal starting with c; one longer than
// maxString (a number of a million digits) is copied as 0.
func (s *shrinker) scalar(c byte, emit bool) error {
	if !scalarByte(c) {
		return orSyntax(nil, c, "instead of a value")
	}
	tok := []byte{c}
	for {
		b, err := s.r.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if !scalarByte(b) {
			s.r.UnreadByte() // cannot fail right after ReadByte
			break
		}
		if len(tok) <= s.maxString {
			tok = append(tok, b)
		}
	}
	if len(tok) > s.maxString {
		tok = []byte("0")
	}
	s.put(emit, tok...)
	return nil
}

func scalarByte(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b == '-' || b == '+' || b == '.' || b == 'E'
}

func orSyntax(err error, c byte, what string) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: %q %s", ErrSyntax, c, what)
}

// Skeleton: a line whose long strings are left where they are.

// ErrMarked: the value holds the character RefMark begins with, so that
// a Skeleton's marks could not be told from its text.
var ErrMarked = errors.New("holds U+FDD0")

// Ref is a long string a Skeleton left out: its content, as written
// (escapes included, quotes not), is the bytes [From, To) of the value
// read.
type Ref struct{ From, To int64 }

// Skeleton reads one JSON value from r as a stream and returns a copy of
// it in which each string (not a key) longer than maxString bytes as
// written is the mark RefMark(i) instead, refs[i] saying where it is:
// decoded and put through code that only copies and joins its strings
// (an entry's searchable text), the copy yields a text whose marks
// (SplitRefs) stand for the strings, which can then be read in pieces
// (Unescape). Memory is bounded by budget as Shrink's is: once the copy
// holds that much (a line of a million short strings), further array
// elements and members are left out, and partial says so; a key longer
// than maxString is cut as Shrink cuts it. A value that holds U+FDD0
// itself is ErrMarked.
func Skeleton(r io.Reader, maxString, budget int) (skel []byte, refs []Ref, partial bool, err error) {
	cr := &countingReader{r: r}
	s := &shrinker{r: bufio.NewReaderSize(cr, 64<<10), maxString: maxString, budget: budget, read: cr}
	out, err := s.run()
	if err != nil {
		return nil, nil, false, err
	}
	if bytes.Count(out, []byte(refOpen)) != len(s.refs) || hasEscapedMark(out) {
		return nil, nil, false, ErrMarked
	}
	return out, s.refs, s.dropped, nil
}

// RefMark is the mark of a Skeleton's i-th long string: noncharacters
// around its number, which no tokenizer or trimming changes.
func RefMark(i int) string { return refOpen + strconv.Itoa(i) + refClose }

const refOpen, refClose = "\ufdd0", "\ufdd1"

// SplitRefs walks text made from a Skeleton: lit is called with the text
// between marks, ref with each mark's number, in order; an error of
// either stops the walk.
func SplitRefs(text string, lit func(string) error, ref func(int) error) error {
	for {
		i := strings.Index(text, refOpen)
		if i < 0 {
			break
		}
		j := strings.Index(text[i:], refClose)
		n, err := strconv.Atoi(text[i+len(refOpen) : i+max(j, len(refOpen))])
		if j < 0 || err != nil {
			break // not a mark of ours: text
		}
		if err := lit(text[:i]); err != nil {
			return err
		}
		if err := ref(n); err != nil {
			return err
		}
		text = text[i+j+len(refClose):]
	}
	return lit(text)
}

// hasEscapedMark reports whether b holds U+FDD0 or U+FDD1 as an escape.
func hasEscapedMark(b []byte) bool {
	for {
		i := bytes.Index(b, []byte(`\u`))
		if i < 0 || i+6 > len(b) {
			return false
		}
		if h := bytes.ToLower(b[i+2 : i+6]); string(h) == "fdd0" || string(h) == "fdd1" {
			return true
		}
		b = b[i+2:]
	}
}

// pos is the number of bytes of the value consumed so far.
func (s *shrinker) pos() int64 {
	if s.read == nil {
		return 0
	}
	return s.read.n - int64(s.r.Buffered())
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
