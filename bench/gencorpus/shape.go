package main

// -shape: how big each kind of entry is and how often each kind comes.
//
// classic is the corpus gencorpus wrote before -shape existed, byte for byte
// (its digests in bench/README.md still hold): entries about 40% larger than
// real ones. real is tuned to the shape of real pi session files: entries
// per MB and line-size percentiles within 10% of 146 real files, kinds of
// entry and content block in the proportions of the real files in
// /work/shared/fixtures/pi-real (bench/internal/shape; `go run ./bench/shape
// DIR` compares any corpus with them), and writes each session in the file
// format pi wrote when it started (v1 in 2025: formatAt). Both write the
// same entry types with the same fields in v3 files.

import (
	"fmt"
	"strings"
)

// span is a log-uniform range of sizes in bytes.
type span struct{ lo, hi float64 }

// tier: with probability p (cumulative over a list), a size in span s.
type tier struct {
	p float64
	s span
}

type shapeParams struct {
	// sessions
	eras         bool               // each session in the file format pi wrote when it started (formatAt)
	modelWeights map[string]float64 // by model id (nil: the weights in models)
	sessionName  float64            // a session_info right after the header
	ext          float64            // sessions with extensions' entries (custom, custom_message)
	cacheWarmer  float64            // sessions with usage (cache_warm) entries

	// between turns
	label, modelChange float64 // per turn
	thinkingChange     float64 // per turn: a thinking_level_change ...
	thinkingBurst      float64 // ... followed by more with this probability each (0: classic, a single one)
	resumeThinking     bool    // a gap of over an hour (pi reopened) writes a thinking_level_change

	// turns
	meanSteps     float64 // tool-using assistant steps per turn (geometric-ish mean)
	reserveTokens int     // compact when the context passes the window less this (0: at 3/4 of the window)
	shortUser     float64 // a short reply ("ok", "commit it") instead of a prompt, after the first turn
	stringUser    float64 // user content as a plain string instead of text blocks
	userText      span
	pasteUser     float64 // share of user messages that are pasted logs or specs
	pasteText     span
	customMsg     float64 // ext sessions: a custom_message after the user message ...
	customMsg2    float64 // ... and a second one (real: kimchi's enriched-prompt + prompt-summary)
	customMsgText span
	agentEnd      float64 // ext sessions: a custom agent_end after the turn

	// assistant messages
	thinking         float64 // a thinking block when the level is not off
	thinkText        span
	sigA, sigO, sigG span    // thinking signature sizes by model family
	textWithTools    float64 // a text block beside tool calls
	textStep         span    // text beside tool calls ...
	shortStep        float64 // ... or else, this often, one short sentence of narration (English: not in CJK sessions)
	textFinal        span    // text of the turn's last message
	calls2, calls3   float64 // y > calls3: 3 tool calls, y > calls2: 2, else 1
	responseIDSince  int64   // sessions started before this (unix ms) have no responseId
	editOld, editNew span    // an edit call's oldText and newText
	tools            []string

	// tool results: output sizes by tool, an edit's diff
	outRead, outBash, outOther []tier
	diffText                   span
}

var classicShape = shapeParams{
	sessionName: 0.2, ext: 0.2, cacheWarmer: 0.1,
	label: 0.025, modelChange: 0.025, thinkingChange: 0.015,
	meanSteps: 4, stringUser: 0.3, userText: span{15, 900}, pasteUser: 0.04, pasteText: span{3000, 60000},
	customMsg: 0.5, customMsgText: span{200, 6000}, agentEnd: 0.4,
	thinking: 0.65, thinkText: span{80, 8000}, sigA: span{300, 4000}, sigO: span{800, 6000}, sigG: span{100, 800},
	textWithTools: 0.45, textStep: span{40, 3000}, textFinal: span{40, 3000},
	calls2: 0.75, calls3: 0.93, editOld: span{30, 2500}, editNew: span{30, 3000},
	tools:   toolNames,
	outRead: classicOut, outBash: classicOut, outOther: classicOut, diffText: span{100, 4000},
}

var classicOut = []tier{{0.70, span{20, 2000}}, {0.93, span{2000, 20000}}, {0.9985, span{10000, 200000}}, {1, span{1e6, 4e6}}}

// realShape: see the comment at the top. The figures in the comments are
// the real files' (line sizes in bytes, shares of entries).
var realShape = shapeParams{
	eras: true,
	// Real files: Anthropic 75% of assistant messages, a zero-cost coding
	// plan (zai glm-5.2) 21%, kimi 4%. Other providers are kept, less often,
	// so that every api still occurs.
	modelWeights: map[string]float64{"claude-sonnet-4-5": 25, "claude-opus-4-5": 22, "claude-haiku-4-5": 3,
		"gpt-5.1-codex": 8, "gpt-5": 4, "gemini-2.5-pro": 4, "z-ai/glm-4.6": 3, "kimi-k2.5": 8,
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0": 3, "qwen3-coder:30b": 4, "glm-5.2": 26},
	// Extensions' entries in every v2/v3 session, at a lower rate than
	// classic's extension users: the real files hold them in two sessions,
	// but a small corpus would then swing with its few large sessions.
	sessionName: 0.05, ext: 1, cacheWarmer: 0.04,
	// thinking_level_change is 3.5% of real entries (most in one session
	// whose user cycles the level); model_change 0.5%; labels none.
	label: 0.01, modelChange: 0.012, thinkingChange: 0.21, thinkingBurst: 0.55, resumeThinking: true,
	// user 6.8% of entries (p10 line 163, p50 236), assistant 44%, toolResult 42%.
	meanSteps: 7.1, reserveTokens: 16384, shortUser: 0.9,
	stringUser: 0.03, userText: span{15, 700}, pasteUser: 0.02, pasteText: span{3000, 60000},
	customMsg: 0.22, customMsg2: 0.3, customMsgText: span{300, 5000}, agentEnd: 0.13,
	// 0.28 thinking blocks, 0.49 text blocks, 0.98 tool calls per
	// assistant message (p50 line 933).
	thinking: 0.34, thinkText: span{40, 3000}, sigA: span{150, 1000}, sigO: span{300, 2000}, sigG: span{60, 500},
	// Text beside tool calls: p50 85 B in the real files, mostly one short sentence.
	textWithTools: 0.4, textStep: span{12, 700}, shortStep: 0.7, textFinal: span{60, 6000},
	// pi wrote responseId from about v0.59 on (after v0.58.3, 2026-03-15):
	// the real files of 2025 have none.
	responseIDSince: mustTime("2026-03-15T00:00:00Z"),
	calls2:          0.87, calls3: 0.97, editOld: span{20, 1200}, editNew: span{20, 1500},
	// bash 42%, read 24%, edit 22%, write 4%, grep/find/ls and others the rest.
	tools:    weighted(map[string]int{"bash": 42, "read": 25, "edit": 22, "write": 4, "grep": 3, "find": 2, "ls": 2}),
	outRead:  []tier{{0.35, span{50, 800}}, {0.50, span{800, 4000}}, {0.946, span{4000, 40000}}, {0.9995, span{40000, 400000}}, {1, span{1e6, 3e6}}},
	outBash:  []tier{{0.91, span{5, 400}}, {0.985, span{600, 10000}}, {0.9995, span{10000, 150000}}, {1, span{1e6, 3e6}}},
	outOther: []tier{{0.60, span{50, 2000}}, {0.95, span{2000, 15000}}, {1, span{15000, 150000}}},
	diffText: span{20, 500},
}

// weighted lists each name as many times as its weight, in a fixed order.
func weighted(w map[string]int) []string {
	var out []string
	for _, name := range []string{"bash", "read", "edit", "write", "grep", "find", "ls"} {
		for range w[name] {
			out = append(out, name)
		}
	}
	return out
}

// Format eras (pi-session-format.md §0): v1 files until 2025-12-24, v2
// until 2026-01-04, v3 since; usage gained totalTokens on 2025-12-06.
var (
	v2Since          = mustTime("2025-12-25T00:00:00Z")
	v3Since          = mustTime("2026-01-05T00:00:00Z")
	totalTokensSince = mustTime("2025-12-06T00:00:00Z")
)

// formatAt is the format version of a session started at ms. (Before
// 2025-11-13 pi wrote prototypes; the corpus writes v1 for all of 2025.)
func formatAt(ms int64) int {
	switch {
	case ms < v2Since:
		return 1
	case ms < v3Since:
		return 2
	}
	return 3
}

func shapeByName(name string) (*shapeParams, error) {
	switch name {
	case "", "classic":
		return &classicShape, nil
	case "real":
		return &realShape, nil
	}
	return nil, fmt.Errorf("-shape must be classic or real, not %q", name)
}

// shortReplies: what users type between longer prompts.
var shortReplies = []string{"ok", "yes", "y", "continue", "go on", "do it", "yes, do it", "commit", "commit this",
	"looks good, commit and push", "run the tests", "try again", "no, revert that", "thanks!", "ship it",
	"fix the lint errors", "what about the edge case when the file is empty?", "and the other callers?",
	"why?", "keep going", "undo the last change", "now update the docs", "same for the tests", "great",
	"stop", "use the existing helper instead", "can you explain that?", "/compact", "hm, that broke the build",
	"can you also check that the error message names the file and the line?",
	"no, keep the old behaviour for empty input and add a test for it",
	"the CI run failed on windows, can you look at the log?", "rename it to something clearer and update the callers",
	"ok but don't touch the migration files, they are released", "split this into two commits please",
	"what happens if the file is deleted while we read it?", "run the whole suite, not only that package",
	"good. now the same for the postgres side", "that's too slow, can we avoid reading the whole file?",
	"revert the formatting changes, keep only the fix", "add a comment that says why, not what",
	"check the benchmarks again after this change", "looks right. update the changelog and open a PR"}

// cjkShortReplies: the same in the sessions of a user who writes Japanese,
// Chinese or Korean (randomLang's order).
var cjkShortReplies = [3][]string{
	{"はい", "お願いします", "続けて", "コミットして", "テストを実行して", "それで大丈夫です", "元に戻して", "なぜですか？", "ありがとう！", "ドキュメントも更新して"},
	{"好的", "继续", "提交吧", "跑一下测试", "可以", "撤销刚才的修改", "为什么？", "谢谢！", "文档也更新一下", "再试一次"},
	{"네", "계속해 주세요", "커밋해 주세요", "테스트 돌려 주세요", "좋아요", "되돌려 주세요", "왜요?", "고마워요!"},
}

// shortUserText appends the content of a short reply: text blocks, or a
// plain string as often as the shape writes one.
func (g *gen) shortUserText() {
	g.st.users++
	s := pick(g.r, shortReplies)
	if g.lang >= 0 && g.r.Float64() < 0.6 {
		s = pick(g.r, cjkShortReplies[g.lang])
		g.st.cjkUsers++
	}
	if g.r.Float64() < g.sh.stringUser {
		g.raw(`"`)
		g.line = appendEscaped(g.line, s)
		g.raw(`"`)
		return
	}
	g.raw(`[{"type":"text","text":"`)
	g.line = appendEscaped(g.line, s)
	g.raw(`"}]`)
}

// stepTemplates: what an agent says beside a tool call ({ident} an
// identifier, {path} a path).
var stepTemplates = []string{"Let me look at `{ident}`.", "Now I'll update `{ident}`.", "Let me run the tests.",
	"Checking `{ident}`.", "The build passes now.", "Let me read {path}.", "That fixed it. Now the callers.",
	"I'll add a test for `{ident}`.", "Let me check how `{ident}` is used.", "Good, now commit.", "Fixed.",
	"Let me see what {path} does first.", "The test still fails; checking the error.", "Now the tests.",
	"`{ident}` is only called from {path}.", "Let me search for other uses of `{ident}`.", "Done. Verifying.",
	"Let me check the build.", "One more place.", "Now update the docs."}

// shortStepText appends a text block of one short sentence.
func (g *gen) shortStepText() {
	g.st.texts++
	var ident, path string
	if rp := g.pl.real; rp != nil {
		ident, path = pick(g.r, rp.idents), pick(g.r, rp.paths)
	} else {
		ident, path = camel(g.r, 1+g.r.IntN(2)), relPath(g.r)
	}
	g.raw(`{"type":"text","text":"`)
	g.line = appendEscaped(g.line, strings.NewReplacer("{ident}", ident, "{path}", path).Replace(pick(g.r, stepTemplates)))
	g.raw(`"}`)
}
