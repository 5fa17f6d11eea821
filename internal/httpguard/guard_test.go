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
