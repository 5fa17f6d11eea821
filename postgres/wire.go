package postgres

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// A group of files travels as parts, from the reader (pushread.go) to the
// writer (pushrows.go): in this process for a direct push, as JSON lines
// in an HTTP request's body for a push to a team server (pushhttp.go).
// Each file's head comes first, then its rows. The parts never carry the
// team catalog's ids: the writer puts in the machine's id and its own file
// ids, so a part cannot write another machine's rows.

// errProtocol: parts that do not follow the protocol (a team server's
// client of another build, or a broken one).
var errProtocol = errors.New("malformed push")

// pushPart is one piece of a group: exactly one of its fields is set.
type pushPart struct {
	Group *groupHead `json:"group,omitempty"` // over HTTP: first
	File  *fileHead  `json:"file,omitempty"`
	Rows  *tableRows `json:"rows,omitempty"`
	Lines []lineRow  `json:"lines,omitempty"`
	End   bool       `json:"end,omitempty"` // over HTTP: last (a body cut short is never applied)
}

// groupHead says, over HTTP, whose catalog the group's cursors come from.
type groupHead struct {
	Catalog string `json:"catalog"`
	Format  string `json:"format"`
}

// fileHead is a file's plan and cursor: what to do, the local catalog's
// row to record as it leaves the machine (pushread.go, outHead: its path,
// root and last id redacted with --redact, no working directory), the
// file's name as it leaves, and the team catalog's row it was planned
// from (nil for a new file).
type fileHead struct {
	Act    action      `json:"act"`
	Local  localFile   `json:"local"`
	Base   string      `json:"base"`
	Pushed *pushedFile `json:"pushed,omitempty"`
}

// tableRows are rows of one table, its columns in order (file and machine
// as placeholders).
type tableRows struct {
	Table string `json:"table"`
	Rows  rowSet `json:"rows"`
}

// lineRow is an entry's raw line (redacted with --redact), its search
// text and its search rows.
type lineRow struct {
	Offset int64      `json:"o"`
	Raw    []byte     `json:"r"`
	Text   string     `json:"t,omitempty"`
	Index  []indexRow `json:"i,omitempty"`
}

// indexRow is a search row of an entry (text_index), part by part.
type indexRow struct {
	Win    bool   `json:"w,omitempty"`
	Exact  bool   `json:"x,omitempty"`
	Tokens int    `json:"n,omitempty"`
	First  int    `json:"f,omitempty"`
	Vec    []byte `json:"v"` // binary tsvector (pgsearch.Row.Vec)
}

// pushTables are the tables parts may name.
var pushTables = func() map[string]table {
	m := map[string]table{}
	for _, t := range append([]table{entriesTable, toolCallsTable}, smallTables...) {
		m[t.name] = t
	}
	return m
}()

// newPartDecoder reads parts as the writer takes them: numbers kept
// exact, to be typed by rowSet.typed.
func newPartDecoder(r io.Reader) *json.Decoder {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	return dec
}

// rowSet is rows of SQLite values (nil, int64, float64, string, []byte)
// in JSON that keeps their types: a double always has a point or an
// exponent (or is {"f":"NaN"}, {"f":"+Inf"}…), bytes are {"b":base64}.
type rowSet [][]any

// MarshalJSON writes the rows keeping each value's type.
func (rs rowSet) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		for k, v := range r {
			if k > 0 {
				b.WriteByte(',')
			}
			if err := writeValue(&b, v); err != nil {
				return nil, err
			}
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

func writeValue(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			fmt.Fprintf(b, `{"f":%q}`, strconv.FormatFloat(x, 'g', -1, 64))
			return nil
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		b.WriteString(s)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		q, err := json.Marshal(x)
		if err != nil {
			return err
		}
		b.Write(q)
	case []byte:
		b.WriteString(`{"b":"`)
		b.WriteString(base64.StdEncoding.EncodeToString(x))
		b.WriteString(`"}`)
	default:
		return fmt.Errorf("push a %T: not a SQLite value", v)
	}
	return nil
}

// typed turns the rows a JSON decoder made (with UseNumber) back into
// SQLite values, each string made valid text.
func (rs rowSet) typed() error {
	for _, r := range rs {
		for i, v := range r {
			var err error
			if r[i], err = typedValue(v); err != nil {
				return err
			}
		}
	}
	return nil
}

func typedValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool:
		return x, nil
	case string:
		return pgText(x), nil
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return strconv.ParseFloat(string(x), 64)
		}
		return strconv.ParseInt(string(x), 10, 64)
	case map[string]any:
		if s, ok := x["b"].(string); ok && len(x) == 1 {
			return base64.StdEncoding.DecodeString(s)
		}
		if s, ok := x["f"].(string); ok && len(x) == 1 {
			return strconv.ParseFloat(s, 64)
		}
	}
	return nil, fmt.Errorf("%w: a value %v", errProtocol, v)
}
