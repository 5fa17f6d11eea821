package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Issue 39, item 3: after initialize, each malformed frame gets a JSON-RPC
// error (its id when it has a valid one, else null) and the server goes
// on serving the next frame. Before, the first of them ended ServeStdio
// ("serve mcp over stdio: invalid character …") and the agent lost the
// server.
func TestMalformedFramesAreAnswered(t *testing.T) {
	c := startStdio(t)
	c.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r := c.recv(t); r.Result == nil {
		t.Fatalf("initialize: %+v", r)
	}
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	tests := []struct {
		name  string
		frame string
		code  int
		id    string // the id the error carries
		says  string
	}{
		{"not JSON", `{not json`, -32700, "null", "not JSON"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"x\":\"\xff\xfe\"}", -32700, "null", "UTF-8"},
		{"10,000-deep nesting", strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000), -32600, "null", ""},
		{"10,000-deep nesting in params", `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"a":` + strings.Repeat(`{"a":`, 9_998) + "1" + strings.Repeat("}", 10_000), -32600, "null", "levels deep"},
		{"a batch", `[{"jsonrpc":"2.0","id":7,"method":"tools/list"},{"jsonrpc":"2.0","id":8,"method":"tools/list"}]`, -32600, "null", "batches are not supported"},
		{"an empty batch", `[]`, -32600, "null", "batches"},
		{"no jsonrpc", `{"id":9,"method":"tools/list"}`, -32600, "9", `"jsonrpc": "2.0"`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"ten","method":"tools/list"}`, -32600, `"ten"`, `"jsonrpc": "2.0"`},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600, "null", "an id is a string or a number"},
		{"a method that is a number", `{"jsonrpc":"2.0","id":11,"method":12}`, -32600, "11", "invalid request"},
		{"neither request nor response", `{"jsonrpc":"2.0"}`, -32600, "null", "invalid request"},
		{"a number", `42`, -32600, "null", "a JSON object"},
		{"null", `null`, -32600, "null", "a JSON object"},
		{"a 32 MB line", `{"jsonrpc":"2.0","id":12,"method":"tools/list","params":{"x":"` + strings.Repeat("x", 32<<20) + `"}}`, -32700, "null", "longer than 4 MiB"},
		{"a 32 MB line of garbage", strings.Repeat("\x00", 32<<20), -32700, "null", "longer than 4 MiB"},
	}
	next := 100
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			frame := []byte(tc.frame + "\n")
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			c.write(t, frame)
			r := c.recv(t)
			runtime.ReadMemStats(&after)
			// A long line is skipped, not held: the server keeps at most
			// MaxFrame of it (the frame itself was made before).
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*MaxFrame {
				t.Errorf("%d MB allocated for a frame of %d MB", alloc>>20, len(tc.frame)>>20)
			}
			if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id || !strings.Contains(r.Error.Message, tc.says) {
				t.Errorf("answer %s, want error %d with id %s saying %q", r.line, tc.code, tc.id, tc.says)
			}
			// The server goes on: the next frame is served.
			next++
			c.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, next))
			if r := c.recv(t); string(r.ID) != fmt.Sprint(next) || r.Result == nil {
				t.Fatalf("after %s, tools/list: %s", tc.name, r.line)
			}
		})
	}
	// Whitespace between messages and CRLF line ends are no frames of
	// their own; a tool call still works.
	c.send(t, "   \r")
	c.send(t, `{"jsonrpc":"2.0","id":200,"method":"tools/call","params":{"name":"list_sessions","arguments":{"limit":1}}}`+"\r")
	if r := c.recv(t); string(r.ID) != "200" || r.Result == nil {
		t.Fatalf("tools/call: %s", r.line)
	}
	c.close(t)
}

// stdioClient drives ServeStdio over pipes, a line at a time.
type stdioClient struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	line string
}

func startStdio(t *testing.T) *stdioClient {
	t.Helper()
	f := fx(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &stdioClient{in: inW, lines: make(chan string, 16), done: make(chan error, 1)}
	srv := New(f.eng, Options{})
	go func() {
		err := srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		c.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return c
}

func (c *stdioClient) send(t *testing.T, line string) {
	t.Helper()
	c.write(t, []byte(line+"\n"))
}

func (c *stdioClient) write(t *testing.T, b []byte) {
	t.Helper()
	if _, err := c.in.Write(b); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// recv is the server's next line; one minute without any fails the test
// (not a timing assertion: a server that died answers nothing).
func (c *stdioClient) recv(t *testing.T) rpcAnswer {
	t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			t.Fatalf("the server ended: %v", <-c.done)
		}
		var r rpcAnswer
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		r.line = l
		if len(r.line) > 300 {
			r.line = r.line[:300] + "…"
		}
		return r
	case <-time.After(time.Minute):
		t.Fatal("no answer")
	}
	return rpcAnswer{}
}

// close hangs up: the server ends without an error.
func (c *stdioClient) close(t *testing.T) {
	t.Helper()
	c.in.Close()
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the server did not end when the client hung up")
	}
}

// A client that writes its requests and closes its end at once (a pipe)
// gets every answer before the server ends: the SDK writes nothing once
// its reading has ended, so the end of the input waits for the calls
// read before it.
func TestAnswersBeforeHangingUp(t *testing.T) {
	c := startStdio(t)
	c.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(t, `{not json`)
	c.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_sessions","arguments":{"query":"login"}}}`)
	c.send(t, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	c.close(t)
	var ids []string
	for l := range c.lines {
		var r rpcAnswer
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		ids = append(ids, string(r.ID))
	}
	slices.Sort(ids) // the SDK answers calls concurrently, and the refusal is written at once
	if got := strings.Join(ids, " "); got != "1 2 3 null" {
		t.Errorf("answers to %s, want 1 2 3 null", got)
	}
}
