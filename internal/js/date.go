package js

// JavaScript's Date, as pi's reader applies it to timestamps.

import (
	"time"
	"unicode"
	"unicode/utf8"
)

// maxTimeMs is how far from the epoch a JavaScript Date may lie (TimeClip):
// 100,000,000 days either way (as pidex.Time formats it).
const maxTimeMs = 8_640_000_000_000_000

// ParseDate is JavaScript's Date.parse(s) as V8 computes it in Node 20 when
// the process time zone is UTC. It returns Unix milliseconds (fractions of a
// millisecond are truncated, as in V8), and ok=false exactly when Date.parse
// returns NaN. pi turns every timestamp string into a time this way (tree
// order, context timestamps, session created/modified).
//
// Time zone: JavaScript reads a date-time without an offset ("2026-05-01T10:00",
// "2026/05/01 10:00", "May 1 2026") as local time of the machine. pidex reads it
// as UTC, as Node does with TZ=UTC. Date-only ISO forms ("2026-05-01") are UTC in
// JavaScript too.
//
// Like V8, it first tries the ES date-time format
// ([±YY]YYYY[-MM[-DD]][THH:mm[:ss[.s…]][Z|±HH:mm]]) with V8's extensions: 't'
// and 'z' in lower case, fractions of any length, ±HHmm, 24:00 for the end of
// a day, and days 29–31 that roll into the next month ("2026-02-30" is March 2).
// Whatever does not fit goes on through V8's legacy parser, which takes
// "2026/05/01 10:00", "May 1, 2026", RFC 2822 / toUTCString and toString output,
// am/pm, the zones UT, UTC, GMT, Z, EST…PDT and ±H, ±HH, ±HHmm, ±HH:mm offsets,
// parenthesised comments, and ignores words before the first number.
//
// This is a port of V8's tokenizer and parser, not an approximation, so it
// also has V8's oddities: white space before or after an ISO date-time with a
// 'T' makes it NaN, a leading sign is dropped ("-2026-05-01" is 2026-05-01),
// missing date parts are 1 ("May 1" is 2001-05-01), two-digit years are
// 1950–2049, non-ASCII digits are not digits ("２０２６-05-01" is 2001-05-01),
// and because V8 skips leading zeros before it keeps nine digits,
// ".000123456789" seconds reads as 123 ms. internal/js/testdata/jsdate.json holds
// Node's answers for all of these (new Date(s) parses the same way).
//
// Left out: no form. The one difference is in the input type: a JavaScript
// string can hold a lone surrogate, a Go string cannot; U+FFFD in its place
// is treated the same way (as a letter of a word).
func ParseDate(s string) (ms int64, ok bool) {
	f, ok := newDateParser(s).parse()
	if !ok {
		return 0, false
	}
	return f.unixMilli()
}

// dateParser holds V8's three "composers", which collect the numbers of the
// date, the time and the zone while the string is read.
type dateParser struct {
	sc   *scanner
	day  dayComposer
	time timeComposer
	tz   zoneComposer
}

func newDateParser(s string) *dateParser {
	return &dateParser{
		sc:   newScanner(s),
		time: timeComposer{ampm: none},
		tz:   zoneComposer{hour: none, minute: none},
	}
}

func (p *dateParser) parse() (dateFields, bool) {
	t := p.isoDate()
	if t.kind == tokInvalid || !p.legacy(t) {
		return dateFields{}, false
	}
	return p.fields()
}

// isoDate reads as much of the string as fits the ES date-time format. It
// returns tokEnd if the whole string fits, tokInvalid if the string is
// rejected (V8 gives up on a bad time part: after a 'T' the string can no
// longer be a legacy date), and otherwise the first token it could not use;
// the legacy parser goes on from there with the numbers read so far.
func (p *dateParser) isoDate() token {
	sc := p.sc
	switch t := sc.peek(); {
	case t.isSign():
		sign := sc.take()
		if !sc.peek().isNumber(6) {
			return sign
		}
		year := sc.take().val
		if sign.val == '-' {
			if year == 0 {
				return sign // -000000 is not a year; its digits stay consumed, as in V8
			}
			year = -year
		}
		p.day.add(year)
	case t.isNumber(4):
		p.day.add(sc.take().val)
	default:
		return sc.take()
	}
	if sc.skip('-') {
		if t := sc.peek(); !t.isNumber(2) || !isMonth(t.val) {
			return sc.take()
		}
		p.day.add(sc.take().val)
		if sc.skip('-') {
			if t := sc.peek(); !t.isNumber(2) || !isDay(t.val) {
				return sc.take()
			}
			p.day.add(sc.take().val)
		}
	}
	if t := sc.peek(); t.kind != tokWord || t.kw != kwT {
		if t.kind != tokEnd {
			return sc.take()
		}
	} else {
		sc.take()
		if !p.isoTime() {
			return token{kind: tokInvalid}
		}
	}
	// A date-only form without a zone is UTC; a date-time without one is local
	// time. pidex's local time is UTC, so the zone composer stays as it is.
	p.day.iso = true
	return token{kind: tokEnd}
}

// isoTime reads HH:mm[:ss[.s…]][Z|±HH:mm|±HHmm] after the 'T' and reports
// whether that is all the string holds.
func (p *dateParser) isoTime() bool {
	sc := p.sc
	hour, ok := sc.twoDigits(24)
	if !ok {
		return false
	}
	p.time.add(hour)
	// Hour 24 is midnight at the end of the day: everything after it must be 0.
	maxMinSec := 59
	if hour == 24 {
		maxMinSec = 0
	}
	if !sc.skip(':') {
		return false
	}
	minute, ok := sc.twoDigits(maxMinSec)
	if !ok {
		return false
	}
	p.time.add(minute)
	if sc.skip(':') {
		second, ok := sc.twoDigits(maxMinSec)
		if !ok {
			return false
		}
		p.time.add(second)
		if sc.skip('.') {
			t := sc.peek()
			if t.kind != tokNumber || (hour == 24 && t.val > 0) {
				return false
			}
			p.time.add(millis(sc.take()))
		}
	}
	switch t := sc.peek(); {
	case t.isZ():
		sc.take()
		p.tz.set(0)
	case t.isSign():
		p.tz.sign = signOf(sc.take())
		if sc.peek().isNumber(4) { // ±HHmm, a V8 extension
			hm := sc.take().val
			if hm/100 > 23 || hm%100 > 59 {
				return false
			}
			p.tz.hour, p.tz.minute = hm/100, hm%100
			break
		}
		var ok bool
		if p.tz.hour, ok = sc.twoDigits(23); !ok || !sc.skip(':') {
			return false
		}
		if p.tz.minute, ok = sc.twoDigits(59); !ok {
			return false
		}
	}
	return sc.peek().kind == tokEnd
}

// dateFields is a parsed date: month 1..12; day, hour and the rest may
// overflow into the next unit (hour 24, February 30); offset is in seconds
// east of UTC, 0 for local time.
type dateFields struct {
	year, month, day            int
	hour, minute, second, milli int
	offset                      int
}

func (p *dateParser) fields() (f dateFields, ok bool) {
	if f.year, f.month, f.day, ok = p.day.write(); !ok {
		return f, false
	}
	if f.hour, f.minute, f.second, f.milli, ok = p.time.write(); !ok {
		return f, false
	}
	f.offset, ok = p.tz.write()
	return f, ok
}

// unixMilli is V8's MakeDay/MakeTime/MakeDate followed by TimeClip.
func (f dateFields) unixMilli() (int64, bool) {
	// MakeDay gives NaN beyond a million years; such dates are far outside the
	// Date range anyway (an offset moves a date by at most about 68 years).
	if f.year < -1_000_000 || f.year > 1_000_000 {
		return 0, false
	}
	t := time.Date(f.year, time.Month(f.month), f.day, f.hour, f.minute, f.second, f.milli*1e6, time.UTC)
	ms := t.UnixMilli() - int64(f.offset)*1000
	if ms < -maxTimeMs || ms > maxTimeMs {
		return 0, false
	}
	return ms, true
}

// millis turns the digits after a decimal point into milliseconds: the first
// three digits, padded with zeros. It works from the token's value and length
// the way V8 does, so it shares V8's quirk: the value drops leading zeros but
// the length counts them, and only nine digits are kept, so ".000123456789"
// gives 123 (V8 keeps 123456789 and divides by 10^6).
func millis(t token) int {
	n, length := t.val, min(t.len, maxDigits)
	for ; length < 3; length++ {
		n *= 10
	}
	for ; length > 3; length-- {
		n /= 10
	}
	return n
}

// Token kinds of V8's date scanner.
type tokenKind uint8

const (
	tokEnd     tokenKind = iota // end of the string, or a NUL character
	tokInvalid                  // only from isoDate: reject the string
	tokNumber                   // a run of ASCII digits
	tokSymbol                   // one of : - + . )
	tokWord                     // a run of characters >= 'A' that are not white space
	tokSpace                    // one white-space or line-terminator character
	tokOther                    // any other character, or a parenthesised comment
)

// maxDigits is how many significant digits V8 keeps of a number; it skips
// the rest.
const maxDigits = 9

type token struct {
	kind tokenKind
	val  int     // number: its first nine digits after leading zeros; symbol: the character; word: keyword value
	len  int     // number: all its digits; word: its characters
	kw   keyword // word: what the keyword table says it is
}

func (t token) isNumber(digits int) bool { return t.kind == tokNumber && t.len == digits }
func (t token) isSymbol(c rune) bool     { return t.kind == tokSymbol && t.val == int(c) }
func (t token) isSign() bool             { return t.isSymbol('+') || t.isSymbol('-') }

// isZ is the single letter Z; "UTC" or "GMT" do not end an ISO string.
func (t token) isZ() bool { return t.kind == tokWord && t.kw == kwZone && t.len == 1 }

func signOf(t token) int {
	if t.val == '-' {
		return -1
	}
	return 1
}

// scanner splits the string into tokens with one token of look-ahead, like
// V8's DateStringTokenizer.
type scanner struct {
	rest string
	next token
}

func newScanner(s string) *scanner {
	sc := &scanner{rest: s}
	sc.next = sc.scan()
	return sc
}

func (sc *scanner) peek() token { return sc.next }

func (sc *scanner) take() token {
	t := sc.next
	sc.next = sc.scan()
	return t
}

func (sc *scanner) skip(c rune) bool {
	if sc.next.isSymbol(c) {
		sc.take()
		return true
	}
	return false
}

// twoDigits takes a two-digit number of at most max.
func (sc *scanner) twoDigits(max int) (int, bool) {
	if t := sc.peek(); !t.isNumber(2) || t.val > max {
		return 0, false
	}
	return sc.take().val, true
}

// char is the next character, 0 at the end. V8 reads its input as a
// NUL-terminated string, so a NUL character also ends it.
func (sc *scanner) char() (rune, int) {
	if sc.rest == "" {
		return 0, 0
	}
	return utf8.DecodeRuneInString(sc.rest)
}

func (sc *scanner) scan() token {
	c, size := sc.char()
	switch {
	case c == 0:
		return token{kind: tokEnd}
	case '0' <= c && c <= '9':
		return sc.number()
	case c == ':' || c == '-' || c == '+' || c == '.' || c == ')':
		sc.rest = sc.rest[size:]
		return token{kind: tokSymbol, val: int(c)}
	case isWordChar(c):
		return sc.word()
	case c == '(':
		sc.comment()
		return token{kind: tokOther}
	}
	sc.rest = sc.rest[size:]
	if isSpace(c) || c == '\n' || c == '\r' {
		return token{kind: tokSpace}
	}
	return token{kind: tokOther}
}

func (sc *scanner) number() token {
	t := token{kind: tokNumber}
	significant := 0
	for sc.rest != "" && '0' <= sc.rest[0] && sc.rest[0] <= '9' {
		d := int(sc.rest[0] - '0')
		if significant > 0 || d != 0 {
			if significant < maxDigits {
				t.val = t.val*10 + d
			}
			significant++
		}
		t.len++
		sc.rest = sc.rest[1:]
	}
	return t
}

func (sc *scanner) word() token {
	var prefix []rune
	t := token{kind: tokWord}
	for {
		c, size := sc.char()
		if !isWordChar(c) {
			break
		}
		if len(prefix) < 3 {
			prefix = append(prefix, lowerASCII(c))
		}
		t.len++
		sc.rest = sc.rest[size:]
	}
	t.kw, t.val = lookupKeyword(string(prefix), t.len)
	return t
}

// lowerASCII lower-cases ASCII capitals only, as V8 does for keywords: "Ｍay"
// is not May.
func lowerASCII(c rune) rune {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// comment skips a parenthesised comment, nested parentheses included, up to
// its closing parenthesis or the end of the string.
func (sc *scanner) comment() {
	depth := 0
	for {
		c, size := sc.char()
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		}
		sc.rest = sc.rest[size:]
		if depth <= 0 {
			return
		}
		if next, _ := sc.char(); next == 0 {
			return
		}
	}
}

// isSpace is JavaScript's WhiteSpace: tab, vertical tab, form feed, the BOM
// and the space separators (space, no-break space, U+2000…U+200A, U+3000…).
func isSpace(c rune) bool {
	return c == '\t' || c == '\v' || c == '\f' || c == '\uFEFF' || unicode.Is(unicode.Zs, c)
}

// isWordChar: V8 takes every character from 'A' up as part of a word, white
// space aside. So "é", "２" and U+2028 are letters, and a line feed is not.
func isWordChar(c rune) bool { return c >= 'A' && !isSpace(c) }
