package pi

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode"

	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/schema"
)

// ErrorRunes is how much of an error message the catalog keeps: enough to
// tell errors apart and group the same ones, not a log.
const ErrorRunes = 200

// ErrorLine is an assistant's errorMessage as the catalog keeps it: its
// first non-blank line, spaces folded, cut to ErrorRunes.
func ErrorLine(msg string) string {
	for _, l := range strings.Split(msg, "\n") {
		if l = text.OneLine(l); l != "" {
			return text.Cut(l, ErrorRunes)
		}
	}
	return ""
}

// CommandWord is the word a shell command is counted by: the first word
// of its first command that is not a change of directory, after any
// leading VAR=value assignments and without a directory ("cd web && npm
// test" is npm, "/usr/bin/git status" is git, "FOO=1 go test" is go); cd
// when it does nothing else; "" for none. Commands are split at &&, ||,
// ; and line ends (a pipe's first command names it).
func CommandWord(cmd string) string {
	first := ""
	for _, part := range commandSplit.Split(cmd, -1) {
		w := firstWord(part)
		if w == "" {
			continue
		}
		if first == "" {
			first = w
		}
		if w != "cd" && w != "pushd" {
			return w
		}
	}
	return first
}

var commandSplit = regexp.MustCompile(`&&|\|\||;|\n`)

// firstWord is a simple command's program (see CommandWord).
func firstWord(cmd string) string {
	for _, w := range strings.FieldsFunc(cmd, unicode.IsSpace) {
		if i := strings.IndexByte(w, '='); i > 0 && !strings.ContainsAny(w[:i], "/$'\"(") {
			continue // an assignment
		}
		w = strings.TrimRight(strings.TrimLeft(w, "({"), ")};")
		if i := strings.LastIndexByte(w, '/'); i >= 0 && i < len(w)-1 {
			w = w[i+1:]
		}
		return text.Cut(w, 40)
	}
	return ""
}

// resultSize is a tool result's text in bytes: a string content's, else
// the sum of its text blocks'; a result written before content blocks
// (2025-11-12), its output's.
func resultSize(m *schema.Message) int64 {
	c := m.Content
	switch {
	case c.IsNull():
		return int64(len(m.Output))
	case c.IsString():
		s, _ := js.StringValue(json.RawMessage(c))
		return int64(len(s))
	}
	bs, err := c.Blocks()
	if err != nil {
		return 0
	}
	n := 0
	for _, b := range bs {
		if b.Type == schema.BlockText {
			n += len(b.Text)
		}
	}
	return int64(n)
}
