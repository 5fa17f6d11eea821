package js

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Member is one key of a JSON object and its raw value.
type Member struct {
	Key string
	Val json.RawMessage
}

// Object is a JSON object that keeps its key order, as JavaScript does for
// the objects pi parses and builds. A duplicate key keeps its first
// position and its last value (JSON.parse does the same).
type Object []Member

// ParseObject splits a JSON object into its members; ok is false for any
// other value. The values are sub-slices of raw (nothing is copied or
// decoded), so it costs one pass over the bytes: the lines it reads were
// validated as JSON when they were read, and it only checks the structure
// it walks.
func ParseObject(raw json.RawMessage) (Object, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	o := Object{}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return o, skipSpace(raw, i+1) == len(raw)
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return nil, false
		}
		end, ok := scanString(raw, i)
		if !ok {
			return nil, false
		}
		key, ok := StringValue(raw[i:end])
		if !ok {
			return nil, false
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i = skipSpace(raw, i+1)
		end, ok = scanValue(raw, i)
		if !ok {
			return nil, false
		}
		o.Set(key, raw[i:end:end])
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
			continue
		case '}':
			return o, skipSpace(raw, i+1) == len(raw)
		}
		return nil, false
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the index just after the string starting at b[i].
func scanString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// scanValue returns the index just after the JSON value starting at b[i].
func scanValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return scanString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := scanString(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[j])) {
		j++
	}
	return j, j > i
}

// Get returns the value of key, nil if absent (undefined).
func (o Object) Get(key string) json.RawMessage {
	for _, m := range o {
		if m.Key == key {
			return m.Val
		}
	}
	return nil
}

// Str returns the value of key if it is a JSON string, else "".
func (o Object) Str(key string) string {
	s, _ := StringValue(o.Get(key))
	return s
}

// Set replaces the value of key in place, or appends it.
func (o *Object) Set(key string, val json.RawMessage) {
	for i := range *o {
		if (*o)[i].Key == key {
			(*o)[i].Val = val
			return
		}
	}
	*o = append(*o, Member{key, val})
}

// SetDefined sets key unless val is undefined (nil), like a JavaScript
// object literal whose undefined fields JSON.stringify leaves out.
func (o *Object) SetDefined(key string, val json.RawMessage) {
	if val != nil {
		o.Set(key, val)
	}
}

// Del removes key.
func (o *Object) Del(key string) {
	for i := range *o {
		if (*o)[i].Key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

// MarshalJSON writes the object with its keys in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(JSONString(m.Key))
		b.WriteByte(':')
		b.Write(m.Val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Field returns one top-level field of a JSON object (nil if absent or raw
// is not an object).
func Field(raw json.RawMessage, key string) json.RawMessage {
	o, _ := ParseObject(raw)
	return o.Get(key)
}

// JSONString encodes s as a JSON string (without HTML escaping, like
// JSON.stringify).
func JSONString(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// JSONBool encodes v.
func JSONBool(v bool) json.RawMessage {
	if v {
		return json.RawMessage("true")
	}
	return json.RawMessage("false")
}

// StringValue decodes a JSON string.
func StringValue(v json.RawMessage) (string, bool) {
	if !IsString(v) {
		return "", false
	}
	t := bytes.TrimSpace(v)
	if len(t) >= 2 && t[len(t)-1] == '"' && bytes.IndexByte(t, '\\') < 0 && utf8.Valid(t) {
		return string(t[1 : len(t)-1]), true // nothing to unescape
	}
	if s, ok := unescapeShort(t); ok {
		return s, true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// unescapeShort decodes the JSON string literal t (quotes included)
// when its only escapes are the two-character ones (\n, \t, \", \\ and
// the like) and it is valid UTF-8: most of a session's escaped strings
// (tool output, commands, code). Anything else — a \u escape, a control
// character, a malformed literal — is not ok, and encoding/json decodes
// it (FuzzStringValue checks the two agree): its unquoting was 1.3 s of
// a cold text pass's reader (profiled, BENCHMARKS.md).
func unescapeShort(t []byte) (string, bool) {
	if len(t) < 2 || t[0] != '"' || t[len(t)-1] != '"' || !utf8.Valid(t) {
		return "", false
	}
	body := t[1 : len(t)-1]
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			if c < 0x20 || c == '"' {
				return "", false
			}
			out = append(out, c)
			continue
		}
		if i++; i == len(body) {
			return "", false
		}
		switch e := body[i]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		default:
			return "", false
		}
	}
	return string(out), true
}

// StringOr decodes a JSON string, or returns def.
func StringOr(v json.RawMessage, def string) string {
	if s, ok := StringValue(v); ok {
		return s
	}
	return def
}

// Compact is raw on one line, without HTML escaping.
func Compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// EachElement calls fn with every element of a JSON array (sub-slices of
// raw, nothing decoded); anything but an array calls it never.
func EachElement(raw json.RawMessage, fn func(json.RawMessage)) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return
	}
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] != ']' {
		end, ok := scanValue(raw, i)
		if !ok {
			return
		}
		fn(raw[i:end:end])
		i = skipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
}

// Scalars calls fn with every object key and scalar value of a JSON value,
// in document order: strings decoded (escapes such as \n and \t become the
// characters they stand for), numbers and booleans as written; null is
// skipped. Text that is not valid JSON is passed to fn whole.
func Scalars(raw json.RawMessage, fn func(s string)) {
	i := skipSpace(raw, 0)
	if i == len(raw) {
		return
	}
	if end, ok := scanValue(raw, i); !ok || skipSpace(raw, end) != len(raw) || !json.Valid(raw) {
		fn(strings.TrimSpace(string(raw)))
		return
	}
	scalars(raw, i, fn)
}

// scalars walks the value at b[i] and returns the index after it.
func scalars(b []byte, i int, fn func(string)) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		end, ok := scanString(b, i)
		if !ok {
			return i, false
		}
		s, ok := StringValue(b[i:end])
		if !ok {
			return i, false
		}
		if s != "" {
			fn(s)
		}
		return end, true
	case '{', '[':
		closer := byte('}')
		if b[i] == '[' {
			closer = ']'
		}
		j := skipSpace(b, i+1)
		if j < len(b) && b[j] == closer {
			return j + 1, true
		}
		for {
			if closer == '}' {
				end, ok := scalars(b, j, fn) // the key
				if !ok || b[j] != '"' {
					return j, false
				}
				j = skipSpace(b, end)
				if j >= len(b) || b[j] != ':' {
					return j, false
				}
				j = skipSpace(b, j+1)
			}
			end, ok := scalars(b, j, fn)
			if !ok {
				return j, false
			}
			j = skipSpace(b, end)
			if j >= len(b) {
				return j, false
			}
			switch b[j] {
			case ',':
				j = skipSpace(b, j+1)
			case closer:
				return j + 1, true
			default:
				return j, false
			}
		}
	}
	end, ok := scanValue(b, i)
	if !ok {
		return i, false
	}
	if v := string(b[i:end]); v != "null" {
		fn(v)
	}
	return end, true
}
