package query_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pidex-dev/pidex"
)

// The cost oracle: usage records read straight from the session files
// with encoding/json and pi's rules written out again here (leaf = last
// entry, path by parentId with later duplicate ids winning, attribution by
// walking up), so pidex's rollup, flags and SQL are checked against sums
// that share none of their code.

type rawCall struct {
	file, entryID, source string
	ts                    int64 // ms; 0 = none
	provider, model       string
	in, out, cr, cw, cw1h float64
	total, cost           float64
	onPath                bool
}

func (c rawCall) key() string {
	b, _ := json.Marshal([]any{c.entryID, c.source, c.ts, c.in, c.out, c.cr, c.cw})
	return string(b)
}

type rawEntry struct {
	ID        string          `json:"id"`
	ParentID  *string         `json:"parentId"`
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"`
	Provider  string          `json:"provider"`
	Model     string          `json:"model"`
	ModelID   string          `json:"modelId"`
	Usage     *rawUsage       `json:"usage"`
	Message   *rawMessage     `json:"message"`
	Extra     json.RawMessage `json:"-"`
}

type rawMessage struct {
	Role      string    `json:"role"`
	Provider  string    `json:"provider"`
	Model     string    `json:"model"`
	Usage     *rawUsage `json:"usage"`
	Timestamp *float64  `json:"timestamp"`
}

type rawUsage struct {
	Input, Output, CacheRead, CacheWrite, CacheWrite1h, TotalTokens float64
	Cost                                                            struct{ Total float64 }
}

// rawCalls reads every usage record of the .jsonl files under root.
func rawCalls(t *testing.T, root string) []rawCall {
	t.Helper()
	var out []rawCall
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		out = append(out, rawFileCalls(t, p)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func rawFileCalls(t *testing.T, path string) []rawCall {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var entries []rawEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var e rawEntry
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Type == "session" || e.ID == "" {
			continue
		}
		entries = append(entries, e)
	}
	byID := map[string]int{}
	for i, e := range entries {
		byID[e.ID] = i // later duplicates win
	}
	onPath := map[int]bool{}
	if n := len(entries); n > 0 {
		for i, seen := n-1, map[int]bool{}; !seen[i]; {
			seen[i], onPath[i] = true, true
			p := entries[i].ParentID
			j, ok := 0, false
			if p != nil {
				j, ok = byID[*p]
			}
			if !ok {
				break
			}
			i = j
		}
	}
	var out []rawCall
	for i, e := range entries {
		u, source := e.Usage, e.Type
		provider, model := e.Provider, e.Model
		ts := jsMillis(e.Timestamp)
		if e.Message != nil {
			u, source = e.Message.Usage, e.Message.Role
			provider, model = e.Message.Provider, e.Message.Model
			if e.Message.Timestamp != nil && ts == 0 {
				ts = int64(*e.Message.Timestamp) // the entry's time first, as ccusage
			}
		}
		if u == nil || (source != "assistant" && source != "toolResult" && source != "compaction" &&
			source != "branch_summary" && source != "usage") {
			continue
		}
		if model == "" {
			provider, model = attributeRaw(entries, byID, i)
		}
		total := u.TotalTokens
		if total == 0 {
			total = u.Input + u.Output + u.CacheRead + u.CacheWrite
		}
		out = append(out, rawCall{file: path, entryID: e.ID, source: source, ts: ts, provider: provider, model: model,
			in: u.Input, out: u.Output, cr: u.CacheRead, cw: u.CacheWrite, cw1h: u.CacheWrite1h, total: total,
			cost: u.Cost.Total, onPath: onPath[i] && byID[e.ID] == i})
	}
	return out
}

// attributeRaw: the nearest model_change or assistant message up the
// path, else the last one before the entry in the file.
func attributeRaw(entries []rawEntry, byID map[string]int, i int) (string, string) {
	modelOf := func(e rawEntry) (string, string) {
		if e.Type == "model_change" {
			return e.Provider, e.ModelID
		}
		if e.Message != nil && e.Message.Role == "assistant" {
			return e.Message.Provider, e.Message.Model
		}
		return "", ""
	}
	seen := map[int]bool{}
	for p := entries[i].ParentID; p != nil; {
		j, ok := byID[*p]
		if !ok || seen[j] {
			break
		}
		seen[j] = true
		if pr, m := modelOf(entries[j]); m != "" {
			return pr, m
		}
		p = entries[j].ParentID
	}
	for j := i - 1; j >= 0; j-- {
		if pr, m := modelOf(entries[j]); m != "" {
			return pr, m
		}
	}
	return "", ""
}

func jsMillis(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// oracleFilter is the part of a cost filter the oracle applies.
type oracleFilter struct {
	branch       string
	noDedup      bool
	sources      []string
	since, until int64 // ms; 0 = open
}

// sumRaw groups the calls the way `pidex cost` is specified to.
func sumRaw(calls []rawCall, f oracleFilter, keyOf func(rawCall) string) map[string]rawSums {
	active := map[string]bool{}
	for _, c := range calls {
		active[c.key()] = active[c.key()] || c.onPath
	}
	seen := map[string]bool{}
	out := map[string]rawSums{}
	for _, c := range calls {
		k := c.key()
		switch {
		case !f.noDedup && seen[k]:
			continue
		case f.branch == "active" && !active[k], f.branch == "abandoned" && active[k]:
			continue
		case len(f.sources) > 0 && !slices.Contains(f.sources, c.source):
			continue
		case f.since != 0 && (c.ts == 0 || c.ts < f.since), f.until != 0 && (c.ts == 0 || c.ts >= f.until):
			continue
		}
		seen[k] = true
		g := keyOf(c)
		s := out[g]
		s.calls++
		s.in += c.in
		s.out += c.out
		s.cr += c.cr
		s.cw += c.cw
		s.total += c.total
		s.cost += c.cost
		if c.cost == 0 && (c.in > 0 || c.out > 0 || c.cr > 0 || c.cw > 0 || c.total > 0) && pidex.Unpriced(c.provider, c.model) {
			s.unpriced++
			s.unpricedTokens += c.total
		}
		out[g] = s
	}
	return out
}

type rawSums struct {
	calls                        int64
	in, out, cr, cw, total, cost float64
	// Calls with tokens that pi recorded at exactly $0, of a model the
	// shipped table does not price as free, written out from the files.
	unpriced       int64
	unpricedTokens float64
}
