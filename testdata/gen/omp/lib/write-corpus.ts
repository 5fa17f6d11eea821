// Writes oh-my-pi session files with the REAL oh-my-pi library (@oh-my-pi/pi-coding-agent 18.2.3) into the
// fake ~/.omp that generate.ts prepared (HOME=/home/ann, PI_CONFIG_DIR pointing at a temp dir, see generate.ts).
// Every line of every session file, the title slot, the blob files and the artifact files are written by
// omp's own code (SessionManager, BlobStore via appendMessage, ArtifactManager via postProcessToolResult and
// writeArtifact). What this script makes up is only the *content* a live agent would have produced: message
// payloads (texts, tool calls, usage numbers), as appendMessage() receives them from omp's agent loop.
//
//   OMP_GEN_PART=main     the default profile (~/.omp/agent)
//   OMP_GEN_PART=profile  run with OMP_PROFILE=work (~/.omp/profiles/work/agent)
import { deflateSync } from "node:zlib";
import { clock, installDeterminism, randInt, randomBytes, randomChars, reseed } from "./determinism.ts";

installDeterminism();
const { SessionManager } = await import("@oh-my-pi/pi-coding-agent/session/session-manager");
const { postProcessToolResult } = await import("@oh-my-pi/pi-coding-agent/tools/output-meta");
const { Settings } = await import("@oh-my-pi/pi-coding-agent/config/settings");
const { writeArtifact } = await import("@oh-my-pi/pi-coding-agent/session/artifacts");

type SM = InstanceType<typeof SessionManager>;

const PART = process.env.OMP_GEN_PART ?? "main";
const manifest: Record<string, string> = {}; // logical name -> absolute session file (read by generate.ts)

// ---------------------------------------------------------------------------------------------
// Models and usage (prices in $ per million tokens, as omp's catalog would have computed cost)
// ---------------------------------------------------------------------------------------------
interface Model {
	api: string;
	provider: string;
	model: string;
	price: { input: number; output: number; cacheRead: number; cacheWrite: number };
	rid: () => string | undefined;
	tc: () => string;
	sig: boolean;
}
const MODELS: Record<string, Model> = {
	sonnet: {
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
		rid: () => `msg_01${randomChars(22)}`,
		tc: () => `toolu_01${randomChars(22)}`,
		sig: true,
	},
	haiku: {
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-haiku-4-5",
		price: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
		rid: () => `msg_01${randomChars(22)}`,
		tc: () => `toolu_01${randomChars(22)}`,
		sig: true,
	},
	codex: {
		api: "openai-responses",
		provider: "openai",
		model: "gpt-5.1-codex",
		price: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
		rid: () => `resp_${randomChars(40, "0123456789abcdef")}`,
		tc: () => `call_${randomChars(24)}|fc_${randomChars(40, "0123456789abcdef")}`,
		sig: false,
	},
};
const ref = (m: Model) => `${m.provider}/${m.model}`;

function mkUsage(m: Model, input: number, output: number, cacheRead = 0, cacheWrite = 0, extra: Record<string, unknown> = {}) {
	const p = m.price;
	const cost = {
		input: (input * p.input) / 1e6,
		output: (output * p.output) / 1e6,
		cacheRead: (cacheRead * p.cacheRead) / 1e6,
		cacheWrite: (cacheWrite * p.cacheWrite) / 1e6,
		total: 0,
	};
	cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
	return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, ...extra, cost };
}
function sumUsage(list: ReturnType<typeof mkUsage>[]) {
	const t = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
	for (const u of list) {
		t.input += u.input;
		t.output += u.output;
		t.cacheRead += u.cacheRead;
		t.cacheWrite += u.cacheWrite;
		t.totalTokens += u.totalTokens;
		for (const k of ["input", "output", "cacheRead", "cacheWrite", "total"] as const) t.cost[k] += u.cost[k];
	}
	return t;
}

// ---------------------------------------------------------------------------------------------
// A small deterministic PNG (so image blocks are real images, large enough to be externalized:
// omp externalizes image data of >= 1024 base64 chars, session-persistence.ts BLOB_EXTERNALIZE_THRESHOLD)
// ---------------------------------------------------------------------------------------------
const CRC_TABLE = (() => {
	const t = new Uint32Array(256);
	for (let n = 0; n < 256; n++) {
		let c = n;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		t[n] = c >>> 0;
	}
	return t;
})();
function crc32(buf: Uint8Array): number {
	let c = 0xffffffff;
	for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Uint8Array): Buffer {
	const len = Buffer.alloc(4);
	len.writeUInt32BE(data.length);
	const td = Buffer.concat([Buffer.from(type, "latin1"), Buffer.from(data)]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(td));
	return Buffer.concat([len, td, crc]);
}
function pngBase64(w: number, h: number): string {
	const raw = Buffer.alloc((w * 3 + 1) * h);
	const noise = randomBytes(w * h * 3);
	for (let y = 0; y < h; y++) {
		raw[y * (w * 3 + 1)] = 0;
		for (let x = 0; x < w * 3; x++) raw[y * (w * 3 + 1) + 1 + x] = noise[y * w * 3 + x];
	}
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(w, 0);
	ihdr.writeUInt32BE(h, 4);
	ihdr[8] = 8; // bit depth
	ihdr[9] = 2; // RGB
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		chunk("IHDR", ihdr),
		chunk("IDAT", deflateSync(raw, { level: 9 })),
		chunk("IEND", new Uint8Array(0)),
	]).toString("base64");
}
const PNG_1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

// Small spill thresholds so a tool result of a few KB is spilled to an artifact (omp's defaults are 50 KB;
// tools.artifact* are ordinary user settings, settings-schema.ts).
const SPILL_SETTINGS = Settings.isolated({
	"tools.artifactSpillThreshold": 2,
	"tools.artifactTailBytes": 1,
	"tools.artifactHeadBytes": 1,
	"tools.artifactTailLines": 12,
});

// ---------------------------------------------------------------------------------------------
// Conversation helper: builds the messages omp's agent loop would persist and appends them
// ---------------------------------------------------------------------------------------------
type ToolCall = { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> };
class Conv {
	m: Model;
	usages: ReturnType<typeof mkUsage>[] = [];
	constructor(
		readonly sm: SM,
		model: keyof typeof MODELS,
	) {
		this.m = MODELS[model];
	}
	start(model: keyof typeof MODELS, thinking: string, configured?: string, role?: string) {
		this.m = MODELS[model];
		const a = this.sm.appendModelChange(ref(this.m), role);
		const b = this.sm.appendThinkingLevelChange(thinking, configured);
		return [a, b];
	}
	switchModel(model: keyof typeof MODELS, role?: string, fallback = false) {
		clock.tick(randInt(2000, 9000));
		this.m = MODELS[model];
		return this.sm.appendModelChange(ref(this.m), role, fallback);
	}
	user(content: string | unknown[], opts: { delay?: [number, number]; extra?: Record<string, unknown> } = {}) {
		const [lo, hi] = opts.delay ?? [15000, 90000];
		clock.tick(randInt(lo, hi));
		const ts = clock.now;
		clock.tick(randInt(20, 90));
		return this.sm.appendMessage({
			role: "user",
			content: typeof content === "string" ? [{ type: "text", text: content }] : content,
			timestamp: ts,
			...opts.extra,
		} as never);
	}
	call(name: string, args: Record<string, unknown>): ToolCall {
		return { type: "toolCall", id: this.m.tc(), name, arguments: args };
	}
	think(text: string) {
		const b: Record<string, unknown> = { type: "thinking", thinking: text };
		if (this.m.sig) b.thinkingSignature = `${randomChars(96)}==`;
		return b;
	}
	text(t: string) {
		return { type: "text", text: t };
	}
	assistant(
		content: unknown[],
		u: [number, number, number?, number?, Record<string, unknown>?],
		opts: { stop?: string; error?: string; duration?: [number, number] } = {},
	) {
		clock.tick(randInt(3, 40));
		const ts = clock.now;
		const [lo, hi] = opts.duration ?? [1500, 14000];
		const duration = randInt(lo, hi);
		clock.tick(duration);
		const stopReason = opts.stop ?? (content.some(b => (b as { type: string }).type === "toolCall") ? "toolUse" : "stop");
		const usage = mkUsage(this.m, u[0], u[1], u[2] ?? 0, u[3] ?? 0, u[4] ?? {});
		this.usages.push(usage);
		const msg: Record<string, unknown> = {
			role: "assistant",
			content,
			api: this.m.api,
			provider: this.m.provider,
			model: this.m.model,
			usage,
			stopReason,
			timestamp: ts,
			duration,
			ttft: Math.min(duration, randInt(300, 1400)),
		};
		const rid = stopReason === "error" ? undefined : this.m.rid();
		if (rid) msg.responseId = rid;
		if (opts.error) msg.errorMessage = opts.error;
		return this.sm.appendMessage(msg as never);
	}
	toolMessage(call: ToolCall, content: unknown[], opts: { isError?: boolean; details?: unknown; duration?: [number, number] } = {}) {
		const [lo, hi] = opts.duration ?? [40, 2500];
		clock.tick(randInt(lo, hi));
		const msg: Record<string, unknown> = {
			role: "toolResult",
			toolCallId: call.id,
			toolName: call.name,
			content,
			isError: opts.isError ?? false,
			timestamp: clock.now,
		};
		if (opts.details !== undefined) msg.details = opts.details;
		clock.tick(randInt(1, 6));
		return this.sm.appendMessage(msg as never);
	}
	tool(call: ToolCall, text: string, opts: { isError?: boolean; details?: unknown; duration?: [number, number] } = {}) {
		return this.toolMessage(call, [{ type: "text", text }], opts);
	}
	/** A tool result that goes through omp's own post-processing: large text is spilled to an artifact. */
	async spilledTool(call: ToolCall, text: string) {
		clock.tick(randInt(40, 900));
		const processed = await postProcessToolResult({ content: [{ type: "text", text }], details: {} } as never, call.name, {
			sessionManager: this.sm,
			settings: SPILL_SETTINGS,
		} as never);
		return this.toolMessage(call, processed.content as unknown[], { details: processed.details, duration: [1, 5] });
	}
	bash(command: string, output: string, exitCode: number | undefined, excludeFromContext?: boolean) {
		clock.tick(randInt(8000, 40000));
		const msg: Record<string, unknown> = { role: "bashExecution", command, output, exitCode, cancelled: false, truncated: false, timestamp: clock.now };
		if (excludeFromContext) msg.excludeFromContext = true;
		return this.sm.appendMessage(msg as never);
	}
	later(ms: number) {
		clock.tick(ms);
	}
	label(targetId: string, label: string | undefined) {
		clock.tick(randInt(2000, 25000));
		return this.sm.appendLabelChange(targetId, label);
	}
	async title(name: string, source: "auto" | "user", trigger?: string) {
		clock.tick(randInt(800, 4000));
		return this.sm.setSessionName(name, source, trigger);
	}
	/** A model call outside the transcript, as omp records it (session-manager.ts appendModelUsage). */
	modelUsage(
		purpose: string,
		role: string,
		model: keyof typeof MODELS,
		u: [number, number, number?, number?],
		parentId: string | null,
		opts: { stop?: string; error?: string } = {},
	) {
		clock.tick(randInt(300, 2500));
		const m = MODELS[model];
		const usage = mkUsage(m, u[0], u[1], u[2] ?? 0, u[3] ?? 0);
		const rec: Record<string, unknown> = { purpose, role, api: m.api, provider: m.provider, model: m.model, usage, stopReason: opts.stop ?? "stop" };
		if (opts.error) rec.errorMessage = opts.error;
		return this.sm.appendModelUsage(rec as never, { sessionId: this.sm.getSessionId(), parentId });
	}
}

async function done(name: string, sm: SM) {
	await sm.flush();
	await sm.close();
	manifest[name] = sm.getSessionFile()!;
}

const OMEGA = "/home/ann/proj-omega";
const BILLING = "/srv/billing"; // outside $HOME and the temp dir: omp uses the legacy `--srv-billing--` folder name
const SCRATCH = "/tmp/scratch"; // under os.tmpdir(): `-tmp-scratch`
const HOME = "/home/ann"; // $HOME itself: folder `-`

if (PART === "main") {
	// =========================================================================================
	// O1 (-proj-omega): the rich session. Title slot rewritten in place twice after entries were
	// appended (auto title, then a user rename), image -> blob, tool output -> artifact, model_usage,
	// service tier, plan mode, labels, in-file branches, branch summary, ttsr, credential pin, custom.
	// =========================================================================================
	{
		reseed(0x01);
		clock.set("2026-10-05T09:14:07.412Z");
		const sm = SessionManager.create(OMEGA);
		const c = new Conv(sm, "sonnet");
		c.start("sonnet", "medium", "auto");
		sm.appendServiceTierChange({ anthropic: "priority" });
		sm.appendModeChange("plan", { planFile: ".omp/plans/upload-retry.md" });
		const screenshot = pngBase64(24, 24);
		// auto thinking: before the prompt is sent, omp classifies its difficulty on the `tiny` role model and
		// records each attempt as model_usage (session/model-controls.ts: owner parentId = the leaf at prompt
		// time, then chained). The first attempt fails, the second succeeds; the leaf moves along (the owner's
		// parent is the current leaf), so the user message becomes a child of the second record.
		const a1 = c.modelUsage("auto-thinking", "tiny", "haiku", [0, 0], sm.getLeafId(), { stop: "error", error: "429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit" });
		c.modelUsage("auto-thinking", "tiny", "haiku", [412, 9], a1 ?? null);
		const u1 = c.user(
			[
				{ type: "text", text: "The upload retry test is flaky on CI; here is the failing run. Plan a fix before touching anything." },
				{ type: "image", data: screenshot, mimeType: "image/png" },
			],
		);
		const r1 = c.call("read", { path: "logs/ci-run-4411.log" });
		c.assistant([c.think("A screenshot of the CI run; the log will show which attempt failed."), c.text("Let me read the CI log."), r1], [3120, 88, 0, 4410]);
		const log = Array.from({ length: 120 }, (_, i) =>
			i % 17 === 16
				? `2026-10-04T22:1${i % 10}:0${i % 7}Z upload chunk ${i} FAILED: RequestTimeout after 5000ms (attempt 3/3)`
				: `2026-10-04T22:1${i % 10}:0${i % 7}Z upload chunk ${i} ok in ${120 + ((i * 37) % 400)}ms`,
		).join("\n");
		await c.spilledTool(r1, log); // > 2 KB: spilled to <session>/0.read.log, transcript keeps head+tail + "Read artifact://0 for full output"
		// an auto title after the first turn: title_change appended + the slot rewritten in place
		await c.title("Flaky upload retry on CI", "auto", "first-turn");
		const b1 = c.call("bash", { command: "rg -n 'RequestTimeout|maxAttempts' src/upload" });
		c.assistant([c.think("Chunks time out at 5 s on the third attempt; look at the retry policy."), b1], [402, 61, 7530, 220]);
		c.tool(b1, "src/upload/retry.ts:12:  maxAttempts: 3,\nsrc/upload/retry.ts:13:  timeoutMs: 5000,\nsrc/upload/client.ts:88:      if (err.name === 'RequestTimeout') throw err;\n");
		const planDone = c.assistant(
			[c.text("Plan: (1) retry `RequestTimeout` instead of rethrowing it in `client.ts:88`; (2) add jittered backoff; (3) make the test use a fake clock. Shall I go ahead?")],
			[233, 94, 7990, 160],
		);
		sm.appendTtsrInjection(["no-sleep-in-tests"]);
		const uGo = c.user("Go ahead, but keep maxAttempts at 3.");
		// a classification that finishes after the user message landed: recorded on its initiating branch (the
		// plan reply), not on the active leaf, which stays where it is
		c.modelUsage("auto-thinking", "tiny", "haiku", [388, 7], planDone);
		c.later(400);
		sm.appendModeChange("none");
		sm.appendCredentialPin("anthropic", "4f1c0d9e7a2b6c3e8d5f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d");
		const e1 = c.call("edit", {
			path: "src/upload/client.ts",
			oldText: "      if (err.name === 'RequestTimeout') throw err;\n",
			newText: "      if (err.name === 'RequestTimeout' && attempt === policy.maxAttempts) throw err;\n",
		});
		c.assistant([c.text("Retrying timeouts until the last attempt:"), e1], [512, 140, 8210, 390]);
		c.tool(e1, "Successfully replaced text in src/upload/client.ts.", {
			details: { diff: "-      if (err.name === 'RequestTimeout') throw err;\n+      if (err.name === 'RequestTimeout' && attempt === policy.maxAttempts) throw err;" },
		});
		const t1 = c.call("bash", { command: "bun test test/upload.test.ts" });
		c.assistant([t1], [120, 40, 8650, 90]);
		c.tool(t1, " 7 pass\n 0 fail\nRan 7 tests across 1 file. [412.00ms]\n", { duration: [1500, 4000] });
		const fixDone = c.assistant([c.text("Done: timeouts are retried up to `maxAttempts` (3), and the upload tests pass.")], [188, 36, 8890, 120]);
		c.label(uGo, "go-ahead");
		c.label(u1, "bug-report");
		c.label(u1, undefined); // cleared again
		// the user renames the session: title_change (previousTitle) + slot rewritten in place again
		await c.title("Upload retry: RequestTimeout on CI", "user");
		// an auto title after a user rename is refused by omp (setSessionName returns false, nothing written)
		await c.title("Upload test fixes", "auto", "compaction");
		// in-file branch: back to the plan, try another model (explicit role default model_change)
		sm.branch(planDone);
		c.switchModel("codex", "default");
		const uAlt = c.user("Actually, what would exponential backoff with full jitter look like here?");
		c.assistant(
			[c.text("`delay = random(0, base * 2 ** attempt)`, capped at 8 s; with 3 attempts the worst case adds about 12 s to a failing upload.")],
			[1830, 210, 6400, 0, { reasoningTokens: 96 }],
		);
		c.label(uAlt, "jitter-idea");
		// back to the finished fix with a branch summary of the jitter detour
		clock.tick(30000);
		sm.branchWithSummary(fixDone, "The user asked about exponential backoff with full jitter; the answer gave the formula and its worst-case cost. Nothing was changed.");
		sm.appendCustomEntry("omp-todo", { items: [{ text: "add jitter to upload retries", done: false }] });
		clock.tick(1500);
		sm.appendCustomMessageEntry("reminder", "Remember to update CHANGELOG.md for user-visible fixes.", true, { source: "rules" }, "user");
		c.user("Thanks, that's all for now.");
		c.assistant([c.text("You're welcome.")], [60, 8, 9200, 40]);
		await done("O1-rich", sm);
	}

	// =========================================================================================
	// O2 (-proj-omega): omp-generated compaction (shortSummary, tokensAfter, method, details), an error turn
	// with empty content and an aborted turn (both dropped from omp's model context), then /clear
	// (reset_boundary) and new turns: the reset is later than the compaction, so it wins. No title at all
	// (omp's listing falls back to the compaction's shortSummary when it is within the first 4 KB).
	// =========================================================================================
	let o2File = "";
	let o2Mid = "";
	let o2sm: SM | undefined;
	{
		reseed(0x02);
		clock.set("2026-10-06T14:02:51.906Z");
		const sm = SessionManager.create(OMEGA);
		const c = new Conv(sm, "sonnet");
		c.start("sonnet", "high");
		c.user("Summarize what src/billing/invoice.ts does.", { delay: [2000, 5000] });
		c.assistant([c.text("It builds invoices from usage rows and rounds per line.")], [900, 40, 0, 1200]);
		const uKeep = c.user("And the tax part?");
		c.assistant([c.text("Tax is applied per invoice, after rounding.")], [120, 30, 2000, 80]);
		clock.tick(60000);
		sm.appendCompaction(
			"## Goal\nUnderstand invoice.ts.\n\n## Progress\n- invoice.ts builds invoices from usage rows, rounds per line.\n- Tax is applied per invoice after rounding.",
			"Reviewed invoice rounding and tax",
			uKeep,
			48200,
			{ tokensAfter: 6100, method: "handoff", details: { readFiles: ["src/billing/invoice.ts"], modifiedFiles: [] } },
		);
		o2Mid = c.user("Is rounding per line correct for EU VAT?");
		c.assistant([], [0, 0], { stop: "error", error: "529 overloaded_error: Overloaded" });
		c.assistant([c.text("EU VAT allows rounding per line or per invoice, as long as")], [300, 12, 2100, 0], { stop: "aborted" });
		c.user("Retry please.");
		c.assistant([c.text("Either is allowed; per-invoice rounding is the common choice and avoids drift.")], [310, 44, 2100, 60]);
		clock.tick(120000);
		sm.appendResetBoundary(); // /clear
		c.user("New topic: list the TODOs in src/billing.", { delay: [3000, 8000] });
		const g = c.call("grep", { pattern: "TODO", path: "src/billing" });
		c.assistant([g], [1500, 30, 0, 900]);
		c.tool(g, "src/billing/invoice.ts:41: // TODO: currency per customer\nsrc/billing/tax.ts:7: // TODO: reverse charge\n");
		c.assistant([c.text("Two TODOs: currency per customer (invoice.ts:41) and reverse charge (tax.ts:7).")], [220, 33, 2400, 50]);
		o2File = sm.getSessionFile()!;
		await sm.flush();
		manifest["O2-compaction-reset"] = o2File;
		o2sm = sm;
	}

	// =========================================================================================
	// O3 (-proj-omega): /clear first, then an extension compaction (fromExtension, preserveData) that is later
	// than the reset, so the compaction wins; a thinking level change after it.
	// =========================================================================================
	{
		reseed(0x03);
		clock.set("2026-10-07T08:30:00.250Z");
		const sm = SessionManager.create(OMEGA);
		const c = new Conv(sm, "sonnet");
		c.start("sonnet", "low");
		c.user("What does `make ci` run?", { delay: [2000, 5000] });
		c.assistant([c.text("lint, unit tests and the docker build.")], [700, 20, 0, 800]);
		clock.tick(90000);
		sm.appendResetBoundary();
		const uA = c.user("Speed up the docker build.");
		c.assistant([c.text("Reorder the Dockerfile so dependencies are cached before the source copy.")], [800, 60, 0, 900]);
		const uB = c.user("Do it.");
		const e = c.call("edit", { path: "Dockerfile", oldText: "COPY . .\nRUN bun install", newText: "COPY package.json bun.lock ./\nRUN bun install\nCOPY . ." });
		c.assistant([e], [300, 80, 1700, 120]);
		c.tool(e, "Successfully replaced text in Dockerfile.");
		c.assistant([c.text("Done.")], [90, 4, 2000, 20]);
		clock.tick(45000);
		sm.appendCompaction("Dockerfile reordered so `bun install` is cached; the user asked to speed up the docker build.", "Docker build caching", uB, 21000, {
			fromExtension: true,
			preserveData: { "example-ext": { version: 2 } },
			tokensAfter: 2600,
		});
		sm.appendThinkingLevelChange("high", "high");
		c.user("Now also cache the bun install directory between CI runs.");
		c.assistant([c.text("Add `actions/cache` keyed on bun.lock for ~/.bun/install/cache.")], [400, 50, 2300, 70]);
		void uA;
		await done("O3-reset-then-ext-compaction", sm);
	}

	// =========================================================================================
	// O4 (-proj-omega): a `task` tool call running two subagents. Each one's own session file lives in
	// the parent's artifacts folder (<parent>/<id>.jsonl, opened the way task/executor.ts opens it, with
	// parentSession = the parent file path), starts with session_init, and its output is <parent>/<id>.md.
	// The parent's `task` toolResult carries details.usage (the subagents' summed usage): omp's
	// getUsageStatistics() counts it, so the subagents' calls appear in the parent's totals.
	// =========================================================================================
	{
		reseed(0x04);
		clock.set("2026-10-08T16:45:12.031Z");
		const sm = SessionManager.create(OMEGA);
		const c = new Conv(sm, "sonnet");
		c.start("sonnet", "medium");
		c.user("Find every place that still calls the old uploadV1() API.");
		const specs = [
			{ id: "Scout", description: "find uploadV1 callers", assignment: "List every call of uploadV1() with file:line." },
			{ id: "Docs", description: "find uploadV1 in the docs", assignment: "List the docs pages that still show uploadV1()." },
		];
		const task = c.call("task", { agent: "scout", tasks: specs.slice(0, 1) });
		c.assistant([c.text("I'll send a scout."), task], [2100, 120, 0, 3000]);
		const parentFile = sm.getSessionFile()!;
		const artifactsDir = sm.getArtifactsDir()!;
		const taskStart = clock.now;
		// --- a subagent session (task/executor.ts: SessionManager.open(<artifactsDir>/<id>.jsonl, …, {parentSession}))
		const subagent = async (spec: (typeof specs)[number], steps: (s: Conv) => void, out: string) => {
			const subFile = `${artifactsDir}/${spec.id}.jsonl`;
			clock.tick(900);
			const sub = await SessionManager.open(subFile, undefined, undefined, { initialCwd: OMEGA, parentSession: parentFile, suppressBreadcrumb: true });
			const s = new Conv(sub, "haiku");
			sub.appendSessionInit({
				systemPrompt: "You are scout, a read-only code search agent. Report findings as file:line lists.",
				task: spec.assignment,
				tools: ["read", "grep", "find", "yield"],
				agent: "scout",
				modelRole: "smol",
				resolvedModel: "anthropic/claude-haiku-4-5",
				readOnly: true,
				spawns: "",
			});
			s.start("haiku", "low", "low", "smol");
			s.user(spec.assignment, { delay: [100, 300] });
			steps(s);
			await sub.flush();
			await sub.close();
			await writeArtifact(`${artifactsDir}/${spec.id}.md`, out);
			manifest[spec.id === "Scout" ? "O4-subagent" : `O4-subagent-${spec.id}`] = subFile;
			return { s, out };
		};
		const scout = await subagent(
			specs[0],
			(s) => {
				const sg = s.call("grep", { pattern: "uploadV1\\(", path: "." });
				s.assistant([sg], [1900, 40, 0, 2100]);
				s.tool(sg, "src/cli/push.ts:23:  await uploadV1(file)\nsrc/sync/worker.ts:57:    return uploadV1(chunk, { retries: 0 })\ntest/legacy.test.ts:9:  uploadV1(fixture)\n");
				const y = s.call("yield", { result: "3 callers" });
				s.assistant([s.text("Found 3 callers."), y], [260, 70, 2000, 120]);
				s.tool(y, "Result delivered to parent.");
			},
			"3 callers of uploadV1():\n- src/cli/push.ts:23\n- src/sync/worker.ts:57\n- test/legacy.test.ts:9\n",
		);
		// --- back in the parent: the task result with the subagent's summed usage
		const result = (index: number, spec: (typeof specs)[number], r: { s: Conv; out: string }, durationMs: number) => {
			const usage = sumUsage(r.s.usages);
			return {
				index,
				id: spec.id,
				agent: "scout",
				agentSource: "bundled",
				task: spec.assignment,
				description: spec.description,
				exitCode: 0,
				output: r.out,
				stderr: "",
				truncated: false,
				durationMs,
				tokens: usage.input + usage.output + usage.cacheWrite,
				requests: r.s.usages.length,
				modelRole: "smol",
				resolvedModel: "anthropic/claude-haiku-4-5",
				usage,
				outputPath: `${artifactsDir}/${spec.id}.md`,
			};
		};
		let durationMs = clock.now - taskStart;
		let subUsage = sumUsage(scout.s.usages);
		c.toolMessage(task, [{ type: "text", text: `${scout.out}\nFull output: agent://Scout` }], {
			details: {
				projectAgentsDir: null,
				results: [result(0, specs[0], scout, durationMs)],
				totalDurationMs: durationMs,
				usage: subUsage,
				outputPaths: [`${artifactsDir}/Scout.md`],
			},
			duration: [1, 5],
		});
		c.assistant([c.text("Three callers remain: src/cli/push.ts:23, src/sync/worker.ts:57 and test/legacy.test.ts:9.")], [420, 60, 3100, 200]);
		// A second task: the docs. Its id is its own (output-manager.ts keeps ids unique in the session).
		c.user("And the docs?");
		const task2 = c.call("task", { agent: "scout", tasks: specs.slice(1) });
		c.assistant([c.text("Another scout for the docs."), task2], [700, 60, 3300, 180]);
		const task2Start = clock.now;
		const docs = await subagent(
			specs[1],
			(s) => {
				const sg = s.call("grep", { pattern: "uploadV1", path: "docs" });
				s.assistant([sg], [1700, 35, 0, 2100]);
				s.tool(sg, "docs/upload.md:14:Call `uploadV1(file)` to send a file.\ndocs/migration.md:3:uploadV1() is deprecated; use upload().\n");
				const y = s.call("yield", { result: "1 page to fix" });
				s.assistant([s.text("docs/upload.md:14 still shows it; docs/migration.md:3 only names it as deprecated."), y], [240, 60, 2000, 110]);
				s.tool(y, "Result delivered to parent.");
			},
			"1 docs page shows uploadV1():\n- docs/upload.md:14\n(docs/migration.md:3 names it as deprecated)\n",
		);
		durationMs = clock.now - task2Start;
		subUsage = sumUsage(docs.s.usages);
		c.toolMessage(task2, [{ type: "text", text: `${docs.out}\nFull output: agent://Docs` }], {
			details: {
				projectAgentsDir: null,
				results: [result(0, specs[1], docs, durationMs)],
				totalDurationMs: durationMs,
				usage: subUsage,
				outputPaths: [`${artifactsDir}/Docs.md`],
			},
			duration: [1, 5],
		});
		c.assistant([c.text("One docs page to fix: docs/upload.md:14.")], [520, 20, 3500, 150]);
		await done("O4-parent", sm);
	}

	// =========================================================================================
	// O5 (--srv-billing--): SessionManager.forkFrom(O1, /srv/billing): every O1 entry copied, a new header
	// whose parentSession is O1's session ID (not a path), title copied, O1's artifacts folder copied.
	// =========================================================================================
	{
		reseed(0x05);
		clock.set("2026-10-09T10:00:00.000Z");
		const sm = await SessionManager.forkFrom(manifest["O1-rich"], BILLING, undefined, undefined, { suppressBreadcrumb: true });
		const c = new Conv(sm, "sonnet");
		c.user("Same retry problem here in the billing exporter; apply the fix to src/export/s3.ts.");
		c.assistant([c.text("The billing exporter has the same rethrow; I'll apply the same change.")], [3400, 60, 0, 5200]);
		await done("O5-forkFrom", sm);
	}

	// =========================================================================================
	// O6 (-proj-omega): createBranchedSession of O2 at an entry before the reset: only that root->leaf path is
	// copied, parentSession is O2's FILE PATH (omp writes a path here, unlike forkFrom/fork).
	// =========================================================================================
	{
		reseed(0x06);
		clock.set("2026-10-10T11:11:11.111Z");
		const sm = o2sm!;
		sm.createBranchedSession(o2Mid);
		const c = new Conv(sm, "sonnet");
		c.user("Per line then, but show me the drift on a 3-line invoice.");
		c.assistant([c.text("3 × 0.333 rounds to 1.00 per invoice but 0.99 per line: one cent of drift.")], [800, 40, 2100, 100]);
		await done("O6-branched", sm);
		void o2File;
	}

	// =========================================================================================
	// O7 (-tmp-scratch): a long multibyte title (user rename) that omp truncates to fit the 256-byte slot
	// (the title_change entry keeps the full title); a tiny inline image (< 1024 base64 chars: not
	// externalized); a bash execution excluded from context (!!); service tier cleared.
	// =========================================================================================
	{
		reseed(0x07);
		clock.set("2026-10-11T19:20:30.400Z");
		const sm = SessionManager.create(SCRATCH);
		const c = new Conv(sm, "codex");
		c.start("codex", "minimal");
		sm.appendServiceTierChange({ openai: "flex" });
		c.user([{ type: "text", text: "Is this pixel transparent?" }, { type: "image", data: PNG_1x1, mimeType: "image/png" }], { delay: [1000, 3000] });
		c.assistant([c.text("No: it is an opaque, almost black pixel.")], [640, 20, 0, 0]);
		await c.title(
			"Überprüfung der Zeitzonen-Umrechnung für die Abrechnungsläufe — 東京 (JST), São Paulo (BRT) und Zürich (CET/CEST) — inklusive Sommerzeit-Grenzfälle, Schaltsekunden und der Frage, warum der Lauf vom 29. Februar zweimal gezählt wurde",
			"user",
		);
		c.bash("date -u", "Sun Oct 11 19:22:03 UTC 2026\n", 0, true);
		sm.appendServiceTierChange(null);
		c.user("Thanks.");
		c.assistant([c.text("👍")], [700, 4, 0, 0]);
		await done("O7-long-title", sm);
	}

	// =========================================================================================
	// O8 (-): header-only file as SessionManager.createEmptySessionFile writes it (title slot without a title,
	// then the header), for cwd = $HOME.
	// =========================================================================================
	{
		reseed(0x08);
		clock.set("2026-10-12T07:00:00.000Z");
		manifest["O8-empty"] = SessionManager.createEmptySessionFile(HOME);
	}

	// =========================================================================================
	// O9 (-proj-omega): a plain short session whose title slot generate.ts strips afterwards, giving a file as
	// omp wrote it before the title slot existed (v16.3): header first, title in the header.
	// =========================================================================================
	{
		reseed(0x09);
		clock.set("2026-10-04T06:10:00.000Z");
		const sm = SessionManager.create(OMEGA);
		const c = new Conv(sm, "sonnet");
		c.start("sonnet", "off");
		c.user("What version of bun does the project pin?", { delay: [1000, 3000] });
		// titled before the first reply, i.e. before the file exists: the first write puts the title into the
		// header too (the header is never rewritten afterwards; later titles only go to the slot)
		await c.title("Pinned bun version", "auto");
		c.assistant([c.text("1.3.4, in package.json `engines.bun`.")], [500, 14, 0, 600]);
		await done("O9-legacy-no-slot", sm);
	}
	o2sm = undefined;
} else if (PART === "profile") {
	// =========================================================================================
	// P1 (profile `work`: ~/.omp/profiles/work/agent/sessions/-proj-omega/): sessions of a named profile, with
	// their own blob folder.
	// =========================================================================================
	reseed(0x10);
	clock.set("2026-10-06T09:00:00.000Z");
	const sm = SessionManager.create(OMEGA);
	const c = new Conv(sm, "sonnet");
	c.start("sonnet", "medium");
	c.user([{ type: "text", text: "Does this diagram match the upload pipeline?" }, { type: "image", data: pngBase64(20, 20), mimeType: "image/png" }]);
	c.assistant([c.text("Mostly; the diagram is missing the retry loop between chunker and uploader.")], [2600, 40, 0, 3100]);
	await c.title("Upload pipeline diagram", "auto");
	await done("P1-profile", sm);
}

console.log(JSON.stringify(manifest));
