package httpguard

import (
	"net/http/httptest"
	"testing"
)

func TestIsLoopback(t *testing.T) {
	tests := []struct {
		addr string
		want bool
		err  bool
	}{
		{"127.0.0.1:7373", true, false}, {"localhost:0", true, false}, {"[::1]:80", true, false},
		{"0.0.0.0:7373", false, false}, {"192.0.2.1:80", false, false}, {"example.com:80", false, false},
		{"nonsense", false, true},
	}
	for _, tc := range tests {
		got, err := IsLoopback(tc.addr)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("IsLoopback(%q) = %v, %v", tc.addr, got, err)
		}
	}
}

// Only the bound name or localhost on the bound port passes (DNS
// rebinding); a server bound to every interface has no one name.
func TestHostAllowed(t *testing.T) {
	tests := []struct {
		bound, host string
		want        bool
	}{
		{"127.0.0.1:7373", "127.0.0.1:7373", true},
		{"127.0.0.1:7373", "localhost:7373", true},
		{"127.0.0.1:7373", "LOCALHOST.:7373", true},
		{"127.0.0.1:7373", "evil.example:7373", false},
		{"127.0.0.1:7373", "localhost:80", false},
		{"127.0.0.1:80", "localhost", true},
		{"[::1]:7373", "[::1]:7373", true},
		{"0.0.0.0:7373", "anything:1", true},
		{"bad", "localhost", false},
	}
	for _, tc := range tests {
		if got := HostAllowed(tc.bound, tc.host); got != tc.want {
			t.Errorf("HostAllowed(%q, %q) = %v", tc.bound, tc.host, got)
		}
	}
}

func TestToken(t *testing.T) {
	if TokenOK("", "") || TokenOK("a", "b") || !TokenOK("s3", "s3") {
		t.Error("TokenOK")
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Authorization", "Bearer s3")
	if !Bearer(r, "s3") || Bearer(r, "other") {
		t.Error("Bearer")
	}
	r.Header.Set("Authorization", "Basic s3")
	if Bearer(r, "s3") {
		t.Error("Basic passed as Bearer")
	}
}

// A request a page of another site or origin made is refused; the
// server's own pages, the user's navigation and clients that are not
// browsers pass.
func TestCrossSite(t *testing.T) {
	tests := []struct {
		name         string
		site, origin string
		want         bool
	}{
		{"curl or an MCP client", "", "", false},
		{"typed, bookmarked, opened by --open", "none", "", false},
		{"the server's own page", "same-origin", "", false},
		{"its own fetch with Origin", "same-origin", "http://127.0.0.1:7373", false},
		{"its own origin by name", "", "http://LOCALHOST:7373", false},
		{"another site's link or image", "cross-site", "", true},
		{"another site's fetch", "cross-site", "https://evil.example", true},
		{"another port of localhost", "same-site", "http://localhost:3000", true},
		{"a foreign Origin alone", "", "http://evil.example", true},
		{"a foreign port alone", "", "http://localhost:8080", true},
		{"a sandboxed frame or file: page", "", "null", true},
		{"a made-up Sec-Fetch-Site", "nearby", "", true},
	}
	for _, tc := range tests {
		r := httptest.NewRequest("GET", "http://localhost:7373/api/search?q=x", nil)
		if tc.name == "the server's own page" || tc.name == "its own fetch with Origin" {
			r.Host = "127.0.0.1:7373"
		}
		if tc.site != "" {
			r.Header.Set("Sec-Fetch-Site", tc.site)
		}
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		if got := CrossSite(r); got != tc.want {
			t.Errorf("%s: CrossSite = %v, want %v", tc.name, got, tc.want)
		}
	}
}
