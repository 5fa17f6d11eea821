package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pidex-dev/pidex/internal/files"
)

// The stdio transport. The SDK's own (sdk.IOTransport) ends the whole
// connection at the first frame it cannot decode: one malformed line from
// a client and the agent loses the server. This one reads a line at a
// time, checks each before the SDK sees it, and answers a bad one with a
// JSON-RPC error (-32700 parse error, -32600 invalid request; its id when
// one can be read, else null), then goes on with the next line.

// MaxFrame bounds one message read over stdio: a line longer than this
// is read no further than needed to skip it (a client's requests are a
// few kilobytes; a 32 MB line costs 4 MiB, not 32).
const MaxFrame = 4 << 20

// MaxFrameDepth bounds how deeply a message's JSON nests (tool arguments
// nest two or three levels).
const MaxFrameDepth = 64

type stdioTransport struct {
	in  io.ReadCloser
	out io.WriteCloser
}

func (t *stdioTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &stdioConn{in: t.in, out: t.out, incoming: make(chan frameRead), closed: make(chan struct{}),
		pending: map[jsonrpc.ID]bool{}, answered: make(chan struct{}, 1)}
	go c.readLoop()
	return c, nil
}

type frameRead struct {
	msg jsonrpc.Message
	err error
}

// stdioConn is one client over a reader and a writer of newline-delimited
// JSON-RPC.
type stdioConn struct {
	in       io.ReadCloser
	out      io.WriteCloser
	writeMu  sync.Mutex // one line at a time: the SDK's answers and the refusals here
	incoming chan frameRead
	closed   chan struct{}
	once     sync.Once
	closeErr error
	// pending are the calls read and not yet answered: the end of the
	// input waits for them (see readLoop).
	mu       sync.Mutex
	pending  map[jsonrpc.ID]bool
	answered chan struct{} // a call was answered
}

// readLoop reads lines until the input ends or fails, handing the good
// messages to Read and answering the bad ones itself. A goroutine of its
// own, so that Close unblocks Read (a read of stdin may not return when it
// is closed; the SDK's transport leaks its reader the same way).
func (c *stdioConn) readLoop() {
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := readFrame(r)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			msg, refusal := checkFrame(line, tooLong)
			if refusal != nil {
				if werr := c.writeLine(refusal); werr != nil {
					c.deliver(frameRead{err: werr})
					return
				}
			} else if !c.deliver(frameRead{msg: msg}) {
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				// The client hung up, how a stdio server ends; a client that
				// wrote its requests and closed its end (a pipe) still gets
				// every answer: the SDK writes none once its reading ended.
				c.awaitAnswers()
				err = io.EOF
			}
			c.deliver(frameRead{err: err})
			return
		}
	}
}

// deliver hands r to Read, unless the connection closed first.
func (c *stdioConn) deliver(r frameRead) bool {
	if req, ok := r.msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		c.pending[req.ID] = true
		c.mu.Unlock()
	}
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// awaitAnswers returns once every call read is answered, or the
// connection closed.
func (c *stdioConn) awaitAnswers() {
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-c.closed:
			return
		}
	}
}

// readFrame reads one line (its newline dropped), keeping at most
// MaxFrame bytes of it: a longer one is read to its end and reported
// tooLong, its bytes dropped. err is the reader's (io.EOF at the end; a
// last line without a newline comes with it).
func readFrame(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxFrame+2 { // a newline and a CR are no part of the message
				tooLong, line = true, nil
			} else {
				if need := len(line) + len(chunk); need > cap(line) {
					// Doubling: append grows a large slice by a quarter at a
					// time, which allocates five times the line in all.
					grown := make([]byte, len(line), max(need, 2*cap(line)))
					copy(grown, line)
					line = grown
				}
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// envelope is what checkFrame reads of a message before the SDK decodes it.
type envelope struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
}

// checkFrame decodes a line into a message, or returns the error response
// that refuses it.
func checkFrame(line []byte, tooLong bool) (jsonrpc.Message, []byte) {
	switch {
	case tooLong:
		return nil, refusal(nil, jsonrpc.CodeParseError, "parse error: the message is longer than "+files.Size(MaxFrame)+", the most this server reads")
	case !utf8.Valid(line):
		return nil, refusal(nil, jsonrpc.CodeParseError, "parse error: the message is not valid UTF-8")
	case !json.Valid(line):
		var v any
		err := json.Unmarshal(line, &v)
		return nil, refusal(nil, jsonrpc.CodeParseError, fmt.Sprintf("parse error: the message is not JSON (%v)", err))
	}
	switch bytes.TrimSpace(line)[0] {
	case '{':
	case '[':
		return nil, refusal(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one message a line")
	default:
		return nil, refusal(nil, jsonrpc.CodeInvalidRequest, "invalid request: a message is a JSON object")
	}
	if d := depth(line); d > MaxFrameDepth {
		return nil, refusal(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the message nests %d levels deep, more than the %d this server reads", d, MaxFrameDepth))
	}
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		return nil, refusal(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: %v", err))
	}
	id := validID(env.ID)
	if env.JSONRPC == nil || *env.JSONRPC != "2.0" {
		return nil, refusal(id, jsonrpc.CodeInvalidRequest, `invalid request: a message must carry "jsonrpc": "2.0"`)
	}
	if len(env.ID) > 0 && id == nil {
		return nil, refusal(nil, jsonrpc.CodeInvalidRequest, "invalid request: an id is a string or a number")
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, refusal(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: %v", err))
	}
	return msg, nil
}

// validID is a message's id if it is one JSON-RPC allows (a string or a
// number; null counts as none), else nil.
func validID(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return raw
	}
	return nil
}

// depth is how deeply valid JSON nests (its arrays and objects).
func depth(b []byte) int {
	d, most := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			most = max(most, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}

// refusal is the error response to a message that cannot be served; id
// nil writes "id": null.
func refusal(id json.RawMessage, code int64, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	return b
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	err = c.writeLine(b)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default: // a wake-up is already waiting
		}
	}
	return err
}

// writeLine writes one message and its newline in one write.
func (c *stdioConn) writeLine(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(b, '\n'))
	return err
}

func (c *stdioConn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		err := c.in.Close()
		if werr := c.out.Close(); err == nil {
			err = werr
		}
		c.closeErr = err
	})
	return c.closeErr
}

func (c *stdioConn) SessionID() string { return "" }
