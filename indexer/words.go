package indexer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	gojson "github.com/goccy/go-json"
)

// A warning is read by people: it says what is wrong with the line in the
// format's words (a field, a number, a string), not the decoder's (Go
// struct fields and types, as in "cannot unmarshal number into Go struct
// field Line.id of type string").

// decodeProblem words the decoding error of a line.
func decodeProblem(line []byte, err error) string {
	if bytes.HasPrefix(line, []byte("\xef\xbb\xbf")) {
		return "the line starts with a byte-order mark (BOM), which JSON does not allow"
	}
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	var gse *gojson.SyntaxError
	switch {
	case errors.As(err, &te):
		return fieldProblem(te.Field, te.Value, jsonKind(te.Type))
	case errors.As(err, &se):
		return fmt.Sprintf("not valid JSON at byte %d: %s", se.Offset, jsonWords(se.Error()))
	case errors.As(err, &gse):
		return fmt.Sprintf("not valid JSON at byte %d: %s", gse.Offset, jsonWords(gse.Error()))
	case err != nil && strings.Contains(err.Error(), "unexpected end of JSON input"):
		return "not valid JSON: the line ends before its value does (cut off?)"
	case err != nil:
		return jsonWords(err.Error())
	}
	return ""
}

// fieldProblem is `"id" is a number, where pi writes a string`.
func fieldProblem(field, got, want string) string {
	if field == "" {
		return fmt.Sprintf("the line is %s, where pi writes an object", article(got))
	}
	return fmt.Sprintf("%q is %s, where pi writes %s", field, article(got), want)
}

func article(v string) string {
	switch {
	case v == "":
		return "a value of another type"
	case strings.HasPrefix(v, "array"), strings.HasPrefix(v, "object"):
		return "an " + v
	case v == "null", v == "true", v == "false", v == "bool":
		if v == "bool" {
			return "true or false"
		}
		return v
	}
	return "a " + v
}

// jsonKind names a Go type as the JSON it decodes.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another type"
}

// jsonWords drops a decoder's package prefix.
func jsonWords(msg string) string {
	msg = strings.TrimPrefix(msg, "json: ")
	return strings.TrimPrefix(msg, "go-json: ")
}
