#!/usr/bin/env node
// Writes pidex's OpenClaw-shaped corpus, testdata/sessions-openclaw/, with the REAL pi SessionManager
// (@earendil-works/pi-coding-agent 1.6.0, the same pinned package as generate.mjs). See README.md, "OpenClaw".
//
//   cd testdata/gen && npm ci && node openclaw.mjs && node golden-openclaw.mjs
//
// testdata/sessions-openclaw/ is a fake ~/.openclaw of user `ann` (OpenClaw's state dir, src/config/paths.ts
// resolveStateDir): agents/<agentId>/sessions/ holds sessions.json (OpenClaw's index) and one transcript per
// session, <sessionId>.jsonl (or <sessionId>-topic-<threadId>.jsonl), plus <sessionId>.checkpoint.<uuid>.jsonl
// copies taken before a compaction (src/gateway/session-compaction-checkpoints.ts).
//
// What is pi's and what is OpenClaw's (all OpenClaw behaviour below was read in openclaw/openclaw, see README):
// - every transcript line is written by pi's SessionManager (appendMessage, appendModelChange, appendCustomEntry,
//   appendCompaction, ...);
// - a transcript is opened the way OpenClaw's runner opens it, SessionManager.open(<dir>/<sessionId>.jsonl, <dir>,
//   <workspace>) on a path that does not exist yet, and then patched the way OpenClaw's prepareSessionManagerForRun
//   (src/agents/pi-embedded-runner/session-manager-init.ts) patches it: header.id and sm.sessionId = OpenClaw's
//   session id, header.cwd = the agent workspace. pi writes the file at the first user message;
// - the checkpoint copy is made as captureCompactionCheckpointSnapshot does: a byte copy of the transcript
//   (fs.copyFileSync), then SessionManager.open(copy, dirname(copy));
// - OpenClaw's custom entries (`model-snapshot`, `openclaw:prompt-error`) go through pi's appendCustomEntry with the
//   data shapes OpenClaw passes;
// - HAND-WRITTEN (pi has no API for it, it is OpenClaw's own store): sessions.json, built from the values this
//   script used, in the shape of OpenClaw's SessionEntry (src/config/sessions/types.ts).
// Only post-processing: the temp dir prefix in sessions.json paths becomes /home/ann/.openclaw.
// Deterministic (fake clock and seeded PRNG, lib/determinism.mjs): running it twice gives identical files.
import { randomUUID } from "node:crypto";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { clock, installDeterminism, loadPi, randInt, randomChars, reseed } from "./lib/determinism.mjs";

installDeterminism();
const { SessionManager } = await loadPi();

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, "..", "sessions-openclaw");
const FAKE_STATE = "/home/ann/.openclaw";
const tmp = mkdtempSync(join(tmpdir(), "pidex-openclaw-gen-"));
const STATE = join(tmp, ".openclaw");
const agentSessionsDir = (agentId) => join(STATE, "agents", agentId, "sessions");

const MODELS = {
	opus: { api: "anthropic-messages", provider: "anthropic", model: "claude-opus-4-5", price: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 } },
	codex: { api: "openai-responses", provider: "openai", model: "gpt-5.1-codex", price: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 } },
};
function mkUsage(m, input, output, cacheRead = 0, cacheWrite = 0) {
	const p = m.price;
	const cost = { input: (input * p.input) / 1e6, output: (output * p.output) / 1e6, cacheRead: (cacheRead * p.cacheRead) / 1e6, cacheWrite: (cacheWrite * p.cacheWrite) / 1e6 };
	cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
	return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
}

/** Opens a new transcript as OpenClaw's embedded runner does (see the header comment). */
function openTranscript(agentId, sessionId, workspace, { topicId } = {}) {
	const dir = agentSessionsDir(agentId);
	mkdirSync(dir, { recursive: true });
	const file = join(dir, topicId === undefined ? `${sessionId}.jsonl` : `${sessionId}-topic-${topicId}.jsonl`);
	const sm = SessionManager.open(file, dir, workspace);
	// OpenClaw prepareSessionManagerForRun, `!hadSessionFile && header` branch
	const header = sm.fileEntries.find((e) => e.type === "session");
	header.id = sessionId;
	header.cwd = workspace;
	sm.sessionId = sessionId;
	return { sm, file };
}

class Run {
	constructor(sm, sessionId, model) {
		this.sm = sm;
		this.sessionId = sessionId;
		this.m = MODELS[model];
		this.usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, cost: 0 };
		this.lastAssistant = undefined;
	}
	/** The setup entries OpenClaw writes at the start of a run (same millisecond): model, thinking, model-snapshot. */
	setup(model, thinking) {
		this.m = MODELS[model];
		this.sm.appendModelChange(this.m.provider, this.m.model);
		this.sm.appendThinkingLevelChange(thinking);
		return this.sm.appendCustomEntry("model-snapshot", { timestamp: clock.now, provider: this.m.provider, modelApi: this.m.api, modelId: this.m.model });
	}
	user(text, delay = [20000, 90000]) {
		clock.tick(randInt(delay[0], delay[1]));
		return this.sm.appendMessage({ role: "user", content: text, timestamp: clock.now });
	}
	/** advanceClock false: the entry is appended in the same millisecond as the previous one (shared ISO timestamp). */
	assistant(content, u, { stop, error, msgTs, advanceClock = true } = {}) {
		if (advanceClock) clock.tick(randInt(1500, 9000));
		const usage = mkUsage(this.m, ...u);
		this.usage.input += usage.input;
		this.usage.output += usage.output;
		this.usage.cacheRead += usage.cacheRead;
		this.usage.cacheWrite += usage.cacheWrite;
		this.usage.total += usage.totalTokens;
		this.usage.cost += usage.cost.total;
		const stopReason = stop ?? (content.some((b) => b.type === "toolCall") ? "toolUse" : "stop");
		const msg = { role: "assistant", content, api: this.m.api, provider: this.m.provider, model: this.m.model, usage, stopReason, timestamp: msgTs ?? clock.now };
		if (stopReason !== "error") msg.responseId = this.m.provider === "openai" ? `resp_${randomChars(40, "0123456789abcdef")}` : `msg_01${randomChars(22)}`;
		if (error) msg.errorMessage = error;
		this.lastAssistant = msg;
		return this.sm.appendMessage(msg);
	}
	call(name, args) {
		const id = this.m.provider === "openai" ? `call_${randomChars(24)}` : `toolu_01${randomChars(22)}`;
		return { type: "toolCall", id, name, arguments: args };
	}
	tool(call, text, { msgTs, advanceClock = true, isError = false } = {}) {
		if (advanceClock) clock.tick(randInt(50, 2500));
		return this.sm.appendMessage({ role: "toolResult", toolCallId: call.id, toolName: call.name, content: [{ type: "text", text }], isError, timestamp: msgTs ?? clock.now });
	}
	/** OpenClaw's prompt-error record (src/agents/pi-embedded-runner/run/attempt.ts) */
	promptError(runId, error) {
		return this.sm.appendCustomEntry("openclaw:prompt-error", {
			timestamp: clock.now,
			runId,
			sessionId: this.sessionId,
			provider: this.m.provider,
			model: this.m.model,
			api: this.m.api,
			error,
		});
	}
}

const WORKSPACE = `${FAKE_STATE}/workspace`; // OpenClaw's default agent workspace
const CODER_WORKSPACE = `${FAKE_STATE}/workspace-coder`;
const store = { main: {}, coder: {} }; // HAND-WRITTEN sessions.json contents, per agent

// =============================================================================================
// main / S1: the agent's main direct-chat session (session key agent:main:main). Setup entries share one
// timestamp; a tool turn whose entries are written in the same millisecond, with two assistant calls of
// identical model and usage (distinct entries that a (timestamp, model, tokens, cost) key would merge); a
// prompt error (zero-usage error turn + openclaw:prompt-error); then a compaction, taken after OpenClaw's
// checkpoint copy (<sid>.checkpoint.<uuid>.jsonl, a byte copy of the file before the compaction).
// =============================================================================================
{
	reseed(0xc1);
	clock.set("2026-09-21T07:58:12.004Z");
	const sid = randomUUID();
	const { sm, file } = openTranscript("main", sid, WORKSPACE);
	const r = new Run(sm, sid, "opus");
	r.setup("opus", "low");
	r.user("Morning! What's on my calendar today?", [1000, 2000]);
	const c1 = r.call("calendar_list", { date: "2026-09-21" });
	r.assistant([{ type: "text", text: "Checking your calendar." }, c1], [2310, 42, 0, 9800]);
	r.tool(c1, "09:30 stand-up (30 min)\n13:00 dentist\n16:00 1:1 with Sam");
	r.assistant([{ type: "text", text: "Three things today: stand-up at 09:30, the dentist at 13:00 and your 1:1 with Sam at 16:00." }], [112, 38, 9800, 210]);
	// a burst: the whole turn is written in one millisecond (shared ISO timestamps); the two assistant calls
	// have the same model and the same usage, but are distinct entries with distinct message timestamps
	r.user("Move the 1:1 to 17:00 and tell Sam.");
	const t0 = clock.now;
	const c2 = r.call("calendar_move", { event: "1:1 with Sam", to: "17:00" });
	r.assistant([c2], [96, 31, 10120, 0], { advanceClock: false, msgTs: t0 + 2100 });
	r.tool(c2, "moved: 1:1 with Sam 16:00 -> 17:00", { advanceClock: false, msgTs: t0 + 2400 });
	const c3 = r.call("message_send", { to: "Sam", text: "Hi Sam, can we do our 1:1 at 17:00 today instead of 16:00?" });
	r.assistant([c3], [96, 31, 10120, 0], { advanceClock: false, msgTs: t0 + 4300 });
	r.tool(c3, "sent", { advanceClock: false, msgTs: t0 + 4500 });
	r.assistant([{ type: "text", text: "Done: the 1:1 is at 17:00 and Sam has a message." }], [130, 22, 10250, 90], { advanceClock: false, msgTs: t0 + 6200 });
	clock.tick(6300);
	// a prompt error: the provider timed out, the turn is an empty error turn, OpenClaw records the error
	r.user("And remind me at 12:30 to leave for the dentist.");
	r.assistant([], [0, 0, 0, 0], { stop: "error", error: "LLM idle timeout (60s): no response from model" });
	r.promptError(randomUUID(), "LLM idle timeout (60s): no response from model");
	clock.tick(4000);
	const cR = r.call("reminder_add", { at: "12:30", text: "Leave for the dentist" });
	r.assistant([cR], [220, 29, 10400, 120]);
	r.tool(cR, "reminder set for 12:30");
	const kept = r.user("Thanks. What's the weather like at 13:00?");
	r.assistant([{ type: "text", text: "Light rain around 13:00 (12 °C). Take an umbrella to the dentist." }], [140, 26, 10530, 80]);
	const preLeaf = sm.getLeafId();

	// OpenClaw's compaction checkpoint: copy the transcript, open the copy with pi (src/gateway/session-compaction-checkpoints.ts)
	clock.tick(120000);
	const checkpointId = randomUUID();
	const snapshotFile = join(dirname(file), `${sid}.checkpoint.${checkpointId}.jsonl`);
	copyFileSync(file, snapshotFile);
	SessionManager.open(snapshotFile, dirname(snapshotFile));
	const createdAt = clock.now;
	const summary = "Ann's day: stand-up 09:30, dentist 13:00 (reminder at 12:30, light rain, take an umbrella), 1:1 with Sam moved to 17:00 and Sam was told.";
	const compactionUsage = mkUsage(MODELS.opus, 10890, 160, 0, 0);
	clock.tick(5200);
	const compactionId = sm.appendCompaction(summary, kept, 41800, { readFiles: [], modifiedFiles: [] }, false, compactionUsage);
	r.usage.input += compactionUsage.input;
	r.usage.output += compactionUsage.output;
	r.usage.total += compactionUsage.totalTokens;
	r.usage.cost += compactionUsage.cost.total;
	r.user("One more: is the stand-up on Zoom or in the office?");
	r.assistant([{ type: "text", text: "On Zoom; the link is in the invite." }], [1900, 14, 0, 2300]);
	store.main["agent:main:main"] = {
		sessionId: sid,
		updatedAt: clock.now,
		sessionFile: `${sid}.jsonl`,
		chatType: "direct",
		origin: { provider: "telegram", surface: "telegram", chatType: "direct", from: "telegram:123456789" },
		lastChannel: "telegram",
		modelProvider: r.m.provider,
		model: r.m.model,
		thinkingLevel: "low",
		inputTokens: r.usage.input,
		outputTokens: r.usage.output,
		cacheRead: r.usage.cacheRead,
		cacheWrite: r.usage.cacheWrite,
		totalTokens: 4200,
		totalTokensFresh: true,
		contextTokens: 200000,
		compactionCount: 1,
		compactionCheckpoints: [
			{
				checkpointId,
				sessionKey: "agent:main:main",
				sessionId: sid,
				createdAt,
				reason: "auto-threshold",
				tokensBefore: 41800,
				tokensAfter: 3900,
				summary,
				firstKeptEntryId: kept,
				preCompaction: { sessionId: sid, sessionFile: snapshotFile, leafId: preLeaf },
				postCompaction: { sessionId: sid, sessionFile: file, leafId: compactionId, entryId: compactionId },
			},
		],
	};
}

// =============================================================================================
// main / S2: a Telegram forum-topic session (file <sid>-topic-42.jsonl), a group chat with two turns.
// =============================================================================================
{
	reseed(0xc2);
	clock.set("2026-09-22T18:40:03.500Z");
	const sid = randomUUID();
	const { sm } = openTranscript("main", sid, WORKSPACE, { topicId: 42 });
	const r = new Run(sm, sid, "opus");
	r.setup("opus", "off");
	r.user("[Telegram Family Chat #groceries] Ann: add oat milk and coffee to the list", [500, 1500]);
	const c = r.call("list_add", { list: "groceries", items: ["oat milk", "coffee"] });
	r.assistant([c], [1800, 30, 0, 4100]);
	r.tool(c, "groceries: eggs, bread, oat milk, coffee");
	r.assistant([{ type: "text", text: "Added: the list is now eggs, bread, oat milk and coffee." }], [90, 20, 4100, 60]);
	r.user("[Telegram Family Chat #groceries] Ben: and bananas");
	const c2 = r.call("list_add", { list: "groceries", items: ["bananas"] });
	r.assistant([c2], [120, 22, 4260, 0]);
	r.tool(c2, "groceries: eggs, bread, oat milk, coffee, bananas");
	r.assistant([{ type: "text", text: "Bananas are on the list too." }], [70, 12, 4350, 40]);
	store.main["agent:main:telegram:group:-1001234567890:topic:42"] = {
		sessionId: sid,
		updatedAt: clock.now,
		sessionFile: `${sid}-topic-42.jsonl`,
		chatType: "group",
		displayName: "Family Chat #groceries",
		subject: "Family Chat",
		origin: { provider: "telegram", surface: "telegram", chatType: "group", threadId: 42 },
		modelProvider: r.m.provider,
		model: r.m.model,
		inputTokens: r.usage.input,
		outputTokens: r.usage.output,
		cacheRead: r.usage.cacheRead,
		cacheWrite: r.usage.cacheWrite,
		totalTokens: 4460,
		contextTokens: 200000,
	};
}

// =============================================================================================
// coder / S3: a subagent session of agent `coder`, spawned by main's session (session key
// agent:coder:subagent:<uuid>, spawnedBy in sessions.json), on the codex model.
// =============================================================================================
{
	reseed(0xc3);
	clock.set("2026-09-21T08:20:40.000Z");
	const sid = randomUUID();
	const { sm } = openTranscript("coder", sid, CODER_WORKSPACE);
	const r = new Run(sm, sid, "codex");
	r.setup("codex", "medium");
	r.user("[Subagent task from main] Write a shell one-liner that lists calendar events for today as JSON.", [200, 600]);
	r.assistant([{ type: "text", text: "`cal-cli list --date \"$(date +%F)\" --format json`" }], [1400, 60, 0, 0]);
	const key = `agent:coder:subagent:${randomUUID()}`;
	store.coder[key] = {
		sessionId: sid,
		updatedAt: clock.now,
		sessionFile: `${sid}.jsonl`,
		spawnedBy: "agent:main:main",
		spawnDepth: 1,
		subagentRole: "leaf",
		label: "calendar one-liner",
		status: "done",
		startedAt: Date.parse("2026-09-21T08:20:40.000Z"),
		endedAt: clock.now,
		modelProvider: r.m.provider,
		model: r.m.model,
		inputTokens: r.usage.input,
		outputTokens: r.usage.output,
		totalTokens: r.usage.total,
	};
}

// sessions.json (HAND-WRITTEN: OpenClaw's own index, not pi's), absolute paths as on ann's machine
for (const [agentId, entries] of Object.entries(store)) {
	const text = `${JSON.stringify(entries, null, 2)}\n`.split(STATE).join(FAKE_STATE);
	writeFileSync(join(agentSessionsDir(agentId), "sessions.json"), text);
}

rmSync(OUT, { recursive: true, force: true });
cpSync(STATE, OUT, { recursive: true });
const walk = (d) => readdirSync(d).sort().flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
for (const f of walk(OUT)) if (readFileSync(f).includes(tmp)) throw new Error(`${f} contains the temp path`);
rmSync(tmp, { recursive: true, force: true });
console.log(`wrote ${walk(OUT).length} files into ${OUT}`);
for (const f of walk(OUT)) console.log(`  ${relative(OUT, f)}`);
