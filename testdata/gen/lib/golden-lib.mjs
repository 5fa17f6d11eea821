// Shared by golden.mjs (testdata/golden) and golden-openclaw.mjs (testdata/golden-openclaw): the per-file golden
// computed with the REAL pi library (@earendil-works/pi-coding-agent 1.6.0). See README.md for the schema.
// installDeterminism() must have run before this module is imported (it loads pi).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPi, reseed } from "./determinism.mjs";

const { SessionManager, loadEntriesFromFile } = await loadPi();
export { SessionManager };
const MAX_LINES = 2000;
const PI_DIST = join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "@earendil-works", "pi-coding-agent", "dist");

// ---------------------------------------------------------------------------------------------
// pi's own /session statistics (AgentSession.prototype.getSessionStats). agent-session.js cannot be
// imported on Node 20 (its undici dependency needs Node 22), so the method's source text is cut out of
// the installed file and evaluated with pi's own usage-totals helpers. Runs pi's exact code.
// ---------------------------------------------------------------------------------------------
const { createUsageTotals, addUsageToTotals } = await import(new URL(`file://${join(PI_DIST, "core", "usage-totals.js")}`).href);
const getSessionStats = (() => {
	const src = readFileSync(join(PI_DIST, "core", "agent-session.js"), "utf8");
	const start = src.indexOf("    getSessionStats() {");
	const end = src.indexOf("    getContextUsage() {", start);
	if (start < 0 || end < 0) throw new Error("getSessionStats not found in agent-session.js");
	const body = src.slice(start, end).trim();
	// eslint-disable-next-line no-new-func
	return new Function("createUsageTotals", "addUsageToTotals", `return function ${body}`)(createUsageTotals, addUsageToTotals);
})();

// ---------------------------------------------------------------------------------------------
export function fnv1a(s) {
	let h = 0x811c9dc5;
	for (let i = 0; i < s.length; i++) {
		h ^= s.charCodeAt(i);
		h = Math.imul(h, 0x01000193) >>> 0;
	}
	return h;
}
export const rel = (p) => p.split(sep).join("/");
export const iso = (d) => (d && !Number.isNaN(d.getTime()) ? d.toISOString() : null);

/** Physical lines: split the BYTES on 0x0A. A trailing empty segment after a final "\n" is not a line. */
export function physicalLines(buf) {
	const out = [];
	let start = 0;
	for (let i = 0; i <= buf.length; i++) {
		if (i === buf.length || buf[i] === 0x0a) {
			if (i === buf.length && start === buf.length) break;
			const text = buf.subarray(start, i).toString("utf8");
			let status;
			let value;
			// Same rule as pi's parseSessionEntryLine(): skip blank (String.trim), JSON.parse the UNTRIMMED line,
			// keep the result only if it is truthy.
			if (!text.trim()) status = "blank";
			else {
				try {
					value = JSON.parse(text);
					status = value ? "entry" : "falsy";
				} catch {
					status = "malformed";
				}
			}
			out.push({ line: out.length + 1, offset: start, length: i - start, status, value });
			start = i + 1;
		}
	}
	return out;
}

export function isHeader(e) {
	return !!e && e.type === "session" && typeof e.id === "string";
}

export function mapInfo(info, copyRoot) {
	return {
		path: rel(relative(copyRoot, info.path)),
		id: info.id,
		cwd: info.cwd,
		name: info.name ?? null,
		parentSessionPath: info.parentSessionPath ?? null,
		created: iso(info.created),
		modified: iso(info.modified),
		messageCount: info.messageCount,
		firstMessage: info.firstMessage,
		allMessagesText: info.allMessagesText,
	};
}

const ZERO_USAGE = () => ({
	input: 0,
	output: 0,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 0,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	records: 0,
});
/** Sum over ALL entries (every branch, file order, duplicates included -- same carriers and order as pi's getSessionStats). */
export function sumUsage(entries) {
	const t = ZERO_USAGE();
	const add = (u) => {
		if (!u || typeof u !== "object") return;
		const n = (x) => (typeof x === "number" ? x : 0);
		t.input += n(u.input);
		t.output += n(u.output);
		t.cacheRead += n(u.cacheRead);
		t.cacheWrite += n(u.cacheWrite);
		t.totalTokens += typeof u.totalTokens === "number" ? u.totalTokens : n(u.input) + n(u.output) + n(u.cacheRead) + n(u.cacheWrite);
		const c = u.cost ?? {};
		t.cost.input += n(c.input);
		t.cost.output += n(c.output);
		t.cost.cacheRead += n(c.cacheRead);
		t.cost.cacheWrite += n(c.cacheWrite);
		t.cost.total += n(c.total);
		t.records++;
	};
	for (const e of entries) {
		if (!e || typeof e !== "object") continue;
		if (e.type === "usage") add(e.usage);
		else if (e.type === "compaction" || e.type === "branch_summary") add(e.usage);
		else if (e.type === "message" && e.message) {
			if (e.message.role === "assistant" || e.message.role === "toolResult") add(e.message.usage);
		}
	}
	return t;
}

/** Would pi's parent walk (getBranch / buildSessionContext) from `startId` loop forever? */
export function walkLoops(sm, startId) {
	const seen = new Set();
	let cur = startId ? sm.getEntry(startId) : undefined;
	while (cur) {
		if (seen.has(cur)) return true;
		seen.add(cur);
		cur = cur.parentId ? sm.getEntry(cur.parentId) : undefined;
	}
	return false;
}

// ---------------------------------------------------------------------------------------------
// Output formatting: 2-space pretty JSON, except that the elements of a few long arrays are written one
// compact element per line (keeps deep trees and long line tables small and diff-friendly).
// ---------------------------------------------------------------------------------------------
const COMPACT_ELEMENTS = new Set([".lines", ".path", ".labels", ".tree", ".context.messages"]);
export function pretty(v, indent = 0, path = "") {
	const pad = (n) => "  ".repeat(n);
	if (Array.isArray(v)) {
		if (v.length === 0) return "[]";
		const items = COMPACT_ELEMENTS.has(path) ? v.map((x) => JSON.stringify(x)) : v.map((x) => pretty(x, indent + 1, `${path}[]`));
		return `[\n${items.map((s) => pad(indent + 1) + s).join(",\n")}\n${pad(indent)}]`;
	}
	if (v && typeof v === "object") {
		const keys = Object.keys(v);
		if (keys.length === 0) return "{}";
		return `{\n${keys.map((k) => `${pad(indent + 1)}${JSON.stringify(k)}: ${pretty(v[k], indent + 1, `${path}.${k}`)}`).join(",\n")}\n${pad(indent)}}`;
	}
	return JSON.stringify(v);
}
export function writeJson(path, value) {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, `${pretty(JSON.parse(JSON.stringify(value)))}\n`);
}

export function goldenForFile(SESSIONS, tmp, folder, file, infos) {
	const relPath = `${folder}/${file}`;
	reseed(fnv1a(relPath));
	const orig = join(SESSIONS, folder, file);
	const buf = readFileSync(orig);
	const phys = physicalLines(buf);
	const listed = infos.find((i) => i.path === relPath);
	// per-file copy of the listing row; allMessagesText is left out here to save space (it is in _listAll.json)
	const info = listed ? (({ allMessagesText, ...rest }) => ({ ...rest, allMessagesTextLength: allMessagesText.length }))(listed) : null;

	const g = {
		file: relPath,
		size: buf.length,
		endsWithNewline: buf.length > 0 && buf[buf.length - 1] === 0x0a,
		isSession: info !== null,
		lineCount: phys.length,
	};
	if (phys.length < MAX_LINES) {
		g.lines = phys.map(({ line, offset, length, status }) => ({ line, offset, length, parsed: status === "entry", status }));
	}

	// pi's loader on a copy; verify our physical-line model reproduces it exactly
	const copyDir = join(tmp, "copies", folder);
	mkdirSync(copyDir, { recursive: true });
	const loadCopy = join(copyDir, `load-${file}`);
	copyFileSync(orig, loadCopy);
	const piEntries = loadEntriesFromFile(loadCopy);
	const entryLines = phys.filter((l) => l.status === "entry");
	const ours = entryLines.map((l) => l.value);
	if (piEntries.length > 0) {
		if (JSON.stringify(piEntries) !== JSON.stringify(ours)) throw new Error(`${relPath}: line model disagrees with loadEntriesFromFile`);
	} else if (ours.length > 0 && isHeader(ours[0])) {
		throw new Error(`${relPath}: pi rejected a file whose first parsed line is a header`);
	}
	g.loaderAccepts = piEntries.length > 0;
	g.loadedEntries = piEntries.length;

	if (buf.length === 0 || (!g.loaderAccepts && !g.isSession)) return { ...g, info };

	// open a second copy with SessionManager.open (migrates in memory and rewrites the copy)
	const openCopy = join(copyDir, file);
	copyFileSync(orig, openCopy);
	let sm;
	try {
		sm = SessionManager.open(openCopy);
	} catch (err) {
		return { ...g, openError: String(err.message).split(copyDir).join(`<tmp>/${folder}`), info };
	}
	const fileEntries = sm.fileEntries; // private in TS, plain field in JS: header + entries in file order
	if (fileEntries.length !== entryLines.length) throw new Error(`${relPath}: pi holds ${fileEntries.length} entries, ${entryLines.length} parsed lines`);
	const lineOf = new Map();
	const offsetOf = new Map();
	fileEntries.forEach((e, i) => {
		lineOf.set(e, entryLines[i].line);
		offsetOf.set(e, entryLines[i].offset);
	});
	const L = (e) => (e === undefined ? null : (lineOf.get(e) ?? null));

	const origHeader = ours[0];
	const header = sm.getHeader();
	g.version = header?.version ?? null;
	g.originalVersion = origHeader?.version ?? 1;
	g.sessionId = sm.getSessionId();
	g.header = origHeader;
	if (g.originalVersion < 2) g.idsAreSynthetic = true;
	g.entryCount = sm.getEntries().length;
	g.uniqueIdCount = sm.getEntryCount();

	const leafId = sm.getLeafId();
	g.leaf = leafId == null ? null : { line: L(sm.getLeafEntry()), id: leafId };

	const hangs = walkLoops(sm, leafId);
	if (hangs) g.hangs = true; // pi's getBranch()/buildSessionContext() would never return: not called

	const slim = (e, extra = {}) => {
		const o = { line: L(e), ...extra, id: e?.id ?? null, parentId: e?.parentId ?? null, type: e?.type ?? null };
		if (e?.type === "message") o.role = e.message?.role;
		o.timestamp = e?.timestamp ?? null;
		return o;
	};
	if (!hangs) g.path = sm.getBranch().map((e) => slim(e, { offset: offsetOf.get(e) ?? null }));

	g.labels = [...sm.labelsById.entries()]
		.map(([targetId, label]) => ({
			targetId,
			targetLine: L(sm.getEntry(targetId)),
			label,
			timestamp: sm.labelTimestampsById.get(targetId) ?? null,
		}))
		.sort((a, b) => (a.targetLine ?? Infinity) - (b.targetLine ?? Infinity) || (a.targetId < b.targetId ? -1 : a.targetId > b.targetId ? 1 : 0));
	g.name = sm.getSessionName() ?? null;

	g.usage = sumUsage(sm.getEntries());
	try {
		const s = getSessionStats.call({ sessionManager: sm, sessionFile: undefined, sessionId: sm.getSessionId(), getContextUsage: () => undefined });
		g.sessionStats = {
			userMessages: s.userMessages,
			assistantMessages: s.assistantMessages,
			toolCalls: s.toolCalls,
			toolResults: s.toolResults,
			totalMessages: s.totalMessages,
			tokens: s.tokens,
			cost: s.cost,
		};
		const u = g.usage;
		if (s.tokens.input !== u.input || s.tokens.output !== u.output || s.tokens.cacheRead !== u.cacheRead || s.tokens.cacheWrite !== u.cacheWrite || s.cost !== u.cost.total) {
			throw new Error(`${relPath}: script usage sum disagrees with pi getSessionStats`);
		}
	} catch (err) {
		if (String(err.message).includes("disagrees")) throw err;
		g.sessionStats = { error: String(err.message) };
	}

	const conv = (node) => {
		const o = slim(node.entry);
		if (node.label !== undefined) o.label = node.label;
		if (node.labelTimestamp !== undefined) o.labelTimestamp = node.labelTimestamp;
		o.children = node.children.map(conv);
		return o;
	};
	g.tree = sm.getTree().map(conv);

	if (!hangs) {
		const ctx = sm.buildSessionContext();
		g.context = { thinkingLevel: ctx.thinkingLevel, model: ctx.model, messages: ctx.messages };
	}
	g.info = info;
	return g;
}

