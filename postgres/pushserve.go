package postgres

import (
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pidex-dev/pidex"
)

// A team server (pidex push-server, docs/team.md "Pushes over HTTP")
// receives what pidex push would write, from machines that hold a token
// and no database credentials, and writes it with its own role: the same
// plan, the same parts (wire.go), applied by the same fileWriter, each
// group of files in one transaction that commits only when the whole
// group arrived. Every request names its machine (?machine=) and carries
// a token for it (Authorization: Bearer); the server puts the machine's
// id and its own file ids in every row.
//
//	POST push/v1/begin   pushBegin → pushBeginReply: register, the pushed files
//	POST push/v1/remove  pushRemove → pushCount: remove files (by path)
//	POST push/v1/group   parts as JSON lines, gzip → pushReply
//	POST push/v1/finish  pushBegin → pushCount: the push's end

// pushProtocol is the version of the requests; a client and a server of
// different ones refuse each other.
//
//	1: the first
//	2: a search row's tsvector in binary (indexRow.Vec), not a literal
//	3: no edges (a view of the entries since migration 00015)
const pushProtocol = 3

// maxPart bounds one part of a group as it arrives (a chunk of lines is
// about 16 MB; a single line of a session file may be larger).
const maxPart = 512 << 20

type pushBegin struct {
	Protocol   int    `json:"protocol"`
	Push       int    `json:"push"` // FormatVersion
	Catalog    string `json:"catalog"`
	Format     string `json:"format"`
	Derivation int    `json:"derivation"`
	Version    string `json:"version"`
}

type pushBeginReply struct {
	Files  []*pushedFile `json:"files"`
	Server string        `json:"server"`
}

type pushRemove struct {
	Paths []string `json:"paths"`
}

type pushCount struct {
	N int `json:"n"`
}

// pushReply is a failed request's answer.
type pushReply struct {
	Error string `json:"error"`
	File  *int   `json:"file,omitempty"` // the group's file that conflicted
}

// PushServerOptions configure a team server's handler.
type PushServerOptions struct {
	Version string       // this build, told to clients
	Log     func(string) // a line per refused or failed request
	// BodyIdle bounds how long a request's body may send nothing (default
	// a minute): a group is one transaction holding its machine's push
	// lock, which a client that stalls mid-body would otherwise hold
	// until the connection dies. A whole push may take as long as it
	// keeps sending.
	BodyIdle time.Duration
}

// bodyIdle is PushServerOptions.BodyIdle's default.
const bodyIdle = time.Minute

// PushHandler is the team server's HTTP handler, writing into s.
func (s *Store) PushHandler(o PushServerOptions) http.Handler {
	h := &pushServer{s: s, o: o}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /push/v1/begin", h.handle(h.begin))
	mux.HandleFunc("POST /push/v1/remove", h.handle(h.remove))
	mux.HandleFunc("POST /push/v1/group", h.handle(h.group))
	mux.HandleFunc("POST /push/v1/finish", h.handle(h.finish))
	return mux
}

type pushServer struct {
	s *Store
	o PushServerOptions
}

// handle authenticates a request and runs fn for its machine on a
// connection of the team catalog.
func (h *pushServer) handle(fn func(context.Context, *pusher, *http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = idleBody(w, r.Body, cmp.Or(h.o.BodyIdle, bodyIdle))
		machine := r.URL.Query().Get("machine")
		status, reply, err := h.serve(r, machine, fn)
		if err != nil {
			h.log(fmt.Sprintf("%s %s machine %q: %d %v", r.Method, r.URL.Path, machine, status, err))
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(reply)
	}
}

func (h *pushServer) serve(r *http.Request, machine string, fn func(context.Context, *pusher, *http.Request) (any, error)) (int, any, error) {
	ctx := r.Context()
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || token == "" {
		return http.StatusUnauthorized, pushReply{Error: "no token (Authorization: Bearer)"}, errToken
	}
	if err := checkMachine(machine); err != nil {
		return http.StatusBadRequest, pushReply{Error: err.Error()}, err
	}
	machines, err := h.s.tokenMachines(ctx, token)
	switch {
	case errors.Is(err, errToken):
		return http.StatusUnauthorized, pushReply{Error: "the team server knows no such token, or it was revoked"}, err
	case err != nil:
		return http.StatusInternalServerError, pushReply{Error: "the team server could not check the token"}, err
	case !slices.Contains(machines, machine):
		err := fmt.Errorf("the token may push %s, not machine %q", strings.Join(machines, ", "), machine)
		return http.StatusForbidden, pushReply{Error: err.Error()}, err
	}
	p := &pusher{s: h.s, o: PushOptions{Machine: machine}, serving: true, st: &PushStats{Machine: machine}}
	conn, err := h.s.db.Conn(ctx)
	if err != nil {
		return http.StatusServiceUnavailable, pushReply{Error: "the team server cannot reach its catalog"}, err
	}
	defer conn.Close()
	var out any
	err = conn.Raw(func(dc any) error {
		p.pc = dc.(*stdlib.Conn).Conn()
		var err error
		out, err = fn(ctx, p, r)
		return err
	})
	if err == nil {
		return http.StatusOK, out, nil
	}
	status, reply := replyFor(err)
	return status, reply, err
}

// replyFor is the status and answer of a failed request.
func replyFor(err error) (int, pushReply) {
	reply := pushReply{Error: err.Error()}
	var fe *fileError
	switch {
	case errors.As(err, &fe) && errors.Is(err, errConflict):
		reply.File = &fe.index
		return http.StatusConflict, reply
	case errors.Is(err, errProtocol), errors.Is(err, pidex.ErrUsage):
		return http.StatusBadRequest, reply
	case errors.Is(err, pidex.ErrPermission), isCode(err, insufficientPriv):
		return http.StatusForbidden, reply
	case isCode(err, deadlock, serialization):
		return http.StatusServiceUnavailable, reply // the client sends the group again
	}
	return http.StatusInternalServerError, reply
}

func (h *pushServer) log(msg string) {
	if h.o.Log != nil {
		h.o.Log(msg)
	}
}

// readJSON reads a request's JSON body (small: no group).
func readJSON(r *http.Request, v any) error {
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(v); err != nil {
		return fmt.Errorf("%w: %v", errProtocol, err)
	}
	return nil
}

// begin registers the machine (as the server's role: row-level security
// refuses a machine not bound to it) and lists its pushed files.
func (h *pushServer) begin(ctx context.Context, p *pusher, r *http.Request) (any, error) {
	var b pushBegin
	if err := readJSON(r, &b); err != nil {
		return nil, err
	}
	if err := h.compatible(b); err != nil {
		return nil, err
	}
	if err := p.register(ctx); err != nil {
		return nil, err
	}
	// started runs on the connection, in the transaction that holds the
	// machine's push lock.
	if err := p.tx(ctx, p.pc, func(pgx.Tx) error { return p.started(ctx) }); err != nil {
		return nil, err
	}
	pushed, err := p.pushedFiles(ctx)
	if err != nil {
		return nil, err
	}
	reply := pushBeginReply{Files: []*pushedFile{}, Server: h.o.Version}
	for _, f := range pushed {
		reply.Files = append(reply.Files, f)
	}
	return reply, nil
}

// compatible refuses a client that speaks another protocol or writes
// rows another way than this server's build.
func (h *pushServer) compatible(b pushBegin) error {
	if b.Protocol != pushProtocol || b.Push != FormatVersion {
		return fmt.Errorf("%w: the client (%s) pushes with protocol %d, rows of push format %d; this team server (%s) takes protocol %d, format %d: use a pidex of the server's version",
			errProtocol, b.Version, b.Protocol, b.Push, h.o.Version, pushProtocol, FormatVersion)
	}
	return nil
}

// find sets the machine's id (registered by begin) and whether the role
// writes under row-level security.
func (p *pusher) find(ctx context.Context) error {
	var id *int64
	if err := p.pc.QueryRow(ctx, `SELECT (SELECT id FROM machines WHERE name = $1), row_security_active('files')`, p.o.Machine).
		Scan(&id, &p.staged); err != nil {
		return fmt.Errorf("find machine: %w", err)
	}
	if id == nil {
		return fmt.Errorf("%w: machine %q has not begun a push", errProtocol, p.o.Machine)
	}
	p.machine = *id
	return nil
}

// remove removes files of the machine, by path.
func (h *pushServer) remove(ctx context.Context, p *pusher, r *http.Request) (any, error) {
	var rm pushRemove
	if err := readJSON(r, &rm); err != nil {
		return nil, err
	}
	if err := p.find(ctx); err != nil {
		return nil, err
	}
	pushed, err := p.pushedFiles(ctx)
	if err != nil {
		return nil, err
	}
	var files []*pushedFile
	for _, path := range rm.Paths {
		if f := pushed[path]; f != nil {
			files = append(files, f)
		}
	}
	n, err := p.remove(ctx, files)
	return pushCount{n}, err
}

// finish records the push's end.
func (h *pushServer) finish(ctx context.Context, p *pusher, r *http.Request) (any, error) {
	var b pushBegin
	if err := readJSON(r, &b); err != nil {
		return nil, err
	}
	if err := h.compatible(b); err != nil {
		return nil, err
	}
	if err := p.find(ctx); err != nil {
		return nil, err
	}
	p.catalogID, p.derivation, p.format, p.o.Version = b.Catalog, b.Derivation, b.Format, b.Version
	var n int
	err := p.tx(ctx, p.pc, func(pgx.Tx) error {
		var err error
		n, err = p.finish(ctx)
		return err
	})
	return pushCount{n}, err
}

// group applies a group of files in one transaction, committed only
// when its last part (end) arrived: a client that dies, or a body cut
// short, leaves the catalog as it was.
func (h *pushServer) group(ctx context.Context, p *pusher, r *http.Request) (any, error) {
	if err := p.find(ctx); err != nil {
		return nil, err
	}
	if p.staged {
		if err := createStage(ctx, p.pc); err != nil {
			return nil, err
		}
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errProtocol, err)
		}
		body = zr
	}
	lim := &partLimit{r: body}
	dec := newPartDecoder(lim)
	next := func(pt *pushPart) error {
		lim.n = 0
		if err := dec.Decode(pt); err != nil {
			return fmt.Errorf("%w: read the group: %v", errProtocol, err)
		}
		return nil
	}
	var head pushPart
	if err := next(&head); err != nil {
		return nil, err
	}
	if head.Group == nil {
		return nil, fmt.Errorf("%w: a group starts with its head", errProtocol)
	}
	p.catalogID, p.format = head.Group.Catalog, head.Group.Format
	err := p.tx(ctx, p.pc, func(tx pgx.Tx) error {
		w := &fileWriter{p: p, tx: tx}
		for {
			var pt pushPart
			if err := next(&pt); err != nil {
				return err
			}
			if pt.End {
				break
			}
			if pt.Rows != nil {
				if err := pt.Rows.Rows.typed(); err != nil {
					return err
				}
			}
			if err := w.put(ctx, &pt); err != nil {
				return err
			}
		}
		if err := dec.Decode(new(json.RawMessage)); err != io.EOF {
			return fmt.Errorf("%w: more after the group's end", errProtocol)
		}
		return w.finish(ctx)
	})
	return struct{}{}, err
}

// partLimit fails a read past maxPart bytes since n was last reset.
type partLimit struct {
	r io.Reader
	n int64
}

func (l *partLimit) Read(b []byte) (int, error) {
	if l.n > maxPart {
		return 0, fmt.Errorf("%w: a part of over %d MB", errProtocol, maxPart>>20)
	}
	n, err := l.r.Read(b)
	l.n += int64(n)
	return n, err
}

// idleBody is body with a read deadline of idle from each read: a client
// may send slowly, not stop. Where the connection cannot take a deadline
// (http.ErrNotSupported), body is read as it is.
func idleBody(w http.ResponseWriter, body io.ReadCloser, idle time.Duration) io.ReadCloser {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(idle)); err != nil {
		return body
	}
	return &deadlineBody{ReadCloser: body, rc: rc, idle: idle}
}

type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	idle time.Duration
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	_ = b.rc.SetReadDeadline(time.Now().Add(b.idle))
	return b.ReadCloser.Read(p)
}
