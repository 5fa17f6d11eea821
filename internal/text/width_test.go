package text

import (
	"math"
	"slices"
	"testing"
)

func TestWidth(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"héllo", 5},
		{"検索", 4},          // CJK: two cells each
		{"インデックス", 12},     // katakana
		{"검색", 4},          // hangul
		{"e\u0301", 1},     // a combining accent takes no cell
		{"ｆｕｌｌ", 8},        // fullwidth Latin
		{"a…b", 3},         // the ellipsis is one cell
		{"👍🏽 ok", 5},       // an emoji with a skin tone: one cluster, two cells
		{"压缩 the log", 12}, // mixed
	}
	for _, tt := range tests {
		if got := Width(tt.in); got != tt.want {
			t.Errorf("Width(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestCutWidth(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"much too long", 8, "much to…"},
		{"検索インデックス", 6, "検索…"},  // 2+2+… = 5 cells: the next wide one would pass 6
		{"検索インデックス", 7, "検索イ…"}, // 2+2+2+1 = 7
		{"検索", 4, "検索"},
		{"e\u0301e\u0301e\u0301", 2, "e\u0301…"}, // clusters are never split
		{"abc", 1, "a"},
		{"abc", 0, ""},
	}
	for _, tt := range tests {
		got := CutWidth(tt.in, tt.n)
		if got != tt.want {
			t.Errorf("CutWidth(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
		if Width(got) > tt.n {
			t.Errorf("CutWidth(%q, %d) = %q is %d cells", tt.in, tt.n, got, Width(got))
		}
	}
}

func TestCutStart(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"/home/ann/.pi/x.jsonl", 10, "…i/x.jsonl"},
		{"/a/検索.jsonl", 9, "…索.jsonl"},
		{"short", 9, "short"},
	} {
		if got := CutStart(tt.in, tt.n); got != tt.want || Width(got) > tt.n {
			t.Errorf("CutStart(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestPad(t *testing.T) {
	if got := PadRight("検索", 6); got != "検索  " {
		t.Errorf("PadRight = %q", got)
	}
	if got := PadLeft("1,234", 7); got != "  1,234" {
		t.Errorf("PadLeft = %q", got)
	}
}

func TestNumbers(t *testing.T) {
	tests := []struct {
		f                   float64
		round, short, money string
	}{
		{0, "0", "0", "$0.00"},
		{1712834.7000000002, "1,712,835", "1.7M", "$1,712,834.70"},
		{1371576570.3999999, "1,371,576,570", "1.4G", "$1,371,576,570.40"},
		{1153, "1,153", "1.2k", "$1,153.00"},
		{999.4, "999", "999", "$999.40"},
		{0.0042, "0", "0", "$0.0042"},
		{0.005, "0", "0", "$0.01"},
		{-12.5, "-13", "-13", "-$12.50"},
		{45321, "45,321", "45.3k", "$45,321.00"},
		{999960, "999,960", "1.0M", "$999,960.00"},
	}
	for _, tt := range tests {
		if got := Round(tt.f); got != tt.round {
			t.Errorf("Round(%v) = %q, want %q", tt.f, got, tt.round)
		}
		if got := Short(tt.f); got != tt.short {
			t.Errorf("Short(%v) = %q, want %q", tt.f, got, tt.short)
		}
		if got := Money(tt.f); got != tt.money {
			t.Errorf("Money(%v) = %q, want %q", tt.f, got, tt.money)
		}
	}
}

func TestMoneyShort(t *testing.T) {
	for _, tt := range []struct {
		f    float64
		want string
	}{
		{12.5, "$12.50"},
		{999_999_999_999, "$999,999,999,999.00"},
		{1e12, "$1e+12"},
		{math.MaxFloat64, "$1.8e+308"},
		{-5e15, "-$5e+15"},
	} {
		if got := MoneyShort(tt.f); got != tt.want {
			t.Errorf("MoneyShort(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

// Wrap breaks between words by display width, never inside one that
// fits a line (issue 39, item 13: "docke / r-compose" at 80 columns).
func TestWrap(t *testing.T) {
	for _, tt := range []struct {
		s     string
		width int
		want  []string
	}{
		{"run docker-compose up", 80, []string{"run docker-compose up"}},
		{"run docker-compose up", 16, []string{"run", "docker-compose", "up"}},
		{"run docker-compose up", 10, []string{"run", "docker-com", "pose up"}},
		{"see /usr/local/bin now", 16, []string{"see", "/usr/local/bin", "now"}},
		{"aaaa bbbb cccc", 9, []string{"aaaa bbbb", "cccc"}},
		{"aaaa   bbbb", 4, []string{"aaaa", "bbbb"}},
		{"abcdefghij xy", 4, []string{"abcd", "efgh", "ij", "xy"}},
		{"検索の結果です", 6, []string{"検索の", "結果で", "す"}},
		{"zero\nwidth x", 80, []string{"zero", "width x"}},
		{"", 10, []string{""}},
		{"one two", 0, []string{"one two"}},
	} {
		var got []string
		for _, l := range Wrap(tt.s, tt.width) {
			got = append(got, tt.s[l[0]:l[1]])
			if tt.width > 0 && Width(tt.s[l[0]:l[1]]) > tt.width {
				t.Errorf("Wrap(%q, %d): line %q wider than %d", tt.s, tt.width, tt.s[l[0]:l[1]], tt.width)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
	}
}
