package fts

import (
	"unicode/utf8"
	"unsafe"
)

// Distinct turns an entry's text into what the index needs of it: its
// distinct tokens, each once, already folded. The index keeps which
// entries hold a token, never where or how often (detail=none), so FTS5
// given "err nil return" indexes a tool output of a thousand "err"s the
// same as given the output itself, and its writer, the one goroutine a
// cold index waits for, tokenizes and hashes a third of the bytes
// (issue 20, BENCHMARKS.md). The entry's full token count, which search
// ranks by, is returned beside it for the catalog's text_sizes.
//
// A Distinct is reused from entry to entry by one goroutine: its set
// keeps no strings, only spans of the output.
type Distinct struct {
	slots []uint64 // gen<<32 | span index+1; another gen's value is empty
	spans []tokSpan
	gen   uint64
	tok   []byte // a folded token's bytes
}

type tokSpan struct{ off, n uint32 }

// Append appends the distinct tokens of text (as Tokens splits and folds
// it, in order of first occurrence, each followed by a space) to dst, and
// returns it with the number of tokens in text, repeats included: FTS5's
// own count of the entry had it been given the text.
func (d *Distinct) Append(dst []byte, text string) (out []byte, tokens int) {
	if len(d.slots) == 0 {
		d.slots = make([]uint64, 1024)
	}
	d.gen++
	if d.gen >= 1<<32 { // the stamps would wrap: start the table afresh
		clear(d.slots)
		d.gen = 1
	}
	d.spans = d.spans[:0]
	s := Prepare(text)
	for i := 0; i < len(s); {
		// A run of token characters, folded only if it needs to be (most
		// of a session's text is lower-case ASCII already).
		start, plain, h := i, true, uint64(fnvBasis)
		for i < len(s) {
			if c := s[i]; c < utf8.RuneSelf {
				k := asciiClass[c]
				if k == asciiSep {
					break
				}
				plain = plain && k == asciiKeep
				h = (h ^ uint64(c)) * fnvPrime
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if !isToken(r) {
				break
			}
			plain = false
			i += n
		}
		if i > start {
			tok := s[start:i]
			if !plain {
				d.tok = foldInto(d.tok[:0], tok)
				tok = unsafe.String(unsafe.SliceData(d.tok), len(d.tok)) // add copies it
				h = fnv(tok)
			}
			if tok != "" {
				dst = d.add(dst, tok, h)
				tokens++
			}
		}
		if i < len(s) { // past the separator
			if s[i] < utf8.RuneSelf {
				i++
			} else {
				_, n := utf8.DecodeRuneInString(s[i:])
				i += n
			}
		}
	}
	return dst, tokens
}

const (
	asciiSep = iota
	asciiKeep
	asciiUpper
)

// asciiClass is what unicode61 does with each ASCII byte.
var asciiClass = func() (t [utf8.RuneSelf]byte) {
	for c := range utf8.RuneSelf {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = asciiKeep
		case 'A' <= c && c <= 'Z':
			t[c] = asciiUpper
		}
	}
	return t
}()

// foldInto appends the token characters of run folded as unicode61 folds
// them (a removed diacritic leaves nothing).
func foldInto(b []byte, run string) []byte {
	for i := 0; i < len(run); i++ { // ASCII first: most folds are of capitals
		c := run[i]
		if c >= utf8.RuneSelf {
			return foldRunes(b, run[i:])
		}
		if asciiClass[c] == asciiUpper {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

func foldRunes(b []byte, run string) []byte {
	for _, r := range run {
		if f := foldRune(r); f != 0 {
			b = utf8.AppendRune(b, f)
		}
	}
	return b
}

// add appends tok and a space to dst unless this entry had it already.
func (d *Distinct) add(dst []byte, tok string, hash uint64) []byte {
	if 2*(len(d.spans)+1) > len(d.slots) {
		d.grow(dst)
	}
	mask := uint64(len(d.slots) - 1)
	for h := mix(hash) & mask; ; h = (h + 1) & mask {
		v := d.slots[h]
		if v>>32 != d.gen {
			d.spans = append(d.spans, tokSpan{uint32(len(dst)), uint32(len(tok))})
			d.slots[h] = d.gen<<32 | uint64(len(d.spans))
			dst = append(dst, tok...)
			return append(dst, ' ')
		}
		sp := d.spans[uint32(v)-1]
		if string(dst[sp.off:sp.off+sp.n]) == tok {
			return dst
		}
	}
}

// grow doubles the table and places this entry's spans in it again.
func (d *Distinct) grow(dst []byte) {
	d.slots = make([]uint64, 2*len(d.slots))
	mask := uint64(len(d.slots) - 1)
	for i, sp := range d.spans {
		h := mix(fnv(unsafe.String(&dst[sp.off], sp.n))) & mask
		for d.slots[h] != 0 {
			h = (h + 1) & mask
		}
		d.slots[h] = d.gen<<32 | uint64(i+1)
	}
}

// FNV-1a, computed as the token is scanned (a second pass over it, or
// maphash's call per token, cost as much as the rest of Append), then
// mixed so that its low bits, the table's index, depend on every byte.
const (
	fnvBasis = 14695981039346656037
	fnvPrime = 1099511628211
)

func fnv(s string) uint64 {
	h := uint64(fnvBasis)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

func mix(h uint64) uint64 { // the finalizer of MurmurHash3
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}
