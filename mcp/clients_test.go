package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pidex-dev/pidex/internal/tooltest"
)

// Real clients against the built binary: the SDK's own over stdio and
// HTTP, the MCP Inspector's CLI, and pi's (`pi mcp add`, `pi mcp list`).
// The Node clients are installed by internal/tooltest (its clients/
// package-lock.json pins them, Node 22 included).

// pidexBinary builds cmd/pidex once for the package's tests.
func pidexBinary(t *testing.T) string { return tooltest.Pidex(t) }

// served is a corpus and a catalog for a pidex process, with the
// arguments that point it there.
func served(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "sessions")
	if err := copyCorpus(root); err != nil {
		t.Fatal(err)
	}
	return []string{"--db", filepath.Join(dir, "index.sqlite"), "--sessions", root}
}

// The built binary over stdio, with the SDK's client: the catalog is
// indexed on start (the call waits for it), stdout carries only JSON-RPC,
// and the process ends when the client hangs up.
func TestBinaryStdio(t *testing.T) {
	bin := pidexBinary(t)
	cmd := exec.Command(bin, append(served(t), "mcp")...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 9 {
		t.Fatalf("tools: %v, %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_sessions", Arguments: map[string]any{"query": "flaky login"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "**flaky** **login**") {
		t.Fatalf("search: %v, %v", res, err)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done: // it ended when stdin closed (the exit code says the corpus has damaged lines)
	case <-time.After(time.Minute): // not a timing assertion: a hang would otherwise block the suite
		_ = cmd.Process.Kill()
		t.Fatal("pidex mcp did not end when the client hung up")
	}
	if !strings.Contains(stderr.String(), "unreadable line(s)") {
		t.Errorf("stderr %q: the refresh's warnings go there", stderr.String())
	}
}

// startHTTP starts `pidex mcp --http` and returns its URL.
func startHTTP(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(pidexBinary(t), append(served(t), append([]string{"mcp", "--http", "127.0.0.1:0"}, args...)...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("read the URL: %v", err)
	}
	return strings.TrimSpace(line)
}

// --http serves streamable HTTP at /mcp behind serve's guard: the Host
// must be the bound address or localhost, the token is required when set.
func TestBinaryHTTP(t *testing.T) {
	url := startHTTP(t, "--token", "s3cret")
	if !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("url %q", url)
	}
	ctx := context.Background()
	connect := func(token string) (*sdk.ClientSession, error) {
		hc := &http.Client{Transport: bearer{token}}
		return sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	}
	if cs, err := connect("wrong"); err == nil {
		cs.Close()
		t.Error("a wrong token connected")
	}
	cs, err := connect("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_sessions", Arguments: map[string]any{"limit": 1}})
	if err != nil || res.IsError {
		t.Fatalf("list: %v, %v", res, err)
	}
	tests := []struct {
		name, host, path, auth string
		want                   int
	}{
		{"rebound name", "evil.example:80", "/mcp", "Bearer s3cret", http.StatusForbidden},
		{"another site's page", "", "/mcp", "Bearer s3cret", http.StatusForbidden},
		{"no token", "", "/mcp", "", http.StatusUnauthorized},
		{"other path", "", "/other", "Bearer s3cret", http.StatusNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", strings.TrimSuffix(url, "/mcp")+tc.path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			if tc.name == "another site's page" { // even with the token (a page could hold it)
				req.Header.Set("Origin", "https://evil.example")
				req.Header.Set("Sec-Fetch-Site", "cross-site")
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// Off loopback without a token, or a token without --http, the command
// refuses to start (usage error, exit 2) and says why.
func TestBinaryRefuses(t *testing.T) {
	bin := pidexBinary(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--http", "0.0.0.0:0"}, "is not a loopback address"},
		{[]string{"mcp", "--token", "x"}, "--token goes with --http"},
		{[]string{"mcp", "--http", "nonsense"}, "want host:port"},
	}
	for _, tc := range tests {
		out, err := exec.Command(bin, append(served(t), tc.args...)...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), tc.want) {
			t.Errorf("%v: %v, %s; want exit 2 and %q", tc.args, err, out, tc.want)
		}
	}
}

// nodeClients is the folder where the Node clients are installed, and
// the PATH that runs them under their Node 22.
func nodeClients(t *testing.T) (dir, path string) { return tooltest.Clients(t) }

// node runs a client's command from dir's node_modules/.bin.
func node(t *testing.T, dir, path string, env []string, name string, args ...string) []byte {
	t.Helper()
	return tooltest.Run(t, dir, path, env, name, args...)
}

// The MCP Inspector's CLI starts `pidex mcp` on the bundled corpus, lists
// the tools (--strict: their schemas must be portable) and searches.
func TestInspectorCLI(t *testing.T) {
	dir, path := nodeClients(t)
	target := append([]string{"--cli", pidexBinary(t)}, append(served(t), "mcp")...)
	home := []string{"HOME=" + t.TempDir()} // the Inspector keeps a catalog file there
	var list struct {
		Tools []struct {
			Name         string         `json:"name"`
			InputSchema  map[string]any `json:"inputSchema"`
			OutputSchema map[string]any `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(node(t, dir, path, home, "mcp-inspector", append(target, "--method", "tools/list", "--strict")...), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		if tl.InputSchema["type"] != "object" || tl.OutputSchema["type"] != "object" {
			t.Errorf("%s: schemas %v, %v", tl.Name, tl.InputSchema, tl.OutputSchema)
		}
	}
	slices.Sort(names)
	want := []string{"activity_report", "cost_report", "export_session", "get_context", "get_session", "list_sessions", "query_sql", "read_session", "search_sessions"}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	var call struct {
		IsError           bool                            `json:"isError"`
		Content           []struct{ Type, Text string }   `json:"content"`
		StructuredContent struct{ Hits []map[string]any } `json:"structuredContent"`
	}
	out := node(t, dir, path, home, "mcp-inspector", append(target, "--method", "tools/call", "--tool-name", "search_sessions",
		"--tool-arg", "query=flaky login", "--tool-arg", "project=proj-beta")...)
	if err := json.Unmarshal(out, &call); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if call.IsError || len(call.Content) == 0 || !strings.Contains(call.Content[0].Text, "**flaky** **login**") || len(call.StructuredContent.Hits) == 0 {
		t.Fatalf("search_sessions: %s", out)
	}
	for _, h := range call.StructuredContent.Hits {
		if h["project"] != "proj-beta" || digStr(h, "session", "id") != "01a0b36c-1844-724f-a634-c158a6e908a8" {
			t.Errorf("hit %v", h)
		}
	}
}

// pi 1.6.0's own client: `pi mcp add pidex -- BINARY mcp` into a fresh
// HOME, then `pi mcp list --json` connects and lists the tools.
func TestPiClient(t *testing.T) {
	dir, path := nodeClients(t)
	home := []string{"HOME=" + t.TempDir(), "PI_CODING_AGENT_DIR=", "PI_CODING_AGENT_SESSION_DIR="}
	node(t, dir, path, home, "pi", append([]string{"mcp", "add", "pidex", "--", pidexBinary(t)}, append(served(t), "mcp")...)...)
	var list struct {
		Servers []struct {
			Name  string   `json:"name"`
			State string   `json:"state"`
			Tools []string `json:"tools"`
		} `json:"servers"`
		Errors []any `json:"errors"`
	}
	out := node(t, dir, path, home, "pi", "mcp", "list", "--json")
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(list.Servers) != 1 || list.Servers[0].Name != "pidex" || list.Servers[0].State != "connected" || len(list.Errors) > 0 {
		t.Fatalf("pi mcp list: %s", out)
	}
	want := []string{"activity_report", "cost_report", "export_session", "get_context", "get_session", "list_sessions", "query_sql", "read_session", "search_sessions"}
	if got := slices.Sorted(slices.Values(list.Servers[0].Tools)); !slices.Equal(got, want) {
		t.Errorf("pi sees tools %v, want %v", got, want)
	}
}
