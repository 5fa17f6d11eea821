#!/usr/bin/env bun
// Computes testdata/golden-omp/ from testdata/sessions-omp/ with oh-my-pi's OWN code
// (@oh-my-pi/pi-coding-agent 18.2.3 and @oh-my-pi/omp-stats 18.2.3). See README.md.
//
//   cd testdata/gen/omp && npm install && node_modules/.bin/bun --no-install golden.ts
//
// testdata/sessions-omp is only read: it is copied to a temp dir that becomes ~/.omp for omp
// (HOME=/home/ann, PI_CONFIG_DIR -> the copy), and every session file is opened from a second copy
// (omp's open() may repair files it opens). The copies get fixed mtimes, listed in _mtimes.json:
// omp's listing reports the file mtime as `modified` and sorts by it, so a Go test must give its own
// copy the same mtimes (os.Chtimes) before comparing listings.
import { spawnSync } from "bun";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";

const HERE = import.meta.dir;
const CORPUS = join(HERE, "..", "..", "sessions-omp");
const GOLDEN = join(HERE, "..", "..", "golden-omp");
const FAKE_HOME = "/home/ann";
const BUN = process.execPath;

function walk(dir: string): string[] {
	const out: string[] = [];
	for (const name of readdirSync(dir).sort()) {
		const p = join(dir, name);
		if (statSync(p).isDirectory()) out.push(...walk(p));
		else out.push(p);
	}
	return out;
}

/** mtime for a corpus file: 250 ms after the newest timestamp written in it (entries, header, title slot). */
function mtimeFor(file: string, fallback: number): number {
	if (!file.endsWith(".jsonl")) return fallback;
	let max = Number.NEGATIVE_INFINITY;
	for (const line of readFileSync(file, "utf8").split("\n")) {
		if (!line.trim()) continue;
		try {
			const o = JSON.parse(line) as { timestamp?: unknown; updatedAt?: unknown };
			for (const v of [o.timestamp, o.updatedAt]) {
				const t = typeof v === "string" ? Date.parse(v) : Number.NaN;
				if (Number.isFinite(t) && t > max) max = t;
			}
		} catch {}
	}
	return Number.isFinite(max) ? max + 250 : fallback;
}

// 2-space JSON, with the elements of a few long arrays one compact value per line (as testdata/golden)
const COMPACT = new Set([".lines", ".path", ".labels", ".tree", ".context.messages", ".statsRecords", ".otherLeafContexts"]);
function pretty(v: unknown, indent = 0, path = ""): string {
	const pad = (n: number) => "  ".repeat(n);
	if (Array.isArray(v)) {
		if (v.length === 0) return "[]";
		const items = COMPACT.has(path) ? v.map(x => JSON.stringify(x)) : v.map(x => pretty(x, indent + 1, `${path}[]`));
		return `[\n${items.map(s => pad(indent + 1) + s).join(",\n")}\n${pad(indent)}]`;
	}
	if (v && typeof v === "object") {
		const keys = Object.keys(v);
		if (keys.length === 0) return "{}";
		return `{\n${keys.map(k => `${pad(indent + 1)}${JSON.stringify(k)}: ${pretty((v as Record<string, unknown>)[k], indent + 1, `${path}.${k}`)}`).join(",\n")}\n${pad(indent)}}`;
	}
	return JSON.stringify(v);
}
function writeJson(path: string, value: unknown) {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, `${pretty(JSON.parse(JSON.stringify(value)))}\n`);
}

const tmp = mkdtempSync(join(tmpdir(), "pidex-omp-golden-"));
try {
	const ompRoot = join(tmp, ".omp");
	cpSync(CORPUS, ompRoot, { recursive: true });
	const mtimes: Record<string, string> = {};
	const BASE = Date.parse("2026-10-01T00:00:00.000Z");
	// Two overrides so the listing order is not just the content order: O9 was touched later than every other
	// file (listed first although its content is the oldest), and O3 gets exactly O4's mtime (the tie is
	// broken by `created`, then by path; session-listing.ts collectSessionsFromFiles).
	const manifest = JSON.parse(readFileSync(join(HERE, "manifest.json"), "utf8")) as Record<string, string>;
	const override = new Map<string, number>([
		[manifest["O9-legacy-no-slot"], Date.parse("2026-10-13T08:00:00.000Z")],
		[manifest["O3-reset-then-ext-compaction"], mtimeFor(join(ompRoot, manifest["O4-parent"]), BASE)],
	]);
	for (const f of walk(ompRoot)) {
		const t = override.get(relative(ompRoot, f)) ?? mtimeFor(f, BASE);
		utimesSync(f, new Date(t), new Date(t));
		if (f.endsWith(".jsonl")) mtimes[relative(ompRoot, f)] = new Date(t).toISOString();
	}

	const results: Record<string, any> = {};
	for (const [part, extra] of [
		["main", {}],
		["profile", { OMP_PROFILE: "work" }],
	] as const) {
		const env: Record<string, string> = {};
		for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(OMP_|PI_|XDG_)/.test(k)) env[k] = v;
		const scratch = join(tmp, `open-${part}`);
		mkdirSync(scratch, { recursive: true });
		Object.assign(env, {
			HOME: FAKE_HOME,
			PI_CONFIG_DIR: relative(FAKE_HOME, ompRoot),
			TMPDIR: "/tmp",
			TZ: "UTC",
			BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0",
			BUN_INSTALL_CACHE_DIR: join(tmp, "bun-cache"),
			OMP_GEN_PART: part,
			OMP_GOLDEN_SCRATCH: scratch,
			...extra,
		});
		const r = spawnSync([BUN, "--no-install", "run", join(HERE, "lib", "compute-goldens.ts")], { cwd: scratch, env, stdout: "pipe", stderr: "pipe" });
		if (r.exitCode !== 0) {
			process.stderr.write(r.stderr.toString());
			throw new Error(`compute-goldens.ts (${part}) failed with exit ${r.exitCode}`);
		}
		const out = r.stdout.toString().trim().split("\n").at(-1)!;
		results[part] = JSON.parse(out);
	}

	rmSync(GOLDEN, { recursive: true, force: true });
	mkdirSync(GOLDEN, { recursive: true });
	writeJson(join(GOLDEN, "_mtimes.json"), mtimes);
	let n = 0;
	for (const part of ["main", "profile"]) {
		const res = results[part];
		writeJson(join(GOLDEN, res.dirs.agentDir, "_listAll.json"), res.listAll);
		writeJson(join(GOLDEN, res.dirs.agentDir, "_dirs.json"), res.dirs);
		for (const [folder, rows] of Object.entries(res.lists)) writeJson(join(GOLDEN, folder, "_list.json"), rows);
		for (const [rel, g] of Object.entries(res.files)) {
			writeJson(join(GOLDEN, `${rel.slice(0, -".jsonl".length)}.json`), g);
			n++;
		}
	}
	console.log(`wrote goldens for ${n} session files to ${relative(process.cwd(), GOLDEN) || GOLDEN}`);
} finally {
	rmSync(tmp, { recursive: true, force: true });
}
