package redact

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/pidex-dev/pidex"
)

// Value returns a copy of v with every string reachable from it
// redacted (struct fields, slices, arrays, maps' values and string keys,
// pointers, interfaces; a []byte or json.RawMessage as a JSON document),
// and how many secrets it replaced. A copy: what a catalog returns may be
// shared with its caches. A search hit's snippet is redacted whole, its
// segments and highlights made again from it.
func Value[T any](v T) (T, int) {
	return value(v, nil)
}

func value[T any](v T, changed func(from, to string)) (T, int) {
	w := walker{seen: map[uintptr]reflect.Value{}, changed: changed}
	out := w.copy(reflect.ValueOf(&v).Elem())
	return out.Interface().(T), w.n
}

type walker struct {
	n       int
	seen    map[uintptr]reflect.Value // pointers copied: shared stays shared, cycles end
	changed func(from, to string)     // told of each string redacted (nil: no one)
}

var (
	hitType     = reflect.TypeFor[pidex.Hit]()
	argType     = reflect.TypeFor[pidex.Arg]()
	segmentType = reflect.TypeFor[[]pidex.Segment]()
	rawType     = reflect.TypeFor[json.RawMessage]()
)

func (w *walker) copy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		s, k := Text(v.String())
		if k == 0 {
			return v
		}
		w.n += k
		if w.changed != nil {
			w.changed(v.String(), s)
		}
		nv := reflect.New(v.Type()).Elem()
		nv.SetString(s)
		return nv
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			b, k := v.Bytes(), 0
			if v.Type() == rawType || json.Valid(b) {
				b, k = Line(b)
			} else {
				var s string
				s, k = String(string(b))
				b = []byte(s)
			}
			if k == 0 {
				return v
			}
			w.n += k
			return reflect.ValueOf(b).Convert(v.Type())
		}
		if v.Type() == segmentType {
			segs, k := segments(v.Interface().([]pidex.Segment))
			w.n += k
			return reflect.ValueOf(segs)
		}
		nv := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			nv.Index(i).Set(w.copy(v.Index(i)))
		}
		return nv
	case reflect.Array:
		nv := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			nv.Index(i).Set(w.copy(v.Index(i)))
		}
		return nv
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		nv := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			nv.SetMapIndex(w.copy(it.Key()), w.copy(it.Value()))
		}
		return nv
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		if p, ok := w.seen[v.Pointer()]; ok {
			return p
		}
		np := reflect.New(v.Type().Elem())
		w.seen[v.Pointer()] = np
		np.Elem().Set(w.copy(v.Elem()))
		return np
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		nv := reflect.New(v.Type()).Elem()
		nv.Set(w.copy(v.Elem()))
		return nv
	case reflect.Struct:
		nv := reflect.New(v.Type()).Elem()
		nv.Set(v) // unexported fields as they are: they hold no text of a session
		hit := v.Type() == hitType && !v.FieldByName("Segments").IsNil()
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && !(hit && f.Name == "Snippet") {
				nv.Field(i).Set(w.copy(v.Field(i)))
			}
		}
		if v.Type() == argType { // a tool call's argument: its name says what its value is
			a, orig := nv.Addr().Interface().(*pidex.Arg), v.Interface().(pidex.Arg)
			if orig.IsStr && SecretName(orig.Key) && secretValue(orig.Str) && a.Str != Marker {
				a.Str, a.JSON = Marker, `"`+Marker+`"`
				w.n++
			}
		}
		if hit { // the snippet again from its redacted pieces
			h := nv.Addr().Interface().(*pidex.Hit)
			h.Snippet, h.Highlights = pidex.Flatten(h.Segments)
		}
		return nv
	}
	return v
}

// segments redacts a snippet cut in pieces as one text (a secret may
// straddle a matched word), keeping the pieces outside the secrets as
// they were; a secret becomes a piece of its own, not a match.
func segments(segs []pidex.Segment) ([]pidex.Segment, int) {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.Text)
	}
	joined := b.String()
	sp := find(joined)
	if len(sp) == 0 {
		return segs, 0
	}
	var out []pidex.Segment
	at := 0 // byte offset of the current segment in joined
	next := 0
	for _, s := range segs {
		lo, hi := at, at+len(s.Text)
		at = hi
		for lo < hi {
			for next < len(sp) && sp[next].hi <= lo {
				next++
			}
			if next < len(sp) && sp[next].lo <= lo {
				// Inside a secret: its marker goes where the secret starts.
				if sp[next].lo == lo {
					out = append(out, pidex.Segment{Text: Marker})
				}
				lo = min(hi, sp[next].hi)
				continue
			}
			end := hi
			if next < len(sp) && sp[next].lo < hi {
				end = sp[next].lo
			}
			out = append(out, pidex.Segment{Text: joined[lo:end], Hit: s.Hit})
			lo = end
		}
	}
	return out, len(sp)
}
