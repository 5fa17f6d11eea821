package jsonl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Unescape reads the content of a JSON string as written (between its
// quotes, a Skeleton's Ref) from r and hands it to emit decoded, in
// pieces of at most about 64 KiB: escapes decoded as encoding/json
// decodes them (a lone surrogate is U+FFFD), other bytes as they are. A
// piece is valid only during the call (it is Unescape's buffer) and may
// end inside a UTF-8 character, which the next piece completes. An error
// of emit stops the reading and is returned.
func Unescape(r io.Reader, emit func(string) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	out := make([]byte, 0, 64<<10)
	flush := func() error {
		if len(out) == 0 {
			return nil
		}
		err := emit(unsafe.String(unsafe.SliceData(out), len(out)))
		out = out[:0]
		return err
	}
	for {
		chunk, err := br.ReadSlice('\\')
		plain := chunk
		if err == nil {
			plain = chunk[:len(chunk)-1]
		}
		for len(plain) > 0 { // copied through out, a buffer at a time
			k := min(len(plain), cap(out)-len(out))
			out = append(out, plain[:k]...)
			plain = plain[k:]
			if len(out) == cap(out) {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		switch {
		case errors.Is(err, io.EOF):
			return flush()
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			return err
		}
		if out, err = unescapeOne(br, out); err != nil {
			return err
		}
		if len(out) > cap(out)-8 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}

// unescapeOne appends the decoding of the escape whose backslash was read.
func unescapeOne(br *bufio.Reader, out []byte) ([]byte, error) {
	c, err := br.ReadByte()
	if err != nil {
		return out, fmt.Errorf("%w: a string ends in a backslash", ErrSyntax)
	}
	switch c {
	case '"', '\\', '/':
		return append(out, c), nil
	case 'b':
		return append(out, '\b'), nil
	case 'f':
		return append(out, '\f'), nil
	case 'n':
		return append(out, '\n'), nil
	case 'r':
		return append(out, '\r'), nil
	case 't':
		return append(out, '\t'), nil
	case 'u':
		r, ok := hex4(br)
		if !ok {
			return out, fmt.Errorf("%w: a bad \\u escape", ErrSyntax)
		}
		if utf16.IsSurrogate(r) {
			// A pair is one character; anything else makes the first U+FFFD
			// and is read on its own.
			if next, err := br.Peek(6); err == nil && next[0] == '\\' && next[1] == 'u' {
				if r2, ok := parseHex4(next[2:6]); ok {
					if c := utf16.DecodeRune(r, r2); c != utf8.RuneError {
						br.Discard(6)
						return utf8.AppendRune(out, c), nil
					}
				}
			}
			r = utf8.RuneError
		}
		return utf8.AppendRune(out, r), nil
	}
	return out, fmt.Errorf("%w: a bad escape \\%c", ErrSyntax, c)
}

func hex4(br *bufio.Reader) (rune, bool) {
	b, err := br.Peek(4)
	if err != nil {
		return 0, false
	}
	r, ok := parseHex4(b)
	if ok {
		br.Discard(4)
	}
	return r, ok
}

func parseHex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}
