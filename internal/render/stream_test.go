package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// TestStreamJSON checks that an array written one element at a time is
// WriteJSON's bytes for the whole slice, and that an error after the
// first element leaves one valid document.
func TestStreamJSON(t *testing.T) {
	raw := func(s ...string) []json.RawMessage {
		out := []json.RawMessage{}
		for _, e := range s {
			out = append(out, json.RawMessage(e))
		}
		return out
	}
	for _, items := range [][]json.RawMessage{
		raw(),
		raw(`{}`),
		raw(`{"a":1,"b":[1,{"c":"<&>\u2028"}],"d":{}}`, `[]`, `"x"`, `{"nested":{"deep":[[],[{}]]}}`),
	} {
		var whole, stream bytes.Buffer
		if err := WriteJSON(&whole, items); err != nil {
			t.Fatal(err)
		}
		err := StreamJSON(&stream, func(add func(any) error) error {
			for _, it := range items {
				if err := add(it); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil || stream.String() != whole.String() {
			t.Errorf("%d items (%v):\nstream %q\nwhole  %q", len(items), err, stream.String(), whole.String())
		}
	}
	bad := errors.New("line 3: not a JSON object")
	for _, n := range []int{0, 2} {
		var out bytes.Buffer
		err := StreamJSON(&out, func(add func(any) error) error {
			for i := 0; i < n; i++ {
				if err := add(json.RawMessage(`{"line":1}`)); err != nil {
					return err
				}
			}
			return bad
		})
		if !errors.Is(err, bad) {
			t.Errorf("after %d: error %v", n, err)
		}
		if n == 0 && out.Len() != 0 || n > 0 && !json.Valid(out.Bytes()) {
			t.Errorf("after %d: output %q", n, out.String())
		}
	}
}

// TestObjectStream checks that an object written a member at a time is
// WriteJSON's bytes for the whole object, and valid when a row fails.
func TestObjectStream(t *testing.T) {
	rows := []map[string]any{{"b": 1, "a": "<x>"}, {"c": []int{}}}
	var whole bytes.Buffer
	if err := WriteJSON(&whole, struct {
		By   []string         `json:"by"`
		Rows []map[string]any `json:"rows"`
		None []int            `json:"none"`
		N    int              `json:"n"`
	}{[]string{"day"}, rows, []int{}, 3}); err != nil {
		t.Fatal(err)
	}
	write := func(fail error) (string, error) {
		var out bytes.Buffer
		o := newObjectStream(&out)
		err := o.member("by", []string{"day"})
		if err == nil {
			err = o.array("rows", func(add func(any) error) error {
				for _, r := range rows {
					if fail != nil && r["c"] != nil {
						return fail
					}
					if err := add(r); err != nil {
						return err
					}
				}
				return nil
			})
		}
		if err == nil {
			err = o.array("none", func(func(any) error) error { return nil })
		}
		if err == nil {
			err = o.member("n", 3)
		}
		err = errors.Join(err, o.close())
		return out.String(), err
	}
	if got, err := write(nil); err != nil || got != whole.String() {
		t.Errorf("stream (%v):\n%s\nwhole:\n%s", err, got, whole.String())
	}
	bad := errors.New("bad row")
	if got, err := write(bad); !errors.Is(err, bad) || !json.Valid([]byte(got)) {
		t.Errorf("after a failing row (%v): %q", err, got)
	}
}
