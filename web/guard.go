package web

import (
	"net/http"

	"github.com/pidex-dev/pidex/internal/httpguard"
)

// tokenCookie carries the token after a first visit with ?token=, so the
// browser's own requests (links, fetch, EventSource) need not repeat it.
const tokenCookie = "pidex_token"

// guard is the server's safety net, in front of every route:
//   - only GET and HEAD: nothing the server does changes anything;
//   - the Host header must be the bound address or localhost, so a page of
//     another site whose name was rebound to 127.0.0.1 (DNS rebinding)
//     cannot read the answers (a server bound to every interface, 0.0.0.0,
//     has no one name: there the token is the protection);
//   - a request a page of another site or origin made is refused
//     (Sec-Fetch-Site, Origin: httpguard.CrossSite), so that a page the
//     user visits cannot make the server work;
//   - with a token, every request must carry it: "Authorization: Bearer
//     T", the cookie, or ?token=T (which sets the cookie);
//   - answers say what they are (nosniff), cannot be framed, and pages may
//     run only the server's own script (Content-Security-Policy), a
//     second wall behind escaping.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			s.httpError(w, r, errMethod)
			return
		}
		if !s.hostAllowed(r.Host) {
			s.httpError(w, r, errForbidden)
			return
		}
		if httpguard.CrossSite(r) {
			s.httpError(w, r, errCrossSite)
			return
		}
		if s.opts.Token != "" && !s.authorized(w, r) {
			s.httpError(w, r, errUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed: the Host header names the bound host, or localhost, on the
// bound port (see httpguard.HostAllowed).
func (s *Server) hostAllowed(host string) bool { return httpguard.HostAllowed(s.opts.Addr, host) }

// authorized checks the token (in constant time) and remembers a ?token=
// in a cookie for the browser's later requests.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	ok := func(t string) bool { return httpguard.TokenOK(t, s.opts.Token) }
	if httpguard.Bearer(r, s.opts.Token) {
		return true
	}
	if c, err := r.Cookie(tokenCookie); err == nil && ok(c.Value) {
		return true
	}
	if ok(r.URL.Query().Get("token")) {
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.opts.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		return true
	}
	return false
}
