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
