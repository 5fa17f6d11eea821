package fts

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pidex-dev/pidex"
)

func TestPrepare(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text stays", "plain text stays"},
		{"全文検索", " 全文 文検 検索 索 "},
		{"pidexの検索", "pidex の検 検索 索 "},
		{"検", " 検 "},
		{"压缩 数据库。", " 压缩 缩   数据 据库 库 。"},
	}
	for _, tt := range tests {
		if got := Prepare(tt.in); got != tt.want {
			t.Errorf("Prepare(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseMatch(t *testing.T) {
	tests := []struct{ in, want string }{
		{"error", `"error"`},
		{"parse_header", `"parse_header"`},
		{"src/query/path.go", `"src/query/path.go"`},
		{`"two words"`, `"two words"`},
		{"migrat*", `"migrat"*`},
		{`"a phrase"*`, `"a phrase"*`},
		{"a b", `("a" AND "b")`},
		{"a AND b", `("a" AND "b")`},
		{"a OR b", `("a" OR "b")`},
		{"a b OR c", `((("a" AND "b")) OR "c")`},
		{"a -b", `"a" NOT "b"`},
		{"a -b -c", `"a" NOT "b" NOT "c"`},
		{"a -(b OR c)", `"a" NOT (("b" OR "c"))`},
		{"(a OR b) c", `((("a" OR "b")) AND "c")`},
		{"検索", `"検索"`},
		{"インデックス", `"イン ンデ デッ ック クス"`},
		{"压缩包", `"压缩 缩包"`},
		{`say "hi"`, `("say" AND "hi")`},
		{"a - b", `("a" AND "b")`},
		{"NOT", `"NOT"`},
		{"or", `"or"`},
	}
	for _, tt := range tests {
		n, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := n.Match(); got != tt.want {
			t.Errorf("Parse(%q).Match() = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// No user input reaches MATCH unquoted: FTS5 operators and special
// characters inside words stay inside strings.
func TestParseQuotesEverything(t *testing.T) {
	n, err := Parse(`NEAR(a b) col:x ^start a+b {c}`)
	if err != nil {
		t.Fatal(err)
	}
	want := `("NEAR" AND (("a" AND "b")) AND "col:x" AND "^start" AND "a+b" AND "{c}")`
	if got := n.Match(); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{``, `   `, `"unclosed`, `a "b`, `-a`, `-a -b`, `a OR`, `OR a`, `a OR OR b`,
		`(a`, `a)`, `()`, `""`, `a AND`, `AND a`, `-`, `***`, `a (b OR -c)`} {
		_, err := Parse(in)
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, pidex.ErrUsage) || se.Msg == "" {
			t.Errorf("Parse(%q) = %v, want a syntax error that is a usage error", in, err)
		}
	}
	_, err := Parse(`fix "the build`)
	if err == nil || err.Error() != `search query: unclosed quote (at character 5)` {
		t.Errorf("unclosed quote: %v", err)
	}
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{"Café": "cafe", "ÉCOLE": "ecole", "Zürich": "zurich", "naïve": "naive", "ERR": "err", "検索": "検索"} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSnippet(t *testing.T) {
	n, _ := Parse(`parse_header café 検索 migrat*`)
	terms := Highlights(n)
	text := "We call parse_header here.\nThe Cafe menu and 全文検索エンジン; migrations ran."
	segs := Snippet(text, terms, 200)
	var hits []string
	for _, s := range segs {
		if s.Hit {
			hits = append(hits, s.Text)
		}
	}
	want := []string{"parse_header", "Cafe", "検索", "migrations"}
	if len(hits) != len(want) {
		t.Fatalf("hits %q, want %q", hits, want)
	}
	for i := range want {
		if hits[i] != want[i] {
			t.Errorf("hit %d = %q, want %q", i, hits[i], want[i])
		}
	}
	if p := plain(segs); p != "We call parse_header here. The Cafe menu and 全文検索エンジン; migrations ran." {
		t.Errorf("plain snippet %q", p)
	}
	long := "aaa " + strings.Repeat("filler ", 100) + "needle " + strings.Repeat("tail ", 100)
	n2, _ := Parse("needle")
	segs = Snippet(long, Highlights(n2), 60)
	if segs[0].Text != "…" || segs[len(segs)-1].Text != "…" {
		t.Errorf("a cut snippet should show its cuts: %q", plain(segs))
	}
	found := false
	for _, s := range segs {
		found = found || (s.Hit && s.Text == "needle")
	}
	if !found {
		t.Errorf("the snippet lost the match: %q", plain(segs))
	}
}

// plain is a snippet's text without its marks.
func plain(segs []pidex.Segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.Text)
	}
	return b.String()
}

// Mark keeps the whole text and marks every match, case and accents
// folded, CJK inside running text.
func TestMark(t *testing.T) {
	tests := []struct{ query, text, want string }{
		{"cafe", "Un café, then CAFE again.", "Un [café], then [CAFE] again."},
		{"parse_header", "call parse_header() or parse header", "call [parse_header]() or [parse header]"},
		{"migrat*", "migrations and a migration", "[migrations] and a [migration]"},
		{"検索", "全文検索のテスト", "全文[検索]のテスト"},
		{"nothing", "no match here", "no match here"},
	}
	for _, tt := range tests {
		q, err := Parse(tt.query)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, s := range Mark(tt.text, Highlights(q)) {
			if s.Hit {
				b.WriteString("[" + s.Text + "]")
			} else {
				b.WriteString(s.Text)
			}
		}
		if b.String() != tt.want {
			t.Errorf("Mark(%q, %q) = %q, want %q", tt.text, tt.query, b.String(), tt.want)
		}
	}
}

// A snippet is cut at word boundaries and never highlights part of a
// word: at every width, each highlight is a whole match, and the text
// before the closing "…" ends where a word ends.
func TestSnippetNeverHighlightsACutWord(t *testing.T) {
	tests := []struct {
		name, query, text, hit string
	}{
		{"latin", "sqlite", strings.Repeat("The catalog is a SQLite file; ", 8), "SQLite"},
		{"prefix", "migrat*", strings.Repeat("ran the migrations again, ", 8), "migrations"},
		{"cjk", "ファイル", strings.Repeat("セッションのファイルを読む。", 8), "ファイル"},
		{"code", "parse_header", strings.Repeat("call parse_header then ", 8), "parse_header"},
	}
	for _, tt := range tests {
		n, err := Parse(tt.query)
		if err != nil {
			t.Fatal(err)
		}
		terms := Highlights(n)
		for width := 3; width <= 90; width++ {
			segs := Snippet(tt.text, terms, width)
			for _, s := range segs {
				if s.Hit && s.Text != tt.hit {
					t.Errorf("%s, width %d: highlight %q, want only whole %q: %q", tt.name, width, s.Text, tt.hit, plain(segs))
				}
			}
			if last := segs[len(segs)-1]; last.Text == "…" && len(segs) > 1 && !cjkOnly(tt.text) {
				body := strings.TrimPrefix(plain(segs[:len(segs)-1]), "…")
				i := strings.Index(tt.text, body)
				if i < 0 {
					t.Fatalf("%s, width %d: snippet %q is not in the text", tt.name, width, body)
				}
				if end := i + len(body); end < len(tt.text) && isWordRune(lastRune(body)) && isWordRune(firstRune(tt.text[end:])) {
					t.Errorf("%s, width %d: cut inside a word: %q", tt.name, width, plain(segs))
				}
			}
		}
	}
}

func cjkOnly(s string) bool {
	for _, r := range s {
		if !IsCJK(r) && isWordRune(r) {
			return false
		}
	}
	return true
}

func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }
func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }

// Deep or wide queries, as a hostile tester wrote them (each reached
// SQLite's "parser stack overflow" or "expression tree is too large"
// before): a usage error that says what bound they passed, and where.
func TestParseBounds(t *testing.T) {
	nest := func(open, inner, close string, n int) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	for _, tt := range []struct{ name, q, msg string }{
		{"25 nested groups", nest("(x ", "a", ")", 25), "nested too deep"},
		{"a 24-deep OR chain", nest("(x OR ", "a", ")", 24), "nested too deep"},
		{"34 nested exclusions", nest("x -(y ", "a", ")", 34), "nested too deep"},
		{"257 exclusions", "a " + strings.Repeat("-x ", 257), "too many exclusions"},
		{"a thousand words", strings.Repeat("w ", 1000), "too many words"},
		{"a million parentheses", strings.Repeat("(", 1_000_000) + "a" + strings.Repeat(")", 1_000_000), "nested too deep"},
	} {
		_, err := Parse(tt.q)
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, pidex.ErrUsage) || !strings.Contains(se.Msg, tt.msg) {
			t.Errorf("%s: %v, want a usage error saying %q", tt.name, err, tt.msg)
		}
	}
	// At the bounds, queries parse.
	for _, q := range []string{
		nest("(x ", "a", ")", MaxDepth),
		"a " + strings.Repeat("-x ", MaxExclusions),
		strings.Repeat("w ", MaxTerms),
	} {
		if _, err := Parse(q); err != nil {
			t.Errorf("Parse(%.40q…): %v", q, err)
		}
	}
}
