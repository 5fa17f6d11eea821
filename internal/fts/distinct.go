package fts

import "unsafe"

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
	tok   []byte // the tokenizer's buffer, kept for the next entry
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
	z := tokenizer{s: Prepare(text), fold: d.tok}
	for {
		tok, h, ok := z.next()
		if !ok {
			break
		}
		dst = d.add(dst, tok, h)
		tokens++
	}
	d.tok = z.fold
	return dst, tokens
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
