package main

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"time"
)

// ---------------------------------------------------------------------------
// Models and providers (prices in $ per million tokens, like pi-ai's tables).

type modelInfo struct {
	api, provider, model string
	in, out, cr, cw      float64
	window               int
	sig                  byte // 'a' anthropic base64 signature, 'o' openai reasoning item JSON, 'g' short base64, 0 none
	callStyle            byte // 'a' toolu_, 'r' call_|fc_, 'c' call_, 'k' functions.name:n
	respPrefix           string
	weight               float64
	caches               bool
}

var models = []modelInfo{
	{"anthropic-messages", "anthropic", "claude-sonnet-4-5", 3, 15, 0.3, 3.75, 200000, 'a', 'a', "msg_01", 30, true},
	{"anthropic-messages", "anthropic", "claude-opus-4-5", 5, 25, 0.5, 6.25, 200000, 'a', 'a', "msg_01", 18, true},
	{"anthropic-messages", "anthropic", "claude-haiku-4-5", 1, 5, 0.1, 1.25, 200000, 'a', 'a', "msg_01", 4, true},
	{"openai-codex-responses", "openai-codex", "gpt-5.1-codex", 1.25, 10, 0.125, 0, 272000, 'o', 'r', "resp_", 14, true},
	{"openai-responses", "openai", "gpt-5", 1.25, 10, 0.125, 0, 272000, 'o', 'r', "resp_", 8, true},
	{"google-generative-ai", "google", "gemini-2.5-pro", 1.25, 10, 0.31, 0, 1000000, 'g', 'c', "", 6, true},
	{"openai-completions", "openrouter", "z-ai/glm-4.6", 0.6, 2.2, 0.11, 0, 200000, 0, 'c', "gen-", 6, true},
	{"openai-completions", "kimchi-dev", "kimi-k2.5", 0, 0, 0, 0, 256000, 0, 'k', "chatcmpl-", 3, false},
	{"bedrock-converse-stream", "amazon-bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", 3, 15, 0.3, 3.75, 200000, 'a', 'a', "", 3, true},
	{"openai-completions", "ollama", "qwen3-coder:30b", 0, 0, 0, 0, 128000, 0, 'c', "chatcmpl-", 2, false},
	// A coding plan billed by subscription: pi records zero costs (as in
	// the real gjcfork files). Weight 0: -shape real only (shape.go).
	{"anthropic-messages", "zai", "glm-5.2", 0, 0, 0, 0, 200000, 0, 'c', "msg_", 0, true},
}

var thinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh"}

var toolNames = []string{"bash", "read", "read", "read", "edit", "edit", "write", "grep", "find", "ls", "bash", "bash"}

var labelNames = []string{"checkpoint", "before-refactor", "good state", "try-2", "baseline", "wip", "bookmark", "known good", "🚩 revisit"}

var sessionNames = []string{"fix flaky tests", "refactor session loader", "add sqlite index", "investigate memory leak",
	"release prep", "docs pass", "perf: streaming parser", "migrate to v3 schema", "review PR #412", "debug CI timeout",
	"spike: FTS5 search", "cleanup imports", "onboarding notes", "bump deps", "port to Go 1.26", "auth bug \"token expired\""}

var bashCommands = []string{"go test ./...", "npm run check", "git status", "git diff --stat", "make build", "ls -la",
	"go build ./... && go vet ./...", "npm test -- --run", "rg -n \"TODO\" src", "git log --oneline -20", "cargo test",
	"pytest -x -q", "docker compose ps", "du -sh node_modules", "go test -run TestIndex -v ./indexer/"}

var customTypes = []string{"todo-state", "plan-mode", "agent_end", "permission-gate", "git-checkpoint"}

// ---------------------------------------------------------------------------

const (
	kUser byte = iota + 1
	kAssistant
	kToolResult
	kBash
	kCustomMsg
	kBranchSummary
	kCompaction
	kOther
)

type pathEnt struct {
	id   uint32
	kind byte
	tok  int32
}

type fileStats struct {
	bytes, entries, lines1MB, compactions, branchPoints, images int64
	maxLine                                                     int
	users, cjkUsers, texts, cjkTexts                            int64   // user messages and assistant text blocks
	plants                                                      []int32 // planted words written (may repeat)
	forkKind                                                    byte    // 0: not a fork
	format                                                      int     // file format version
	copied                                                      int64   // entries a fork copied
}

type gen struct {
	pl    *pools
	cfg   config
	shape *shapeParams // -shape
	sh    *shapeParams // this session's: shape, or its chat style
	r     *rand.Rand
	w     *bufio.Writer

	line  []byte
	ids   map[uint32]struct{}
	path  []pathEnt
	comps []int // indexes in path of compaction entries
	now   int64 // ms
	st    fileStats

	plan         filePlan
	format       int  // session file format version pi wrote at the session's start (3 unless the shape has eras)
	noTotal      bool // usage without totalTokens (pi before 2025-12-06)
	cwd          string
	mi           *modelInfo
	thinking     string
	ctx          int // estimated context tokens since last compaction
	lastCallCtx  int
	branchy      bool
	ext          bool
	cacheWarmer  bool
	toolSeq      int
	readFiles    []string
	modFiles     []string
	contextEdits bool

	lang    int // -text realistic: index in langNames of a CJK-speaking session, or -1
	pp      *plantPlan
	pending []plantOcc // plants still to insert into this file
	due     []plantOcc
}

func newGen(pl *pools, cfg config, sh *shapeParams, pp *plantPlan) *gen {
	return &gen{pl: pl, cfg: cfg, shape: sh, sh: sh, pp: pp, line: make([]byte, 0, 1<<16), ids: map[uint32]struct{}{}}
}

// writeFile writes session p; orig is the original's content when p is a fork.
func (g *gen) writeFile(path string, p filePlan, orig []byte) (*fileStats, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if g.w == nil {
		g.w = bufio.NewWriterSize(f, 1<<20)
	} else {
		g.w.Reset(f)
	}
	g.reset(p)
	if p.fork != nil {
		err = g.forkSession(orig)
	} else {
		g.session()
	}
	if err == nil {
		err = g.w.Flush()
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	mt := time.UnixMilli(g.now)
	_ = os.Chtimes(path, mt, mt)
	g.st.format = g.format
	st := g.st
	return &st, nil
}

func (g *gen) reset(p filePlan) {
	g.r = rand.New(rand.NewPCG(g.cfg.seed^0x9e3779b97f4a7c15, uint64(p.idx)+1))
	clear(g.ids)
	g.path = g.path[:0]
	g.comps = g.comps[:0]
	g.st = fileStats{}
	g.plan = p
	g.now = p.start
	g.cwd = projectCwd(p.project, g.cfg.projects)
	g.ctx, g.lastCallCtx, g.toolSeq = 0, 0, 0
	g.readFiles, g.modFiles = g.readFiles[:0], g.modFiles[:0]
	g.sh = g.shape
	g.format, g.noTotal = 3, false
	if g.sh.eras {
		g.format, g.noTotal = formatAt(p.start), p.start < totalTokensSince
	}
	g.branchy = g.r.Float64() < 0.2
	g.ext = g.r.Float64() < g.sh.ext
	g.cacheWarmer = g.r.Float64() < g.sh.cacheWarmer
	g.contextEdits = g.r.Float64() < 0.03
	if g.format == 1 { // no ids yet: no branches, labels, extensions' entries
		g.branchy, g.ext = false, false
	}
	if g.format < 3 { // entry types of pi 1.6.0
		g.cacheWarmer, g.contextEdits = false, false
	}
	g.lang = -1
	if g.pl.real != nil && g.r.Float64() < 0.04 {
		g.lang = g.randomLang()
	}
	g.pending = g.pending[:0]
	if g.pp != nil {
		g.pending = append(g.pending, g.pp.perFile[p.idx]...)
	}
}

// randomLang: Japanese and Chinese about equally, some Korean.
func (g *gen) randomLang() int {
	switch x := g.r.IntN(20); {
	case x < 9:
		return 0
	case x < 18:
		return 1
	}
	return 2
}

// prosePool returns the pool for a prose slot. With -text realistic, about 3%
// of user messages and assistant texts (and some thinking and summaries) are
// CJK: most of them in the 4% of sessions whose user writes a CJK language,
// a few elsewhere. The synthetic mode draws no random numbers here.
func (g *gen) prosePool(slot byte) *pool {
	rp := g.pl.real
	var pr float64
	switch slot {
	case slotUser:
		g.st.users++
		pr = 0.008
		if g.lang >= 0 {
			pr = 0.6
		}
	case slotAssistant:
		g.st.texts++
		pr = 0.008
		if g.lang >= 0 {
			pr = 0.6
		}
	case slotThinking:
		pr = 0.002
		if g.lang >= 0 {
			pr = 0.25
		}
	case slotSummary:
		if g.lang >= 0 {
			pr = 0.3
		}
	}
	if rp == nil || g.r.Float64() >= pr {
		return g.pl.prose
	}
	lang := g.lang
	if lang < 0 {
		lang = g.randomLang()
	}
	switch slot {
	case slotUser:
		g.st.cjkUsers++
	case slotAssistant:
		g.st.cjkTexts++
	}
	return rp.cjk[lang]
}

func (g *gen) bashCommand() string {
	if g.pl.real != nil {
		return pick(g.r, g.pl.real.commands)
	}
	return pick(g.r, bashCommands)
}

func (g *gen) pickModel() *modelInfo {
	weight := func(i int) float64 {
		if g.sh.modelWeights != nil {
			return g.sh.modelWeights[models[i].model]
		}
		return models[i].weight
	}
	tot := 0.0
	for i := range models {
		tot += weight(i)
	}
	x := g.r.Float64() * tot
	for i := range models {
		if x < weight(i) {
			return &models[i]
		}
		x -= weight(i)
	}
	return &models[0]
}

func (g *gen) remaining() int64 { return g.plan.target - g.st.bytes }

func (g *gen) advance(lo, hi int64) {
	g.now += lo + g.r.Int64N(hi-lo+1)
}

// ---------------------------------------------------------------------------
// Low-level line building.

func appendISO(b []byte, ms int64) []byte {
	return time.UnixMilli(ms).UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
}

func appendHexID(b []byte, id uint32) []byte {
	const hex = "0123456789abcdef"
	for s := 28; s >= 0; s -= 4 {
		b = append(b, hex[(id>>uint(s))&0xf])
	}
	return b
}

// appendNum formats a float like JavaScript's Number.prototype.toString.
func appendNum(b []byte, f float64) []byte {
	a := math.Abs(f)
	if f == 0 || (a >= 1e-6 && a < 1e21) {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	s := strconv.AppendFloat(nil, f, 'e', -1, 64) // 1.5e-07
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' {
			b = append(b, s[:i+1]...)
			j := i + 1
			if s[j] == '+' || s[j] == '-' {
				b = append(b, s[j])
				j++
			}
			for j < len(s)-1 && s[j] == '0' {
				j++
			}
			return append(b, s[j:]...)
		}
	}
	return append(b, s...)
}

func (g *gen) newID() uint32 {
	for {
		id := g.r.Uint32()
		if _, ok := g.ids[id]; !ok {
			g.ids[id] = struct{}{}
			return id
		}
	}
}

func (g *gen) leaf() (uint32, bool) {
	if len(g.path) == 0 {
		return 0, false
	}
	return g.path[len(g.path)-1].id, true
}

// begin starts an entry line: {"type":T,"id":..,"parentId":..,"timestamp":..
func (g *gen) begin(typ string) uint32 {
	p, ok := g.leaf()
	return g.beginWithParent(typ, p, ok)
}

func (g *gen) beginWithParent(typ string, parent uint32, hasParent bool) uint32 {
	id := g.newID()
	b := append(g.line[:0], `{"type":"`...)
	b = append(b, typ...)
	b = append(b, '"')
	g.line = g.appendLinks(b, id, parent, hasParent)
	return id
}

// appendLinks appends ,"id":..,"parentId":..,"timestamp":.. to b.
func (g *gen) appendLinks(b []byte, id, parent uint32, hasParent bool) []byte {
	if g.format == 1 { // v1 entries have no id and parentId
		b = append(b, `,"timestamp":"`...)
		b = appendISO(b, g.now)
		return append(b, '"')
	}
	b = append(b, `,"id":"`...)
	b = appendHexID(b, id)
	b = append(b, `","parentId":`...)
	if hasParent {
		b = append(b, '"')
		b = appendHexID(b, parent)
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"timestamp":"`...)
	b = appendISO(b, g.now)
	return append(b, '"')
}

// beginCustom: custom and custom_message entries put payload before id.
func (g *gen) beginCustom(typ string) {
	b := append(g.line[:0], `{"type":"`...)
	b = append(b, typ...)
	b = append(b, '"')
	g.line = b
}

func (g *gen) finishCustom(kind byte) {
	id := g.newID()
	p, ok := g.leaf()
	g.line = g.appendLinks(g.line, id, p, ok)
	g.end(id, kind)
}

// end closes the line, writes it, and pushes the entry onto the current path.
func (g *gen) end(id uint32, kind byte) {
	g.line = append(g.line, '}', '\n')
	n := len(g.line)
	g.w.Write(g.line)
	g.st.bytes += int64(n)
	g.st.entries++
	if n > g.st.maxLine {
		g.st.maxLine = n
	}
	if n >= 1<<20 {
		g.st.lines1MB++
	}
	tok := n / 4
	if tok > 60000 {
		tok = 60000
	}
	g.path = append(g.path, pathEnt{id: id, kind: kind, tok: int32(tok)})
	if kind != kOther {
		g.ctx += tok
	}
}

func (g *gen) str(key, val string) {
	b := append(g.line, `,"`...)
	b = append(b, key...)
	b = append(b, `":"`...)
	b = appendEscaped(b, val)
	g.line = append(b, '"')
}

func (g *gen) raw(s string) { g.line = append(g.line, s...) }

func (g *gen) int(key string, v int64) {
	b := append(g.line, `,"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	g.line = strconv.AppendInt(b, v, 10)
}

// textBlock appends {"type":"text","text":"<n bytes from pool>"}.
func (g *gen) textBlock(p *pool, n int, slot byte) {
	g.raw(`{"type":"text","text":"`)
	g.text(p, n, slot)
	g.raw(`"}`)
}

func (g *gen) imageBlock(n int) {
	mime := "image/png"
	prefix := "iVBORw0KGgoAAAANSUhEUgAA"
	if g.r.IntN(3) == 0 {
		mime, prefix = "image/jpeg", "/9j/4AAQSkZJRgABAQAAAQABAAD"
	}
	g.raw(`{"type":"image","data":"`)
	g.raw(prefix)
	g.line = g.pl.b64.appendSlice(g.line, g.r, n)
	g.raw(`","mimeType":"`)
	g.raw(mime)
	g.raw(`"}`)
	g.st.images++
}

// heavy-tailed size helpers
func (g *gen) lu(lo, hi float64) int { return int(logUniform(g.r, lo, hi)) }

func (g *gen) luSpan(s span) int { return g.lu(s.lo, s.hi) }

// toolOutputSize draws a size from tiers (the last one: rare multi-MB output).
func (g *gen) toolOutputSize(tiers []tier) int {
	x := g.r.Float64()
	for _, t := range tiers[:len(tiers)-1] {
		if x < t.p {
			return g.capToBudget(g.luSpan(t.s))
		}
	}
	return g.capToBudget(g.luSpan(tiers[len(tiers)-1].s))
}

func (g *gen) capToBudget(n int) int {
	rem := g.remaining()
	limit := int(float64(rem) * 0.7)
	if limit < 400 {
		limit = 400
	}
	if n > limit {
		n = limit
	}
	return n
}

// ---------------------------------------------------------------------------
// Session structure.

func (g *gen) session() {
	if g.format == 1 {
		// v1 names the model and thinking level in the header, not in entries.
		g.mi = g.pickModel()
		g.thinking = thinkingLevels[g.r.IntN(len(thinkingLevels))]
		g.header()
		g.advance(20, 400)
		g.turns()
		return
	}
	g.header()
	g.mi = g.pickModel()
	g.thinking = thinkingLevels[g.r.IntN(len(thinkingLevels))]
	g.advance(20, 400)
	g.modelChange()
	g.thinkingChange(g.thinking)
	if g.format == 3 && g.r.Float64() < g.sh.sessionName {
		g.sessionInfo(pick(g.r, sessionNames))
	}
	g.turns()
}

// header writes the first line: v3 (and v2) as pi writes it; v1 with the
// session's model and thinking level; v1 and v2 name the parent
// branchedFrom.
func (g *gen) header() {
	p := g.plan
	b := append(g.line[:0], `{"type":"session",`...)
	switch g.format {
	case 3:
		b = append(b, `"version":3,`...)
	case 2:
		b = append(b, `"version":2,`...)
	}
	b = append(b, `"id":"`...)
	b = append(b, p.sessionID...)
	b = append(b, `","timestamp":"`...)
	b = appendISO(b, p.start)
	b = append(b, `","cwd":"`...)
	b = appendEscaped(b, g.cwd)
	b = append(b, '"')
	if g.format == 1 {
		b = append(b, `,"provider":"`...)
		b = appendEscaped(b, g.mi.provider)
		b = append(b, `","modelId":"`...)
		b = appendEscaped(b, g.mi.model)
		b = append(b, `","thinkingLevel":"`...)
		b = append(b, g.thinking...)
		b = append(b, '"')
	}
	if p.parentSession != "" {
		if g.format < 3 {
			b = append(b, `,"branchedFrom":"`...)
		} else {
			b = append(b, `,"parentSession":"`...)
		}
		b = appendEscaped(b, p.parentSession)
		b = append(b, '"')
	}
	b = append(b, '}', '\n')
	g.w.Write(b)
	g.line = b
	g.st.bytes += int64(len(b))
}

// turns writes turns until the file reaches its size and its plants are placed.
func (g *gen) turns() {
	first := true
	for first || g.remaining() > 0 || len(g.pending) > 0 { // (a turn always writes a user or bash text, where late plants go)
		g.turn(first)
		first = false
	}
}

func (g *gen) modelChange() {
	id := g.begin("model_change")
	g.str("provider", g.mi.provider)
	g.str("modelId", g.mi.model)
	g.end(id, kOther)
}

func (g *gen) thinkingChange(level string) {
	id := g.begin("thinking_level_change")
	g.str("thinkingLevel", level)
	g.end(id, kOther)
}

func (g *gen) sessionInfo(name string) {
	id := g.begin("session_info")
	g.str("name", name)
	g.end(id, kOther)
}

func (g *gen) turn(first bool) {
	// Gap since the previous turn: mostly short, sometimes the session is resumed days later.
	if !first {
		switch x := g.r.Float64(); {
		case x < 0.85:
			g.advance(3_000, 240_000)
		case x < 0.98:
			g.advance(240_000, 3_600_000)
		default:
			g.advance(3_600_000, 4*86_400_000)
			if g.sh.resumeThinking {
				g.thinkingChange(g.thinking) // pi reopened: it writes the level it starts with
			}
		}
	} else {
		g.advance(2_000, 60_000)
	}
	if !first {
		g.sideEntries()
	}
	if !first && g.r.Float64() < 0.03 {
		g.bashExecution()
		return
	}
	g.userMessage(first)
	if g.ext && g.r.Float64() < g.sh.customMsg {
		g.customMessage()
		if g.sh.customMsg2 > 0 && g.r.Float64() < g.sh.customMsg2 {
			g.customMessage()
		}
	}
	steps := int(math.Min(40, math.Floor(-math.Log(1-g.r.Float64())*g.sh.meanSteps))) // geometric-ish
	for s := 0; s < steps; s++ {
		if !g.assistant(true) {
			return // aborted / error: turn ends
		}
		if g.remaining() < 0 && s > 0 {
			break
		}
	}
	g.assistant(false)
	if g.ext && g.r.Float64() < g.sh.agentEnd {
		g.customEntry("agent_end")
	}
	if g.ctx > g.compactAt() {
		g.compaction()
	}
}

// sideEntries: things that happen between turns.
func (g *gen) sideEntries() {
	if g.branchy && g.r.Float64() < 0.08 {
		g.navigate()
	}
	if g.r.Float64() < g.sh.modelChange {
		g.mi = g.pickModel()
		g.modelChange()
		g.advance(100, 5000)
	}
	if g.r.Float64() < g.sh.thinkingChange {
		g.thinking = thinkingLevels[g.r.IntN(len(thinkingLevels))]
		g.thinkingChange(g.thinking)
		g.advance(100, 5000)
		// Cycling through the levels (shift+tab) writes one entry per step.
		for g.sh.thinkingBurst > 0 && g.r.Float64() < g.sh.thinkingBurst {
			g.thinking = thinkingLevels[(slices.Index(thinkingLevels, g.thinking)+1)%len(thinkingLevels)]
			g.thinkingChange(g.thinking)
			g.advance(100, 2000)
		}
	}
	if g.r.Float64() < g.sh.label && g.format >= 2 {
		g.label()
	}
	if g.r.Float64() < 0.008 && g.format == 3 {
		name := pick(g.r, sessionNames)
		if g.r.IntN(10) == 0 {
			name = "" // explicit clear
		}
		g.sessionInfo(name)
	}
	if g.ext && g.r.Float64() < 0.15 {
		g.customEntry(pick(g.r, customTypes))
	}
	if g.cacheWarmer && g.r.Float64() < 0.3 {
		g.usageEntry()
	}
	if g.contextEdits && g.r.Float64() < 0.1 {
		g.contextEdit()
	}
}

// compactAt: the context size (estimated tokens) past which the session
// compacts. pi compacts when the context passes the window less
// reserveTokens (16384 by default); classic compacts at 3/4 of the window.
func (g *gen) compactAt() int {
	if g.sh.reserveTokens > 0 {
		return g.mi.window - g.sh.reserveTokens
	}
	return g.mi.window * 3 / 4
}

func (g *gen) userMessage(first bool) {
	ts := g.now
	g.advance(1, 40)
	id := g.begin("message")
	g.raw(`,"message":{"role":"user","content":`)
	if !first && g.sh.shortUser > 0 && g.r.Float64() < g.sh.shortUser {
		g.shortUserText()
		g.int("timestamp", ts)
		g.raw(`}`)
		g.end(id, kUser)
		return
	}
	n := g.luSpan(g.sh.userText)
	if g.r.Float64() < g.sh.pasteUser {
		n = g.luSpan(g.sh.pasteText) // pasted logs / specs
	}
	n = g.capToBudget(n)
	pp := g.prosePool(slotUser)
	if g.r.Float64() < g.sh.stringUser {
		g.raw(`"`)
		g.text(pp, n, slotUser)
		g.raw(`"`)
	} else {
		g.raw(`[`)
		g.textBlock(pp, n, slotUser)
		if g.r.Float64() < 0.012 {
			g.raw(`,`)
			g.imageBlock(g.capToBudget(g.lu(30e3, 1.5e6)))
		}
		g.raw(`]`)
	}
	g.int("timestamp", ts)
	g.raw(`}`)
	g.end(id, kUser)
}

func (g *gen) customMessage() {
	g.advance(1, 50)
	g.beginCustom("custom_message")
	g.str("customType", pick(g.r, []string{"enriched-prompt", "prompt-summary", "volatile-project-context"}))
	if g.r.IntN(2) == 0 {
		g.raw(`,"content":"`)
		g.line = g.pl.prose.appendSlice(g.line, g.r, g.capToBudget(g.luSpan(g.sh.customMsgText)))
		g.raw(`"`)
	} else {
		g.raw(`,"content":[`)
		g.textBlock(g.pl.prose, g.capToBudget(g.luSpan(g.sh.customMsgText)), 0)
		g.raw(`]`)
	}
	if g.r.IntN(3) == 0 {
		g.raw(`,"display":true`)
	} else {
		g.raw(`,"display":false`)
	}
	if g.r.IntN(2) == 0 {
		g.raw(`,"details":{"source":"extension","tier":"heavy","tokens":`)
		g.line = strconv.AppendInt(g.line, int64(g.r.IntN(5000)), 10)
		g.raw(`}`)
	}
	g.finishCustom(kCustomMsg)
}

func (g *gen) customEntry(ct string) {
	g.advance(1, 200)
	g.beginCustom("custom")
	g.str("customType", ct)
	switch ct {
	case "todo-state":
		g.raw(`,"data":{"todos":[`)
		for i, n := 0, 1+g.r.IntN(6); i < n; i++ {
			if i > 0 {
				g.raw(",")
			}
			g.raw(`{"id":`)
			g.line = strconv.AppendInt(g.line, int64(i+1), 10)
			g.raw(`,"text":"`)
			g.line = g.pl.prose.appendSlice(g.line, g.r, g.lu(20, 120))
			g.raw(`","done":`)
			if g.r.IntN(2) == 0 {
				g.raw("true}")
			} else {
				g.raw("false}")
			}
		}
		g.raw(`]}`)
	case "agent_end":
		g.raw(`,"data":{"turns":`)
		g.line = strconv.AppendInt(g.line, int64(1+g.r.IntN(20)), 10)
		g.raw(`,"durationMs":`)
		g.line = strconv.AppendInt(g.line, int64(g.r.IntN(600000)), 10)
		g.raw(`}`)
	case "plan-mode":
		g.raw(`,"data":{"enabled":true,"plan":"`)
		g.line = g.pl.prose.appendSlice(g.line, g.r, g.lu(100, 3000))
		g.raw(`"}`)
	default:
		g.raw(`,"data":{"ref":"`)
		g.line = appendHexID(g.line, g.r.Uint32())
		g.raw(`","ok":true,"n":null}`)
	}
	g.finishCustom(kOther)
}

func (g *gen) usageEntry() {
	g.advance(1, 2000)
	id := g.begin("usage")
	g.str("kind", "cache_warm")
	g.str("provider", g.mi.provider)
	g.str("model", g.mi.model)
	g.raw(`,"usage":`)
	g.usage(g.r.IntN(20), 1+g.r.IntN(4), 0, g.ctx)
	if g.r.IntN(2) == 0 {
		g.str("note", "keep-alive before idle timeout")
	}
	g.end(id, kOther)
}

// contextEdit drops or replaces an earlier toolResult on the path (pi 1.6.0 entry type).
func (g *gen) contextEdit() {
	lo := len(g.path) - 200
	if lo < 0 {
		lo = 0
	}
	for i := len(g.path) - 1; i >= lo; i-- {
		if g.path[i].kind == kToolResult && g.r.IntN(4) == 0 {
			g.advance(10, 500)
			id := g.begin("context_edit")
			g.raw(`,"targetId":"`)
			g.line = appendHexID(g.line, g.path[i].id)
			g.raw(`","replacement":`)
			if g.r.IntN(2) == 0 {
				g.raw("null")
			} else {
				g.raw(`{"content":[{"type":"text","text":"[output elided]"}]}`)
			}
			g.end(id, kOther)
			return
		}
	}
}

func (g *gen) label() {
	if len(g.path) < 4 {
		return
	}
	target := g.path[3+g.r.IntN(len(g.path)-3)].id
	g.advance(500, 20000)
	id := g.begin("label")
	g.raw(`,"targetId":"`)
	g.line = appendHexID(g.line, target)
	g.raw(`"`)
	if g.r.IntN(8) != 0 {
		g.str("label", pick(g.r, labelNames))
	} // else: clear (no label key)
	g.end(id, kOther)
}

// navigate moves the leaf back to the parent of an earlier user message
// (what /tree does when a user message is selected), optionally appending a
// branch_summary of the abandoned branch.
func (g *gen) navigate() {
	lo := len(g.path) - 400
	if lo < 3 {
		lo = 3
	}
	var cands []int
	lastUser := -1
	for i := len(g.path) - 1; i >= lo; i-- {
		if g.path[i].kind == kUser {
			if lastUser < 0 {
				lastUser = i
				continue
			}
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return
	}
	k := cands[g.r.IntN(len(cands))]
	oldLeaf, _ := g.leaf()
	g.path = g.path[:k] // new leaf = parent of the selected user message
	for len(g.comps) > 0 && g.comps[len(g.comps)-1] >= k {
		g.comps = g.comps[:len(g.comps)-1]
	}
	g.recomputeCtx()
	g.st.branchPoints++
	g.advance(2000, 60000)
	if g.r.Float64() < 0.5 {
		id := g.begin("branch_summary")
		g.raw(`,"fromId":"`)
		g.line = appendHexID(g.line, oldLeaf)
		g.raw(`","summary":"`)
		g.text(g.prosePool(slotSummary), g.capToBudget(g.lu(300, 4000)), slotSummary)
		g.raw(`"`)
		g.fileDetails()
		g.raw(`,"usage":`)
		g.usage(g.ctx/2, g.lu(100, 1500), 0, 0)
		g.raw(`,"fromHook":false`)
		g.end(id, kBranchSummary)
		if g.r.Float64() < 0.3 {
			g.label()
		}
	}
}

func (g *gen) recomputeCtx() {
	start := 0
	if len(g.comps) > 0 {
		start = g.comps[len(g.comps)-1]
	}
	c := 0
	for _, e := range g.path[start:] {
		if e.kind != kOther {
			c += int(e.tok)
		}
	}
	g.ctx = c
	g.lastCallCtx = c
}

func (g *gen) fileDetails() {
	g.raw(`,"details":{"readFiles":[`)
	for i, f := range g.readFiles {
		if i > 0 {
			g.raw(",")
		}
		g.raw(`"`)
		g.line = appendEscaped(g.line, f)
		g.raw(`"`)
	}
	g.raw(`],"modifiedFiles":[`)
	for i, f := range g.modFiles {
		if i > 0 {
			g.raw(",")
		}
		g.raw(`"`)
		g.line = appendEscaped(g.line, f)
		g.raw(`"`)
	}
	g.raw(`]}`)
}

func (g *gen) compaction() {
	start := 0
	if len(g.comps) > 0 {
		start = g.comps[len(g.comps)-1] + 1
	}
	// Walk back ~20k tokens, then cut at the nearest non-toolResult message.
	acc, i := 0, len(g.path)-1
	for ; i > start && acc < 20000; i-- {
		acc += int(g.path[i].tok)
	}
	cut := -1
	for j := i; j < len(g.path); j++ {
		switch g.path[j].kind {
		case kUser, kAssistant, kBash, kCustomMsg, kBranchSummary:
			cut = j
		}
		if cut >= 0 {
			break
		}
	}
	if cut < 0 {
		cut = len(g.path) - 1
	}
	tokensBefore := g.ctx
	g.advance(5000, 90000)
	id := g.begin("compaction")
	g.raw(`,"summary":"## Goal\n`)
	g.text(g.prosePool(slotSummary), g.lu(1500, 9000), slotSummary)
	if g.format == 1 {
		// v1: the index of the first kept entry among the file's parsed
		// lines (the header is 0; a v1 file never branches, so it is the
		// entry's place on the path + 1).
		g.raw(`"`)
		g.int("firstKeptEntryIndex", int64(cut+1))
		g.int("tokensBefore", int64(tokensBefore))
	} else {
		g.raw(`","firstKeptEntryId":"`)
		g.line = appendHexID(g.line, g.path[cut].id)
		g.raw(`"`)
		g.int("tokensBefore", int64(tokensBefore))
		g.fileDetails()
		g.raw(`,"usage":`)
		g.usage(tokensBefore/3, g.lu(800, 4000), tokensBefore/2, 0)
		g.raw(`,"fromHook":false`)
	}
	kept := 0
	for _, e := range g.path[cut:] {
		kept += int(e.tok)
	}
	g.end(id, kCompaction)
	g.comps = append(g.comps, len(g.path)-1)
	g.st.compactions++
	g.ctx = kept + int(g.path[len(g.path)-1].tok)
	g.lastCallCtx = g.ctx
}

func (g *gen) bashExecution() {
	cmd := g.bashCommand()
	ts := g.now
	g.advance(200, 60000)
	id := g.begin("message")
	g.raw(`,"message":{"role":"bashExecution"`)
	g.str("command", cmd)
	g.raw(`,"output":"`)
	n := g.toolOutputSize(g.sh.outBash)
	g.text(g.pl.logs, n, slotBash)
	g.raw(`"`)
	code := 0
	if g.r.IntN(5) == 0 {
		code = 1
	}
	g.int("exitCode", int64(code))
	g.raw(`,"cancelled":false`)
	if n > 50000 {
		g.raw(`,"truncated":true,"fullOutputPath":"/tmp/pi-bash-`)
		g.line = appendHexID(g.line, g.r.Uint32())
		g.raw(`.log"`)
	} else {
		g.raw(`,"truncated":false`)
	}
	g.int("timestamp", ts)
	if g.r.IntN(10) == 0 {
		g.raw(`,"excludeFromContext":true`)
	}
	g.raw(`}`)
	g.end(id, kBash)
}

func (g *gen) toolCallID() string {
	b := make([]byte, 0, 64)
	const an = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	rnd := func(n int) {
		for i := 0; i < n; i++ {
			b = append(b, an[g.r.IntN(len(an))])
		}
	}
	g.toolSeq++
	switch g.mi.callStyle {
	case 'a':
		b = append(b, "toolu_01"...)
		rnd(22)
	case 'r':
		b = append(b, "call_"...)
		rnd(24)
		b = append(b, "|fc_"...)
		b = appendHexID(b, g.r.Uint32())
		b = appendHexID(b, g.r.Uint32())
		b = appendHexID(b, g.r.Uint32())
	case 'k':
		b = append(b, "functions.tool:"...)
		b = strconv.AppendInt(b, int64(g.toolSeq), 10)
	default:
		b = append(b, "call_"...)
		rnd(24)
	}
	return string(b)
}

type call struct {
	id, name, path string
}

// assistant writes one assistant message. withTools=true: thinking/text +
// tool calls, followed by their tool results. Returns false if the turn
// ended (aborted/error).
func (g *gen) assistant(withTools bool) bool {
	mi := g.mi
	reqStart := g.now
	stop := "stop"
	var errMsg string
	if withTools {
		stop = "toolUse"
	}
	x := g.r.Float64()
	switch {
	case x < 0.012:
		stop, errMsg = "aborted", "Request was aborted"
	case x < 0.02:
		stop, errMsg = "error", pick(g.r, []string{"429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit",
			"Connection error.", "500 {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}", "terminated"})
	case !withTools && x < 0.025:
		stop = "length"
	}
	outBytes := 0
	var calls []call

	g.advance(800, 15000)
	id := g.begin("message")
	g.raw(`,"message":{"role":"assistant","content":[`)
	blocks := 0
	sep := func() {
		if blocks > 0 {
			g.raw(",")
		}
		blocks++
	}
	if stop != "error" {
		if g.thinking != "off" && g.r.Float64() < g.sh.thinking {
			sep()
			l0 := len(g.line)
			g.raw(`{"type":"thinking","thinking":"`)
			g.text(g.prosePool(slotThinking), g.capToBudget(g.luSpan(g.sh.thinkText)), slotThinking)
			g.raw(`","thinkingSignature":"`)
			switch mi.sig {
			case 'a':
				g.raw("Er")
				g.line = g.pl.b64.appendSlice(g.line, g.r, g.luSpan(g.sh.sigA))
			case 'o':
				g.raw(`{\"id\":\"rs_`)
				g.line = appendHexID(g.line, g.r.Uint32())
				g.line = appendHexID(g.line, g.r.Uint32())
				g.raw(`\",\"type\":\"reasoning\",\"encrypted_content\":\"gAAAAAB`)
				g.line = g.pl.b64.appendSlice(g.line, g.r, g.luSpan(g.sh.sigO))
				g.raw(`\",\"summary\":[]}`)
			case 'g':
				g.line = g.pl.b64.appendSlice(g.line, g.r, g.luSpan(g.sh.sigG))
			}
			g.raw(`"}`)
			outBytes += len(g.line) - l0
		}
		if !withTools || g.r.Float64() < g.sh.textWithTools {
			sep()
			l0 := len(g.line)
			sp := g.sh.textFinal
			if withTools {
				sp = g.sh.textStep
			}
			if withTools && g.sh.shortStep > 0 && g.lang < 0 && g.r.Float64() < g.sh.shortStep {
				g.shortStepText()
			} else {
				g.textBlock(g.prosePool(slotAssistant), g.capToBudget(g.luSpan(sp)), slotAssistant)
			}
			outBytes += len(g.line) - l0
		}
		if withTools && stop == "toolUse" {
			nc := 1
			if y := g.r.Float64(); y > g.sh.calls3 {
				nc = 3
			} else if y > g.sh.calls2 {
				nc = 2
			}
			for c := 0; c < nc; c++ {
				sep()
				l0 := len(g.line)
				calls = append(calls, g.toolCall())
				outBytes += len(g.line) - l0
			}
		}
	}
	g.raw(`]`)
	g.str("api", mi.api)
	g.str("provider", mi.provider)
	g.str("model", mi.model)
	g.raw(`,"usage":`)
	if stop == "error" || (stop == "aborted" && g.r.IntN(2) == 0) {
		g.usage(0, 0, 0, 0)
	} else {
		delta := g.ctx - g.lastCallCtx
		if delta < 0 {
			delta = 0
		}
		out := outBytes/4 + 5
		if mi.caches && g.lastCallCtx > 0 {
			cw := 0
			if mi.cw > 0 {
				cw = delta
			}
			in := 1 + g.r.IntN(8)
			if mi.cw == 0 {
				in = delta
			}
			g.usage(in, out, g.lastCallCtx, cw)
		} else {
			g.usage(g.ctx+3000, out, 0, 0)
		}
	}
	g.str("stopReason", stop)
	if errMsg != "" {
		g.str("errorMessage", errMsg)
	}
	g.int("timestamp", reqStart)
	if mi.respPrefix != "" && stop != "error" && g.plan.start >= g.sh.responseIDSince {
		g.raw(`,"responseId":"`)
		g.raw(mi.respPrefix)
		g.line = appendHexID(g.line, g.r.Uint32())
		g.line = appendHexID(g.line, g.r.Uint32())
		g.raw(`"`)
	}
	g.raw(`}`)
	g.advance(int64(outBytes/20), int64(outBytes/8)+2000) // streaming time
	g.end(id, kAssistant)
	g.lastCallCtx = g.ctx

	if stop == "aborted" || stop == "error" {
		return false
	}
	for _, c := range calls {
		g.toolResult(c)
	}
	return true
}

func (g *gen) filePath() string {
	if g.pl.real != nil {
		return g.cwd + "/" + pick(g.r, g.pl.real.paths)
	}
	return g.cwd + "/" + relPath(g.r)
}

func (g *gen) toolCall() call {
	c := call{id: g.toolCallID(), name: pick(g.r, g.sh.tools)}
	g.raw(`{"type":"toolCall","id":"`)
	g.raw(c.id)
	g.raw(`","name":"`)
	g.raw(c.name)
	g.raw(`","arguments":{`)
	switch c.name {
	case "bash":
		g.raw(`"command":"`)
		g.line = appendEscaped(g.line, g.bashCommand())
		g.raw(`"`)
		if g.r.IntN(4) == 0 {
			g.raw(`,"timeout":120`)
		}
	case "read":
		c.path = g.filePath()
		g.raw(`"path":"`)
		g.line = appendEscaped(g.line, c.path)
		g.raw(`"`)
		if g.r.IntN(4) == 0 {
			g.int("offset", int64(1+g.r.IntN(800)))
			g.int("limit", int64(50+g.r.IntN(400)))
		}
		if len(g.readFiles) < 40 {
			g.readFiles = append(g.readFiles, c.path)
		}
	case "edit":
		c.path = g.filePath()
		g.raw(`"path":"`)
		g.line = appendEscaped(g.line, c.path)
		g.raw(`","oldText":"`)
		g.line = g.pl.code.appendSlice(g.line, g.r, g.luSpan(g.sh.editOld))
		g.raw(`","newText":"`)
		g.line = g.pl.code.appendSlice(g.line, g.r, g.luSpan(g.sh.editNew))
		g.raw(`"`)
		if len(g.modFiles) < 40 {
			g.modFiles = append(g.modFiles, c.path)
		}
	case "write":
		c.path = g.filePath()
		g.raw(`"path":"`)
		g.line = appendEscaped(g.line, c.path)
		g.raw(`","content":"`)
		g.line = g.pl.code.appendSlice(g.line, g.r, g.capToBudget(g.lu(200, 30000)))
		g.raw(`"`)
		if len(g.modFiles) < 40 {
			g.modFiles = append(g.modFiles, c.path)
		}
	case "grep":
		g.raw(`"pattern":"`)
		if g.pl.real != nil {
			g.line = appendEscaped(g.line, pick(g.r, g.pl.real.idents))
		} else {
			g.line = appendEscaped(g.line, camel(g.r, 1+g.r.IntN(2)))
		}
		g.raw(`","path":"src","ignoreCase":true`)
	case "find":
		g.raw(`"pattern":"**/*`)
		g.raw(pick(g.r, fileExts))
		g.raw(`"`)
	case "ls":
		g.raw(`"path":"`)
		g.line = appendEscaped(g.line, g.cwd)
		g.raw(`"`)
	}
	g.raw(`}}`)
	return c
}

func (g *gen) toolResult(c call) {
	g.advance(5, 20000)
	id := g.begin("message")
	g.raw(`,"message":{"role":"toolResult","toolCallId":"`)
	g.raw(c.id)
	g.raw(`","toolName":"`)
	g.raw(c.name)
	g.raw(`","content":[`)
	isErr := g.r.Float64() < 0.05
	var details string
	switch {
	case isErr:
		g.textBlock(g.pl.logs, g.lu(30, 600), slotTool)
	case c.name == "read" && g.r.Float64() < 0.004:
		g.raw(`{"type":"text","text":"Read image file [image/png]"},`)
		g.imageBlock(g.capToBudget(g.lu(40e3, 2e6)))
	case c.name == "read":
		g.textBlock(g.pl.code, g.toolOutputSize(g.sh.outRead), slotTool)
	case c.name == "edit":
		g.raw(`{"type":"text","text":"Successfully replaced text in `)
		g.line = appendEscaped(g.line, c.path)
		g.raw(`."}`)
		details = "diff"
	case c.name == "write":
		g.raw(`{"type":"text","text":"Successfully wrote `)
		g.line = strconv.AppendInt(g.line, int64(g.lu(200, 30000)), 10)
		g.raw(` bytes to `)
		g.line = appendEscaped(g.line, c.path)
		g.raw(`"}`)
	default:
		tiers := g.sh.outOther
		if c.name == "bash" {
			tiers = g.sh.outBash
		}
		n := g.toolOutputSize(tiers)
		p, slot := g.pl.logs, slotTool
		if c.name == "bash" {
			slot = slotBash
		} else if rp := g.pl.real; rp != nil && c.name == "grep" {
			p = rp.grep
		} else if rp != nil && (c.name == "find" || c.name == "ls") {
			p = rp.listing
		}
		g.textBlock(p, n, slot)
		if c.name == "bash" && n > 50000 {
			details = "trunc"
		}
	}
	g.raw(`]`)
	switch details {
	case "diff":
		g.raw(`,"details":{"diff":"`)
		g.line = g.pl.code.appendSlice(g.line, g.r, g.luSpan(g.sh.diffText))
		g.raw(`","firstChangedLine":`)
		g.line = strconv.AppendInt(g.line, int64(1+g.r.IntN(900)), 10)
		g.raw(`}`)
	case "trunc":
		g.raw(`,"details":{"truncation":{"truncated":true,"truncatedBy":"bytes","totalLines":`)
		g.line = strconv.AppendInt(g.line, int64(1000+g.r.IntN(90000)), 10)
		g.raw(`,"outputLines":2000},"fullOutputPath":"/tmp/pi-bash-`)
		g.line = appendHexID(g.line, g.r.Uint32())
		g.raw(`.log"}`)
	}
	if isErr {
		g.raw(`,"isError":true`)
	} else {
		g.raw(`,"isError":false`)
	}
	g.int("timestamp", g.now)
	g.raw(`}`)
	g.end(id, kToolResult)
}

// usage appends a Usage object with cost computed like pi-ai
// ((price/1e6)*tokens, total = sum in field order).
func (g *gen) usage(in, out, cacheRead, cacheWrite int) {
	mi := g.mi
	tot := in + out + cacheRead + cacheWrite
	ci := mi.in / 1000000 * float64(in)
	co := mi.out / 1000000 * float64(out)
	ccr := mi.cr / 1000000 * float64(cacheRead)
	ccw := mi.cw / 1000000 * float64(cacheWrite)
	b := append(g.line, `{"input":`...)
	b = strconv.AppendInt(b, int64(in), 10)
	b = append(b, `,"output":`...)
	b = strconv.AppendInt(b, int64(out), 10)
	b = append(b, `,"cacheRead":`...)
	b = strconv.AppendInt(b, int64(cacheRead), 10)
	b = append(b, `,"cacheWrite":`...)
	b = strconv.AppendInt(b, int64(cacheWrite), 10)
	if !g.noTotal {
		b = append(b, `,"totalTokens":`...)
		b = strconv.AppendInt(b, int64(tot), 10)
	}
	b = append(b, `,"cost":{"input":`...)
	b = appendNum(b, ci)
	b = append(b, `,"output":`...)
	b = appendNum(b, co)
	b = append(b, `,"cacheRead":`...)
	b = appendNum(b, ccr)
	b = append(b, `,"cacheWrite":`...)
	b = appendNum(b, ccw)
	b = append(b, `,"total":`...)
	b = appendNum(b, ci+co+ccr+ccw)
	b = append(b, `}}`...)
	g.line = b
}
