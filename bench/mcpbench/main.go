// Command mcpbench measures `pidex mcp` on a corpus: tool latency over
// stdio for a rare and a common search and for read_session of the largest
// session's latest window, against `pidex search --json` run as a
// process, and the server's idle CPU. The same tools are also timed in
// process over the SDK's in-memory transport (the server's own time,
// without the pipes). Runs are short, repeated and alternated, so that a
// machine shared with other work shows as spread, not as a bias; the load
// average is printed before and after. Usage (bench/mcp.sh wraps it):
//
//	go run ./bench/mcpbench -bin PIDEX -db CATALOG -corpus DIR [-rare WORD] [-common WORD] [-rounds 15] [-idle 65s]
//
// The catalog must be current (pidex index); the server refreshes on
// start, which costs one stat per file.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/mcp"
)

func main() {
	bin := flag.String("bin", "pidex", "the pidex binary")
	db := flag.String("db", "", "catalog (indexed)")
	corpus := flag.String("corpus", "", "sessions root")
	rare := flag.String("rare", "", "a rare word (default: the first zqplant word of CORPUS.plants.json, as bench/search.sh)")
	common := flag.String("common", "the", "a common word")
	rounds := flag.Int("rounds", 15, "alternated rounds")
	idle := flag.Duration("idle", 65*time.Second, "how long to watch the idle server's CPU (past the watcher's one-minute safety refresh)")
	flag.Parse()
	if *db == "" || *corpus == "" {
		fail(fmt.Errorf("-db and -corpus are required"))
	}
	if *rare == "" {
		*rare = firstPlant(*corpus + ".plants.json")
	}
	fmt.Printf("date: %s, load average: %s\n", time.Now().UTC().Format("2006-01-02T15:04Z"), load())
	ctx := context.Background()

	// The server as a client starts it: over stdio.
	cmd := exec.Command(*bin, "--db", *db, "--sessions", *corpus, "mcp")
	cmd.Stderr = os.Stderr
	t0 := time.Now()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "mcpbench", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		fail(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		fail(err)
	}
	fmt.Printf("start to tools/list answered: %s\n", ms(time.Since(t0)))
	first := time.Now()
	call(ctx, cs, "list_sessions", map[string]any{"limit": 1}) // waits for the refresh on start
	fmt.Printf("first tool call (waits for the refresh on start): %s\n", ms(time.Since(first)))

	largest := call(ctx, cs, "list_sessions", map[string]any{"sort": "size", "limit": 1})
	var ls struct {
		Sessions []struct {
			Session   struct{ ID string } `json:"session"`
			Entries   int64               `json:"entries"`
			SizeBytes int64               `json:"size_bytes"`
		} `json:"sessions"`
	}
	_ = json.Unmarshal(largest, &ls)
	big := ls.Sessions[0]
	fmt.Printf("largest session: %s, %d entries, %d bytes\n", big.Session.ID, big.Entries, big.SizeBytes)

	// In process: the same server over the SDK's in-memory transport.
	eng, err := engine.Open(ctx, engine.Options{DBPath: *db, Roots: []string{*corpus}})
	if err != nil {
		fail(err)
	}
	defer eng.Close()
	st, ct := sdk.NewInMemoryTransports()
	if _, err := mcp.New(eng, mcp.Options{}).SDK().Connect(ctx, st, nil); err != nil {
		fail(err)
	}
	local, err := sdk.NewClient(&sdk.Implementation{Name: "mcpbench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		fail(err)
	}

	type op struct {
		name string
		run  func()
	}
	tool := func(cs *sdk.ClientSession, name string, args map[string]any) func() {
		return func() { call(ctx, cs, name, args) }
	}
	proc := func(args ...string) func() {
		return func() {
			c := exec.Command(*bin, append([]string{"--db", *db, "--sessions", *corpus}, args...)...)
			if out, err := c.Output(); err != nil && c.ProcessState.ExitCode() != 3 { // 3: done, some lines unreadable
				fail(fmt.Errorf("%v: %v %s", args, err, out))
			}
		}
	}
	read := map[string]any{"session": big.Session.ID}
	t1 := time.Now()
	call(ctx, cs, "read_session", read)
	fmt.Printf("first read_session of the largest session (nothing kept yet): %s\n", ms(time.Since(t1)))
	// Windows the server has not read yet: a model paging back through the
	// session (each window rebuilds the branch's context around it).
	window := 0
	pages := func(cs *sdk.ClientSession) func() {
		return func() {
			window++
			call(ctx, cs, "read_session", map[string]any{"session": big.Session.ID, "offset": int(big.Entries) - 50*(window%150) - 50})
		}
	}
	ops := []op{
		{"stdio search_sessions rare", tool(cs, "search_sessions", map[string]any{"query": *rare})},
		{"in-process search_sessions rare", tool(local, "search_sessions", map[string]any{"query": *rare})},
		{"process pidex search --json rare", proc("search", "--json", *rare)},
		{"process pidex search --json --no-refresh rare", proc("search", "--json", "--no-refresh", *rare)},
		{"stdio search_sessions common", tool(cs, "search_sessions", map[string]any{"query": *common})},
		{"in-process search_sessions common", tool(local, "search_sessions", map[string]any{"query": *common})},
		{"process pidex search --json common", proc("search", "--json", *common)},
		{"process pidex search --json --no-refresh common", proc("search", "--json", "--no-refresh", *common)},
		{"stdio read_session largest (latest window)", tool(cs, "read_session", read)},
		{"in-process read_session largest (latest window)", tool(local, "read_session", read)},
		{"stdio read_session largest, a new window each time", pages(cs)},
		{"in-process read_session largest, a new window each time", pages(local)},
	}
	samples := make([][]time.Duration, len(ops))
	for _, o := range ops { // warm up: page cache, the context cache
		o.run()
	}
	for range *rounds {
		for i, o := range ops {
			t := time.Now()
			o.run()
			samples[i] = append(samples[i], time.Since(t))
		}
	}
	fmt.Printf("\n%d alternated rounds; rare %q, common %q\n\n| what | median | min | p90 |\n|---|---|---|---|\n", *rounds, *rare, *common)
	for i, o := range ops {
		s := samples[i]
		slices.Sort(s)
		fmt.Printf("| %s | %s | %s | %s |\n", o.name, ms(s[len(s)/2]), ms(s[0]), ms(s[len(s)*9/10]))
	}
	fmt.Printf("\nload average after the rounds: %s\n", load())

	// Idle: the server does nothing but its watcher's safety refresh.
	pid := cmd.Process.Pid
	c0, w0 := cpu(pid), time.Now()
	time.Sleep(*idle)
	c1, w1 := cpu(pid), time.Now()
	fmt.Printf("idle server over %s: %s CPU (%.3f%% of one core); RSS %s\n", w1.Sub(w0).Round(time.Second), ms(c1-c0),
		100*float64(c1-c0)/float64(w1.Sub(w0)), rss(pid))
	fmt.Printf("load average at the end: %s\n", load())
}

func call(ctx context.Context, cs *sdk.ClientSession, name string, args map[string]any) json.RawMessage {
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		fail(err)
	}
	if res.IsError {
		fail(fmt.Errorf("%s: %v", name, res.Content[0].(*sdk.TextContent).Text))
	}
	b, _ := json.Marshal(res.StructuredContent)
	return b
}

func firstPlant(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		fail(fmt.Errorf("no -rare and no plants file: %w", err))
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		fail(err)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		if strings.HasPrefix(k, "zqplant") { // as bench/search.sh picks it
			return k
		}
	}
	return keys[0]
}

// cpu is a process's user+system time (Linux /proc).
func cpu(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		fail(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64) // utime, stime: fields 14 and 15
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * time.Second / 100 // USER_HZ
}

func rss(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

func load() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mcpbench:", err)
	os.Exit(1)
}
