// Package httpguard holds the safety rules that pidex's HTTP servers
// (`pidex serve`, `pidex mcp --http`) share: every session of the machine
// is behind them, so they listen on loopback unless told otherwise,
// answer only requests addressed to their own name (a web page whose name
// was rebound to 127.0.0.1 cannot read them), and require a token off
// loopback.
package httpguard

import (
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"strings"
)

// ErrAddr: an address is not host:port.
var ErrAddr = errors.New("want host:port")

// IsLoopback reports whether addr's host is a loopback address or
// localhost: only then may a server run without a token.
func IsLoopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, ErrAddr
	}
	if strings.EqualFold(host, "localhost") {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// HostAllowed reports whether a request's Host header names the bound
// address's host, or localhost, on the bound port. A server bound to
// every interface (0.0.0.0, [::]) has no one name: there every Host
// passes and the token is the protection.
func HostAllowed(bound, host string) bool {
	bhost, bport, err := net.SplitHostPort(bound)
	if err != nil {
		return false
	}
	if ip := net.ParseIP(bhost); bhost == "" || (ip != nil && ip.IsUnspecified()) {
		return true
	}
	h, p, err := net.SplitHostPort(host)
	if err != nil { // no port: only a client talking to port 80 omits it
		h, p = host, "80"
	}
	if p != bport {
		return false
	}
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	return h == strings.ToLower(bhost) || h == "localhost" || strings.Trim(h, "[]") == strings.Trim(bhost, "[]")
}

// TokenOK compares a token given with the server's, in constant time; an
// empty one never passes.
func TokenOK(given, token string) bool {
	return given != "" && subtle.ConstantTimeCompare([]byte(given), []byte(token)) == 1
}

// Bearer reports whether r carries "Authorization: Bearer TOKEN".
func Bearer(r *http.Request, token string) bool {
	given, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return found && TokenOK(given, token)
}

// CrossSite reports whether a browser sent r on behalf of a page of
// another site or origin: a web page the user visits could otherwise make
// the server work (search, read, cost) by a link, an image, a form or a
// fetch, even though it cannot read the answer. Browsers say where a
// request comes from in Sec-Fetch-Site, whose only passing values are
// "same-origin" and "none" (the user typed the address, used a bookmark
// or opened it from another program; "same-site" is another port of the
// same host: another server's page), and in Origin, which must then be
// the server's own (the request's Host, already checked by HostAllowed).
// A request without either header (curl, an MCP client, an old browser's
// navigation) passes: the Host check and the token hold there.
func CrossSite(r *http.Request) bool {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	scheme, host, ok := strings.Cut(origin, "://")
	if !ok || (scheme != "http" && scheme != "https") {
		return true // "null" (a sandboxed frame, a file: page) and anything else
	}
	return !strings.EqualFold(strings.TrimSuffix(host, "/"), r.Host)
}
