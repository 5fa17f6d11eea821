package main

// Forks (-forks N): N sessions are real forks of an earlier session of the
// same project, written as pi 1.6.0's SessionManager writes them, so that a
// cost report meets the copies a fork makes of usage records:
//
//   - forkFrom (pi --fork, /clone of a whole file): a new header whose
//     parentSession is the original's path, then every entry of the original
//     byte for byte (same ids, timestamps and usage).
//   - createBranchedSession (/fork): a new header, then the path from the root
//     to one entry (either the parent of a user message, or the leaf), labels
//     dropped from the path and the rest re-chained (parentId of each copy =
//     the previous copy), then one new label entry per label still set on a
//     copied entry. Abandoned branches of the original are not copied.
//
// Then the fork goes on with turns of its own. The original is read back from
// disk (forks are written after all other files), cut to what it held at the
// fork's header time, since a fork copies the file as it was then.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
)

// Fork kinds.
const (
	forkWhole  byte = 'f' // SessionManager.forkFrom
	forkBefore byte = 'u' // createBranchedSession(parent of a user message)
	forkAt     byte = 'a' // createBranchedSession(leaf)
)

type forkPlan struct {
	orig int  // index of the original in the plan
	kind byte // forkWhole, forkBefore or forkAt
}

// A fork's original starts at least this long before the fork, so that it
// already holds a conversation when the fork copies it.
const forkMinGap = 2 * 3600 * 1000

// planForks makes n sessions forks of an earlier session of their project.
// It draws from its own generator, so -forks 0 leaves the plan as it was.
// Originals are never forks themselves (they are written in the first pass).
//
// Originals start at minOrig or later: with -shape real, v3 sessions only,
// since a fork's copies keep the original's ids.
func planForks(plans []filePlan, n int, seed uint64, projects int, minOrig int64) error {
	if n <= 0 {
		return nil
	}
	r := rand.New(rand.NewPCG(seed, 0xf0f0))
	isOrig := make([]bool, len(plans))
	made := 0
	for _, i := range r.Perm(len(plans)) {
		if made == n {
			break
		}
		if isOrig[i] || plans[i].fork != nil {
			continue
		}
		// One of the latest few eligible sessions: people fork recent work.
		var cands []int
		for j := i - 1; j >= 0 && len(cands) < 5; j-- {
			if plans[j].project == plans[i].project && plans[j].fork == nil && plans[j].start <= plans[i].start-forkMinGap && plans[j].start >= minOrig {
				cands = append(cands, j)
			}
		}
		if len(cands) == 0 {
			continue
		}
		j := cands[r.IntN(len(cands))]
		isOrig[j] = true
		kind := []byte{forkWhole, forkBefore, forkAt}[r.IntN(3)]
		plans[i].fork = &forkPlan{orig: j, kind: kind}
		plans[i].parentSession = sessionPath(plans[j], projects)
		made++
	}
	if made < n {
		return fmt.Errorf("plan forks: only %d of %d sessions have an earlier session of their project to fork", made, n)
	}
	return nil
}

// sessionPath is where pi would keep the file (what parentSession holds).
func sessionPath(p filePlan, projects int) string {
	return homeDir + "/.pi/agent/sessions/" + projectDir(p.project, projects) + "/" + p.name
}

// origEntry: the fields of an original's entry that a fork needs.
type origEntry struct {
	Type          string  `json:"type"`
	ID            string  `json:"id"`
	ParentID      *string `json:"parentId"`
	Timestamp     string  `json:"timestamp"`
	TargetID      string  `json:"targetId"`
	Label         *string `json:"label"`
	FirstKept     string  `json:"firstKeptEntryId"`
	ModelID       string  `json:"modelId"`
	ThinkingLevel string  `json:"thinkingLevel"`
	Message       struct {
		Role string `json:"role"`
	} `json:"message"`

	line []byte // without the newline
	ms   int64
}

// readOriginal parses the original's entries that exist at time cut (entries
// are appended in time order), and at least up to its first assistant message.
func readOriginal(data []byte, cut int64) ([]*origEntry, error) {
	var out []*origEntry
	seenAssistant := false
	for first := true; len(data) > 0; first = false {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return nil, fmt.Errorf("read original: last line has no newline")
		}
		line := data[:i]
		data = data[i+1:]
		if first {
			continue // the header
		}
		e := &origEntry{line: line}
		if err := json.Unmarshal(line, e); err != nil {
			return nil, fmt.Errorf("read original: %w", err)
		}
		t, err := time.Parse(time.RFC3339Nano, e.Timestamp)
		if err != nil {
			return nil, fmt.Errorf("read original: %w", err)
		}
		e.ms = t.UnixMilli()
		if e.ms > cut && seenAssistant {
			break
		}
		seenAssistant = seenAssistant || e.Message.Role == "assistant"
		out = append(out, e)
	}
	return out, nil
}

// forkSession writes the fork of orig (the original file's bytes).
func (g *gen) forkSession(orig []byte) error {
	ents, err := readOriginal(orig, g.plan.start)
	if err != nil {
		return err
	}
	g.header()
	kind := g.plan.fork.kind
	if kind == forkWhole {
		for _, e := range ents {
			g.copyEntry(e, e.line)
		}
	} else {
		g.branched(ents, g.forkLeaf(ents, kind))
	}
	g.st.forkKind = kind
	g.resume(ents, kind == forkWhole)
	g.turns()
	return nil
}

// forkLeaf picks the entry createBranchedSession copies up to: the leaf, or
// the parent of a user message (of any branch) that follows an assistant
// message, so that the copies hold usage records.
func (g *gen) forkLeaf(ents []*origEntry, kind byte) *origEntry {
	leaf := ents[len(ents)-1]
	if kind == forkAt {
		return leaf
	}
	byID := indexEntries(ents)
	var cands []*origEntry
	for _, e := range ents {
		if e.Message.Role == "user" && e.ParentID != nil && hasAssistantAbove(byID, byID[*e.ParentID]) {
			cands = append(cands, byID[*e.ParentID])
		}
	}
	if len(cands) == 0 {
		return leaf
	}
	return cands[g.r.IntN(len(cands))]
}

func indexEntries(ents []*origEntry) map[string]*origEntry {
	m := make(map[string]*origEntry, len(ents))
	for _, e := range ents {
		m[e.ID] = e
	}
	return m
}

func hasAssistantAbove(byID map[string]*origEntry, e *origEntry) bool {
	for ; e != nil; e = parentOf(byID, e) {
		if e.Message.Role == "assistant" {
			return true
		}
	}
	return false
}

func parentOf(byID map[string]*origEntry, e *origEntry) *origEntry {
	if e.ParentID == nil {
		return nil
	}
	return byID[*e.ParentID]
}

// branched writes what createBranchedSession(leaf) writes after the header.
func (g *gen) branched(ents []*origEntry, leaf *origEntry) {
	byID := indexEntries(ents)
	var path []*origEntry
	for e := leaf; e != nil; e = parentOf(byID, e) {
		path = append(path, e)
	}
	slices.Reverse(path)
	replacement := map[string]string{} // label id -> the next kept entry
	var pending []string
	parent := ""
	kept := map[string]bool{}
	for _, e := range path {
		if e.Type == "label" {
			pending = append(pending, e.ID)
			continue
		}
		for _, l := range pending {
			replacement[l] = e.ID
		}
		pending = pending[:0]
		line := setParent(e.line, e.ID, parent)
		if r, ok := replacement[e.FirstKept]; ok && e.Type == "compaction" && e.FirstKept != e.ID {
			line = bytes.Replace(line, []byte(`"firstKeptEntryId":"`+e.FirstKept+`"`), []byte(`"firstKeptEntryId":"`+r+`"`), 1)
		}
		g.copyEntry(e, line)
		parent = e.ID
		kept[e.ID] = true
	}
	for _, l := range resolvedLabels(ents) {
		if kept[l.TargetID] {
			g.newLabel(l)
		}
	}
}

// resolvedLabels: pi's labelsById after loading the file, in the Map's
// order (a target keeps its place when relabelled; a cleared one leaves).
func resolvedLabels(ents []*origEntry) []*origEntry {
	var order []*origEntry
	for _, e := range ents {
		if e.Type != "label" {
			continue
		}
		i := slices.IndexFunc(order, func(o *origEntry) bool { return o.TargetID == e.TargetID })
		switch {
		case e.Label == nil || *e.Label == "":
			if i >= 0 {
				order = slices.Delete(order, i, i+1)
			}
		case i >= 0:
			order[i] = e
		default:
			order = append(order, e)
		}
	}
	return order
}

// newLabel writes the label entry createBranchedSession makes for l: a new
// id, the label's own timestamp.
func (g *gen) newLabel(l *origEntry) {
	p, _ := g.leaf()
	id := g.newID()
	b := append(g.line[:0], `{"type":"label","id":"`...)
	b = appendHexID(b, id)
	b = append(b, `","parentId":"`...)
	b = appendHexID(b, p)
	b = append(b, `","timestamp":"`...)
	b = append(b, l.Timestamp...)
	b = append(b, `","targetId":"`...)
	b = append(b, l.TargetID...)
	b = append(b, '"')
	g.line = b
	g.str("label", *l.Label)
	g.end(id, kOther)
}

// setParent rewrites the entry's parentId ("" = null). The key follows the
// entry's own id in every entry kind pi writes, so the pair is unique.
func setParent(line []byte, id, parent string) []byte {
	key := []byte(`"id":"` + id + `","parentId":`)
	i := bytes.Index(line, key)
	if i < 0 {
		panic("gencorpus: no parentId after id " + id)
	}
	start := i + len(key)
	end := start + len("null")
	if line[start] == '"' {
		end = start + bytes.IndexByte(line[start+1:], '"') + 2
	}
	val := "null"
	if parent != "" {
		val = `"` + parent + `"`
	}
	out := make([]byte, 0, len(line)+16)
	out = append(out, line[:start]...)
	out = append(out, val...)
	return append(out, line[end:]...)
}

// copyEntry writes a copied line and puts the entry on the current path.
func (g *gen) copyEntry(e *origEntry, line []byte) {
	id, err := strconv.ParseUint(e.ID, 16, 32)
	if err != nil {
		panic("gencorpus: original id " + e.ID + " is not 8 hex digits")
	}
	g.ids[uint32(id)] = struct{}{}
	g.line = append(g.line[:0], line[:len(line)-1]...) // end adds the closing brace
	g.end(uint32(id), entryKind(e))
	g.st.copied++
	if g.pp != nil {
		// A plant of the original that is copied is in this file too.
		g.st.plants = append(g.st.plants, g.pp.scan(line)...)
	}
	if e.ms > g.now {
		g.now = e.ms
	}
}

// resume sets the generator's state as pi has it when the fork is opened:
// the path to the file's last entry, the model and thinking level on it.
func (g *gen) resume(ents []*origEntry, whole bool) {
	if whole {
		byID := indexEntries(ents)
		g.path = g.path[:0]
		for e := ents[len(ents)-1]; e != nil; e = parentOf(byID, e) {
			id, _ := strconv.ParseUint(e.ID, 16, 32)
			g.path = append(g.path, pathEnt{id: uint32(id), kind: entryKind(e), tok: int32(min(len(e.line)/4, 60000))})
		}
		slices.Reverse(g.path)
	}
	g.comps = g.comps[:0]
	for i, pe := range g.path {
		if pe.kind == kCompaction {
			g.comps = append(g.comps, i)
		}
	}
	g.recomputeCtx()
	g.mi, g.thinking = nil, "off"
	byHex := indexEntries(ents)
	for _, pe := range g.path {
		e := byHex[string(appendHexID(nil, pe.id))]
		if e == nil {
			continue // a new label
		}
		switch e.Type {
		case "model_change":
			if i := slices.IndexFunc(models, func(m modelInfo) bool { return m.model == e.ModelID }); i >= 0 {
				g.mi = &models[i]
			}
		case "thinking_level_change":
			g.thinking = e.ThinkingLevel
		}
	}
	if g.mi == nil {
		g.mi = g.pickModel()
	}
}

func entryKind(e *origEntry) byte {
	switch e.Type {
	case "compaction":
		return kCompaction
	case "branch_summary":
		return kBranchSummary
	case "custom_message":
		return kCustomMsg
	case "message":
		switch e.Message.Role {
		case "user":
			return kUser
		case "assistant":
			return kAssistant
		case "toolResult":
			return kToolResult
		case "bashExecution":
			return kBash
		}
	}
	return kOther
}
