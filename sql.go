package pidex

import (
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// SQLOptions are one read-only statement on the catalog's views.
type SQLOptions struct {
	// Statement is one SELECT, WITH, VALUES, EXPLAIN or reading PRAGMA;
	// anything that would write, attach or load is refused (ErrUsage).
	Statement string
	// Params bind :name to a value (integers and reals as numbers).
	Params map[string]string
	// Timeout interrupts the statement (ErrTimeout); 0: none.
	Timeout time.Duration
	// MaxRows stops reading after this many rows (Rows.More says whether
	// there were more); 0: every row.
	MaxRows int
}

// Rows is a statement's result: column names and rows of values (int64,
// float64, string, []byte or nil).
type Rows struct {
	Columns []string
	Rows    [][]any
	// More: the statement had rows past SQLOptions.MaxRows, not read.
	More bool
}

// RowSink takes a statement's result as it is read, so that a result of
// any size (an endless SELECT) costs the memory of one row: Columns once,
// then Row for every row, which returns false to stop reading (the rest
// of the result is never computed).
type RowSink interface {
	Columns(cols []string) error
	Row(vals []any) (more bool, err error)
}

// RowCollector is a RowSink that keeps the rows, at most Max (0: all);
// Rows.More says the statement had more.
type RowCollector struct {
	Rows Rows
	Max  int
}

// Columns keeps the result's columns.
func (c *RowCollector) Columns(cols []string) error {
	c.Rows.Columns = cols
	if c.Rows.Rows == nil {
		c.Rows.Rows = [][]any{}
	}
	return nil
}

// Row keeps a row, or stops the statement past Max (the rest is never
// read: a huge result costs nothing past the limit).
func (c *RowCollector) Row(vals []any) (bool, error) {
	if c.Max > 0 && len(c.Rows.Rows) == c.Max {
		c.Rows.More = true
		return false, nil
	}
	c.Rows.Rows = append(c.Rows.Rows, vals)
	return true, nil
}

// MaxSQLValue is the largest value (text or blob) a statement may make or
// read: a longer one fails the statement (SQLite's "string or blob too
// big"), so that one value, such as a group_concat over every entry,
// cannot take gigabytes.
const MaxSQLValue = 64 << 20

// ErrStatement: SQLite could not run a statement (a syntax error, an
// unknown table or column, an error a function raised): the statement's
// fault, whose message is SQLite's, not the catalog's.
var ErrStatement = errors.New("the SQL statement failed")

// StatementError is SQLite's error for a statement (errors.Is(err,
// ErrStatement)).
type StatementError struct{ Err error }

// Error is SQLite's message without the driver's decoration ("SQL logic
// error: …", a trailing result code "(1)").
func (e *StatementError) Error() string {
	msg := strings.TrimPrefix(e.Err.Error(), "SQL logic error: ")
	if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
		if _, err := strconv.Atoi(msg[i+2 : len(msg)-1]); err == nil {
			msg = msg[:i]
		}
	}
	return msg
}

func (e *StatementError) Unwrap() error        { return e.Err }
func (e *StatementError) Is(target error) bool { return target == ErrStatement }

// Verb is the statement's first word in capitals (SELECT, PRAGMA, …),
// comments and white space skipped: what Check decides by, and what a
// backend that refuses some verbs reads.
func (o SQLOptions) Verb() string {
	first, _ := firstWord(o.Statement)
	return strings.ToUpper(first)
}

// Check accepts exactly one statement that starts with SELECT, WITH,
// VALUES, EXPLAIN or PRAGMA: the first of the read-only SQL interface's
// locks (a backend's authorizer then refuses writes hidden behind WITH,
// and pragmas that set; VACUUM INTO, which SQLite runs on read-only
// databases without asking its authorizer, stops here).
func (o SQLOptions) Check() error {
	first, rest := firstWord(o.Statement)
	word := strings.ToUpper(first)
	switch {
	case word == "SELECT", word == "WITH", word == "VALUES", word == "EXPLAIN", word == "PRAGMA":
	case strings.TrimSpace(skipSQLSpace(o.Statement)) == "":
		return Usagef("no SQL statement given: write one, such as SELECT count(*) FROM sessions_v")
	case writes[word]:
		return Usagef("SQL on the catalog is read-only: %s statements are refused (it runs SELECT, WITH, VALUES, EXPLAIN and PRAGMAs that read)", word)
	case word == "":
		return Usagef("%q does not start a SQL statement: start with SELECT, WITH, VALUES, EXPLAIN or PRAGMA", cutStatement(o.Statement))
	default:
		hint := ""
		for _, w := range []string{"SELECT", "WITH", "VALUES", "EXPLAIN", "PRAGMA"} {
			if EditDistance(word, w) <= 2 {
				hint = " (did you mean " + w + "?)"
				break
			}
		}
		return Usagef("%s is not a SQL statement this runs%s: start with SELECT, WITH, VALUES, EXPLAIN or PRAGMA", first, hint)
	}
	if more := afterFirstStatement(rest); more != "" {
		return Usagef("one statement at a time (found more after ';')")
	}
	return nil
}

// writes are the statements that change a database, or attach, detach,
// vacuum or run transactions: refused, and said to be.
var writes = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "REPLACE": true, "UPSERT": true, "CREATE": true, "DROP": true,
	"ALTER": true, "ATTACH": true, "DETACH": true, "VACUUM": true, "REINDEX": true, "ANALYZE": true,
	"BEGIN": true, "COMMIT": true, "END": true, "ROLLBACK": true, "SAVEPOINT": true, "RELEASE": true,
}

// cutStatement is the start of a statement, for a message.
func cutStatement(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 20 {
		return string(r[:20]) + "…"
	}
	return s
}

// EditDistance is the Levenshtein distance of two short words: how
// pidex's messages find the word a user meant (a SQL keyword, a flag).
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// firstWord skips white space and comments and returns the first word.
func firstWord(s string) (string, string) {
	s = skipSQLSpace(s)
	i := 0
	for i < len(s) && (unicode.IsLetter(rune(s[i])) || s[i] == '_') {
		i++
	}
	return s[:i], s[i:]
}

func skipSQLSpace(s string) string {
	for {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		switch {
		case strings.HasPrefix(s, "--"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return ""
			}
			s = s[i+1:]
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s[2:], "*/")
			if i < 0 {
				return ""
			}
			s = s[i+4:]
		default:
			return s
		}
	}
}

// afterFirstStatement returns what follows the first top-level ';' (not
// inside a string, identifier or comment), without white space and
// comments.
func afterFirstStatement(s string) string {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"', '`':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return ""
			}
			i += j + 1
		case '[':
			j := strings.IndexByte(s[i+1:], ']')
			if j < 0 {
				return ""
			}
			i += j + 1
		case '-':
			if strings.HasPrefix(s[i:], "--") {
				j := strings.IndexByte(s[i:], '\n')
				if j < 0 {
					return ""
				}
				i += j
			}
		case '/':
			if strings.HasPrefix(s[i:], "/*") {
				j := strings.Index(s[i+2:], "*/")
				if j < 0 {
					return ""
				}
				i += j + 3
			}
		case ';':
			return strings.TrimSpace(skipSQLSpace(s[i+1:]))
		}
	}
	return ""
}
