#!/usr/bin/env node
// Writes the pidex test corpus into ../sessions using the REAL pi SessionManager
// (@earendil-works/pi-coding-agent 1.6.0), plus hand-written legacy/damaged files.
//
//   cd testdata/gen && npm install && node generate.mjs
//   PI_REAL_FIXTURES=/path/to/pi-real node generate.mjs   # also (re)copy the real files into --real--
//
// Deterministic: pi's clock (global Date) and randomness (crypto.randomUUID, getRandomValues)
// are replaced by a fake clock and a seeded PRNG before pi is loaded, so re-running produces
// byte-identical files. Sessions are generated under a temporary sessions root; the absolute
// temp path pi writes into header `parentSession` is then rewritten to the fake machine root
// /home/ann/.pi/agent/sessions (the only post-processing applied to pi's output).
import nodeCrypto, { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { clock, installDeterminism, loadPi, randInt, randomChars } from "./lib/determinism.mjs";

installDeterminism();
const { SessionManager } = await loadPi();

const HERE = dirname(fileURLToPath(import.meta.url));
const SESSIONS = join(HERE, "..", "sessions");
const FAKE_ROOT = "/home/ann/.pi/agent/sessions";
const tmp = mkdtempSync(join(tmpdir(), "pidex-gen-"));
const ROOT = join(tmp, "sessions");
mkdirSync(ROOT, { recursive: true });

function folderFor(cwd) {
	return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}
function dirFor(cwd) {
	return join(ROOT, folderFor(cwd));
}

// ---------------------------------------------------------------------------------------------
// Message builders (shapes follow what pi 1.6.0's agent loop persists)
// ---------------------------------------------------------------------------------------------
const MODELS = {
	sonnet: {
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
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
	gemini: {
		api: "google-generative-ai",
		provider: "google",
		model: "gemini-2.5-pro",
		price: { input: 1.25, output: 10, cacheRead: 0.31, cacheWrite: 0 },
		rid: () => undefined,
		tc: () => `${randomChars(8, "abcdefghijklmnopqrstuvwxyz")}_${randInt(0, 9)}`,
		sig: false,
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
};

function mkUsage(m, input, output, cacheRead = 0, cacheWrite = 0) {
	const p = m.price;
	const cost = {
		input: (input * p.input) / 1e6,
		output: (output * p.output) / 1e6,
		cacheRead: (cacheRead * p.cacheRead) / 1e6,
		cacheWrite: (cacheWrite * p.cacheWrite) / 1e6,
	};
	cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
	return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
}

const TOOL_DECLS = [
	{
		name: "read",
		description: "Read the contents of a file. Supports text files and images.",
		parameters: {
			type: "object",
			properties: {
				path: { type: "string", description: "Path to the file to read (relative or absolute)" },
				offset: { type: "number", description: "Line number to start reading from (1-indexed)" },
				limit: { type: "number", description: "Maximum number of lines to read" },
			},
			required: ["path"],
		},
	},
	{
		name: "bash",
		description: "Execute a bash command in the current working directory.",
		parameters: {
			type: "object",
			properties: {
				command: { type: "string", description: "Bash command to execute" },
				timeout: { type: "number", description: "Timeout in seconds (optional)" },
			},
			required: ["command"],
		},
	},
	{
		name: "edit",
		description: "Edit a file by replacing exact text.",
		parameters: {
			type: "object",
			properties: {
				path: { type: "string" },
				oldText: { type: "string" },
				newText: { type: "string" },
			},
			required: ["path", "oldText", "newText"],
		},
	},
];

function systemSections(cwd) {
	return {
		preamble:
			"You are a coding assistant running inside pi, a coding agent harness. Help users inspect files, run commands, and modify code.",
		tools:
			"- read: Read file contents\n- bash: Execute bash commands (ls, grep, find, etc.)\n- edit: Make surgical edits to files (find exact text and replace)\n\nAdditional tools may be available.",
		rules: "- Use bash for file operations like ls, rg, find\n- Use read to examine files before editing\n- Be concise in your responses",
		environment: `Current date: ${clock.iso().slice(0, 10)}\nCurrent working directory: ${cwd}`,
	};
}

class Conv {
	constructor(sm, model, cwd) {
		this.sm = sm;
		this.m = MODELS[model];
		this.cwd = cwd;
	}
	setModel(name, { record = true } = {}) {
		this.m = MODELS[name];
		clock.tick(randInt(2000, 9000));
		if (record) return this.sm.appendModelChange(this.m.provider, this.m.model);
	}
	start(model, thinking) {
		this.m = MODELS[model];
		const a = this.sm.appendModelChange(this.m.provider, this.m.model);
		const b = this.sm.appendThinkingLevelChange(thinking);
		return [a, b];
	}
	system() {
		clock.tick(randInt(200, 900));
		return this.sm.appendMessage({
			role: "system",
			content: "",
			sections: systemSections(this.cwd),
			toolsAdded: TOOL_DECLS,
			timestamp: clock.now,
		});
	}
	user(content, { delay = [15000, 90000] } = {}) {
		clock.tick(randInt(delay[0], delay[1]));
		const ts = clock.now;
		clock.tick(randInt(20, 90));
		return this.sm.appendMessage({
			role: "user",
			content: typeof content === "string" ? [{ type: "text", text: content }] : content,
			timestamp: ts,
		});
	}
	call(name, args) {
		return { type: "toolCall", id: this.m.tc(), name, arguments: args };
	}
	think(text) {
		const b = { type: "thinking", thinking: text };
		if (this.m.sig) b.thinkingSignature = randomChars(96) + "==";
		return b;
	}
	text(t) {
		return { type: "text", text: t };
	}
	assistant(content, u, { stop, error, duration = [1500, 14000] } = {}) {
		clock.tick(randInt(3, 40));
		const ts = clock.now;
		clock.tick(randInt(duration[0], duration[1]));
		const stopReason = stop ?? (content.some((b) => b.type === "toolCall") ? "toolUse" : "stop");
		const msg = {
			role: "assistant",
			content,
			api: this.m.api,
			provider: this.m.provider,
			model: this.m.model,
			usage: mkUsage(this.m, ...u),
			stopReason,
			timestamp: ts,
		};
		const rid = stopReason === "error" ? undefined : this.m.rid();
		if (rid) msg.responseId = rid;
		if (error) msg.errorMessage = error;
		return this.sm.appendMessage(msg);
	}
	tool(call, text, { isError = false, details, usage, duration = [40, 2500] } = {}) {
		clock.tick(randInt(duration[0], duration[1]));
		const msg = {
			role: "toolResult",
			toolCallId: call.id,
			toolName: call.name,
			content: [{ type: "text", text }],
			details,
			isError,
			timestamp: clock.now,
		};
		if (usage) msg.usage = usage;
		clock.tick(randInt(1, 6));
		return this.sm.appendMessage(msg);
	}
	bash(command, output, exitCode, { excludeFromContext, truncated = false, fullOutputPath } = {}) {
		clock.tick(randInt(8000, 40000));
		return this.sm.appendMessage({
			role: "bashExecution",
			command,
			output,
			exitCode,
			cancelled: false,
			truncated,
			fullOutputPath,
			timestamp: clock.now,
			excludeFromContext,
		});
	}
	later(ms) {
		clock.tick(ms);
	}
	// user-driven bookkeeping entries happen a little after the previous entry
	label(targetId, label) {
		clock.tick(randInt(2000, 25000));
		return this.sm.appendLabelChange(targetId, label);
	}
	name(n) {
		clock.tick(randInt(2000, 25000));
		return this.sm.appendSessionInfo(n);
	}
	custom(type, data) {
		clock.tick(randInt(5, 400));
		return this.sm.appendCustomEntry(type, data);
	}
}

const PNG_1x1 =
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const files = {}; // logical name -> tmp path (for the README table / debugging)

// ---------------------------------------------------------------------------------------------
// proj-alpha
// ---------------------------------------------------------------------------------------------
const ALPHA = "/home/ann/proj-alpha";
const BETA = "/home/ann/proj-beta";
const GAMMA = "/home/ann/work/gamma-api";
const DELTA = "/home/ann/proj-delta";

// A1: tool-heavy multi-turn session; bash executions (!, !!), names set + renamed, labels set/changed/cleared, custom entry.
{
	clock.set("2026-09-14T09:12:03.117Z");
	const sm = SessionManager.create(ALPHA, dirFor(ALPHA));
	const c = new Conv(sm, "sonnet", ALPHA);
	c.start("sonnet", "medium");
	c.system();
	const u1 = c.user("The login test in tests/auth.spec.ts fails about one run in five. Can you find out why?");
	const r1 = c.call("read", { path: "tests/auth.spec.ts" });
	c.assistant(
		[
			c.think("Flaky one-in-five suggests a race or a time dependency. Read the spec first."),
			c.text("Let me look at the test first."),
			r1,
		],
		[4210, 96, 0, 3890],
	);
	c.tool(
		r1,
		"import { test, expect } from 'vitest';\nimport { login } from '../src/auth';\n\ntest('login sets session cookie', async () => {\n  const res = login('ann', 'hunter2');\n  await new Promise((r) => setTimeout(r, 50));\n  expect(res.cookie).toMatch(/^sid=/);\n});\n",
	);
	const b1 = c.call("bash", { command: "npx vitest run tests/auth.spec.ts --repeat 10 2>&1 | tail -20" });
	c.assistant(
		[c.think("`login` is not awaited; the 50 ms sleep hides it most of the time. Confirm by repeating the test."), b1],
		[312, 88, 8100, 540],
	);
	c.tool(
		b1,
		" RUN  v2.1.4 /home/ann/proj-alpha\n\n × tests/auth.spec.ts > login sets session cookie (repeat 3) 61ms\n   → expected undefined to match /^sid=/\n × tests/auth.spec.ts > login sets session cookie (repeat 8) 58ms\n\n Test Files  1 failed (1)\n      Tests  2 failed | 8 passed (10)\n",
		{ duration: [2500, 6000] },
	);
	const e1 = c.call("edit", {
		path: "tests/auth.spec.ts",
		oldText: "  const res = login('ann', 'hunter2');\n  await new Promise((r) => setTimeout(r, 50));",
		newText: "  const res = await login('ann', 'hunter2');",
	});
	c.assistant(
		[
			c.text(
				"Two of ten runs failed: `login()` returns a promise but the test never awaits it and relies on a 50 ms sleep instead. I'll await it.",
			),
			e1,
		],
		[598, 161, 8640, 402],
	);
	c.tool(e1, "Successfully replaced text in tests/auth.spec.ts.", {
		details: {
			diff: "-  const res = login('ann', 'hunter2');\n-  await new Promise((r) => setTimeout(r, 50));\n+  const res = await login('ann', 'hunter2');",
		},
	});
	const a1done = c.assistant(
		[c.text("Fixed: the test now awaits `login()` and the arbitrary sleep is gone. Re-run it a few times to confirm.")],
		[233, 41, 9042, 260],
	);
	c.name("flaky login test");
	c.label(u1, "bug-report");
	c.bash("git diff --stat", " tests/auth.spec.ts | 3 +--\n 1 file changed, 1 insertion(+), 2 deletions(-)\n", 0);
	c.user("Nice. Run the whole suite too.");
	const b2 = c.call("bash", { command: "npx vitest run 2>&1 | tail -8" });
	c.assistant([b2], [95, 52, 9302, 180]);
	c.tool(
		b2,
		" Test Files  1 failed | 23 passed (24)\n      Tests  1 failed | 187 passed (188)\n FAIL  tests/session.spec.ts > expires after ttl\nError: Test timed out in 5000ms.\n",
		{ isError: true, duration: [9000, 20000] },
	);
	c.assistant(
		[
			c.text(
				"The auth suite is green now. One unrelated failure remains: `tests/session.spec.ts > expires after ttl` times out (it waits on a real 5 s timer). Want me to switch it to fake timers?",
			),
		],
		[310, 77, 9482, 395],
	);
	c.label(u1, "root-cause: missing await");
	c.bash("ls tests", "auth.spec.ts\nsession.spec.ts\nutil.spec.ts\n", 0, { excludeFromContext: true });
	c.name("Fix flaky login test (auth.spec)");
	c.custom("git-checkpoint", { commit: "3f9a1c2", branch: "fix/flaky-login", files: ["tests/auth.spec.ts"] });
	c.label(u1, undefined);
	c.label(a1done, "fix-applied");
	c.user("Yes, use fake timers.");
	const e2 = c.call("edit", {
		path: "tests/session.spec.ts",
		oldText: "await sleep(5000);",
		newText: "vi.advanceTimersByTime(5000);",
	});
	c.assistant([c.think("vi.useFakeTimers() in beforeEach, then advance."), e2], [402, 120, 9700, 310]);
	c.tool(e2, "Successfully replaced text in tests/session.spec.ts.", {
		details: { diff: "-  await sleep(5000);\n+  vi.advanceTimersByTime(5000);" },
	});
	c.assistant([c.text("Done — the ttl test now uses fake timers and finishes instantly.")], [180, 30, 10102, 250]);
	files.A1 = sm.getSessionFile();
}

// A2: in-file branches, branch summaries (one with branchFromId null -> root), name set then cleared,
// model change mid-session.  A3: createBranchedSession() from one of A2's branches.
{
	clock.set("2026-09-15T14:03:27.802Z");
	const sm = SessionManager.create(ALPHA, dirFor(ALPHA));
	const c = new Conv(sm, "codex", ALPHA);
	c.start("codex", "high");
	c.system();
	c.user("Add a --json flag to the `export` command in src/cli.ts");
	const r = c.call("read", { path: "src/cli.ts" });
	c.assistant([c.think("Find the export command definition."), r], [5120, 140, 0, 0]);
	const t1 = c.tool(r, "program\n  .command('export <dir>')\n  .option('-o, --out <file>', 'output file')\n  .action(runExport);\n");
	c.name("export --json flag");
	const e = c.call("edit", {
		path: "src/cli.ts",
		oldText: "  .option('-o, --out <file>', 'output file')",
		newText: "  .option('-o, --out <file>', 'output file')\n  .option('--json', 'write JSON instead of text')",
	});
	c.assistant([e], [5402, 98, 4864, 0]);
	c.tool(e, "Successfully replaced text in src/cli.ts.");
	const a3 = c.assistant([c.text("Added `--json`; `runExport` still needs to honour it — shall I wire that up?")], [5560, 41, 5376, 0]);
	c.label(a3, "before-format");
	c.user("Actually, make it --format=json|csv instead");
	const e2 = c.call("edit", {
		path: "src/cli.ts",
		oldText: "  .option('--json', 'write JSON instead of text')",
		newText: "  .option('--format <fmt>', 'json or csv', 'json')",
	});
	c.assistant([e2], [5702, 87, 5504, 0]);
	c.tool(e2, "Successfully replaced text in src/cli.ts.");
	c.assistant([c.text("Replaced `--json` with `--format <fmt>` (json|csv, default json).")], [5850, 30, 5632, 0]);
	// /tree: navigate to the "--format" user message with "summarize": new leaf = its parent (a3).
	c.later(95000);
	const bs1 = c.sm.branchWithSummary(
		a3,
		"The user asked to replace --json with --format=json|csv; the flag was changed in src/cli.ts but runExport was not updated. The user then went back to keep --json.",
		{ readFiles: ["src/cli.ts"], modifiedFiles: ["src/cli.ts"] },
		false,
		mkUsage(MODELS.codex, 6100, 210, 0, 0),
	);
	c.later(800);
	c.label(bs1, "format-attempt");
	c.user("Keep --json, but also add --pretty for indented output.");
	const e3 = c.call("edit", {
		path: "src/cli.ts",
		oldText: "  .option('--json', 'write JSON instead of text')",
		newText: "  .option('--json', 'write JSON instead of text')\n  .option('--pretty', 'indent JSON output')",
	});
	c.assistant([e3], [6020, 90, 5760, 0]);
	c.tool(e3, "Successfully replaced text in src/cli.ts.");
	const a7 = c.assistant([c.text("Added `--pretty` next to `--json`.")], [6150, 22, 5888, 0]);
	// plain branch (no summary) back to the first tool result; switch model there.
	c.later(120000);
	c.sm.branch(t1);
	c.setModel("sonnet");
	c.user("Different approach: introduce a Serializer interface instead of flags.");
	c.assistant(
		[c.text("A `Serializer` interface with `JsonSerializer` and `TextSerializer` would let `runExport` stay format-agnostic. Sketch:\n\n```ts\ninterface Serializer { write(rows: Row[]): string }\n```")],
		[6900, 260, 0, 6400],
	);
	// /tree to the very first user message with summarize: it has a parent chain of setup entries only,
	// pi uses branchFromId = null -> the branch summary becomes a second root.
	c.later(200000);
	c.sm.branchWithSummary(
		null,
		"Explored two ways to add JSON export to src/cli.ts: a --json/--pretty flag pair, and a Serializer interface. Nothing was merged.",
		{ readFiles: ["src/cli.ts"], modifiedFiles: ["src/cli.ts"] },
		false,
		mkUsage(MODELS.sonnet, 7200, 180, 0, 0),
	);
	c.user("Start over: which export formats does the tool support today?");
	c.assistant([c.text("Only plain text: `runExport` writes one line per record; there is no format switch yet.")], [1320, 25, 0, 1280]);
	c.later(30000);
	c.name("");
	files.A2 = sm.getSessionFile();

	// A3: fork the "--json + --pretty" branch into its own file (pi's /fork and createBranchedSession).
	c.later(3600000);
	files.A3 = sm.createBranchedSession(a7);
	c.m = MODELS.codex;
	c.user("Now make --pretty imply --json.");
	const e4 = c.call("edit", {
		path: "src/export.ts",
		oldText: "const json = opts.json;",
		newText: "const json = opts.json || opts.pretty;",
	});
	c.assistant([e4], [6410, 70, 6016, 0]);
	c.tool(e4, "Successfully replaced text in src/export.ts.");
	c.assistant([c.text("`--pretty` now implies `--json`.")], [6530, 14, 6144, 0]);
	c.name("export flags (forked)");
}

// A4: multiple roots via resetLeaf().
{
	clock.set("2026-09-16T08:41:55.030Z");
	const sm = SessionManager.create(ALPHA, dirFor(ALPHA));
	const c = new Conv(sm, "sonnet", ALPHA);
	c.start("sonnet", "off");
	c.user("Write a README section about configuration (env vars PIDEX_DB and PIDEX_ROOT).");
	const a = c.assistant(
		[c.text("## Configuration\n\n| Variable | Default | Meaning |\n|---|---|---|\n| `PIDEX_DB` | `~/.pidex/index.db` | SQLite file |\n| `PIDEX_ROOT` | `~/.pi/agent/sessions` | sessions root |")],
		[1880, 120, 0, 1700],
	);
	c.label(a, "long-version");
	c.later(60000);
	c.sm.resetLeaf();
	c.user("Rewrite it much shorter, two sentences, no table.");
	c.assistant(
		[c.text("Set `PIDEX_DB` to choose the SQLite file (default `~/.pidex/index.db`). Set `PIDEX_ROOT` to index a sessions root other than `~/.pi/agent/sessions`.")],
		[1910, 52, 0, 1750],
	);
	files.A4 = sm.getSessionFile();
}

// ---------------------------------------------------------------------------------------------
// proj-beta
// ---------------------------------------------------------------------------------------------

// B1: two compactions (with usage, systemMessage snapshot), usage entry, context edits (null and {content}),
// toolResult with usage, thinking level change mid-session.
{
	clock.set("2026-09-17T10:00:12.450Z");
	const sm = SessionManager.create(BETA, dirFor(BETA));
	const c = new Conv(sm, "sonnet", BETA);
	c.start("sonnet", "low");
	c.system();
	let cache = 0;
	const turns = [];
	const topics = [
		["List the packages in this monorepo.", "ls packages", "api\ncli\ncore\nweb\n", "Four packages: api, cli, core, web."],
		["Which of them depend on core?", "rg -l '\"@beta/core\"' packages/*/package.json", "packages/api/package.json\npackages/cli/package.json\npackages/web/package.json\n", "api, cli and web all depend on core."],
		["Build core and show warnings.", "pnpm -F @beta/core build 2>&1 | tail -5", "src/index.ts(12,7): warning TS6133: 'unused' is declared but never read.\nsrc/store.ts(88,3): warning TS6133: 'tmp' is declared but never read.\nBuild finished with 2 warnings\n", "Core builds with two unused-variable warnings (index.ts:12, store.ts:88)."],
		["Fix both warnings.", "sed -i '/const unused/d;/let tmp/d' packages/core/src/index.ts packages/core/src/store.ts && pnpm -F @beta/core build 2>&1 | tail -1", "Build finished with 0 warnings\n", "Removed the two unused declarations; core builds cleanly."],
	];
	for (const [q, cmd, out, ans] of topics) {
		const u = c.user(q);
		const b = c.call("bash", { command: cmd });
		cache += 1800;
		const a = c.assistant([b], [320, 60, cache, 900]);
		const t = c.tool(b, out);
		const fin = c.assistant([c.text(ans)], [410, 40, cache + 900, 300]);
		turns.push({ u, a, t, fin });
	}
	c.later(420000);
	c.sm.appendUsage("cache_warm", "anthropic", "claude-sonnet-4-5", mkUsage(MODELS.sonnet, 1, 1, 10210, 0), "keep-alive before idle");
	c.later(240000);
	// compaction 1: keep from the 3rd user message.
	c.sm.appendCompaction(
		"## Goal\nClean up the beta monorepo build.\n\n## Progress\n- Packages: api, cli, core, web (api/cli/web depend on core)\n- Core build warnings identified\n\n## Next\n- Fix warnings",
		turns[2].u,
		48211,
		{ readFiles: ["packages/api/package.json", "packages/cli/package.json", "packages/web/package.json"], modifiedFiles: [] },
		undefined,
		mkUsage(MODELS.sonnet, 18400, 640, 0, 0),
	);
	c.later(randInt(3000, 9000));
	c.sm.appendThinkingLevelChange("high");
	const more = [];
	{
		const u = c.user("Now run the api tests; they take a while.");
		const b = c.call("bash", { command: "pnpm -F @beta/api test 2>&1 | tail -400" });
		c.assistant([c.think("Long output expected; tail it."), b], [2200, 80, 4100, 2000]);
		const longLog = Array.from({ length: 30 }, (_, i) => `✓ api/routes/r${String(i).padStart(2, "0")}.test.ts (${randInt(3, 90)} ms)`).join("\n") + "\n\nTests  30 passed (30)\n";
		const t = c.tool(b, longLog, { duration: [20000, 40000] });
		const fin = c.assistant([c.text("All 30 api test files pass.")], [3900, 20, 4100, 1700]);
		more.push({ u, t, fin });
	}
	{
		const u = c.user("Search the web: is pnpm 10's `--filter` syntax different from pnpm 9?");
		const s = c.call("web_search", { query: "pnpm 10 --filter syntax changes" });
		c.assistant([s], [4200, 40, 5800, 300]);
		const t = c.tool(
			s,
			"Summary (from 3 results): pnpm 10 keeps `--filter`/`-F`; selector syntax is unchanged. Notable pnpm 10 changes are lifecycle-script opt-in and `pnpm link` semantics.",
			{ usage: mkUsage(MODELS.gemini, 5230, 410, 0, 0), details: { results: 3, model: "google/gemini-2.5-pro" } },
		);
		const fin = c.assistant([c.text("No — `--filter` works the same in pnpm 10.")], [4700, 20, 6100, 500]);
		more.push({ u, t, fin });
	}
	// context edits on the active branch.
	c.later(30000);
	c.later(randInt(1500, 6000));
	c.sm.appendContextEdit(more[0].t, null);
	c.later(randInt(1500, 6000));
	c.sm.appendContextEdit(more[1].t, { content: "pnpm 10 keeps --filter unchanged." });
	c.later(randInt(1500, 6000));
	c.sm.appendContextEdit(more[0].u, { content: "Run the api tests." });
	c.later(randInt(1500, 6000));
	c.sm.appendContextEdit(more[0].u, { content: [{ type: "text", text: "Run the api tests (edited twice)." }] });
	{
		const u = c.user("Bump typescript to 5.9 in core and rebuild.");
		const b = c.call("bash", { command: "pnpm -F @beta/core add -D typescript@5.9 && pnpm -F @beta/core build 2>&1 | tail -1" });
		c.assistant([b], [5000, 70, 6400, 400]);
		const t = c.tool(b, "Build finished with 0 warnings\n", { duration: [8000, 15000] });
		const fin = c.assistant([c.text("typescript 5.9 installed; core still builds cleanly.")], [5200, 20, 6700, 300]);
		more.push({ u, t, fin });
	}
	c.later(300000);
	// compaction 2: keep from the first user message after compaction 1 (so the context edits above stay in
	// the kept range and are applied; compaction 1 itself is before the kept range and contributes nothing).
	c.sm.appendCompaction(
		"## Goal\nClean up the beta monorepo build.\n\n## Done\n- Fixed core warnings\n- typescript 5.9 in core\n\n## Next\n- none",
		more[0].u,
		31877,
		{ readFiles: ["packages/core/package.json"], modifiedFiles: ["packages/core/src/index.ts", "packages/core/src/store.ts", "packages/core/package.json"] },
		undefined,
		mkUsage(MODELS.sonnet, 9800, 420, 0, 0),
	);
	c.user("Great. Summarise everything we changed today in one line for the commit message.");
	c.assistant([c.text("chore(core): drop unused vars, bump typescript to 5.9")], [3100, 18, 0, 2900]);
	files.B1 = sm.getSessionFile();
}

// B2: cross-project fork of A1 into proj-beta (SessionManager.forkFrom), then continued.
{
	clock.set("2026-09-18T07:30:00.900Z");
	const sm = SessionManager.forkFrom(files.A1, BETA, dirFor(BETA));
	const c = new Conv(sm, "sonnet", BETA);
	c.user("We have the same flaky pattern in proj-beta's tests/login.spec.ts — apply the same fix here.");
	const r = c.call("read", { path: "tests/login.spec.ts" });
	c.assistant([r], [10900, 40, 0, 10400]);
	c.tool(r, "test('login', async () => {\n  const res = login(user);\n  await sleep(50);\n  expect(res.ok).toBe(true);\n});\n");
	const e = c.call("edit", {
		path: "tests/login.spec.ts",
		oldText: "  const res = login(user);\n  await sleep(50);",
		newText: "  const res = await login(user);",
	});
	c.assistant([e], [11100, 80, 10400, 300]);
	c.tool(e, "Successfully replaced text in tests/login.spec.ts.");
	c.assistant([c.text("Same fix applied in proj-beta.")], [11300, 12, 10700, 200]);
	files.B2 = sm.getSessionFile();
}

// B3: extension content: custom_message (display true/false), custom entries, message role "custom",
// user image block, model switch to gemini, stopReason "length".
{
	clock.set("2026-09-18T15:22:41.311Z");
	const sm = SessionManager.create(BETA, dirFor(BETA));
	const c = new Conv(sm, "sonnet", BETA);
	c.start("sonnet", "medium");
	c.custom("plan-mode", { enabled: true, since: clock.iso() });
	c.user([
		{ type: "text", text: "This is what the settings page looks like now. Why is the Save button grey?" },
		{ type: "image", data: PNG_1x1, mimeType: "image/png" },
	]);
	c.later(40);
	c.sm.appendCustomMessageEntry(
		"project-context",
		[{ type: "text", text: "Project: beta web (React 19, Vite). Settings page lives in packages/web/src/settings/." }],
		false,
		{ source: "AGENTS.md", bytes: 812 },
	);
	c.assistant(
		[c.think("Grey = disabled; probably `isDirty` false because form state is compared by reference."), c.text("The button is disabled: `isDirty` compares the form object by reference, so edits made in place never flip it.")],
		[2400, 140, 0, 2300],
	);
	c.later(500);
	c.sm.appendCustomMessageEntry("plan-reminder", "Plan mode is on: propose changes, do not edit files.", true);
	c.user("Propose the change.");
	c.assistant([c.text("Compare with a deep-equal on `values` vs `initialValues` (e.g. `dequal`) instead of `!==`.")], [2700, 60, 2300, 400]);
	clock.tick(5000);
	c.sm.appendMessage({ role: "custom", customType: "todo", content: "TODO: replace !== with dequal in useSettingsForm.ts", display: true, timestamp: clock.now });
	c.custom("plan-mode", { enabled: false });
	c.setModel("gemini");
	c.user("Write the full patch.");
	c.assistant([c.text("```diff\n--- a/packages/web/src/settings/useSettingsForm.ts\n+++ b/packages/web/src/settings/useSettingsForm.ts\n@@\n-  const isDirty = values !== initialValues;\n+  const isDirty = !dequal(values, initialValues);\n")], [3300, 8192, 0, 0], { stop: "length" });
	files.B3 = sm.getSessionFile();
}

// ---------------------------------------------------------------------------------------------
// gamma-api
// ---------------------------------------------------------------------------------------------

// G1: error + aborted assistant replies, extension compaction (fromHook, firstKeptEntryId null => keep nothing).
{
	clock.set("2026-09-19T21:05:09.004Z");
	const sm = SessionManager.create(GAMMA, dirFor(GAMMA));
	const c = new Conv(sm, "sonnet", GAMMA);
	c.start("sonnet", "medium");
	c.user("Add rate limiting (100 req/min per API key) to the gamma API.");
	c.assistant([], [0, 0, 0, 0], { stop: "error", error: "529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}", duration: [800, 1500] });
	c.user("try again", { delay: [5000, 9000] });
	c.assistant([c.text("I'll add a token-bucket middleware keyed by the `X-Api-Key` hea")], [3100, 14, 0, 2900], { stop: "aborted", duration: [900, 2000] });
	c.user("continue, but use the existing redis client", { delay: [8000, 20000] });
	const r = c.call("read", { path: "src/redis.ts" });
	c.assistant([c.think("Reuse src/redis.ts export."), r], [3300, 50, 0, 3150]);
	c.tool(r, "import { createClient } from 'redis';\nexport const redis = createClient({ url: process.env.REDIS_URL });\n");
	const e = c.call("edit", {
		path: "src/middleware/ratelimit.ts",
		oldText: "",
		newText: "export async function rateLimit(req, res, next) {\n  const key = `rl:${req.header('x-api-key')}`;\n  const n = await redis.incr(key);\n  if (n === 1) await redis.expire(key, 60);\n  if (n > 100) return res.status(429).end();\n  next();\n}\n",
	});
	c.assistant([e], [3500, 160, 3150, 200]);
	c.tool(e, "Created src/middleware/ratelimit.ts.");
	c.assistant([c.text("Added `rateLimit` middleware (fixed 60 s window in redis, 429 above 100 requests).")], [3800, 30, 3350, 250]);
	c.later(600000);
	c.sm.appendCompaction(
		"Rate limiting middleware added in src/middleware/ratelimit.ts using the shared redis client (fixed window, 100/min, 429).",
		null,
		4150,
		{ strategy: "extension:short-summary", version: 2 },
		true,
	);
	c.user("Register it for all /v1 routes.");
	c.assistant([c.text("Add `app.use('/v1', rateLimit)` before the router in src/server.ts.")], [600, 25, 0, 550]);
	files.G1 = sm.getSessionFile();
}

// G2: user message but no reply yet (pi 1.6.0 creates the file at the first user message).
{
	clock.set("2026-09-20T06:58:30.500Z");
	const sm = SessionManager.create(GAMMA, dirFor(GAMMA));
	const c = new Conv(sm, "codex", GAMMA);
	c.start("codex", "minimal");
	c.user("What does the `X-Request-Id` middleware do when the header is missing?");
	files.G2 = sm.getSessionFile();
}

// G3: caller-supplied session id (SDK newSession({id}) / CLI explicit id).
{
	clock.set("2026-09-20T11:11:11.111Z");
	const sm = SessionManager.create(GAMMA, dirFor(GAMMA), { id: "release-notes.2026-09" });
	const c = new Conv(sm, "gemini", GAMMA);
	c.start("gemini", "off");
	c.user("Draft release notes for v2.4 from the last 10 commits.");
	const b = c.call("bash", { command: "git log --oneline -10" });
	c.assistant([b], [900, 30, 0, 0]);
	c.tool(b, "a1b2c3d feat: rate limiting\n9f8e7d6 fix: request id when header missing\n5a4b3c2 chore: deps\n");
	c.assistant([c.text("## v2.4\n- Rate limiting (100 req/min per key)\n- Request ids are generated when the header is missing")], [1100, 40, 0, 0]);
	files.G3 = sm.getSessionFile();
}

// ---------------------------------------------------------------------------------------------
// proj-delta: subagents of the pi-subagents extension (npm pi-subagents, github nicobailon/pi-subagents)
// ---------------------------------------------------------------------------------------------

// D1: a parent session that ran `/parallel scout "…" -> scout "…"`, and its two child runs. The extension
// keeps each child as a pi session of its own (a `pi --session <file>` process, so SessionManager.open(file)
// with the task's cwd) at <dir of the parent>/<parent name without .jsonl>/<run id>/run-<index>/session.jsonl
// (src/extension/index.ts getSubagentSessionRoot, src/runs/foreground/subagent-executor.ts sessionDirForIndex;
// the run id is a randomUUID). The parent gets what its slash command sends through pi.sendMessage: a
// `subagent-slash-result` custom_message when the run starts (details.result = the running placeholders) and
// one when it ends (content: the export text naming the child session files, details.result.details.results[]
// with each child's agent, usage and sessionFile; display false in the interactive UI)
// (src/slash/slash-commands.ts runSlashSubagent, src/slash/slash-live-state.ts). pi's listing is not
// recursive: it lists D1, never its children. The children's calls cost money of their own.
{
	clock.set("2026-09-21T08:02:10.250Z");
	const sm = SessionManager.create(DELTA, dirFor(DELTA));
	const c = new Conv(sm, "sonnet", DELTA);
	c.start("sonnet", "medium");
	c.user("The upload client retries forever when S3 returns 503. Before changing anything, where is the retry loop and which tests cover it?");
	c.assistant([c.text("I'll look in two places at once: the retry loop in the client, and the tests that exercise it.")], [2900, 40, 0, 3100]);
	const parentFile = sm.getSessionFile();
	const runId = nodeCrypto.randomUUID();
	const tasks = [
		{ agent: "scout", task: "Find the retry loop of the upload client (src/upload/) and say how it stops." },
		{ agent: "scout", task: "List the tests that exercise upload retries, with file:line." },
	];
	const requestId = nodeCrypto.randomUUID();
	const usageOf = (us) => ({
		input: us.reduce((a, u) => a + u.input, 0),
		output: us.reduce((a, u) => a + u.output, 0),
		cacheRead: us.reduce((a, u) => a + u.cacheRead, 0),
		cacheWrite: us.reduce((a, u) => a + u.cacheWrite, 0),
		cost: us.reduce((a, u) => a + u.cost.total, 0),
		turns: us.length,
	});
	c.later(20000);
	sm.appendCustomMessageEntry("subagent-slash-result", tasks.map((t) => `${t.agent}: ${t.task}`).join("\n\n"), true, {
		requestId,
		result: {
			content: [{ type: "text", text: tasks.map((t) => `${t.agent}: ${t.task}`).join("\n\n") }],
			details: {
				mode: "parallel",
				results: tasks.map((t, index) => ({ index, agent: t.agent, task: t.task, exitCode: -1, messages: [], usage: usageOf([]) })),
				progress: tasks.map((t, index) => ({ index, agent: t.agent, status: "running", task: t.task, recentTools: [], recentOutput: [], toolCount: 0, tokens: 0, durationMs: 0 })),
			},
		},
	});
	const start = clock.now;
	// the two children, each a pi session of its own
	const childDir = (i) => join(dirname(parentFile), basename(parentFile, ".jsonl"), runId, `run-${i}`);
	const outputs = [
		"The retry loop is `uploadWithRetry` in src/upload/client.ts:41-68. It retries on any 5xx with a fixed 2 s delay and no attempt limit: a 503 that never clears loops forever.",
		"Retries are covered by test/upload/retry.test.ts:12 (one 503 then 200) and test/upload/retry.test.ts:37 (network error then 200). No test covers a 503 that persists.",
	];
	const children = [];
	for (const [i, t] of tasks.entries()) {
		clock.set(new Date(start + 400 + i * 150).toISOString());
		const file = join(childDir(i), "session.jsonl");
		const csm = SessionManager.open(file, undefined, DELTA);
		const k = new Conv(csm, "haiku", DELTA);
		k.start("haiku", "low");
		const usages = [];
		const ts = clock.now;
		k.user(t.task, { delay: [300, 900] });
		const g = k.call("grep", { pattern: i === 0 ? "retry" : "503|retry", path: i === 0 ? "src/upload" : "test/upload" });
		k.assistant([g], [2200 + 700 * i, 45, 0, 2600 + 500 * i]);
		k.tool(g, i === 0 ? "src/upload/client.ts:41:export async function uploadWithRetry(part) {\nsrc/upload/client.ts:52:    if (res.status >= 500) { await sleep(2000); continue; }\n" : "test/upload/retry.test.ts:12:test('retries once on 503', …\ntest/upload/retry.test.ts:37:test('retries on network error', …\n");
		const r = k.call("read", { path: i === 0 ? "src/upload/client.ts" : "test/upload/retry.test.ts" });
		k.assistant([r], [2500 + 400 * i, 40 + 25 * i, 2600 + 500 * i, 300]);
		k.tool(r, i === 0 ? "export async function uploadWithRetry(part) {\n  for (;;) {\n    const res = await put(part);\n    if (res.status >= 500) { await sleep(2000); continue; }\n    return res;\n  }\n}\n" : "test('retries once on 503', async () => { … });\ntest('retries on network error', async () => { … });\n");
		k.assistant([k.text(outputs[i])], [3100 + 600 * i, 90 + 30 * i, 2900 + 500 * i, 250]);
		for (const e of csm.getEntries()) if (e.type === "message" && e.message.role === "assistant") usages.push(e.message.usage);
		children.push({ index: i, agent: t.agent, task: t.task, file, usage: usageOf(usages), startedAt: ts, endedAt: clock.now });
		files[`D1-run-${i}`] = file;
	}
	clock.set(new Date(Math.max(...children.map((k) => k.endedAt)) + 700).toISOString());
	const text = outputs.map((o, i) => `**${tasks[i].agent}** (${i + 1}/${tasks.length}): ${o}`).join("\n\n");
	sm.appendCustomMessageEntry(
		"subagent-slash-result",
		["## Subagent result", text, "## Child session exports", children.map((k) => `- \`${k.file}\``).join("\n")].join("\n\n"),
		false,
		{
			requestId,
			result: {
				content: [{ type: "text", text }],
				details: {
					mode: "parallel",
					runId,
					context: "fresh",
					results: children.map((k) => ({
						index: k.index,
						agent: k.agent,
						task: k.task,
						context: "fresh",
						exitCode: 0,
						messages: [],
						usage: k.usage,
						model: "anthropic/claude-haiku-4-5",
						sessionFile: k.file,
						finalOutput: outputs[k.index],
					})),
				},
			},
		},
	);
	c.user("Good. Cap the retries at 5 with exponential backoff, and add the missing test.", { delay: [20000, 40000] });
	const e = c.call("edit", {
		path: "src/upload/client.ts",
		oldText: "  for (;;) {",
		newText: "  for (let attempt = 0; attempt < 5; attempt++) {",
	});
	c.assistant([e], [6400, 120, 3100, 3300]);
	c.tool(e, "Successfully replaced text in src/upload/client.ts.");
	c.assistant([c.text("Retries now stop after 5 attempts; the backoff and the persistent-503 test are next.")], [6700, 30, 6400, 200]);
	files.D1 = parentFile;
}

// ---------------------------------------------------------------------------------------------
// Install generated files into testdata/sessions (everything except --real-- is regenerated)
// ---------------------------------------------------------------------------------------------
mkdirSync(SESSIONS, { recursive: true });
for (const name of readdirSync(SESSIONS)) {
	if (name === "--real--") continue;
	rmSync(join(SESSIONS, name), { recursive: true, force: true });
}
let generated = 0;
// Folders too: pi-subagents' child runs lie deeper (D1).
function install(rel) {
	mkdirSync(join(SESSIONS, rel), { recursive: true });
	for (const e of readdirSync(join(ROOT, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
		if (e.isDirectory()) {
			install(join(rel, e.name));
			continue;
		}
		const content = readFileSync(join(ROOT, rel, e.name), "utf8");
		writeFileSync(join(SESSIONS, rel, e.name), content.split(ROOT).join(FAKE_ROOT));
		generated++;
	}
}
for (const folder of readdirSync(ROOT).sort()) install(folder);

// ---------------------------------------------------------------------------------------------
// Hand-written legacy / damaged files (not produced by pi)
// ---------------------------------------------------------------------------------------------
const LEGACY = join(SESSIONS, "--home-ann-legacy--");
mkdirSync(LEGACY, { recursive: true });
const J = (o) => JSON.stringify(o);
const lines = (...objs) => objs.map((o) => (typeof o === "string" ? o : J(o))).join("\n") + "\n";
const z = (iso) => Date.parse(iso);
const U = (input, output, cacheRead, cacheWrite, withTotal = true) => {
	const p = MODELS.sonnet.price;
	const cost = {
		input: (input * p.input) / 1e6,
		output: (output * p.output) / 1e6,
		cacheRead: (cacheRead * p.cacheRead) / 1e6,
		cacheWrite: (cacheWrite * p.cacheWrite) / 1e6,
	};
	cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
	const u = { input, output, cacheRead, cacheWrite };
	if (withTotal) u.totalTokens = input + output + cacheRead + cacheWrite;
	u.cost = cost;
	return u;
};
const asst = (text, ts, usage, extra = {}) => ({
	role: "assistant",
	content: typeof text === "string" ? [{ type: "text", text }] : text,
	api: "anthropic-messages",
	provider: "anthropic",
	model: "claude-opus-4-5",
	usage,
	stopReason: "stop",
	timestamp: z(ts),
	...extra,
});
const usr = (text, ts) => ({ role: "user", content: [{ type: "text", text }], timestamp: z(ts) });
const LEGACY_CWD = "/home/ann/legacy";
const hdr3 = (id, ts, extra = {}) => ({ type: "session", version: 3, id, timestamp: ts, cwd: LEGACY_CWD, ...extra });
const ent = (type, id, parentId, ts, payload) => ({ type, id, parentId, timestamp: ts, ...payload });
const msg = (id, parentId, ts, message) => ent("message", id, parentId, ts, { message });

const legacy = {};

// v1: no version, no ids; header with provider/modelId/thinkingLevel/branchedFrom; compaction with
// firstKeptEntryIndex (index into PARSED entries incl. header); usage without totalTokens.
legacy["2025-12-10T16-19-58-004Z_7d1c0f3e-5a2b-4c8e-9f10-2b3c4d5e6f70.jsonl"] = lines(
	{
		type: "session",
		id: "7d1c0f3e-5a2b-4c8e-9f10-2b3c4d5e6f70",
		timestamp: "2025-12-10T16:20:05.112Z",
		cwd: LEGACY_CWD,
		provider: "anthropic",
		modelId: "claude-opus-4-5",
		thinkingLevel: "off",
		branchedFrom: "/home/ann/.pi/agent/sessions/--home-ann-legacy--/2025-12-10T15-58-40-001Z_1b2c3d4e-0000-4000-8000-00000000a001.jsonl",
	},
	{ type: "thinking_level_change", timestamp: "2025-12-10T16:20:05.113Z", thinkingLevel: "medium" },
	{ type: "message", timestamp: "2025-12-10T16:20:31.920Z", message: usr("Why does `make test` rebuild everything every time?", "2025-12-10T16:20:31.911Z") },
	{
		type: "message",
		timestamp: "2025-12-10T16:20:36.410Z",
		message: asst(
			[
				{ type: "text", text: "Let me look at the Makefile." },
				{ type: "toolCall", id: "toolu_01LegacyRead000000000001", name: "read", arguments: { path: "Makefile" } },
			],
			"2025-12-10T16:20:31.930Z",
			U(3, 61, 0, 4012, false),
			{ stopReason: "toolUse" },
		),
	},
	{
		type: "message",
		timestamp: "2025-12-10T16:20:36.455Z",
		message: {
			role: "toolResult",
			toolCallId: "toolu_01LegacyRead000000000001",
			toolName: "read",
			content: [{ type: "text", text: "test: build\n\tgo test ./...\n\nbuild: FORCE\n\tgo build ./...\n\nFORCE:\n" }],
			isError: false,
			timestamp: z("2025-12-10T16:20:36.450Z"),
		},
	},
	{ type: "message", timestamp: "2025-12-10T16:20:41.002Z", message: asst("`build` depends on the phony `FORCE` target, so it is always out of date and `test` rebuilds each time.", "2025-12-10T16:20:36.460Z", U(5, 44, 4012, 180, false)) },
	{ type: "message", timestamp: "2025-12-10T16:21:30.700Z", message: usr("Remove FORCE then.", "2025-12-10T16:21:30.690Z") },
	{ type: "message", timestamp: "2025-12-10T16:21:33.215Z", message: asst("Done — `build` now has real prerequisites (`$(shell find . -name '*.go')`).", "2025-12-10T16:21:30.720Z", U(4, 39, 4192, 120, false)) },
	{
		type: "message",
		timestamp: "2025-12-10T16:22:02.001Z",
		message: { role: "bashExecution", command: "make test", output: "ok  \tlegacy/pkg\t0.012s\n", exitCode: 0, cancelled: false, truncated: false, timestamp: z("2025-12-10T16:22:02.000Z") },
	},
	{ type: "message", timestamp: "2025-12-10T16:23:10.300Z", message: usr("And make lint should not depend on build.", "2025-12-10T16:23:10.290Z") },
	{ type: "message", timestamp: "2025-12-10T16:23:14.881Z", message: asst("Removed `build` from `lint`'s prerequisites.", "2025-12-10T16:23:10.310Z", U(6, 22, 4312, 90, false)) },
	// compaction is index 11 in the parsed array (header = 0); firstKeptEntryIndex 9 = "And make lint..." user message
	{ type: "compaction", timestamp: "2025-12-10T16:30:00.000Z", summary: "Fixed Makefile: removed FORCE, lint no longer depends on build.", firstKeptEntryIndex: 9, tokensBefore: 4535 },
	{ type: "message", timestamp: "2025-12-10T16:31:05.100Z", message: usr("Thanks, that's all.", "2025-12-10T16:31:05.090Z") },
	{ type: "message", timestamp: "2025-12-10T16:31:06.650Z", message: asst("You're welcome!", "2025-12-10T16:31:05.110Z", U(900, 6, 0, 850, false)) },
	{ type: "model_change", timestamp: "2025-12-10T16:31:20.000Z", provider: "openai", modelId: "gpt-5.1" },
);

// v2: ids, hookMessage role (renamed to custom by migration), label, in-file branch + branch_summary.
legacy["2025-12-29T10-02-11-470Z_4c0ffee0-1d2e-4f3a-8b4c-5d6e7f8091a2.jsonl"] = lines(
	{ type: "session", version: 2, id: "4c0ffee0-1d2e-4f3a-8b4c-5d6e7f8091a2", timestamp: "2025-12-29T10:02:11.470Z", cwd: LEGACY_CWD },
	ent("model_change", "a0f1c2d3", null, "2025-12-29T10:02:11.471Z", { provider: "anthropic", modelId: "claude-opus-4-5" }),
	ent("thinking_level_change", "b1e2d3c4", "a0f1c2d3", "2025-12-29T10:02:11.471Z", { thinkingLevel: "low" }),
	msg("c2d3e4f5", "b1e2d3c4", "2025-12-29T10:02:40.112Z", usr("Rename `Foo` to `Widget` across the repo.", "2025-12-29T10:02:40.100Z")),
	msg("d3e4f5a6", "c2d3e4f5", "2025-12-29T10:02:44.900Z", asst("I'll use `gofmt -r 'Foo -> Widget' -w .`.", "2025-12-29T10:02:40.120Z", U(3, 30, 0, 3900))),
	msg("e4f5a6b7", "d3e4f5a6", "2025-12-29T10:02:45.010Z", {
		role: "hookMessage",
		customType: "todo-reminder",
		content: "Reminder: update CHANGELOG.md after renames.",
		display: true,
		timestamp: z("2025-12-29T10:02:45.000Z"),
	}),
	ent("label", "f5a6b7c8", "e4f5a6b7", "2025-12-29T10:03:01.000Z", { targetId: "c2d3e4f5", label: "rename-request" }),
	msg("a6b7c8d9", "f5a6b7c8", "2025-12-29T10:03:30.300Z", usr("Also rename the file foo.go.", "2025-12-29T10:03:30.290Z")),
	msg("b7c8d9e0", "a6b7c8d9", "2025-12-29T10:03:33.800Z", asst("Renamed foo.go to widget.go.", "2025-12-29T10:03:30.310Z", U(5, 12, 3900, 60))),
	// navigate back to d3e4f5a6 with summary (v2 era: fromId = the new leaf)
	ent("branch_summary", "c8d9e0f1", "d3e4f5a6", "2025-12-29T10:05:00.000Z", { fromId: "d3e4f5a6", summary: "Tried renaming foo.go as well; user went back." }),
	msg("d9e0f1a2", "c8d9e0f1", "2025-12-29T10:05:20.500Z", usr("Keep foo.go, just rename the type.", "2025-12-29T10:05:20.490Z")),
	msg("e0f1a2b3", "d9e0f1a2", "2025-12-29T10:05:23.000Z", asst("OK, only the type is renamed; foo.go stays.", "2025-12-29T10:05:20.510Z", U(6, 14, 3960, 40))),
	ent("custom", "f1a2b3c4", "e0f1a2b3", "2025-12-29T10:05:23.100Z", { customType: "todo-state", data: { open: ["CHANGELOG.md"] } }),
);

// malformed middle line (invalid escape from a PII scrubber) -> the following entry is an orphan.
legacy["2026-03-02T09-00-00-000Z_malformed-middle.jsonl"] = (() => {
	const L = [
		hdr3("malformed-middle", "2026-03-02T09:00:00.000Z"),
		ent("model_change", "10000001", null, "2026-03-02T09:00:00.001Z", { provider: "anthropic", modelId: "claude-sonnet-4-5" }),
		msg("10000002", "10000001", "2026-03-02T09:00:20.000Z", usr("Send the report to ann@example.com", "2026-03-02T09:00:19.990Z")),
		msg("10000003", "10000002", "2026-03-02T09:00:24.000Z", asst("I'll draft the email.", "2026-03-02T09:00:20.010Z", U(3, 10, 0, 2000))),
		'{"type":"message","id":"10000004","parentId":"10000003","timestamp":"2026-03-02T09:00:40.000Z","message":{"role":"user","content":[{"type":"text","text":"Use \\***@***.*** as sender"}],"timestamp":1772442039990}}',
		msg("10000005", "10000004", "2026-03-02T09:00:44.000Z", asst("Sender set.", "2026-03-02T09:00:40.010Z", U(4, 5, 2000, 30))),
		msg("10000006", "10000005", "2026-03-02T09:01:10.000Z", usr("Thanks", "2026-03-02T09:01:09.990Z")),
		msg("10000007", "10000006", "2026-03-02T09:01:12.000Z", asst("Anytime.", "2026-03-02T09:01:10.010Z", U(4, 4, 2030, 20))),
	];
	return lines(...L);
})();

// torn last line: crash mid-write, no final newline.
legacy["2026-03-03T12-00-00-000Z_torn-last-line.jsonl"] =
	lines(
		hdr3("torn-last-line", "2026-03-03T12:00:00.000Z"),
		ent("model_change", "20000001", null, "2026-03-03T12:00:00.001Z", { provider: "anthropic", modelId: "claude-sonnet-4-5" }),
		msg("20000002", "20000001", "2026-03-03T12:00:30.000Z", usr("Plan the migration to Postgres 17.", "2026-03-03T12:00:29.990Z")),
		msg("20000003", "20000002", "2026-03-03T12:00:41.000Z", asst("Step 1: pg_dump; step 2: restore into 17; step 3: switch the DSN.", "2026-03-03T12:00:30.010Z", U(3, 40, 0, 2100))),
		msg("20000004", "20000003", "2026-03-03T12:01:30.000Z", usr("More detail on step 2 please.", "2026-03-03T12:01:29.990Z")),
	) +
	'{"type":"message","id":"20000005","parentId":"20000004","timestamp":"2026-03-03T12:01:44.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Restore with pg_restore -j 8 into a fresh clus';

// complete last line without the final newline.
legacy["2026-03-04T08-15-00-000Z_no-final-newline.jsonl"] = lines(
	hdr3("no-final-newline", "2026-03-04T08:15:00.000Z"),
	ent("model_change", "30000001", null, "2026-03-04T08:15:00.001Z", { provider: "openai", modelId: "gpt-5.1-codex" }),
	msg("30000002", "30000001", "2026-03-04T08:15:12.000Z", usr("What's 17 * 23?", "2026-03-04T08:15:11.990Z")),
).concat(J(msg("30000003", "30000002", "2026-03-04T08:15:13.500Z", asst("391", "2026-03-04T08:15:12.010Z", U(12, 2, 0, 0)))));

// empty file.
legacy["2026-03-05T00-00-00-000Z_empty.jsonl"] = "";

// header-only file (what pi writes into an empty file it opens).
legacy["2026-03-05T00-00-01-000Z_header-only.jsonl"] = lines(hdr3("header-only", "2026-03-05T00:00:01.000Z"));

// not a session: sub-agent transcript (first parsed line is not a header).
legacy["subagent-scout-transcript.jsonl"] = lines(
	{ role: "user", content: "Find every call site of parseConfig.", timestamp: z("2026-03-06T10:00:00.000Z") },
	{ role: "assistant", content: [{ type: "text", text: "3 call sites: cmd/main.go:41, server/boot.go:17, config/config_test.go:9" }], timestamp: z("2026-03-06T10:00:05.000Z") },
);

// garbage (non-JSON) and blank lines before the header: pi skips them (first PARSED line is the header).
legacy["2026-03-07T17-45-00-000Z_garbage-before-header.jsonl"] =
	"\u001b[33mwarning: recovered session file\u001b[0m\n\n   \n" +
	lines(
		hdr3("garbage-before-header", "2026-03-07T17:45:00.000Z"),
		ent("model_change", "40000001", null, "2026-03-07T17:45:00.001Z", { provider: "anthropic", modelId: "claude-sonnet-4-5" }),
		msg("40000002", "40000001", "2026-03-07T17:45:09.000Z", usr("ping", "2026-03-07T17:45:08.990Z")),
		msg("40000003", "40000002", "2026-03-07T17:45:10.000Z", asst("pong", "2026-03-07T17:45:09.010Z", U(2, 1, 0, 0))),
	);

// valid JSON (not a header) before the header: NOT a session for pi.
legacy["2026-03-07T17-46-00-000Z_json-before-header.jsonl"] =
	J({ exportedBy: "pi-share", version: 1 }) +
	"\n" +
	lines(
		hdr3("json-before-header", "2026-03-07T17:46:00.000Z"),
		msg("41000001", null, "2026-03-07T17:46:09.000Z", usr("ping", "2026-03-07T17:46:08.990Z")),
		msg("41000002", "41000001", "2026-03-07T17:46:10.000Z", asst("pong", "2026-03-07T17:46:09.010Z", U(2, 1, 0, 0))),
	);

// UTF-8 BOM before the header: JSON.parse rejects the BOM, so the header line is dropped -> not a session.
legacy["2026-03-07T17-47-00-000Z_bom-header.jsonl"] =
	"\uFEFF" +
	lines(
		hdr3("bom-header", "2026-03-07T17:47:00.000Z"),
		msg("42000001", null, "2026-03-07T17:47:09.000Z", usr("ping", "2026-03-07T17:47:08.990Z")),
		msg("42000002", "42000001", "2026-03-07T17:47:10.000Z", asst("pong", "2026-03-07T17:47:09.010Z", U(2, 1, 0, 0))),
	);

// duplicate header + duplicated entries (pre-2026-05-27 double flush) and a re-used id with different content.
legacy["2026-03-08T13-20-00-000Z_duplicate-ids.jsonl"] = (() => {
	const h = hdr3("duplicate-ids", "2026-03-08T13:20:00.000Z");
	const m1 = ent("model_change", "50000001", null, "2026-03-08T13:20:00.001Z", { provider: "anthropic", modelId: "claude-sonnet-4-5" });
	const t1 = ent("thinking_level_change", "50000002", "50000001", "2026-03-08T13:20:00.001Z", { thinkingLevel: "medium" });
	return lines(
		h,
		m1,
		t1,
		h,
		m1,
		t1,
		msg("50000003", "50000002", "2026-03-08T13:20:30.000Z", usr("Explain the retry loop in client.go", "2026-03-08T13:20:29.990Z")),
		msg("50000004", "50000003", "2026-03-08T13:20:31.000Z", { ...asst("It retri", "2026-03-08T13:20:30.010Z", U(1500, 3, 0, 0)), stopReason: "aborted" }),
		msg("50000004", "50000003", "2026-03-08T13:20:40.000Z", asst("It retries up to 5 times with exponential backoff (100 ms base).", "2026-03-08T13:20:35.000Z", U(1500, 30, 0, 0))),
		msg("50000005", "50000004", "2026-03-08T13:21:10.000Z", usr("Is the backoff jittered?", "2026-03-08T13:21:09.990Z")),
		msg("50000006", "50000005", "2026-03-08T13:21:12.000Z", asst("No — add full jitter to avoid thundering herds.", "2026-03-08T13:21:10.010Z", U(1540, 20, 0, 0))),
	);
})();

// parent cycle (hand-edited/buggy writer): the leaf's ancestry loops -> pi's getBranch()/buildSessionContext() never return.
legacy["2026-03-09T19-00-00-000Z_cycle.jsonl"] = lines(
	hdr3("cycle", "2026-03-09T19:00:00.000Z"),
	ent("model_change", "60000001", null, "2026-03-09T19:00:00.001Z", { provider: "anthropic", modelId: "claude-sonnet-4-5" }),
	msg("60000002", "60000001", "2026-03-09T19:00:10.000Z", usr("hello", "2026-03-09T19:00:09.990Z")),
	msg("60000003", "60000002", "2026-03-09T19:00:11.000Z", asst("hi!", "2026-03-09T19:00:10.010Z", U(2, 2, 0, 0))),
	ent("custom", "60000004", "60000004", "2026-03-09T19:00:12.000Z", { customType: "self-parent", data: {} }),
	ent("custom", "60000005", "60000006", "2026-03-09T19:00:13.000Z", { customType: "loop-a", data: {} }),
	ent("custom", "60000006", "60000005", "2026-03-09T19:00:14.000Z", { customType: "loop-b", data: {} }),
	msg("60000007", "60000005", "2026-03-09T19:00:20.000Z", usr("are you there?", "2026-03-09T19:00:19.990Z")),
);

// CRLF line endings (file edited on Windows).
legacy["2026-03-10T07-30-00-000Z_crlf.jsonl"] = lines(
	hdr3("crlf", "2026-03-10T07:30:00.000Z", { cwd: "C:\\Users\\ann\\legacy" }),
	ent("model_change", "70000001", null, "2026-03-10T07:30:00.001Z", { provider: "anthropic", modelId: "claude-sonnet-4-5" }),
	msg("70000002", "70000001", "2026-03-10T07:30:10.000Z", usr("Convert line endings of *.ps1 to CRLF", "2026-03-10T07:30:09.990Z")),
	msg("70000003", "70000002", "2026-03-10T07:30:14.000Z", asst("Use `unix2dos *.ps1`.", "2026-03-10T07:30:10.010Z", U(3, 9, 0, 1900))),
	ent("session_info", "70000004", "70000003", "2026-03-10T07:30:20.000Z", { name: "crlf conversion" }),
).replace(/\n/g, "\r\n");

// lone CR line endings: pi's loader (splits on \n) sees ONE malformed line; pi's listing (readline) splits on \r.
legacy["2026-03-10T07-31-00-000Z_cr-line-endings.jsonl"] = lines(
	hdr3("cr-line-endings", "2026-03-10T07:31:00.000Z"),
	ent("model_change", "71000001", null, "2026-03-10T07:31:00.001Z", { provider: "anthropic", modelId: "claude-sonnet-4-5" }),
	msg("71000002", "71000001", "2026-03-10T07:31:10.000Z", usr("old mac file", "2026-03-10T07:31:09.990Z")),
	msg("71000003", "71000002", "2026-03-10T07:31:14.000Z", asst("indeed", "2026-03-10T07:31:10.010Z", U(3, 2, 0, 0))),
).replace(/\n/g, "\r");

// header with an unparsable timestamp and no cwd, no user/assistant messages -> created Invalid Date, modified = file mtime.
legacy["2026-03-11T00-00-00-000Z_bad-header-timestamp.jsonl"] = lines(
	{ type: "session", version: 3, id: "bad-header-timestamp", timestamp: "yesterday" },
	ent("model_change", "80000001", null, "2026-03-11T00:00:00.001Z", { provider: "anthropic", modelId: "claude-sonnet-4-5" }),
	ent("custom", "80000002", "80000001", "2026-03-11T00:00:00.002Z", { customType: "note", data: { text: "no messages here" } }),
);

// JSON lines that are not objects: pi skips falsy results (null, false, 0, "") but keeps truthy ones as "entries"
// with no id/type (they share the id `undefined`).
legacy["2026-03-12T10-00-00-000Z_non-object-lines.jsonl"] = lines(
	hdr3("non-object-lines", "2026-03-12T10:00:00.000Z"),
	ent("model_change", "90000001", null, "2026-03-12T10:00:00.001Z", { provider: "anthropic", modelId: "claude-sonnet-4-5" }),
	"null",
	"42",
	'"stray string"',
	"[]",
	"{}",
	"false",
	msg("90000002", "90000001", "2026-03-12T10:00:10.000Z", usr("still works?", "2026-03-12T10:00:09.990Z")),
	msg("90000003", "90000002", "2026-03-12T10:00:11.000Z", asst("yes", "2026-03-12T10:00:10.010Z", U(2, 1, 0, 0))),
);

// blank / whitespace-only lines and leading/trailing whitespace around JSON in the middle of a file.
legacy["2026-03-12T11-00-00-000Z_blank-lines.jsonl"] =
	lines(
		hdr3("blank-lines", "2026-03-12T11:00:00.000Z"),
		ent("model_change", "91000001", null, "2026-03-12T11:00:00.001Z", { provider: "anthropic", modelId: "claude-sonnet-4-5" }),
	) +
	"\n   \n\t\n" +
	"   " +
	J(msg("91000002", "91000001", "2026-03-12T11:00:10.000Z", usr("indented line", "2026-03-12T11:00:09.990Z"))) +
	"\t  \n\n" +
	lines(msg("91000003", "91000002", "2026-03-12T11:00:11.000Z", asst("trailing blank lines follow", "2026-03-12T11:00:10.010Z", U(2, 4, 0, 0)))) +
	"\n\n";

// user message with content null: pi's listing throws on it (file disappears from listAll); opening works.
legacy["2026-03-13T15-00-00-000Z_null-content.jsonl"] = lines(
	hdr3("null-content", "2026-03-13T15:00:00.000Z"),
	ent("model_change", "92000001", null, "2026-03-13T15:00:00.001Z", { provider: "anthropic", modelId: "claude-sonnet-4-5" }),
	msg("92000002", "92000001", "2026-03-13T15:00:10.000Z", { role: "user", content: null, timestamp: z("2026-03-13T15:00:09.990Z") }),
	msg("92000003", "92000002", "2026-03-13T15:00:11.000Z", asst("Your message was empty.", "2026-03-13T15:00:10.010Z", U(2, 5, 0, 0))),
);

// assorted v3 edge cases: labels on missing targets / cleared with "" / without label key, untrimmed name and
// a session_info without name, compaction whose firstKeptEntryId is not on the path, empty branch summary,
// custom_message with string content, usage with cacheWrite1h/reasoning, unknown entry type as the leaf.
legacy["2026-03-14T09-30-00-000Z_misc-edge.jsonl"] = lines(
	hdr3("misc-edge", "2026-03-14T09:30:00.000Z", {
		parentSession: "/home/ann/.pi/agent/sessions/--home-ann-legacy--/2026-03-01T00-00-00-000Z_gone.jsonl",
		forkedAt: "2026-03-14T09:29:59.000Z",
	}),
	ent("model_change", "e0000001", null, "2026-03-14T09:30:00.001Z", { provider: "anthropic", modelId: "claude-opus-4-5" }),
	ent("thinking_level_change", "e0000002", "e0000001", "2026-03-14T09:30:00.001Z", { thinkingLevel: "xhigh" }),
	msg("e0000003", "e0000002", "2026-03-14T09:30:15.000Z", usr("Summarise the open TODOs in src/", "2026-03-14T09:30:14.990Z")),
	msg(
		"e0000004",
		"e0000003",
		"2026-03-14T09:30:20.000Z",
		asst(
			[
				{ type: "thinking", thinking: "grep for TODO", thinkingSignature: "EqQBCkYIBhgCKkA=" },
				{ type: "toolCall", id: "toolu_01MiscGrep00000000000001", name: "bash", arguments: { command: "rg -n TODO src/" } },
			],
			"2026-03-14T09:30:15.010Z",
			{ ...U(5, 120, 0, 6200), cacheWrite1h: 6200, reasoning: 80 },
			{ stopReason: "toolUse", responseId: "msg_01MiscEdge000000000001" },
		),
	),
	msg("e0000005", "e0000004", "2026-03-14T09:30:20.300Z", {
		role: "toolResult",
		toolCallId: "toolu_01MiscGrep00000000000001",
		toolName: "bash",
		content: [{ type: "text", text: "src/a.go:12: // TODO: handle EOF\nsrc/b.go:40: // TODO: retry\n" }],
		isError: false,
		usage: U(100, 10, 0, 0),
		addedToolNames: ["rg"],
		timestamp: z("2026-03-14T09:30:20.290Z"),
	}),
	msg("e0000006", "e0000005", "2026-03-14T09:30:24.000Z", asst("Two TODOs: EOF handling in a.go:12 and a retry in b.go:40.", "2026-03-14T09:30:20.310Z", U(6, 30, 6200, 200))),
	ent("label", "e0000007", "e0000006", "2026-03-14T09:31:00.000Z", { targetId: "deadbeef", label: "ghost" }),
	ent("label", "e0000008", "e0000007", "2026-03-14T09:31:01.000Z", { targetId: "e0000003", label: "todo-request" }),
	ent("label", "e0000009", "e0000008", "2026-03-14T09:31:02.000Z", { targetId: "e0000003", label: "" }),
	ent("label", "e000000a", "e0000009", "2026-03-14T09:31:03.000Z", { targetId: "e0000004" }),
	ent("label", "e000000b", "e000000a", "2026-03-14T09:31:04.000Z", { targetId: "e0000006", label: "answer" }),
	ent("session_info", "e000000c", "e000000b", "2026-03-14T09:31:05.000Z", {}),
	ent("session_info", "e000000d", "e000000c", "2026-03-14T09:31:06.000Z", { name: "  Open\tTODOs  " }),
	ent("compaction", "e000000e", "e000000d", "2026-03-14T09:40:00.000Z", { summary: "Found two TODOs (a.go:12 EOF, b.go:40 retry).", firstKeptEntryId: "ffffffff", tokensBefore: 6531 }),
	ent("branch_summary", "e000000f", "e000000e", "2026-03-14T09:41:00.000Z", { fromId: "root", summary: "" }),
	ent("custom_message", "e0000010", "e000000f", "2026-03-14T09:41:01.000Z", { customType: "reminder", content: "Remember to run go vet.", display: false }),
	msg("e0000011", "e0000010", "2026-03-14T09:41:30.000Z", usr("Fix the EOF one.", "2026-03-14T09:41:29.990Z")),
	msg("e0000012", "e0000011", "2026-03-14T09:41:40.000Z", asst("Handled io.EOF in a.go:12 by returning the partial result.", "2026-03-14T09:41:30.010Z", U(800, 40, 0, 700))),
	ent("compression-stats", "e0000013", "e0000012", "2026-03-14T09:41:40.500Z", { savedTokens: 5200, ratio: 0.2 }),
);

// header whose id is not a string: pi's listing only checks type === "session" (listed, id is a number);
// pi's loader also requires a string id (not loadable, open() throws).
legacy["2026-03-15T08-00-00-000Z_header-numeric-id.jsonl"] = lines(
	{ type: "session", version: 3, id: 20260315, timestamp: "2026-03-15T08:00:00.000Z", cwd: LEGACY_CWD },
	msg("a3000001", null, "2026-03-15T08:00:10.000Z", usr("numeric session id?", "2026-03-15T08:00:09.990Z")),
	msg("a3000002", "a3000001", "2026-03-15T08:00:11.000Z", asst("odd but listed", "2026-03-15T08:00:10.010Z", U(2, 3, 0, 0))),
);

for (const [name, content] of Object.entries(legacy)) writeFileSync(join(LEGACY, name), content);

// ---------------------------------------------------------------------------------------------
// Real files (byte-exact copies) -- only when PI_REAL_FIXTURES points at the fixture folder
// ---------------------------------------------------------------------------------------------
export const REAL_FILES = {
	"kimchi-session-20260427.v3.jsonl": "202a35cb",
	"gjcfork-inline-agent-design.earlier-snapshot.jsonl": "0170b0f5",
	"gjcfork-inline-agent-design.jsonl": "9c35d49b",
	"pimono-session-20251217.v1.jsonl": "cc1fbd63",
	"gjcfork-youtube-transcript.headerless.jsonl": "55e8f207",
};
function gitBlob(buf) {
	return createHash("sha1").update(`blob ${buf.length}\0`).update(buf).digest("hex");
}
const REAL = join(SESSIONS, "--real--");
if (process.env.PI_REAL_FIXTURES) {
	mkdirSync(REAL, { recursive: true });
	for (const [name, blob] of Object.entries(REAL_FILES)) {
		copyFileSync(join(process.env.PI_REAL_FIXTURES, name), join(REAL, name));
	}
}
for (const [name, blob] of Object.entries(REAL_FILES)) {
	const p = join(REAL, name);
	if (!existsSync(p)) {
		console.warn(`warning: missing real fixture ${p} (set PI_REAL_FIXTURES to copy it)`);
		continue;
	}
	const h = gitBlob(readFileSync(p));
	if (!h.startsWith(blob)) throw new Error(`${name}: git blob ${h} does not match expected ${blob}`);
}

rmSync(tmp, { recursive: true, force: true });
console.log(`generated ${generated} pi-written files, ${Object.keys(legacy).length} hand-written files into ${SESSIONS}`);
for (const [k, v] of Object.entries(files)) console.log(`  ${k}: ${v ? v.split(ROOT).join("") : v}`);
