package fts

import (
	"testing"
	"unicode"
)

// The explicit ranges agree with Unicode's scripts on every character
// those scripts hold (Han, Hiragana, Katakana, Hangul letters).
func TestIsCJKCoversScripts(t *testing.T) {
	for _, tab := range []*unicode.RangeTable{unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Han} {
		for r := rune(0); r <= 0x3FFFF; r++ {
			if unicode.Is(tab, r) && unicode.IsLetter(r) && !IsCJK(r) {
				t.Errorf("%U (%c) is %v but not CJK", r, r, tab)
				return
			}
		}
	}
	for _, r := range "aZ09é,. 、。「」・" {
		if IsCJK(r) {
			t.Errorf("%q counted as CJK", r)
		}
	}
}
