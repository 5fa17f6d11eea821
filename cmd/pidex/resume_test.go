package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/internal/tooltest"
)

// pidex resume under the agents' own command lines: the built binary
// execs pi 1.6.0 (and oh-my-pi 18.2.3) in RPC mode (arguments after --),
// and the agent, asked over RPC, has opened the file pidex named, in the
// folder it named, at the leaf it named. Every session file is a copy in
// a temporary folder: the agents write to the files they open (pi
// migrates old versions in place, appends what it runs).

// agentFixture copies session files into a fresh sessions folder, each
// with its header's cwd moved to a project folder of its own that exists.
// from is the folder of testdata the files' names start from.
func agentFixture(t *testing.T, from string, files ...string) (sessions string, paths []string) {
	t.Helper()
	base := t.TempDir()
	sessions = filepath.Join(base, "sessions")
	for i, f := range files {
		b, err := os.ReadFile(filepath.Join("../../testdata", from, f))
		if err != nil {
			t.Fatal(err)
		}
		var slot []byte // omp's title line, before the header
		if bytes.HasPrefix(b, []byte(`{"type":"title"`)) {
			i := bytes.IndexByte(b, '\n') + 1
			slot, b = b[:i], b[i:]
		}
		head, rest, _ := bytes.Cut(b, []byte("\n"))
		var h map[string]any
		if err := json.Unmarshal(head, &h); err != nil {
			t.Fatalf("%s: header: %v", f, err)
		}
		cwd := filepath.Join(base, fmt.Sprintf("project %d", i)) // a space: the command must quote it
		if err := os.MkdirAll(cwd, 0o755); err != nil {
			t.Fatal(err)
		}
		h["cwd"] = cwd
		head, _ = json.Marshal(h)
		p := filepath.Join(sessions, "--project--", filepath.Base(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, slices.Concat(slot, head, []byte("\n"), rest), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return sessions, paths
}

// rpcAgent is an agent pidex resume started in RPC mode.
type rpcAgent struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan []byte
	n     int
}

func startResume(t *testing.T, env []string, args ...string) *rpcAgent {
	t.Helper()
	cmd := exec.Command(tooltest.Pidex(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &rpcAgent{t: t, cmd: cmd, in: in, lines: make(chan []byte, 64)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			a.lines <- bytes.Clone(sc.Bytes())
		}
		close(a.lines)
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("pidex resume %s: stderr:\n%s", strings.Join(args, " "), stderr.String())
		}
	})
	return a
}

// call sends one RPC command and returns its response's data.
func (a *rpcAgent) call(command map[string]any) map[string]any {
	a.t.Helper()
	a.n++
	id := fmt.Sprint("c", a.n)
	command["id"] = id
	b, _ := json.Marshal(command)
	if _, err := a.in.Write(append(b, '\n')); err != nil {
		a.t.Fatalf("send %s: %v", b, err)
	}
	timeout := time.After(time.Minute)
	for {
		select {
		case l, ok := <-a.lines:
			if !ok {
				a.t.Fatalf("the agent ended before answering %s", b)
			}
			var r struct {
				ID      string         `json:"id"`
				Type    string         `json:"type"`
				Success bool           `json:"success"`
				Error   string         `json:"error"`
				Data    map[string]any `json:"data"`
			}
			if json.Unmarshal(l, &r) != nil || r.Type != "response" || r.ID != id {
				continue // events, and lines that are not JSON
			}
			if !r.Success {
				a.t.Fatalf("%s: %s", b, r.Error)
			}
			return r.Data
		case <-timeout:
			a.t.Fatalf("no answer to %s in a minute", b)
		}
	}
}

// openedAt is the entry an agent opened a session at, from its RPC
// get_entries: its leaf, or where the entries it appended on opening
// (pi records its thinking level when the session's differs) hang from
// what the file held before.
func openedAt(entries map[string]any, before []byte) string {
	parent := map[string]string{}
	for _, e := range entries["entries"].([]any) {
		m := e.(map[string]any)
		p, _ := m["parentId"].(string)
		parent[m["id"].(string)] = p
	}
	leaf, _ := entries["leafId"].(string)
	for leaf != "" && !bytes.Contains(before, []byte(`"id":"`+leaf+`"`)) {
		leaf = parent[leaf]
	}
	return leaf
}

// resumeJSON is what pidex resume --print --json names.
func resumeJSON(t *testing.T, args ...string) pidex.Resume {
	t.Helper()
	var r pidex.Resume
	if err := json.Unmarshal([]byte(cli(t, 0, append(args, "--print", "--json")...)), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestResumeInPi(t *testing.T) {
	_, path := tooltest.Clients(t)
	sessions, paths := agentFixture(t, "sessions",
		"--home-ann-proj-alpha--/2026-09-14T09-12-03-117Z_01a09f30-132d-724f-a634-c14fac694f8c.jsonl", // v3
		"--home-ann-proj-alpha--/2026-09-15T14-03-27-802Z_01a0a561-3aba-724f-a634-c15148c18a5a.jsonl", // branched, two roots
		"--home-ann-legacy--/2025-12-29T10-02-11-470Z_4c0ffee0-1d2e-4f3a-8b4c-5d6e7f8091a2.jsonl",     // v2, branched
		"--real--/kimchi-session-20260427.v3.jsonl",                                                   // a real session
	)
	db := filepath.Join(t.TempDir(), "c.sqlite")
	global := []string{"--db", db, "--sessions", sessions, "-q"}
	env := []string{"PATH=" + path, "HOME=" + t.TempDir()} // pi's own settings and forks go to a home of its own
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			// The command, as pidex names it; then as pidex runs it.
			want := resumeJSON(t, append(append([]string{}, global...), "resume", p)...)
			before, _ := os.ReadFile(p)
			a := startResume(t, env, append(append([]string{}, global...), "resume", p, "--", "--mode", "rpc")...)
			state := a.call(map[string]any{"type": "get_state"})
			entries := a.call(map[string]any{"type": "get_entries"})
			pwd := a.call(map[string]any{"type": "bash", "command": "pwd"})
			if state["sessionFile"] != want.Path || want.Path != p {
				t.Errorf("pi opened %v, pidex named %s (the file is %s)", state["sessionFile"], want.Path, p)
			}
			if got := openedAt(entries, before); got != want.Leaf || want.Leaf == "" {
				t.Errorf("pi opened the session at %q, pidex named %q", got, want.Leaf)
			}
			if got := strings.TrimSpace(fmt.Sprint(pwd["output"])); got != want.Dir {
				t.Errorf("pi runs in %q, pidex named %q", got, want.Dir)
			}
		})
	}
	// --fork: pi makes a new session from the file, in the session's
	// folder, and leaves the file as it was.
	t.Run("fork", func(t *testing.T) {
		p := paths[0]
		before, _ := os.ReadFile(p)
		want := resumeJSON(t, append(append([]string{}, global...), "resume", p, "--fork")...)
		a := startResume(t, env, append(append([]string{}, global...), "resume", p, "--fork", "--", "--mode", "rpc")...)
		state := a.call(map[string]any{"type": "get_state"})
		pwd := a.call(map[string]any{"type": "bash", "command": "pwd"})
		fork, _ := state["sessionFile"].(string)
		if fork == "" || fork == p || !want.Fork || !strings.Contains(want.Command, "pi --fork ") {
			t.Errorf("pi --fork opened %q (the file: %s; pidex: %s)", fork, p, want.Command)
		}
		if got := strings.TrimSpace(fmt.Sprint(pwd["output"])); got != want.Dir {
			t.Errorf("the fork runs in %q, pidex named %q", got, want.Dir)
		}
		if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
			t.Errorf("the forked file changed")
		}
	})
}

// oh-my-pi: omp --resume FILE in the session's folder; omp answers over
// RPC which file it opened, where it runs, and how many messages its
// context holds (it has no RPC for its leaf): the messages pidex rebuilds
// at the leaf it named.
func TestResumeInOmp(t *testing.T) {
	_, path := tooltest.Omp(t)
	sessions, paths := agentFixture(t, "sessions-omp/agent/sessions",
		"--srv-billing--/2026-10-09T10-00-00-000Z_01a1201a-f500-7875-a73a-c7bda903774c.jsonl",
		"-proj-omega/2026-10-05T09-14-07-412Z_01a10b57-84b4-7cb8-adfe-747d23673f27.jsonl",
		"-proj-omega/2026-10-10T11-11-11-111Z_01a12582-7d07-71eb-b835-ef61050d73c8.jsonl",
	)
	db := filepath.Join(t.TempDir(), "c.sqlite")
	global := []string{"--db", db, "--sessions", "omp:" + sessions, "-q"}
	// omp needs a model to start: a key of the right shape, never used
	// (nothing is prompted).
	env := []string{"PATH=" + path, "HOME=" + t.TempDir(), "ANTHROPIC_API_KEY=sk-ant-pidex-test-not-a-key"}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			want := resumeJSON(t, append(append([]string{}, global...), "resume", p)...)
			var sc struct{ Messages []json.RawMessage }
			if err := json.Unmarshal([]byte(cli(t, 0, append(append([]string{}, global...), "show", p, "--context", "--json")...)), &sc); err != nil {
				t.Fatal(err)
			}
			if want.Program != "omp" || !strings.Contains(want.Command, "omp --resume ") {
				t.Fatalf("pidex names %s", want.Command)
			}
			a := startResume(t, env, append(append([]string{}, global...), "resume", p, "--", "--mode", "rpc")...)
			state := a.call(map[string]any{"type": "get_state"})
			pwd := a.call(map[string]any{"type": "bash", "command": "pwd"})
			if state["sessionFile"] != want.Path || want.Path != p {
				t.Errorf("omp opened %v, pidex named %s (the file is %s)", state["sessionFile"], want.Path, p)
			}
			if n, _ := state["messageCount"].(float64); int(n) != len(sc.Messages) {
				t.Errorf("omp's context holds %v messages, pidex's at leaf %s %d", state["messageCount"], want.Leaf, len(sc.Messages))
			}
			if got := strings.TrimSpace(fmt.Sprint(pwd["output"])); got != want.Dir {
				t.Errorf("omp runs in %q, pidex named %q", got, want.Dir)
			}
		})
	}
}

// Where pidex cannot start the agent, it prints the line to run and says
// why (exit 1); where it can, it starts the agent's program in the
// session's folder. (In process, with the start recorded: exec would
// replace the test.)
func TestResumeCannotRun(t *testing.T) {
	sessions, paths := agentFixture(t, "sessions", "--home-ann-proj-alpha--/2026-09-14T09-12-03-117Z_01a09f30-132d-724f-a634-c14fac694f8c.jsonl")
	gone := filepath.Join("../../testdata/sessions", "--home-ann-proj-alpha--/2026-09-14T09-12-03-117Z_01a09f30-132d-724f-a634-c14fac694f8c.jsonl")
	gone, _ = filepath.Abs(gone)
	bin := t.TempDir() // PATH: a fake pi, or nothing
	db := filepath.Join(t.TempDir(), "c.sqlite")
	run := func(args ...string) (stdout, stderr string, code int, started *pidex.Resume) {
		var out, errb bytes.Buffer
		a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &errb})
		a.launch = func(program string, r *pidex.Resume) error {
			if program != filepath.Join(bin, "pi") {
				t.Errorf("started %s, want the pi on PATH", program)
			}
			started = r
			return nil
		}
		err := a.execute(t.Context(), append([]string{"--db", db, "--sessions", sessions, "-q"}, args...))
		if err != nil {
			errb.WriteString(describe(err))
		}
		return out.String(), errb.String(), exitCode(err, false), started
	}
	t.Setenv("PATH", bin)
	out, errs, code, started := run("resume", paths[0])
	if code != 1 || started != nil || !strings.HasPrefix(out, "cd '") || !strings.Contains(out, "' && pi --session "+paths[0]) ||
		!strings.Contains(errs, "pi is not installed here") || !strings.Contains(errs, "npm install -g @earendil-works/pi-coding-agent") {
		t.Errorf("without pi: exit %d, started %v\nstdout: %s\nstderr: %s", code, started, out, errs)
	}
	if err := os.WriteFile(filepath.Join(bin, "pi"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, errs, code, started = run("resume", gone)
	if code != 1 || started != nil || out != "pi --session "+gone+"\n" || !strings.Contains(errs, "folder /home/ann/proj-alpha is gone") {
		t.Errorf("folder gone: exit %d, started %v\nstdout: %s\nstderr: %s", code, started, out, errs)
	}
	out, errs, code, started = run("resume", paths[0], "--leaf", "5fb8fb45", "--", "--model", "x")
	if code != 0 || started == nil || started.Dir == "" || !slices.Equal(started.Args, []string{"--session", paths[0], "--model", "x"}) || out != "" ||
		!strings.Contains(errs, "type /tree and choose entry 5fb8fb45 (line 5, user “The login test") {
		t.Errorf("with pi: exit %d, started %+v\nstdout: %s\nstderr: %s", code, started, out, errs)
	}
	if _, errs, code, _ = run("resume", paths[0], "--leaf", "nope"); code != 1 || !strings.Contains(errs, `has no entry "nope"`) {
		t.Errorf("an unknown leaf: exit %d\n%s", code, errs)
	}
}
