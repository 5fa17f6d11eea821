package postgres

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/sqlite"
)

// A push to a team server (pushserve.go): the plan and the reads of a
// direct push, each group of files sent as one request whose parts the
// server writes in one transaction.

// IsServerURL reports whether s names a team server (http:// or
// https://) rather than a team catalog in PostgreSQL.
func IsServerURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

// ServerURL parses a team server's URL and applies pidex's TLS rule, as
// for a team catalog's: https, the server's certificate verified, unless
// the host is this machine (loopback), where http will do. A token in the
// URL (https://TOKEN@host/) is returned apart, and the URL without it.
func ServerURL(raw string) (u *url.URL, token string, err error) {
	u, err = url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, "", pidex.Usagef("a team server is an https:// URL (got %s)", redactedServer(raw))
	}
	if u.User != nil {
		token = u.User.Username()
		if p, ok := u.User.Password(); ok && p != "" {
			token = p
		}
		u.User = nil
	}
	if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		return nil, "", pidex.Usagef("team server %s: http:// only to this machine (loopback): every session's text and the token would travel readable; use https://", u.Redacted())
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawQuery, u.Fragment = "", ""
	return u, token, nil
}

// loopbackHost: host is localhost or a loopback address.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redactedServer is a team server's URL for a message, without any token.
func redactedServer(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	u.User = nil
	return u.String()
}

// PushToServer mirrors the local catalog into the team catalog behind
// the team server at server (see Push), authenticated as o.Machine by
// o.Token. The server writes each group of files in one transaction, so
// a client or a server that dies leaves each either applied or not, and
// the next push goes on from what the server says is pushed.
func PushToServer(ctx context.Context, local *sqlite.DB, server string, o PushOptions) (*PushStats, error) {
	base, token, err := ServerURL(server)
	if err != nil {
		return nil, err
	}
	if o.Token == "" {
		o.Token = token
	}
	if o.Token == "" {
		return nil, pidex.Usagef("push to team server %s: no token (PIDEX_PUSH_TOKEN, or a file: --token-file, PIDEX_PUSH_TOKEN_FILE; docs/team.md, Pushes over HTTP)", base.Redacted())
	}
	p, done, err := newPusher(ctx, local, o)
	if err != nil {
		return nil, err
	}
	defer done()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = pushWorkers() // a connection per worker, kept
	p.side = &httpSide{p: p, base: base, client: &http.Client{Transport: tr}}
	return p.st, p.run(ctx)
}

// httpSide is a push to a team server.
type httpSide struct {
	p      *pusher
	base   *url.URL
	client *http.Client
}

func (h *httpSide) String() string { return h.base.Redacted() }

// request is a request of the protocol for the push's machine.
func (h *httpSide) request(ctx context.Context, path string, body io.Reader) (*http.Request, error) {
	u := *h.base
	u.Path += "push/v1/" + path
	u.RawQuery = url.Values{"machine": {h.p.o.Machine}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("push to team server %s: %w", h, err)
	}
	req.Header.Set("Authorization", "Bearer "+h.p.o.Token)
	return req, nil
}

// call sends a request with a JSON body and reads the JSON answer.
func (h *httpSide) call(ctx context.Context, path string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := h.request(ctx, path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		return fmt.Errorf("push to team server %s: %w", h, err)
	}
	defer resp.Body.Close()
	if err := h.failed(resp); err != nil {
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("push to team server %s: read its answer: %w", h, err)
	}
	return nil
}

// errRetry: the server's transaction met another's (a deadlock): the
// group is sent again.
var errRetry = errors.New("the team server asks to send the group again")

// failed is the error of a request the server refused or failed.
func (h *httpSide) failed(resp *http.Response) error {
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	var reply pushReply
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if json.Unmarshal(b, &reply) != nil || reply.Error == "" {
		reply.Error = strings.TrimSpace(string(b))
		if reply.Error == "" {
			reply.Error = resp.Status
		}
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return fmt.Errorf("push: %w: team server %s refused the token: %s", pidex.ErrPermission, h, reply.Error)
	case http.StatusForbidden:
		return fmt.Errorf("push: %w: team server %s refused machine %q: %s", pidex.ErrPermission, h, h.p.o.Machine, reply.Error)
	case http.StatusConflict:
		if reply.File != nil {
			return &fileError{*reply.File, fmt.Errorf("%w (team server: %s)", errConflict, reply.Error)}
		}
	case http.StatusServiceUnavailable:
		return fmt.Errorf("%w: %s", errRetry, reply.Error)
	}
	return fmt.Errorf("push to team server %s: %s (%s)", h, reply.Error, resp.Status)
}

func (h *httpSide) begin(ctx context.Context) (map[string]*pushedFile, error) {
	var reply pushBeginReply
	if err := h.call(ctx, "begin", h.p.hello(), &reply); err != nil {
		return nil, err
	}
	pushed := map[string]*pushedFile{}
	for _, f := range reply.Files {
		pushed[f.Path] = f
	}
	return pushed, nil
}

// hello is what every push tells the server of itself.
func (p *pusher) hello() pushBegin {
	return pushBegin{Protocol: pushProtocol, Push: FormatVersion, Catalog: p.catalogID, Format: p.format, Derivation: p.derivation, Version: p.o.Version}
}

func (h *httpSide) remove(ctx context.Context, files []*pushedFile) (int, error) {
	if len(files) == 0 {
		return 0, nil
	}
	rm := pushRemove{Paths: make([]string, len(files))}
	for i, f := range files {
		rm.Paths[i] = f.Path
	}
	var n pushCount
	err := h.call(ctx, "remove", rm, &n)
	return n.N, err
}

func (h *httpSide) finish(ctx context.Context) (int, error) {
	var n pushCount
	err := h.call(ctx, "finish", h.p.hello(), &n)
	return n.N, err
}

func (h *httpSide) close()                                  {}
func (h *httpSide) open(context.Context) (groupConn, error) { return h, nil }
func (h *httpSide) send(ctx context.Context, group []job, read func(context.Context, emitFunc) error) error {
	for attempt := 0; ; attempt++ {
		err := h.sendOnce(ctx, read)
		if err == nil || attempt >= 4 || !errors.Is(err, errRetry) {
			return err
		}
	}
}

// sendOnce sends a group as one request: its head, the parts as they are
// read, its end, as gzipped JSON lines. A file that fails on its own
// account (it changed on disk) cuts the body short, and so the server
// applies nothing of the group.
func (h *httpSide) sendOnce(ctx context.Context, read func(context.Context, emitFunc) error) error {
	pr, pw := io.Pipe()
	readErr := make(chan error, 1)
	go func() {
		zw, _ := gzip.NewWriterLevel(pw, gzip.BestSpeed)
		enc := json.NewEncoder(zw)
		enc.SetEscapeHTML(false)
		err := enc.Encode(&pushPart{Group: &groupHead{Catalog: h.p.catalogID, Format: h.p.format}})
		if err == nil {
			err = read(ctx, func(_ context.Context, pt *pushPart) error { return enc.Encode(pt) })
		}
		if err == nil {
			err = enc.Encode(&pushPart{End: true})
		}
		if err == nil {
			err = zw.Close()
		}
		pw.CloseWithError(err) // nil: the body ends
		readErr <- err
	}()
	req, err := h.request(ctx, "group", pr)
	if err != nil {
		pr.Close()
		<-readErr
		return err
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.Header.Set("Content-Encoding", "gzip")
	resp, err := h.client.Do(req)
	pr.CloseWithError(errors.New("the request ended")) // a reader still writing stops
	rerr := <-readErr
	var fe *fileError
	if errors.As(rerr, &fe) {
		if resp != nil {
			resp.Body.Close()
		}
		return rerr // the file's own error: the group goes again without it
	}
	if err != nil {
		return fmt.Errorf("push to team server %s: %w", h, err)
	}
	defer resp.Body.Close()
	if err := h.failed(resp); err != nil {
		return err
	}
	if rerr != nil {
		return fmt.Errorf("push to team server %s: %w", h, rerr)
	}
	return nil
}
