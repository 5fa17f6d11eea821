package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/text"
)

// A terminal table measures display cells (CJK takes two), right-aligns
// number columns, and with Fit never writes a row wider than the
// terminal: the flex column gives way first.
func TestTableOnATerminal(t *testing.T) {
	rows := [][]string{
		{"2026-09-14", "12", "$1,153.00", "全文検索のテスト：インデックスを作り直す"},
		{"2026-09-15", "1,204", "$0.07", "fix the build"},
		{"2026-09-16", "3", "-", "검색 결과가 없습니다"},
	}
	tests := []struct {
		name  string
		width int
		want  string
	}{
		{"natural", 0, "" +
			"DAY          MSGS       COST  TITLE\n" +
			"2026-09-14     12  $1,153.00  全文検索のテスト：インデックスを作り直す\n" +
			"2026-09-15  1,204      $0.07  fix the build\n" +
			"2026-09-16      3          -  검색 결과가 없습니다\n"},
		// 30 cells for the other columns, 20 for the title (9 wide
		// characters and the ellipsis; the Korean title is exactly 20).
		{"fitted to 50", 50, "" +
			"DAY          MSGS       COST  TITLE\n" +
			"2026-09-14     12  $1,153.00  全文検索のテスト：…\n" +
			"2026-09-15  1,204      $0.07  fix the build\n" +
			"2026-09-16      3          -  검색 결과가 없습니다\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		tb := NewTable(&b, true, "DAY", "MSGS", "COST", "TITLE")
		for _, r := range rows {
			tb.Row(r...)
		}
		if err := tb.Fit(tt.width, 3).Flush(); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, b.String(), tt.want)
		}
		for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if w := text.Width(l); tt.width > 0 && w > tt.width {
				t.Errorf("%s: a row of %d cells: %q", tt.name, w, l)
			}
		}
	}
}

// No width is too narrow: a row is cut at the edge when no column can
// give way any more; piped tables are never cut.
func TestTableNeverWiderThanTheTerminal(t *testing.T) {
	for _, width := range []int{10, 20, 33, 80} {
		var b bytes.Buffer
		tb := NewTable(&b, true, "ID", "TOKENS", "NAME")
		tb.Row("01a09f30-132d", "1,371,576,570", "压缩日志 compress the logs")
		if err := tb.Fit(width).Flush(); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if w := text.Width(l); w > width {
				t.Errorf("width %d: a row of %d cells: %q", width, w, l)
			}
		}
	}
	var b bytes.Buffer
	tb := NewTable(&b, false, "id", "name")
	tb.Row("x", strings.Repeat("検", 100))
	_ = tb.Fit(10).Flush()
	if !strings.Contains(b.String(), strings.Repeat("検", 100)) {
		t.Errorf("a piped table was cut: %q", b.String())
	}
}

// A piped cell stays on its line: tab, newline, carriage return and
// backslash are escaped, everything else is written as it is.
func TestTSVEscape(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "",
		"plain text":       "plain text",
		"a\tb":             `a\tb`,
		"line\nnext\r\n":   `line\nnext\r\n`,
		`C:\path\`:         `C:\\path\\`,
		"\\t is not a tab": `\\t is not a tab`,
		"日本\t語\u0085 ok\n": "日本\\t語\u0085 ok\\n",
	} {
		if got := tsvEscape(in); got != want {
			t.Errorf("tsvEscape(%q) = %q, want %q", in, got, want)
		}
	}
}

// A table that does not fit even with its text columns at their usual
// narrowest keeps every number whole: one cell between the columns, and
// the text narrower still, before any row is cut at the edge (a cost
// report's nine columns on 70 cells lost the last column's figures).
func TestTableKeepsNumbersWhole(t *testing.T) {
	header := []string{"model", "calls", "input", "output", "cache rd", "cache wr", "total", "cost", "estimate"}
	rows := [][]string{
		{"anthropic/claude-opus-4-5", "245", "8.0k", "47.5k", "25.1M", "1.0M", "26.2M", "$19.99", "$0.00"},
		{"kimchi-dev/kimi-k2.5", "56", "2.7M", "8.5k", "0", "0", "2.7M", "$0.00*", "$1.68"},
	}
	for _, width := range []int{80, 72, 70, 66} {
		var b bytes.Buffer
		tb := NewTable(&b, true, header...)
		for _, r := range rows {
			tb.Row(r...)
		}
		if err := tb.Fit(width).Flush(); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if w := text.Width(l); w > width {
				t.Errorf("width %d: a row of %d cells: %q", width, w, l)
			}
		}
		for _, r := range rows {
			for _, num := range r[1:] {
				if !strings.Contains(out, num) {
					t.Errorf("width %d: %q cut:\n%s", width, num, out)
				}
			}
		}
	}
}
