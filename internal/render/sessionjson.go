package render

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/pidex-dev/pidex"
)

// WriteSessionsJSON prints the session listing as WriteJSONLines does (a
// JSON array, one compact element per line), byte for byte, but encodes
// each Session by hand: reflection was a quarter of `list --json` on 3,000
// sessions. Every session is checked before a byte is written: a session
// that has a NaN or infinite float goes through encoding/json, which
// fails the command with its own error and nothing printed, as before.
func WriteSessionsJSON(w io.Writer, ss []pidex.Session) error {
	for i := range ss {
		if !encodable(&ss[i]) {
			if _, err := json.Marshal(ss[i]); err != nil {
				return err // nothing written
			}
		}
	}
	// Every session encodes: the array goes out in chunks through one
	// small buffer. Built whole, the listing was megabytes of fresh
	// memory, whose page faults were a sixth of `list --json` on a
	// machine where each costs 5-16 µs.
	const chunk = 32 << 10
	b := make([]byte, 0, 2*chunk)
	b = append(b, '[')
	var enc *json.Encoder
	var fallback bytes.Buffer
	for i := range ss {
		if i == 0 {
			b = append(b, '\n')
		} else {
			b = append(b, ",\n"...)
		}
		var ok bool
		if b, ok = appendSession(b, &ss[i]); !ok {
			// What encoding/json writes where appendSession does not (its
			// error was checked above).
			if enc == nil {
				enc = json.NewEncoder(&fallback)
				enc.SetEscapeHTML(false)
			}
			fallback.Reset()
			if err := enc.Encode(ss[i]); err != nil {
				return err
			}
			b = append(b, bytes.TrimSuffix(fallback.Bytes(), []byte("\n"))...)
		}
		if len(b) >= chunk {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	if len(ss) > 0 {
		b = append(b, '\n') // the last element's encoder newline
	}
	b = append(b, "]\n"...)
	_, err := w.Write(b)
	return err
}

// finite reports whether s's floats are all finite, its subagents' too
// (encoding/json fails on NaN and the infinities).
func finite(s *pidex.Session) bool {
	t := &s.Tokens
	for _, f := range [...]float64{t.Input, t.Output, t.CacheRead, t.CacheWrite, t.Total, s.Cost} {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	for i := range s.Subagents {
		if !finite(&s.Subagents[i]) {
			return false
		}
	}
	return true
}

// encodable reports whether appendSession encodes s: its floats are
// finite and its times marshal.
func encodable(s *pidex.Session) bool {
	if !finite(s) {
		return false
	}
	var scratch [64]byte
	if s.Created != nil {
		if _, ok := appendTime(scratch[:0], *s.Created); !ok {
			return false
		}
	}
	if _, ok := appendTime(scratch[:0], s.Modified); !ok {
		return false
	}
	for i := range s.Subagents {
		if !encodable(&s.Subagents[i]) {
			return false
		}
	}
	return true
}

// appendSession appends to b what encoding/json's Encoder, with
// SetEscapeHTML(false), writes for s, less its newline. It reports false,
// with b as it was, when encoding/json would fail: a float that is NaN or
// infinite, or a time whose MarshalJSON fails.
func appendSession(b []byte, s *pidex.Session) ([]byte, bool) {
	if !finite(s) {
		return b, false
	}
	t := &s.Tokens
	start := len(b)
	var ok bool
	// The fields in declaration order, as encoding/json writes them.
	b = append(b, `{"path":`...)
	b = appendJSONString(b, s.Path)
	b = append(b, `,"id":`...)
	b = appendJSONString(b, s.ID)
	b = append(b, `,"cwd":`...)
	b = appendJSONString(b, s.Cwd)
	b = append(b, `,"name":`...)
	b = appendJSONStringPtr(b, s.Name)
	b = append(b, `,"parentSessionPath":`...)
	b = appendJSONStringPtr(b, s.ParentSessionPath)
	b = append(b, `,"created":`...)
	if s.Created == nil {
		b = append(b, "null"...)
	} else if b, ok = appendTime(b, *s.Created); !ok {
		return b[:start], false
	}
	b = append(b, `,"modified":`...)
	if b, ok = appendTime(b, s.Modified); !ok {
		return b[:start], false
	}
	b = append(b, `,"messageCount":`...)
	b = strconv.AppendInt(b, s.MessageCount, 10)
	b = append(b, `,"firstMessage":`...)
	b = appendJSONString(b, s.FirstMessage)
	b = append(b, `,"entryCount":`...)
	b = strconv.AppendInt(b, s.EntryCount, 10)
	b = append(b, `,"leafId":`...)
	b = appendJSONStringPtr(b, s.LeafID)
	b = append(b, `,"branchPoints":`...)
	b = strconv.AppendInt(b, s.BranchPoints, 10)
	b = append(b, `,"models":`...)
	if s.Models == nil { // encoding/json: a nil slice is null, an empty one []
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range s.Models {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, m)
		}
		b = append(b, ']')
	}
	b = append(b, `,"tokens":{"input":`...)
	b = appendJSONFloat(b, t.Input)
	b = append(b, `,"output":`...)
	b = appendJSONFloat(b, t.Output)
	b = append(b, `,"cacheRead":`...)
	b = appendJSONFloat(b, t.CacheRead)
	b = append(b, `,"cacheWrite":`...)
	b = appendJSONFloat(b, t.CacheWrite)
	b = append(b, `,"total":`...)
	b = appendJSONFloat(b, t.Total)
	b = append(b, `},"cost":`...)
	b = appendJSONFloat(b, s.Cost)
	b = append(b, `,"sizeBytes":`...)
	b = strconv.AppendInt(b, s.SizeBytes, 10)
	b = append(b, `,"source":`...)
	b = appendJSONString(b, s.Source)
	if s.Machine != "" { // omitempty
		b = append(b, `,"machine":`...)
		b = appendJSONString(b, s.Machine)
	}
	if s.SpawnedBy != "" {
		b = append(b, `,"spawnedBy":`...)
		b = appendJSONString(b, s.SpawnedBy)
	}
	if s.Run != "" {
		b = append(b, `,"run":`...)
		b = appendJSONString(b, s.Run)
	}
	if len(s.Subagents) > 0 {
		b = append(b, `,"subagents":[`...)
		for i := range s.Subagents {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendSession(b, &s.Subagents[i]); !ok {
				return b[:start], false
			}
		}
		b = append(b, ']')
	}
	// FileID is json:"-".
	b = append(b, '}')
	return b, true
}

// appendTime writes t through its own MarshalJSON, as encoding/json
// does. encoding/json then compacts the output, which for pidex.Time's
// (null, or a quoted ASCII date) leaves it as it is.
func appendTime(b []byte, t pidex.Time) ([]byte, bool) {
	j, err := t.MarshalJSON()
	if err != nil {
		return b, false
	}
	return append(b, j...), true
}

func appendJSONStringPtr(b []byte, p *string) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *p)
}

// jsonSafe marks the ASCII bytes encoding/json writes as they are when it
// does not escape HTML (its safeSet): all but the C0 controls, '"' and
// '\\'. DEL is written as it is.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendJSONString is encoding/json's appendString with escapeHTML false
// (Go 1.26): short escapes for \" \\ \b \f \n \r \t, \u00XX for the other
// C0 controls, \ufffd for each byte of invalid UTF-8, and \u2028 and
// \u2029 escaped (JSONP). Everything else is copied.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; ; {
		if i = skipPlain(s, i); i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// skipPlain returns the index of the first byte of s at or after i that
// is not copied as it is without a look (not ASCII, a control, '"' or
// '\\'), or len(s). Text is mostly long runs of such bytes, and it checks
// them 8 at a time: 2 to 3 times faster than a byte at a time.
func skipPlain(s string, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		// The high bit of a byte of (v - ones*n) &^ v is set where that
		// byte of v is below n (n <= 0x80), and maybe above such a byte,
		// where its borrow reaches, but never below: the lowest flagged
		// byte is the first to look at.
		lt := (x - ones*0x20) &^ x
		q := x ^ ones*'"'
		bs := x ^ ones*'\\'
		eq := (q-ones)&^q | (bs-ones)&^bs
		if m := (x | lt | eq) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(s) && s[i] < utf8.RuneSelf && jsonSafe[s[i]] {
		i++
	}
	return i
}

// appendJSONFloat is encoding/json's floatEncoder for a finite float64:
// the shortest decimal that reads back the same, as ES6 writes numbers
// ('e' form below 1e-6 and from 1e21, its exponent unpadded: 1e-7, not
// 1e-07).
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
