package postgres

import (
	"math"
	"strings"
	"testing"
)

// A team server's URL: https anywhere, http only to this machine (every
// session's text and the token would travel readable), a token in it
// taken apart.
func TestServerURL(t *testing.T) {
	for _, tt := range []struct {
		raw, url, token, err string
	}{
		{raw: "https://pidex.example.com:7374", url: "https://pidex.example.com:7374/"},
		{raw: "https://pidex.example.com/team/", url: "https://pidex.example.com/team/"},
		{raw: "http://127.0.0.1:7374/", url: "http://127.0.0.1:7374/"},
		{raw: "http://localhost:7374", url: "http://localhost:7374/"},
		{raw: "http://[::1]:7374/", url: "http://[::1]:7374/"},
		{raw: "https://pidex_push_abc@pidex.example.com/", url: "https://pidex.example.com/", token: "pidex_push_abc"},
		{raw: "https://x:pidex_push_abc@pidex.example.com/", url: "https://pidex.example.com/", token: "pidex_push_abc"},
		{raw: "http://pidex.example.com:7374/", err: "http:// only to this machine"},
		{raw: "http://10.0.0.5:7374/", err: "http:// only to this machine"},
		{raw: "http://pidex_push_abc@pidex.example.com/", err: "http:// only to this machine"},
		{raw: "ftp://pidex.example.com/", err: "https:// URL"},
		{raw: "https:///nohost", err: "https:// URL"},
	} {
		u, token, err := ServerURL(tt.raw)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "pidex_push_abc") {
				t.Errorf("%s: %v, want an error saying %q (and not the token)", tt.raw, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.raw, err)
		case u.String() != tt.url || token != tt.token:
			t.Errorf("%s: %s, token %q; want %s, %q", tt.raw, u, token, tt.url, tt.token)
		}
	}
}

// Rows travel with their types: a double stays a double (3.0 is not the
// integer 3), bytes stay bytes, text stays text, and what cannot be JSON
// (NaN, infinities) travels too.
func TestRowSetKeepsTypes(t *testing.T) {
	in := rowSet{{nil, int64(3), 3.0, 0.1, -2.5e-300, math.Inf(1), math.NaN(), "a\tb\"c\u00e9", []byte{0, 1, 255}, true, int64(math.MaxInt64)}}
	b, err := in.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var out tableRows
	dec := newPartDecoder(strings.NewReader(`{"table":"x","rows":` + string(b) + `}`))
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	if err := out.Rows.typed(); err != nil {
		t.Fatal(err)
	}
	got := out.Rows[0]
	for i, want := range in[0] {
		switch w := want.(type) {
		case float64:
			g, ok := got[i].(float64)
			if !ok || !(g == w || math.IsNaN(g) && math.IsNaN(w)) {
				t.Errorf("value %d: %#v, want %#v", i, got[i], want)
			}
		case []byte:
			if g, ok := got[i].([]byte); !ok || string(g) != string(w) {
				t.Errorf("value %d: %#v, want %#v", i, got[i], want)
			}
		default:
			if got[i] != want {
				t.Errorf("value %d: %#v (%T), want %#v (%T)", i, got[i], got[i], want, want)
			}
		}
	}
	for _, bad := range []string{`[[{"x":1}]]`, `[[[1]]]`, `[[{"b":"%%"}]]`, `[[12345678901234567890]]`} {
		var rs tableRows
		if err := newPartDecoder(strings.NewReader(`{"rows":` + bad + `}`)).Decode(&rs); err == nil {
			if err := rs.Rows.typed(); err == nil {
				t.Errorf("%s: taken", bad)
			}
		}
	}
}
