// Computes golden expectations with oh-my-pi's OWN code (@oh-my-pi/pi-coding-agent 18.2.3 and its
// @oh-my-pi/omp-stats 18.2.3) for one omp profile of the fake ~/.omp that golden.ts prepared
// (HOME=/home/ann, PI_CONFIG_DIR pointing at a temp copy of testdata/sessions-omp, file mtimes fixed).
// Prints one JSON object on stdout: { listAll, lists: {folder: rows}, files: {relPath: golden} }.
//
//   OMP_GEN_PART=main     default profile (~/.omp/agent)
//   OMP_GEN_PART=profile  run with OMP_PROFILE=work
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { installDeterminism, reseed } from "./determinism.ts";

installDeterminism(); // omp's code under test reads the clock and mints ids when it opens files
const { SessionManager } = await import("@oh-my-pi/pi-coding-agent/session/session-manager");
const { loadSessionFile } = await import("@oh-my-pi/pi-coding-agent/session/session-loader");
const { parseTitleSlotLine } = await import("@oh-my-pi/pi-coding-agent/session/session-title-slot");
const { getSessionsDir, getBlobsDir, getAgentDir, getConfigRootDir } = await import("@oh-my-pi/pi-utils/dirs");
const { parseSessionFile } = await import("@oh-my-pi/omp-stats/parser");

const OMP_ROOT = getConfigRootDir().replace(/\/profiles\/[^/]+$/, ""); // the fake ~/.omp (temp copy)
const SESSIONS = getSessionsDir();
const SCRATCH = process.env.OMP_GOLDEN_SCRATCH!;
const relOmp = (p: string) => relative(OMP_ROOT, p);
const iso = (d: Date | undefined) => (d && !Number.isNaN(d.getTime()) ? d.toISOString() : null);

function fnv1a(s: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < s.length; i++) {
		h ^= s.charCodeAt(i);
		h = Math.imul(h, 0x01000193) >>> 0;
	}
	return h;
}

type Info = Awaited<ReturnType<typeof SessionManager.listAll>>[number];
function mapInfo(i: Info) {
	return {
		path: relOmp(i.path),
		id: i.id,
		cwd: i.cwd,
		title: i.title ?? null,
		parentSessionPath: i.parentSessionPath ?? null,
		created: iso(i.created),
		modified: iso(i.modified),
		messageCount: i.messageCount,
		size: i.size,
		firstMessage: i.firstMessage,
		allMessagesText: i.allMessagesText,
		status: i.status ?? null,
	};
}

/** Physical lines: the bytes split on 0x0A; the empty segment after a final "\n" is not a line. */
function physicalLines(buf: Buffer) {
	const out: Array<{ line: number; offset: number; length: number; kind: string; value?: unknown }> = [];
	let start = 0;
	for (let i = 0; i <= buf.length; i++) {
		if (i === buf.length || buf[i] === 0x0a) {
			if (i === buf.length && start === buf.length) break;
			const text = buf.subarray(start, i).toString("utf8");
			let kind: string;
			let value: unknown;
			if (!text.trim()) kind = "blank";
			else if (out.length === 0 && parseTitleSlotLine(text)) kind = "titleSlot";
			else {
				try {
					value = JSON.parse(text);
					kind = (value as { type?: string })?.type === "session" ? "header" : "entry";
				} catch {
					kind = "malformed";
				}
			}
			out.push({ line: out.length + 1, offset: start, length: i - start, kind, value });
			start = i + 1;
		}
	}
	return out;
}

function walkJsonl(dir: string): string[] {
	const out: string[] = [];
	let names: string[] = [];
	try {
		names = readdirSync(dir).sort();
	} catch {
		return out;
	}
	for (const name of names) {
		const p = join(dir, name);
		if (statSync(p).isDirectory()) out.push(...walkJsonl(p));
		else if (name.endsWith(".jsonl")) out.push(p);
	}
	return out;
}

const result: Record<string, unknown> = {};

// ---- listings: what omp's session picker (/resume, --resume) shows, in omp's order
result.listAll = (await SessionManager.listAll()).map(mapInfo);
const lists: Record<string, unknown> = {};
for (const folder of readdirSync(SESSIONS).sort()) {
	const dir = join(SESSIONS, folder);
	if (!statSync(dir).isDirectory()) continue;
	lists[relOmp(dir)] = (await SessionManager.list("/nonexistent-cwd", dir)).map(mapInfo);
}
result.lists = lists;

// ---- per file: every *.jsonl under the sessions root, subagent transcripts in artifacts folders included
const files: Record<string, unknown> = {};
const listedByPath = new Map<string, ReturnType<typeof mapInfo>>();
for (const rows of Object.values(lists) as ReturnType<typeof mapInfo>[][]) for (const r of rows) listedByPath.set(r.path, r);

for (const file of walkJsonl(SESSIONS)) {
	const rel = relOmp(file);
	reseed(fnv1a(rel));
	const buf = readFileSync(file);
	const phys = physicalLines(buf);
	const g: Record<string, unknown> = { file: rel, size: buf.length, endsWithNewline: buf.length > 0 && buf[buf.length - 1] === 0x0a };
	g.lines = phys.map(({ line, offset, length, kind }) => ({ line, offset, length, kind }));
	const slotLine = phys[0]?.kind === "titleSlot" ? phys[0] : undefined;
	g.titleSlot = slotLine ? { ...parseTitleSlotLine(buf.subarray(0, slotLine.length).toString("utf8"))!, bytes: slotLine.length + 1 } : null;
	g.listed = listedByPath.get(rel) ?? null; // null: not in SessionManager.list of its folder (subagent transcripts)

	// omp's loader (read-only): title slot folded into the header
	const loaded = await loadSessionFile(file);
	g.loader = {
		entries: loaded.entries.length,
		malformedRecords: loaded.malformedRecords,
		invalidHeader: loaded.invalidHeader,
		titleSlot: loaded.titleSlot ?? null,
		header: loaded.entries[0] ?? null,
	};
	const entryLines = phys.filter(l => l.kind === "header" || l.kind === "entry");
	if (entryLines.length !== loaded.entries.length) throw new Error(`${rel}: ${entryLines.length} JSON lines, omp loaded ${loaded.entries.length}`);
	entryLines.forEach((l, i) => {
		const a = (l.value as { id?: string }).id;
		const b = (loaded.entries[i] as { id?: string }).id;
		if (a !== b) throw new Error(`${rel}: line ${l.line} id ${a} != loaded ${b}`);
	});

	// omp's SessionManager on a copy (open() resolves blob refs and may repair/rewrite the file it opens)
	const copy = join(SCRATCH, rel);
	mkdirSync(dirname(copy), { recursive: true });
	copyFileSync(file, copy);
	const sm = await SessionManager.open(copy, undefined, undefined, { suppressBreadcrumb: true });
	const entries = sm.getEntries();
	const lineOf = new Map<unknown, number>();
	const offsetOf = new Map<unknown, number>();
	const bodyLines = entryLines.slice(1); // after the header
	if (bodyLines.length !== entries.length) throw new Error(`${rel}: ${bodyLines.length} entry lines, omp holds ${entries.length}`);
	entries.forEach((e, i) => {
		if (e.id !== (bodyLines[i].value as { id?: string }).id) throw new Error(`${rel}: entry ${i} id mismatch`);
		lineOf.set(e, bodyLines[i].line);
		offsetOf.set(e, bodyLines[i].offset);
	});
	const slim = (e: (typeof entries)[number], extra: Record<string, unknown> = {}) => {
		const o: Record<string, unknown> = { line: lineOf.get(e) ?? null, ...extra, id: e.id, parentId: e.parentId, type: e.type };
		if (e.type === "message") o.role = (e.message as { role: string }).role;
		o.timestamp = e.timestamp;
		return o;
	};
	g.sessionId = sm.getSessionId();
	g.header = sm.getHeader();
	g.name = sm.getSessionName() ?? null;
	g.titleSource = sm.titleSource ?? null;
	g.entryCount = entries.length;
	const leafId = sm.getLeafId();
	g.leaf = leafId ? { line: lineOf.get(sm.getLeafEntry()) ?? null, id: leafId } : null;
	g.path = sm.getBranch().map(e => slim(e, { offset: offsetOf.get(e) ?? null }));
	const labels: Array<{ targetId: string; targetLine: number | null; label: string }> = [];
	for (const e of entries) {
		const label = sm.getLabel(e.id);
		if (label !== undefined) labels.push({ targetId: e.id, targetLine: lineOf.get(e) ?? null, label });
	}
	g.labels = labels;
	type Node = ReturnType<typeof sm.getTree>[number];
	const conv = (n: Node): Record<string, unknown> => {
		const o = slim(n.entry);
		if (n.label !== undefined) o.label = n.label;
		o.children = n.children.map(conv);
		return o;
	};
	g.tree = sm.getTree().map(conv);
	const ctx = sm.buildSessionContext();
	g.context = {
		thinkingLevel: ctx.thinkingLevel ?? null,
		configuredThinkingLevel: ctx.configuredThinkingLevel ?? null,
		serviceTier: ctx.serviceTier ?? null,
		models: ctx.models,
		injectedTtsrRules: ctx.injectedTtsrRules,
		mode: ctx.mode,
		modeData: ctx.modeData ?? null,
		messages: ctx.messages,
	};
	// the same rebuild at every other leaf of the tree (entries without children), as omp does after /tree
	const hasChild = new Set(entries.map(e => e.parentId));
	const otherLeaves = entries.filter(e => !hasChild.has(e.id) && e.id !== leafId);
	g.otherLeafContexts = otherLeaves.map(e => {
		sm.branch(e.id);
		const c = sm.buildSessionContext();
		return {
			leaf: { line: lineOf.get(e) ?? null, id: e.id },
			thinkingLevel: c.thinkingLevel ?? null,
			models: c.models,
			mode: c.mode,
			messages: c.messages.map(m => ({ role: m.role, timestamp: (m as { timestamp?: unknown }).timestamp ?? null })),
		};
	});
	if (leafId) sm.branch(leafId);
	g.usageStatistics = sm.getUsageStatistics();

	// omp stats (`omp stats`, @oh-my-pi/omp-stats parser): one record per LLM call it bills
	const parsed = await parseSessionFile(file);
	g.statsRecords = parsed.stats.map(s => ({
		entryId: s.entryId,
		line: entryLines.find(l => (l.value as { id?: string }).id === s.entryId)?.line ?? null,
		agentType: s.agentType,
		folder: s.folder,
		provider: s.provider,
		model: s.model,
		api: s.api,
		timestamp: s.timestamp,
		stopReason: s.stopReason,
		usage: s.usage,
	}));
	files[rel] = g;
}
result.files = files;
result.dirs = { agentDir: relOmp(getAgentDir()), sessionsDir: relOmp(SESSIONS), blobsDir: relOmp(getBlobsDir()) };
void basename;
process.stdout.write(`${JSON.stringify(result)}\n`);
