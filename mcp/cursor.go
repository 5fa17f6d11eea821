package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"reflect"
	"strings"

	"github.com/pidex-dev/pidex"
)

// Cursors. A page that stops before the end of its result carries a
// next_cursor; passing it back returns the next page. A cursor is opaque
// to the model but not secret: it holds the tool, the call's arguments and
// where the page starts, with a checksum, so that the cursor alone
// continues the call, and a cursor mangled, cut short, made up, or passed
// to another tool or with other arguments is refused with a message saying
// what to do, never silently read as page one.
// Cursors survive a restart of the server (nothing is kept between calls);
// a session that grew meanwhile does not move a reading's pages, since the
// cursor keeps the branch's leaf.

// cursorPrefix versions the format.
const cursorPrefix = "pc1."

type cursor struct {
	Tool   string          `json:"t"`
	Args   json.RawMessage `json:"a"`
	Offset int             `json:"o"`
	Leaf   string          `json:"l,omitempty"`
}

// encode writes a cursor; key holds the result-choosing arguments.
func encodeCursor(tool string, key any, offset int, leaf string) string {
	args, _ := json.Marshal(key) // plain structs of strings, numbers, booleans
	b, _ := json.Marshal(cursor{Tool: tool, Args: args, Offset: offset, Leaf: leaf})
	sum := crc32.ChecksumIEEE(b)
	return cursorPrefix + base64.RawURLEncoding.EncodeToString(b) + fmt.Sprintf(".%08x", sum)
}

// decodeCursor reads a cursor given to tool.
func decodeCursor(tool, s string) (cursor, error) {
	var c cursor
	bad := pidex.Usagef("cursor: not one this server gave (pass a result's next_cursor or prev_cursor unchanged, or call %s without cursor for the first page)", tool)
	body, ok := strings.CutPrefix(strings.TrimSpace(s), cursorPrefix)
	if !ok {
		return c, bad
	}
	i := strings.LastIndexByte(body, '.')
	if i < 0 {
		return c, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(body[:i])
	if err != nil || fmt.Sprintf("%08x", crc32.ChecksumIEEE(b)) != body[i+1:] || json.Unmarshal(b, &c) != nil {
		return c, bad
	}
	if c.Tool != tool {
		return c, pidex.Usagef("cursor: it is a cursor of %s, not of %s (pass it to %s, or call %s without cursor)", c.Tool, tool, c.Tool, tool)
	}
	if c.Offset < 0 {
		return c, bad
	}
	return c, nil
}

// resume merges the arguments a cursor holds into in (a pointer to the
// tool's argument struct): an argument the call left out is taken from
// the cursor, so the cursor alone continues the same call. A
// result-choosing argument the call gives must agree with the cursor's;
// fields tagged cursor:"page" only shape a page (its size, its budget, its
// folding) and may change between pages; fields tagged cursor:"position"
// say where a page starts, which the cursor already does; the field tagged
// cursor:"-" is the cursor itself.
func resume(tool string, c cursor, in any) error {
	v := reflect.ValueOf(in).Elem()
	stored := reflect.New(v.Type())
	if err := json.Unmarshal(c.Args, stored.Interface()); err != nil {
		return pidex.Usagef("cursor: not one this server gave (call %s without cursor for the first page)", tool)
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		got, want := v.Field(i), stored.Elem().Field(i)
		switch f.Tag.Get("cursor") {
		case "-":
			continue
		case "page":
			if got.IsZero() {
				got.Set(want)
			}
			continue
		case "position":
			if !v.Field(i).IsZero() {
				return pidex.Usagef("cursor: it already says where the page starts; leave out %s", name)
			}
			continue
		}
		switch {
		case got.IsZero():
			got.Set(want)
		case !reflect.DeepEqual(got.Interface(), want.Interface()):
			was, _ := json.Marshal(want.Interface())
			return pidex.Usagef("cursor: it continues a call with %s %s; call with the same arguments, or without cursor to start over", name, was)
		}
	}
	return nil
}

// cursorKey is in without its position and its cursor: what a cursor
// remembers of a call.
func cursorKey[T any](in T) T {
	v := reflect.ValueOf(&in).Elem()
	t := v.Type()
	for i := range t.NumField() {
		switch t.Field(i).Tag.Get("cursor") {
		case "-", "position":
			v.Field(i).Set(reflect.Zero(t.Field(i).Type))
		}
	}
	return in
}

// resumeAt is the offset a paged tool starts at: 0 without a cursor, else
// the cursor's, once resume has checked that in asks what the cursor's
// call asked.
func resumeAt(tool, cursor string, in any) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	c, err := decodeCursor(tool, cursor)
	if err != nil {
		return 0, err
	}
	if err := resume(tool, c, in); err != nil {
		return 0, err
	}
	return c.Offset, nil
}

// paged reads what every paged tool takes alike: where the page starts
// (resumeAt), its size (*limit within 1..hi, def when not given) and its
// character budget (*maxChars). Both are read after resumeAt, which fills
// in what the call left out from its cursor: read before, a page asked
// for with limit=3 was continued by pages of the default size.
func (s *Server) paged(tool, cursor string, in any, limit *int, def, hi int, maxChars *int) (int, int, pidex.Budget, error) {
	offset, err := resumeAt(tool, cursor, in)
	if err != nil {
		return 0, 0, pidex.Budget{}, err
	}
	n, err := pidex.Bounded("limit", *limit, def, 1, hi)
	if err != nil {
		return 0, 0, pidex.Budget{}, err
	}
	budget, err := pidex.BudgetOptions{Chars: *maxChars}.Filter(s.cat.Vocabulary())
	return offset, n, budget, err
}
