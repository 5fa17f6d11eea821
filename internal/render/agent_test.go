package render

import "testing"

func TestForAgent(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, accents é, CJK 漢字, emoji 👨‍👩‍👧", "plain text, accents é, CJK 漢字, emoji 👨‍👩‍👧"},
		{"lines\nand\ttabs", "lines\nand\ttabs"},
		{"esc \x1b[2J bel \x07 cr \r del \x7f", `esc \e[2J bel \x07 cr \r del \x7f`},
		{"c1 \u009b31m osc \u009d0;t", `c1 \x9b31m osc \x9d0;t`},
		{"rlo \u202eevil\u202c lri \u2066x\u2069 lrm \u200e alm \u061c", `rlo \u202eevil\u202c lri \u2066x\u2069 lrm \u200e alm \u061c`},
		{"line\u2028sep\u2029", `line\u2028sep\u2029`},
		{"tags \U000E0049\U000E0047\U000E004E", `tags \U000e0049\U000e0047\U000e004e`},
	}
	for _, tc := range tests {
		if got := ForAgent(tc.in); got != tc.want {
			t.Errorf("ForAgent(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if n, want := ForAgentLen(tc.in), len([]rune(ForAgent(tc.in))); n != want {
			t.Errorf("ForAgentLen(%q) = %d, want %d", tc.in, n, want)
		}
		if again := ForAgent(ForAgent(tc.in)); again != ForAgent(tc.in) {
			t.Errorf("ForAgent is not idempotent on %q: %q", tc.in, again)
		}
	}
}
