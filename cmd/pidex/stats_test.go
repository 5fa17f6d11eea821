package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/internal/pgtest"
	"github.com/pidex-dev/pidex/pi"
)

// The activity report against an independent walk of the session files:
// each figure of docs/stats.md computed here from the JSONL lines (not
// through the catalog, nor the indexer's code) equals pidex stats --json,
// for the whole corpus and for each session, on the local catalog and on
// a team catalog in PostgreSQL it was pushed into.

// walked is one session file's figures, by docs/stats.md's definitions.
type walked struct {
	figures pidex.StatsFigures // Sessions: 1 when it has counted entries
	active  pidex.StatsFigures // the same of the entries on the current path
	tools   map[string]*pidex.ToolFigures
	cmds    map[string]*pidex.CommandFigures
	wallMs  int64
	// heat: active time (at the later entry) and user turns (at the user
	// message) by weekday and hour, in each of heatZones.
	heat [len(heatZones)]statsHeat
	// errors: the error stops by stop reason and message; durations:
	// every timed tool result's.
	errors    map[string]int64
	durations []int64
}

// heatZones are the zones the test's heatmap is read in: half an hour
// off UTC, so that its hours are not the catalog's (a whole-history
// report reads the sums by quarter hour), and whole hours off with
// summer time (by hour).
var heatZones = [...]string{"Asia/Kolkata", "America/New_York"}

func heatZone(i int) *time.Location {
	loc, err := time.LoadLocation(heatZones[i])
	if err != nil {
		panic(err)
	}
	return loc
}

type statsHeat struct {
	ActiveMs  [7][24]int64
	UserTurns [7][24]int64
}

func (h *statsHeat) cell(zone int, ms int64) (*int64, *int64) {
	t := time.UnixMilli(ms).In(heatZone(zone))
	d, hr := (int(t.Weekday())+6)%7, t.Hour()
	return &h.ActiveMs[d][hr], &h.UserTurns[d][hr]
}

type walkEntry struct {
	raw           map[string]json.RawMessage
	typ, id, role string
	parent        *string
	ts            *int64
	msg           map[string]json.RawMessage
	offsetsOnPath bool
}

func jstr(m map[string]json.RawMessage, k string) string {
	var s string
	json.Unmarshal(m[k], &s)
	return s
}

// readSession reads a session file line by line: the header, then every
// line after it that is a JSON object (another header aside).
func readSession(t *testing.T, path string) (head map[string]json.RawMessage, es []*walkEntry) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	offset := 0
	for _, raw := range bytes.SplitAfter(b, []byte("\n")) {
		at := offset
		offset += len(raw)
		line := bytes.TrimSpace(bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")))
		var o map[string]json.RawMessage
		if json.Unmarshal(line, &o) != nil || o == nil {
			continue
		}
		typ := jstr(o, "type")
		if head == nil {
			if typ == "session" {
				head = o
			}
			continue
		}
		if typ == "session" { // another header: not an entry
			continue
		}
		e := &walkEntry{raw: o, typ: typ, id: jstr(o, "id")}
		if _, ok := o["id"]; !ok && formatVersion(head) < 2 {
			e.id = fmt.Sprint("v1:", at) // pidex's synthetic id of a version 1 entry
		}
		if p, ok := o["parentId"]; ok && string(p) != "null" {
			s := jstr(o, "parentId")
			e.parent = &s
		}
		json.Unmarshal(o["message"], &e.msg)
		e.role = jstr(e.msg, "role")
		var ms float64
		if json.Unmarshal(e.msg["timestamp"], &ms) == nil && e.msg["timestamp"] != nil {
			v := int64(ms)
			e.ts = &v
		} else if v, ok := js.ParseDate(jstr(o, "timestamp")); ok {
			e.ts = &v
		}
		es = append(es, e)
	}
	return head, es
}

func formatVersion(head map[string]json.RawMessage) float64 {
	v := 1.0
	json.Unmarshal(head["version"], &v)
	return v
}

// key is what makes two files' entries one entry: its id and time.
func (e *walkEntry) key() string {
	if e.ts == nil {
		return e.id
	}
	return fmt.Sprint(e.id, "@", *e.ts)
}

// walkSession computes a session file's figures; copied holds the
// entries (key) a file of the same session id with a lower path counts.
func walkSession(t *testing.T, head map[string]json.RawMessage, es []*walkEntry, copied map[string]bool) walked {
	w := walked{tools: map[string]*pidex.ToolFigures{}, cmds: map[string]*pidex.CommandFigures{}, errors: map[string]int64{}}
	if head == nil {
		return w
	}
	// The current path: from the last entry up its parents (an id's
	// latest entry wins).
	byID := map[string]*walkEntry{}
	for _, e := range es {
		if e.id != "" {
			byID[e.id] = e
		}
	}
	if formatVersion(head) < 2 { // version 1: each entry follows the one before it
		for _, e := range es {
			e.offsetsOnPath = true
		}
	} else if len(es) > 0 {
		seen := map[*walkEntry]bool{}
		for e := es[len(es)-1]; e != nil && !seen[e]; {
			seen[e] = true
			e.offsetsOnPath = true
			if e.parent == nil {
				break
			}
			e = byID[*e.parent]
		}
	}
	// A fork's file counts from its first entry timed at or after its header.
	from := 0
	if jstr(head, "parentSession") != "" || jstr(head, "branchedFrom") != "" {
		if created, ok := js.ParseDate(jstr(head, "timestamp")); ok {
			from = len(es)
			for i, e := range es {
				if e.ts != nil && *e.ts >= created {
					from = i
					break
				}
			}
		}
	}
	type call struct {
		name, cmd string
		ts        *int64
	}
	calls := map[string]call{}
	var prev *int64
	var turnAt *walkEntry
	var lastReply *walkEntry
	var turnActive bool
	var first, last *int64
	endTurn := func() {
		if turnAt == nil {
			return
		}
		for _, f := range w.sets(turnActive) {
			f.UserTurns++
			if lastReply != nil && turnAt.ts != nil && lastReply.ts != nil && *lastReply.ts >= *turnAt.ts {
				d := *lastReply.ts - *turnAt.ts
				f.TurnsTimed++
				f.LatencyMs += d
				f.MaxLatencyMs = max(f.MaxLatencyMs, d)
			}
		}
		turnAt, lastReply = nil, nil
	}
	for i, e := range es {
		counted := i >= from && !copied[e.key()]
		sets := w.sets(e.offsetsOnPath)
		if e.typ == "message" && e.role == "user" && counted {
			endTurn()
			turnAt, turnActive = e, e.offsetsOnPath
			for z := range w.heat {
				if e.ts != nil {
					_, turns := w.heat[z].cell(z, *e.ts)
					*turns++
				}
			}
		}
		var content []map[string]json.RawMessage
		json.Unmarshal(e.msg["content"], &content)
		if e.typ == "message" && e.role == "assistant" {
			for _, c := range content {
				if jstr(c, "type") != "toolCall" {
					continue
				}
				var args map[string]json.RawMessage
				json.Unmarshal(c["arguments"], &args)
				name, cmd := jstr(c, "name"), ""
				if name == "bash" {
					cmd = pi.CommandWord(jstr(args, "command"))
				}
				calls[jstr(c, "id")] = call{name, cmd, e.ts}
				if counted {
					for _, f := range sets {
						f.ToolCalls++
					}
					w.tool(name).Calls++
					if cmd != "" {
						w.cmd(cmd).Calls++
					}
				}
			}
		}
		if e.typ == "message" && e.role == "toolResult" && jstr(e.msg, "toolCallId") != "" && counted {
			c, ok := calls[jstr(e.msg, "toolCallId")]
			name := jstr(e.msg, "toolName")
			if name == "" {
				name = c.name
			}
			var isErr bool
			json.Unmarshal(e.msg["isError"], &isErr)
			tf := w.tool(name)
			tf.Results++
			for _, f := range sets {
				f.ToolResults++
				if isErr {
					f.ToolErrors++
				}
			}
			if isErr {
				tf.Errors++
				if ok && c.cmd != "" {
					w.cmd(c.cmd).Errors++
				}
			}
			var s string
			if json.Unmarshal(e.msg["content"], &s) == nil {
				tf.ResultBytes += int64(len(s))
			} else if e.msg["content"] == nil || string(e.msg["content"]) == "null" {
				tf.ResultBytes += int64(len(jstr(e.msg, "output")))
			} else {
				for _, b := range content {
					if jstr(b, "type") == "text" {
						tf.ResultBytes += int64(len(jstr(b, "text")))
					}
				}
			}
			if ok && c.ts != nil && e.ts != nil && *e.ts >= *c.ts {
				d := *e.ts - *c.ts
				tf.Timed++
				tf.DurationMs += d
				tf.MaxDuration = max(tf.MaxDuration, d)
				w.durations = append(w.durations, d)
			}
		}
		if !counted {
			continue
		}
		for _, f := range sets {
			f.Entries++
		}
		switch {
		case e.typ == "message" && e.role == "assistant":
			var u struct{ Input, CacheRead, CacheWrite float64 }
			json.Unmarshal(e.msg["usage"], &u)
			for _, f := range sets {
				f.AssistantCalls++
				f.PromptInput += u.Input
				f.PromptCacheRead += u.CacheRead
				f.PromptCacheWrite += u.CacheWrite
				switch jstr(e.msg, "stopReason") {
				case "error":
					f.StopError++
				case "aborted":
					f.StopAborted++
				case "length":
					f.StopLength++
				}
			}
			if sr := jstr(e.msg, "stopReason"); sr == "error" || sr == "aborted" || sr == "length" {
				w.errors[sr+"\x00"+pi.ErrorLine(jstr(e.msg, "errorMessage"))]++
			}
			if turnAt != nil {
				lastReply = e
			}
		case e.typ == "message" && e.role == "bashExecution":
			for _, f := range sets {
				f.UserCommands++
			}
			if c := pi.CommandWord(jstr(e.msg, "command")); c != "" {
				w.cmd(c).User++
			}
		case e.typ == "compaction":
			var n int64
			json.Unmarshal(e.raw["tokensBefore"], &n)
			for _, f := range sets {
				f.Compactions++
				if n > 0 {
					f.ContextBefore += n
					f.MaxContextBefore = max(f.MaxContextBefore, n)
				}
			}
		}
		if e.ts != nil {
			if prev != nil {
				if gap := *e.ts - *prev; gap > 0 && gap <= pidex.ActiveGapMs {
					for _, f := range sets {
						f.ActiveMs += gap
					}
					for z := range w.heat {
						active, _ := w.heat[z].cell(z, *e.ts)
						*active += gap
					}
				}
			}
			prev = e.ts
			if first == nil || *e.ts < *first {
				first = e.ts
			}
			if last == nil || *e.ts > *last {
				last = e.ts
			}
		}
	}
	endTurn()
	if first != nil {
		w.wallMs = *last - *first
	}
	if w.figures.Entries > 0 {
		w.figures.Sessions = 1
	}
	if w.active.Entries > 0 {
		w.active.Sessions = 1
	}
	return w
}

// sets are the figures an entry counts in: all, and the current path's.
func (w *walked) sets(onPath bool) []*pidex.StatsFigures {
	if onPath {
		return []*pidex.StatsFigures{&w.figures, &w.active}
	}
	return []*pidex.StatsFigures{&w.figures}
}

func (w *walked) tool(name string) *pidex.ToolFigures {
	if w.tools[name] == nil {
		w.tools[name] = &pidex.ToolFigures{Tool: name}
	}
	return w.tools[name]
}

func (w *walked) cmd(name string) *pidex.CommandFigures {
	if w.cmds[name] == nil {
		w.cmds[name] = &pidex.CommandFigures{Command: name}
	}
	return w.cmds[name]
}

// statsDoc is what the test reads of stats --json.
type statsDoc struct {
	Totals   pidex.StatsFigures
	Sessions pidex.SessionFigures
	Tools    []pidex.ToolFigures
	Commands []pidex.CommandFigures
	Heatmap  statsHeat
	Errors   []struct {
		Kind    string `json:"stopReason"`
		Message string
		Count   int64
		Last    jsonRef `json:"latest"`
	}
	Slowest []struct {
		DurationMs int64
		At         jsonRef
	}
}

// jsonRef is an EntryRef as --json writes it.
type jsonRef struct {
	Session struct{ Path string }
	EntryID string
	Line    int64
	Time    string
}

func TestStatsEqualsAWalkOfTheFiles(t *testing.T) {
	root, _ := filepath.Abs("../../testdata/sessions")
	omp, _ := filepath.Abs("../../testdata/sessions-omp/agent/sessions")
	claw, _ := filepath.Abs("../../testdata/sessions-openclaw/agents")
	db := filepath.Join(t.TempDir(), "c.sqlite")
	local := []string{"--db", db, "--sessions", root, "--sessions", "omp:" + omp, "--sessions", "openclaw:" + claw, "-q"}
	cli(t, 3, append(slices.Clone(local), "index")...)
	// Every session file, subagents' included (list shows them beneath
	// their parents; their work is theirs, counted once).
	var sessions []struct{ Path string }
	if err := json.Unmarshal([]byte(cli(t, 0, append(slices.Clone(local), "--no-refresh", "sql", "--format", "json",
		"SELECT path FROM sessions_v")...)), &sessions); err != nil {
		t.Fatal(err)
	}
	var all, active pidex.StatsFigures
	tools := map[string]pidex.ToolFigures{}
	cmds := map[string]pidex.CommandFigures{}
	per := map[string]walked{}
	var walls []int64
	var heat [len(heatZones)]statsHeat
	errs := map[string]int64{}
	var durations []int64
	// Files holding one session id count a shared entry once, in the one
	// with the lowest path.
	type read struct {
		head map[string]json.RawMessage
		es   []*walkEntry
	}
	files := map[string]read{}
	byID := map[string][]string{}
	for _, s := range sessions {
		h, es := readSession(t, s.Path)
		files[s.Path] = read{h, es}
		byID[jstr(h, "id")] = append(byID[jstr(h, "id")], s.Path)
	}
	for _, s := range sessions {
		f := files[s.Path]
		copied := map[string]bool{}
		for _, other := range byID[jstr(f.head, "id")] {
			if other < s.Path {
				for _, e := range files[other].es {
					copied[e.key()] = true
				}
			}
		}
		w := walkSession(t, f.head, f.es, copied)
		per[s.Path] = w
		all.Add(w.figures)
		all.Sessions += w.figures.Sessions
		active.Add(w.active)
		active.Sessions += w.active.Sessions
		if w.figures.Sessions > 0 {
			walls = append(walls, w.wallMs)
		}
		for k, n := range w.errors {
			errs[k] += n
		}
		durations = append(durations, w.durations...)
		for z := range heat {
			for d := range 7 {
				for h := range 24 {
					heat[z].ActiveMs[d][h] += w.heat[z].ActiveMs[d][h]
					heat[z].UserTurns[d][h] += w.heat[z].UserTurns[d][h]
				}
			}
		}
		for n, f := range w.tools {
			x := tools[n]
			x.Tool = n
			x.Calls, x.Results, x.Errors, x.ResultBytes = x.Calls+f.Calls, x.Results+f.Results, x.Errors+f.Errors, x.ResultBytes+f.ResultBytes
			x.Timed, x.DurationMs, x.MaxDuration = x.Timed+f.Timed, x.DurationMs+f.DurationMs, max(x.MaxDuration, f.MaxDuration)
			tools[n] = x
		}
		for n, f := range w.cmds {
			x := cmds[n]
			x.Command, x.Calls, x.Errors, x.User = n, x.Calls+f.Calls, x.Errors+f.Errors, x.User+f.User
			cmds[n] = x
		}
	}
	if all.ToolCalls < 100 || all.UserTurns < 50 || all.StopAborted == 0 || all.Compactions == 0 || all.UserCommands == 0 {
		t.Fatalf("the corpus exercises too little: %+v", all)
	}
	// Rolled up (--rollup), a subagent's figures are those of the session
	// at the top of its chain (topOf, from the agents' layout): by
	// session, and for one session with its subagents.
	var paths []string
	for _, s := range sessions {
		paths = append(paths, s.Path)
	}
	top := topOf(paths)
	fam := families(t, top)
	bySession := func(rollup bool) map[string]pidex.StatsFigures {
		out := map[string]pidex.StatsFigures{}
		for p, w := range per {
			key := p
			if rollup {
				key = top[p]
			}
			id := jstr(files[key].head, "id")
			f := out[id]
			f.Add(w.figures)
			f.Sessions += w.figures.Sessions
			out[id] = f
		}
		for id, f := range out {
			if f.Sessions == 0 { // no counted entry: no row
				delete(out, id)
			}
		}
		return out
	}
	catalogs := []struct {
		name string
		args func(t *testing.T) []string
	}{
		{"sqlite", func(*testing.T) []string { return local }},
		{"postgres", func(t *testing.T) []string { // skipped, saying so, where no PostgreSQL can be had
			url := pgtest.URL(t)
			cli(t, 3, append(slices.Clone(local), "push", "--to", url, "--machine", "m1")...)
			return []string{"--catalog", url}
		}},
	}
	for _, c := range catalogs {
		name := c.name
		t.Run(name, func(t *testing.T) {
			args := c.args(t)
			read := func(more ...string) statsDoc {
				var d statsDoc
				if err := json.Unmarshal([]byte(cli(t, 0, slices.Concat(args, []string{"--no-refresh", "stats", "--json"}, more)...)), &d); err != nil {
					t.Fatal(err)
				}
				return d
			}
			got := read()
			if got.Totals != all {
				t.Errorf("totals:\n got %+v\nwant %+v", got.Totals, all)
			}
			if a := read("--branch", "active"); a.Totals != active {
				t.Errorf("active branch totals:\n got %+v\nwant %+v", a.Totals, active)
			}
			if got.Sessions.Count != int64(len(walls)) || got.Sessions.MaxWallMs != slices.Max(walls) {
				t.Errorf("sessions %+v, want %d with the longest %d ms", got.Sessions, len(walls), slices.Max(walls))
			}
			// The heatmap, in each zone (see heatZones).
			for z, want := range heat {
				if h := read("--tz", heatZones[z]).Heatmap; h != want {
					t.Errorf("heatmap in %s:\n got %v\nwant %v", heatZones[z], h, want)
				}
			}
			// The error messages, each with its count and an entry that
			// shows it; the slowest tool results.
			if len(got.Errors) != min(len(errs), pidex.StatsTop) {
				t.Errorf("%d error messages, want %d", len(got.Errors), min(len(errs), pidex.StatsTop))
			}
			for _, e := range got.Errors {
				if n := errs[e.Kind+"\x00"+e.Message]; e.Count != n || e.Last.EntryID == "" || e.Last.Line == 0 {
					t.Errorf("error %s %q: %d, latest %+v; want %d", e.Kind, e.Message, e.Count, e.Last, n)
				}
			}
			slices.SortFunc(durations, func(a, b int64) int { return cmp.Compare(b, a) })
			var slow []int64
			for _, c := range got.Slowest {
				slow = append(slow, c.DurationMs)
				if c.At.EntryID == "" || c.At.Session.Path == "" {
					t.Errorf("a slowest call without its entry: %+v", c)
				}
			}
			if want := durations[:min(len(durations), pidex.StatsTop)]; !slices.Equal(slow, want) {
				t.Errorf("slowest %v, want %v", slow, want)
			}
			left := maps.Clone(tools)
			for _, tf := range got.Tools {
				if tf != tools[tf.Tool] {
					t.Errorf("tool %s: got %+v, want %+v", tf.Tool, tf, tools[tf.Tool])
				}
				delete(left, tf.Tool)
			}
			if len(left) > 0 {
				t.Errorf("tools the report lacks: %v", left)
			}
			for _, c := range got.Commands {
				if c != cmds[c.Command] {
					t.Errorf("command %s: got %+v, want %+v", c.Command, c, cmds[c.Command])
				}
			}
			// The SQL views hold what the figures count.
			var viewed []struct {
				Entries, Turns, Calls, Errors, Tools, ToolErrors int64
			}
			q := `SELECT (SELECT count(*) FROM activity_v WHERE counted = 1) AS entries,
				(SELECT count(*) FROM activity_v WHERE counted = 1 AND type = 'message' AND role = 'user') AS turns,
				(SELECT count(*) FROM activity_v WHERE counted = 1 AND role = 'assistant') AS calls,
				(SELECT count(*) FROM activity_v WHERE counted = 1 AND stop_reason = 'error') AS errors,
				(SELECT count(*) FROM tool_uses_v WHERE counted = 1) AS tools,
				(SELECT count(*) FROM tool_uses_v WHERE counted = 1 AND is_error = 1) AS toolerrors`
			if err := json.Unmarshal([]byte(cli(t, 0, slices.Concat(args, []string{"--no-refresh", "sql", "--format", "json", q})...)), &viewed); err != nil {
				t.Fatal(err)
			}
			if v := viewed[0]; v.Entries != all.Entries || v.Turns != all.UserTurns || v.Calls != all.AssistantCalls ||
				v.Errors != all.StopError || v.Tools != all.ToolCalls {
				t.Errorf("the views count %+v; the report %+v", v, all)
			}
			// Each session's report is its file's walk.
			for path, w := range per {
				d := read("--session", path)
				if d.Totals != w.figures {
					t.Errorf("%s:\n got %+v\nwant %+v", filepath.Base(path), d.Totals, w.figures)
				}
			}
			// Rolled up: a parent's figures are its own plus its
			// subagents'; the totals do not move.
			if r := read("--rollup"); r.Totals != all {
				t.Errorf("totals rolled up:\n got %+v\nwant %+v", r.Totals, all)
			}
			for parent, kids := range fam {
				want := per[parent].figures
				for _, k := range kids {
					want.Add(per[k].figures)
					want.Sessions += per[k].figures.Sessions
				}
				if d := read("--session", parent, "--rollup"); d.Totals != want {
					t.Errorf("%s with its subagents:\n got %+v\nwant %+v", filepath.Base(parent), d.Totals, want)
				}
			}
			for _, rollup := range []bool{false, true} {
				more := []string{"--by", "session"}
				if rollup {
					more = append(more, "--rollup")
				}
				var d struct {
					Rows []struct {
						Session string `json:"session"`
						pidex.StatsFigures
					}
					Totals pidex.StatsFigures
				}
				if err := json.Unmarshal([]byte(cli(t, 0, slices.Concat(args, []string{"--no-refresh", "stats", "--json"}, more)...)), &d); err != nil {
					t.Fatal(err)
				}
				want := bySession(rollup)
				if len(d.Rows) != len(want) || d.Totals != all {
					t.Errorf("by session (rollup %v): %d rows, want %d; totals %+v", rollup, len(d.Rows), len(want), d.Totals)
				}
				for _, r := range d.Rows {
					if r.StatsFigures != want[r.Session] {
						t.Errorf("by session (rollup %v), %s:\n got %+v\nwant %+v", rollup, r.Session, r.StatsFigures, want[r.Session])
					}
				}
			}
		})
	}
}
