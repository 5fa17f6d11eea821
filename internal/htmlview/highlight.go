package htmlview

import (
	"html/template"
	"strings"
	"sync"
)

// highlight colours code by a small, language-agnostic tokenizer: comments,
// strings, numbers and keywords of a few families of languages. It is not
// a parser; it only has to make code easier to read, and it escapes
// everything it emits. An unknown language is escaped only.
func highlight(lang, code string) template.HTML {
	fam, ok := families()[lang]
	if !ok {
		return template.HTML(Escape(code))
	}
	if fam == famDiff {
		return highlightDiff(code)
	}
	kw := keywords()
	var b strings.Builder
	span := func(class, s string) {
		b.WriteString(`<span class="` + class + `">` + Escape(s) + `</span>`)
	}
	for i := 0; i < len(code); {
		c := code[i]
		rest := code[i:]
		switch {
		case fam.line != "" && strings.HasPrefix(rest, fam.line) || fam == famHash && c == '#':
			end := strings.IndexByte(rest, '\n')
			if end < 0 {
				end = len(rest)
			}
			span("c", rest[:end])
			i += end
		case fam.block && strings.HasPrefix(rest, "/*"):
			end := strings.Index(rest[2:], "*/")
			if end < 0 {
				end = len(rest)
			} else {
				end += 4
			}
			span("c", rest[:end])
			i += end
		case c == '"' || c == '\'' || c == '`':
			n := quoted(rest)
			span("s", rest[:n])
			i += n
		case c >= '0' && c <= '9' && (i == 0 || !isWord(code[i-1])):
			n := 1
			for n < len(rest) && (isWord(rest[n]) || rest[n] == '.') {
				n++
			}
			span("n", rest[:n])
			i += n
		case isWord(c) && (i == 0 || !isWord(code[i-1])):
			n := 1
			for n < len(rest) && isWord(rest[n]) {
				n++
			}
			if kw[rest[:n]] {
				span("k", rest[:n])
			} else {
				b.WriteString(Escape(rest[:n]))
			}
			i += n
		default:
			b.WriteString(Escape(code[i : i+1]))
			i++
		}
	}
	return template.HTML(b.String())
}

// quoted is the length of the string literal at the start of s: to the
// closing quote, past backslash escapes; a ' or " string ends at the line's
// end (an apostrophe in a comment-less language must not swallow the file).
func quoted(s string) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\':
			i++
		case s[i] == q:
			return i + 1
		case s[i] == '\n' && q != '`':
			return i
		}
	}
	return len(s)
}

func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func highlightDiff(code string) template.HTML {
	var b strings.Builder
	for i, l := range strings.Split(code, "\n") {
		if i > 0 {
			b.WriteString("\n")
		}
		class := ""
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"):
			class = "k"
		case strings.HasPrefix(l, "+"):
			class = "add"
		case strings.HasPrefix(l, "-"):
			class = "del"
		}
		if class == "" {
			b.WriteString(Escape(l))
		} else {
			b.WriteString(`<span class="` + class + `">` + Escape(l) + `</span>`)
		}
	}
	return template.HTML(b.String())
}

// family is how a group of languages writes comments.
type family struct {
	line  string // line comment ("" none)
	block bool   // /* … */
}

var (
	famC    = &family{line: "//", block: true}
	famHash = &family{}
	famDash = &family{line: "--"}
	famNone = &family{}
	famDiff = &family{}
)

// families and keywords are built on first use (a code block on a page),
// not at package init, which every command pays for at start.
var families = sync.OnceValue(func() map[string]*family {
	families := map[string]*family{}
	for fam, langs := range map[*family]string{
		famC:    "go c h cpp c++ cc cs csharp java js jsx mjs cjs javascript ts tsx typescript rust rs swift kotlin kt scala php css scss less dart zig proto",
		famHash: "sh bash zsh shell console python py ruby rb yaml yml toml perl pl r makefile make dockerfile ini conf nix elixir ex",
		famDash: "sql lua haskell hs",
		famNone: "json jsonc jsonl ndjson",
		famDiff: "diff patch",
	} {
		for _, l := range strings.Fields(langs) {
			families[l] = fam
		}
	}
	return families
})

var keywords = sync.OnceValue(func() map[string]bool {
	keywords := map[string]bool{}
	for _, k := range strings.Fields(`break case catch chan class const continue def default defer del do done elif else
		enum esac except export extends false fi final finally fn for from func function go if impl import in
		interface let local match mut new nil none None null package pass private protected pub public raise
		range return select self static struct super switch then this throw throws true True False try type
		typeof undefined use var void while with yield async await as lambda not and or is of echo
		SELECT FROM WHERE JOIN LEFT INNER ON GROUP BY ORDER LIMIT INSERT INTO UPDATE DELETE CREATE TABLE
		INDEX VIEW WITH AS AND OR NOT NULL IS IN VALUES SET select from where join group by order limit`) {
		keywords[k] = true
	}
	return keywords
})
