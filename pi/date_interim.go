package pi

// INTERIM: replaced by date.go (the Node-tested parser) at merge.

import (
	"strconv"
	"time"
)

// ParseDate parses the date strings JavaScript's Date accepts in the ISO
// family: YYYY[-MM[-DD]] optionally followed by T or a space and
// HH:mm[:ss[.fraction]] and Z or ±HH[:]mm; ±YYYYYY extended years; out of
// range days roll over (V8 does so too). A date-time without an offset is
// read as UTC (JavaScript would read it as local time).
func ParseDate(s string) (int64, bool) {
	p := &dateScanner{s: s}
	year := 0
	switch {
	case p.peek() == '+' || p.peek() == '-':
		neg := p.next() == '-'
		y, ok := p.digits(6, 6)
		if !ok || (neg && y == 0) {
			return 0, false
		}
		year = y
		if neg {
			year = -y
		}
	default:
		y, ok := p.digits(4, 4)
		if !ok {
			return 0, false
		}
		year = y
	}
	month, day := 1, 1
	if p.eat('-') {
		m, ok := p.digits(1, 2)
		if !ok {
			return 0, false
		}
		month = m
		if p.eat('-') {
			d, ok := p.digits(1, 2)
			if !ok {
				return 0, false
			}
			day = d
		}
	}
	if month < 1 || month > 12 || day < 1 || day > 31 {
		return 0, false
	}
	hour, minute, sec, nsec := 0, 0, 0, 0
	offset := 0
	if p.eat('T') || p.eat('t') || p.eat(' ') {
		var ok bool
		if hour, ok = p.digits(2, 2); !ok || !p.eat(':') {
			return 0, false
		}
		if minute, ok = p.digits(2, 2); !ok {
			return 0, false
		}
		if p.eat(':') {
			if sec, ok = p.digits(2, 2); !ok {
				return 0, false
			}
			if p.eat('.') {
				start := p.i
				f, ok := p.digits(1, 64)
				if !ok {
					return 0, false
				}
				_ = f
				frac := s[start:p.i]
				for len(frac) < 9 {
					frac += "0"
				}
				nsec, _ = strconv.Atoi(frac[:9])
			}
		}
		if hour > 24 || minute > 59 || sec > 59 || (hour == 24 && (minute > 0 || sec > 0 || nsec > 0)) {
			return 0, false
		}
		switch c := p.peek(); c {
		case 'Z', 'z':
			p.next()
		case '+', '-':
			p.next()
			oh, ok := p.digits(2, 2)
			if !ok {
				return 0, false
			}
			p.eat(':')
			om, ok := p.digits(2, 2)
			if !ok || oh > 23 || om > 59 {
				return 0, false
			}
			offset = oh*60 + om
			if c == '-' {
				offset = -offset
			}
		}
	}
	if p.i != len(s) {
		return 0, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	t = t.Add(-time.Duration(offset) * time.Minute)
	ms := t.Unix()*1000 + int64(t.Nanosecond()/1e6)
	return ms, float64(ms) <= maxTime && float64(ms) >= -maxTime
}

type dateScanner struct {
	s string
	i int
}

func (p *dateScanner) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *dateScanner) next() byte { c := p.peek(); p.i++; return c }

func (p *dateScanner) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

// digits reads min..max decimal digits.
func (p *dateScanner) digits(min, max int) (int, bool) {
	start := p.i
	for p.i < len(p.s) && p.i-start < max && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	n := p.i - start
	if n < min {
		return 0, false
	}
	if n > 9 {
		n = 9 // a long fraction: only the leading digits matter
	}
	v, _ := strconv.Atoi(p.s[start : start+n])
	return v, true
}
