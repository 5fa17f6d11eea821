package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
)

// Tool arguments are decoded here rather than by the SDK's validator, so
// that every mistake is a message a model can act on ("limit: want a
// whole number, got \"ten\"") instead of a JSON Schema path, and so that
// the small slips models make are forgiven: a number or a boolean sent as
// a string, one string where a list is wanted, null for "not given".

// inputSchema is the JSON Schema of a tool's arguments, generated from
// their Go type (descriptions from the jsonschema tags), then completed by
// the tool (allowed values, bounds, defaults).
func inputSchema[In any](patch func(*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(In), err)) // a programming error, caught by every test
	}
	portable(s)
	if i, op := filterField(reflect.TypeFor[In]()); i >= 0 {
		filterProps(s, op)
	}
	if patch != nil {
		patch(s)
	}
	return s
}

// The registry's filters (pidex.Filters) are arguments of their own,
// named as the registry names them: a tool's argument struct takes them
// in one field of type pidex.Where, tagged filters:"list", "search" or
// "cost" (the operation), which the schema shows as those arguments.

var filterOps = map[string]pidex.Op{"list": pidex.OpList, "search": pidex.OpSearch, "cost": pidex.OpCost}

// filterField is the index of t's field that takes the filters, and their
// operation (-1: none).
func filterField(t reflect.Type) (int, pidex.Op) {
	for i := range t.NumField() {
		if op, ok := filterOps[t.Field(i).Tag.Get("filters")]; ok {
			return i, op
		}
	}
	return -1, 0
}

// filterProps puts the filters of op in a schema, in place of the field
// that takes them.
func filterProps(s *jsonschema.Schema, op pidex.Op) {
	delete(s.Properties, "where")
	for _, f := range pidex.Filters(op) {
		on := f.On(op)
		s.Properties[f.Name] = &jsonschema.Schema{Type: "string",
			Description: "only " + strings.ReplaceAll(on.Help, f.Arg, "this")}
	}
}

// outputSchema is the JSON Schema of a tool's structured result.
func outputSchema[Out any]() *jsonschema.Schema { return inputSchema[Out](nil) }

// portable rewrites what the generator writes but not every client reads
// (the MCP Inspector's --strict check lists them; Gemini's function
// declarations take one type per property): a nullable type ["null", T]
// becomes T — an argument's null is read as "not given" (decodeArgs), and
// a result never holds null where a list or a number goes — and the
// schema of an any (a SQL value) says what it can be.
func portable(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		portable(p)
	}
	if s.Items != nil && reflect.ValueOf(*s.Items).IsZero() {
		s.Items = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "number"}, {Type: "null"}}}
	}
	portable(s.Items)
	portable(s.AdditionalProperties)
}

// decodeArgs fills in (a pointer to a struct) from a tool call's
// arguments, checked against the struct's fields and the schema's
// required list (a call that carries a cursor may omit what the cursor
// holds).
func decodeArgs(tool string, raw json.RawMessage, in any, schema *jsonschema.Schema) error {
	var args map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) > 0 && string(bytes.TrimSpace(raw)) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return pidex.Usagef("the arguments of %s must be a JSON object of named values", tool)
		}
	}
	v := reflect.ValueOf(in).Elem()
	fields := jsonFields(v.Type())
	filters, op := filterField(v.Type())
	given := map[string]bool{}
	for _, k := range slices.Sorted(maps.Keys(args)) {
		i, ok := fields[k]
		if _, listed := schema.Properties[k]; !listed {
			ok = false // a field the tool does not list here (machine on a local catalog)
		}
		if !ok && filters >= 0 {
			if f, ok := pidex.FilterNamed(k); ok && f.On(op).Field != "" {
				if err := decodeFilter(k, args[k], v.Field(filters)); err != nil {
					return err
				}
				given[k] = true
				continue
			}
		}
		if !ok {
			// The arguments the tool's schema lists, as the client sees them.
			names := slices.Sorted(maps.Keys(schema.Properties))
			return pidex.Usagef("%s has no argument %q; it takes %s", tool, k, strings.Join(names, ", "))
		}
		val := bytes.TrimSpace(args[k])
		if string(val) == "null" {
			continue // JSON null: not given
		}
		if err := decodeValue(val, v.Field(i)); err != nil {
			return pidex.Usagef("%s: want %s, got %s", k, kindWord(v.Field(i).Type()), text.Cut(string(val), 60))
		}
		given[k] = true
	}
	if _, hasCursor := fields["cursor"]; hasCursor && given["cursor"] {
		return nil // the cursor holds what the first call required
	}
	for _, r := range schema.Required {
		if !given[r] {
			desc := ""
			if p := schema.Properties[r]; p != nil && p.Description != "" {
				desc = ": " + p.Description
			}
			return pidex.Usagef("%s needs the argument %q%s", tool, r, desc)
		}
	}
	return nil
}

// decodeFilter decodes a filter's value into the pidex.Where w, forgiving
// a number or a boolean (its JSON text) and a list of strings (joined by
// commas, as a OneOf's words are).
func decodeFilter(name string, raw json.RawMessage, w reflect.Value) error {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil // JSON null: not given
	}
	var s string
	var list []string
	switch {
	case json.Unmarshal(raw, &s) == nil:
	case json.Unmarshal(raw, &list) == nil:
		s = strings.Join(list, ",")
	case len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9') || raw[0] == 't' || raw[0] == 'f'):
		s = string(raw)
	default:
		return pidex.Usagef("%s: want a string, got %s", name, text.Cut(string(raw), 60))
	}
	if w.IsNil() {
		w.Set(reflect.ValueOf(pidex.Where{}))
	}
	w.SetMapIndex(reflect.ValueOf(name), reflect.ValueOf(s))
	return nil
}

// jsonFields maps the JSON names of a struct's fields to their indexes
// (the field of the filters aside: see filterField).
func jsonFields(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() || f.Tag.Get("filters") != "" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = i
	}
	return out
}

// decodeValue decodes one argument into its field, forgiving a value
// sent as a string where a number or a boolean is wanted, one string
// where a list of strings is (split at commas), and numbers or booleans
// among the values of a map of strings.
func decodeValue(raw json.RawMessage, f reflect.Value) error {
	ptr := f.Addr().Interface()
	err := json.Unmarshal(raw, ptr)
	if err == nil {
		return nil
	}
	var s string
	isStr := json.Unmarshal(raw, &s) == nil
	t := f.Type()
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case isStr && (t.Kind() == reflect.Int || t.Kind() == reflect.Bool):
		return json.Unmarshal([]byte(strings.TrimSpace(s)), ptr)
	case isStr && t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		parts := []string{}
		for p := range strings.SplitSeq(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				parts = append(parts, p)
			}
		}
		f.Set(reflect.ValueOf(parts))
		return nil
	case t.Kind() == reflect.Map && t.Elem().Kind() == reflect.String:
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return err
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			var vs string
			switch {
			case json.Unmarshal(v, &vs) == nil:
			case len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9') || v[0] == 't' || v[0] == 'f'):
				vs = string(v) // a number or a boolean: its JSON text
			default:
				return err
			}
			out[k] = vs
		}
		f.Set(reflect.ValueOf(out))
		return nil
	}
	return err
}

// kindWord says what an argument of type t takes, for an error message.
func kindWord(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int:
		return "a whole number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list of strings"
	case reflect.Map:
		return "an object of named string values"
	}
	return "a " + t.Kind().String()
}

// argName is the name of a domain option as the tools call it: snake
// case ("noDedup" is no_dedup), and a tool's own names where they differ.
func argName(option string, rename map[string]string) string {
	if n, ok := rename[option]; ok {
		return n
	}
	var b strings.Builder
	for i, r := range option {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Schema helpers for the tools' patches.

func enum(s *jsonschema.Schema, prop string, values ...string) {
	p := s.Properties[prop]
	if (p.Type == "array" || slices.Contains(p.Types, "array")) && p.Items != nil {
		p = p.Items
	}
	p.Enum = nil
	for _, v := range values {
		p.Enum = append(p.Enum, v)
	}
}

func bounds(s *jsonschema.Schema, prop string, lo, hi, def int) {
	p := s.Properties[prop]
	p.Minimum, p.Maximum = ptr(float64(lo)), ptr(float64(hi))
	if def != 0 {
		p.Default = json.RawMessage(strconv.Itoa(def))
	}
}

func ptr[T any](v T) *T { return &v }
