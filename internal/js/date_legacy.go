package js

// V8's legacy date parser: what Date.parse does with a string that is not
// (entirely) in the ES date-time format. It goes through the tokens once and
// files every number as a date part, a time part or a zone part, depending on
// what follows it and what has been seen so far.

// none marks a composer field that has not been given.
const none = -1

// legacy continues from token t, where isoDate stopped, to the end of the
// string. It reports false as soon as V8 would give up.
func (p *dateParser) legacy(t token) bool {
	sawNumber := !p.day.empty()
	for ; t.kind != tokEnd; t = p.sc.take() {
		switch {
		case t.kind == tokNumber:
			sawNumber = true
			if !p.legacyNumber(t.val) {
				return false
			}
		case t.kind == tokWord:
			if !p.legacyWord(t, sawNumber) {
				return false
			}
		case t.isSign() && (p.tz.isUTC() || !p.time.empty()):
			// A sign starts an offset only after a time or after UTC/GMT/Z.
			sawNumber = true
			if !p.legacyOffset(t) {
				return false
			}
		case (t.isSign() || t.isSymbol(')')) && sawNumber:
			return false
		}
		// Anything else (white space, other punctuation, comments, and signs
		// before the first number) is ignored.
	}
	return true
}

// legacyNumber files the number n by what follows it and what is expected.
func (p *dateParser) legacyNumber(n int) bool {
	sc := p.sc
	switch {
	case sc.skip(':'):
		if sc.skip(':') { // "n::" is n hours and 0 minutes
			if !p.time.empty() {
				return false
			}
			p.time.add(n)
			p.time.add(0)
			return true
		}
		if !p.time.add(n) {
			return false
		}
		if sc.peek().isSymbol('.') {
			sc.take()
		}
	// skip consumes the '.' even when no time part is expected: V8 does the
	// same, so "1.5.2026" is the date 1 5 2026.
	case sc.skip('.') && p.time.expecting(n):
		p.time.add(n)
		if sc.peek().kind != tokNumber {
			return false
		}
		p.time.addFinal(millis(sc.take()))
	case p.tz.expecting(n):
		p.tz.minute = n
	case p.time.expecting(n):
		p.time.addFinal(n)
		// The last number of a time must be followed by the end, white space,
		// Z or a sign.
		if t := sc.peek(); t.kind != tokEnd && t.kind != tokSpace && !t.isZ() && !t.isSign() {
			return false
		}
	default:
		if !p.day.add(n) {
			return false
		}
		sc.skip('-')
	}
	return true
}

// legacyWord handles a word: a month name, am/pm, a zone name, or garbage,
// which is allowed only before the first number and not right before it.
func (p *dateParser) legacyWord(t token, sawNumber bool) bool {
	switch {
	case t.kw == kwAMPM && !p.time.empty():
		p.time.ampm = t.val
	case t.kw == kwMonth:
		p.day.month = t.val
		p.sc.skip('-')
	case t.kw == kwZone && sawNumber:
		p.tz.set(t.val)
	case sawNumber, p.sc.peek().kind == tokNumber:
		return false
	}
	return true
}

// legacyOffset reads the offset after a sign: H or HH hours, HHH or HHMM,
// or "HH:" with the minutes following as the next number.
func (p *dateParser) legacyOffset(sign token) bool {
	sc := p.sc
	p.tz.sign = signOf(sign)
	n, digits := 0, 0 // the number may be missing
	if sc.peek().kind == tokNumber {
		t := sc.take()
		n, digits = t.val, t.len
	}
	switch {
	case sc.peek().isSymbol(':'):
		p.tz.hour, p.tz.minute = n, none
	case digits == 1 || digits == 2:
		p.tz.hour, p.tz.minute = n, 0
	case digits == 3 || digits == 4:
		p.tz.hour, p.tz.minute = n/100, n%100
	default:
		return false
	}
	return true
}

// dayComposer collects up to three date numbers and a month name.
type dayComposer struct {
	comp  [3]int
	n     int
	month int  // a named month, 1..12, or 0
	iso   bool // the numbers are year, month, day of an ISO date
}

func (d *dayComposer) empty() bool { return d.n == 0 }

func (d *dayComposer) add(v int) bool {
	if d.n == len(d.comp) {
		return false
	}
	d.comp[d.n] = v
	d.n++
	return true
}

// write decides which number is the year, the month and the day.
func (d *dayComposer) write() (year, month, day int, ok bool) {
	if d.n == 0 {
		return 0, 0, 0, false
	}
	c := d.comp
	for i := d.n; i < len(c); i++ {
		c[i] = 1 // missing parts are 1, the year too: "May 1" is May 1, 2001
	}
	switch {
	case d.month == 0 && (d.iso || !isDay(c[0])):
		year, month, day = c[0], c[1], c[2]
	case d.month == 0:
		month, day, year = c[0], c[1], c[2] // US order
	case !isDay(c[0]):
		month, year, day = d.month, c[0], c[1]
	default:
		month, day, year = d.month, c[0], c[1]
	}
	if !d.iso {
		switch {
		case 0 <= year && year <= 49:
			year += 2000
		case 50 <= year && year <= 99:
			year += 1900
		}
	}
	return year, month, day, isMonth(month) && isDay(day)
}

// timeComposer collects hour, minute, second and millisecond.
type timeComposer struct {
	comp [4]int
	n    int
	ampm int // 0 for am, 12 for pm, none if neither
}

func (t *timeComposer) empty() bool { return t.n == 0 }

func (t *timeComposer) add(v int) bool {
	if t.n == len(t.comp) {
		return false
	}
	t.comp[t.n] = v
	t.n++
	return true
}

// addFinal adds the last part of a time; the parts after it are 0.
func (t *timeComposer) addFinal(v int) {
	if t.add(v) {
		t.n = len(t.comp)
	}
}

// expecting reports whether v fits as the next part of a time already begun.
func (t *timeComposer) expecting(v int) bool {
	switch t.n {
	case 1, 2: // minute, second
		return v <= 59
	case 3: // millisecond
		return v <= 999
	}
	return false
}

func (t *timeComposer) write() (hour, minute, second, milli int, ok bool) {
	hour, minute, second, milli = t.comp[0], t.comp[1], t.comp[2], t.comp[3]
	if t.ampm != none {
		if hour > 12 {
			return 0, 0, 0, 0, false
		}
		hour = hour%12 + t.ampm
	}
	inRange := hour <= 23 && minute <= 59 && second <= 59 && milli <= 999
	endOfDay := hour == 24 && minute == 0 && second == 0 && milli == 0
	return hour, minute, second, milli, inRange || endOfDay
}

// zoneComposer collects the offset from UTC. Without a sign the time is
// local time, which pidex takes as UTC.
type zoneComposer struct {
	sign         int // +1, -1, or 0 when no zone was given
	hour, minute int // none if not given
}

// set sets a whole-hour offset (a zone name).
func (z *zoneComposer) set(hours int) {
	z.sign = 1
	if hours < 0 {
		z.sign, hours = -1, -hours
	}
	z.hour, z.minute = hours, 0
}

func (z *zoneComposer) isUTC() bool { return z.hour == 0 && z.minute == 0 }

// expecting reports whether v is the minutes of a "±HH:" offset.
func (z *zoneComposer) expecting(v int) bool {
	return z.hour != none && z.minute == none && v <= 59
}

// write gives the offset in seconds. V8 computes it in unsigned 32-bit
// arithmetic and refuses one above the largest small integer (2^31-1 on Node's
// 64-bit builds), which only a "GMT+596524:" can reach.
func (z *zoneComposer) write() (int, bool) {
	if z.sign == 0 {
		return 0, true
	}
	total := uint32(max(z.hour, 0))*3600 + uint32(max(z.minute, 0))*60
	if total > 1<<31-1 {
		return 0, false
	}
	return z.sign * int(total), true
}

func isMonth(v int) bool { return 1 <= v && v <= 12 }
func isDay(v int) bool   { return 1 <= v && v <= 31 }

// keyword is what V8's keyword table makes of a word.
type keyword uint8

const (
	kwNone  keyword = iota
	kwMonth         // value 1..12
	kwZone          // value: offset in hours
	kwT             // the ISO date/time separator
	kwAMPM          // value 0 (am) or 12 (pm)
)

// Any word that starts with a month's first three letters is that month
// ("Sept", "Mayday"); the other keywords must be the whole word.
var monthNames = map[string]int{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}

var keywords = map[string]struct {
	kw  keyword
	val int
}{
	"am": {kwAMPM, 0}, "pm": {kwAMPM, 12},
	"ut": {kwZone, 0}, "utc": {kwZone, 0}, "z": {kwZone, 0}, "gmt": {kwZone, 0},
	"cdt": {kwZone, -5}, "cst": {kwZone, -6}, "edt": {kwZone, -4}, "est": {kwZone, -5},
	"mdt": {kwZone, -6}, "mst": {kwZone, -7}, "pdt": {kwZone, -7}, "pst": {kwZone, -8},
	"t": {kwT, 0},
}

// lookupKeyword classifies a word by its lower-cased first three characters
// and its length.
func lookupKeyword(prefix string, length int) (keyword, int) {
	if m, ok := monthNames[prefix]; ok && length >= 3 {
		return kwMonth, m
	}
	if k, ok := keywords[prefix]; ok && length <= 3 {
		return k.kw, k.val
	}
	return kwNone, 0
}
