package js

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// JavaScript semantics of raw JSON values, as pi's reader applies them.

// Truthy is JavaScript's truthiness of a JSON value, as pi tests parsed
// lines and fields: null, false, 0, -0 and "" are falsy; absent (empty
// input) counts as undefined, also falsy.
func Truthy(v []byte) bool {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return false
	}
	switch v[0] {
	case 'n', 'f':
		return false
	case 't', '{', '[':
		return true
	case '"':
		return len(v) > 2
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return err != nil || f != 0
}

// IsNull reports whether v is absent or JSON null.
func IsNull(v json.RawMessage) bool {
	t := bytes.TrimSpace(v)
	return len(t) == 0 || string(t) == "null"
}

// IsString reports whether v is a JSON string.
func IsString(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '"'
}

// IsNumber reports whether v is a JSON number.
func IsNumber(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))
}

// DateValue is `new Date(v).getTime()` as JSON: a number, or null for NaN.
func DateValue(v json.RawMessage) json.RawMessage {
	null := json.RawMessage("null")
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return null // new Date(undefined)
	}
	var ms float64
	switch v[0] {
	case 'n', 'f':
		ms = 0 // new Date(null), new Date(false)
	case 't':
		ms = 1
	case '"':
		s, _ := StringValue(v)
		t, ok := ParseDate(s)
		if !ok {
			return null
		}
		ms = float64(t)
	case '{', '[':
		return null // ToPrimitive gives a string that is not a date (in practice)
	default:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return null
		}
		ms = f
	}
	if math.Abs(ms) > maxTimeMs {
		return null
	}
	return json.RawMessage(strconv.FormatInt(int64(math.Trunc(ms)), 10))
}
