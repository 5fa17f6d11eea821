#!/usr/bin/env bun
// Writes pidex's oh-my-pi corpus, testdata/sessions-omp/, with the REAL oh-my-pi library
// (@oh-my-pi/pi-coding-agent 18.2.3, pinned in package.json / package-lock.json). See README.md.
//
//   cd testdata/gen/omp && npm install && node_modules/.bin/bun --no-install generate.ts
//
// testdata/sessions-omp/ is a fake ~/.omp of user `ann` (HOME=/home/ann):
//   agent/sessions/<folder>/<ts>_<id>.jsonl        sessions, omp's folder names (-proj-omega, -tmp-scratch, --srv-billing--, -)
//   agent/sessions/<folder>/<ts>_<id>/…            the session's artifacts folder (spilled tool output, subagent transcripts)
//   agent/blobs/<sha256>[.png]                     content-addressed blobs (images moved out of the JSONL)
//   profiles/work/agent/{sessions,blobs}/…         the same for the named profile `work` (OMP_PROFILE=work)
//
// How: lib/write-corpus.ts runs in a child Bun process with HOME=/home/ann (so omp names the folders of
// /home/ann/... cwds as it would on ann's machine) and PI_CONFIG_DIR set to a relative path that points
// ~/.omp into a temp dir (dirs.ts: getBaseConfigRoot() = join(homedir(), PI_CONFIG_DIR)), so omp writes
// nothing outside that temp dir. The outputs are then copied here. Post-processing, the only changes to
// omp's bytes:
//   1. the temp prefix of absolute paths omp wrote (header parentSession of createBranchedSession and
//      of subagent files, the task result's outputPath) is replaced by /home/ann/.omp;
//   2. O9 (manifest "O9-legacy-no-slot") loses its first 256 bytes, the title slot, to give a file as omp
//      wrote it before the title slot existed (header first).
// Deterministic: the child replaces Date, crypto.randomUUID/getRandomValues and Bun.randomUUIDv7 by a fake
// clock and a seeded PRNG (lib/determinism.ts). Running this twice gives identical files.
import { spawnSync } from "bun";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";

const HERE = import.meta.dir;
const OUT = join(HERE, "..", "..", "sessions-omp");
const FAKE_HOME = "/home/ann";
const FAKE_OMP = `${FAKE_HOME}/.omp`;
const BUN = process.execPath;

const tmp = mkdtempSync(join(tmpdir(), "pidex-omp-gen-"));
const ompRoot = join(tmp, ".omp");
const manifest: Record<string, string> = {};

function run(part: string, extraEnv: Record<string, string>) {
	const env: Record<string, string> = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (v === undefined) continue;
		if (/^(OMP_|PI_|XDG_)/.test(k)) continue; // no user profile / agent dir / XDG redirection leaks in
		env[k] = v;
	}
	Object.assign(env, {
		HOME: FAKE_HOME,
		PI_CONFIG_DIR: relative(FAKE_HOME, ompRoot), // ../../tmp/pidex-omp-gen-XXXX/.omp
		TMPDIR: "/tmp",
		TZ: "UTC",
		BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0",
		BUN_INSTALL_CACHE_DIR: join(tmp, "bun-cache"),
		OMP_GEN_PART: part,
		...extraEnv,
	});
	const r = spawnSync([BUN, "--no-install", "run", join(HERE, "lib", "write-corpus.ts")], { cwd: tmp, env, stdout: "pipe", stderr: "pipe" });
	const out = r.stdout.toString();
	if (r.exitCode !== 0) {
		process.stderr.write(r.stderr.toString());
		throw new Error(`write-corpus.ts (${part}) failed with exit ${r.exitCode}`);
	}
	const last = out.trim().split("\n").at(-1) ?? "{}";
	Object.assign(manifest, JSON.parse(last));
}

function walk(dir: string): string[] {
	const out: string[] = [];
	for (const name of readdirSync(dir).sort()) {
		const p = join(dir, name);
		if (statSync(p).isDirectory()) out.push(...walk(p));
		else out.push(p);
	}
	return out;
}

try {
	run("main", {});
	run("profile", { OMP_PROFILE: "work" });
	if (existsSync(FAKE_HOME)) throw new Error(`${FAKE_HOME} exists: omp wrote outside the temp dir`);

	rmSync(OUT, { recursive: true, force: true });
	const copies: Array<[string, string]> = [
		["agent/sessions", "agent/sessions"],
		["agent/blobs", "agent/blobs"],
		["profiles/work/agent/sessions", "profiles/work/agent/sessions"],
		["profiles/work/agent/blobs", "profiles/work/agent/blobs"],
	];
	for (const [from, to] of copies) {
		const src = join(ompRoot, from);
		if (!existsSync(src)) throw new Error(`omp wrote no ${from}`);
		mkdirSync(dirname(join(OUT, to)), { recursive: true });
		cpSync(src, join(OUT, to), { recursive: true });
	}
	// empty per-cwd folders omp creates eagerly (getDefaultSessionDir + ensureDirSync) but never fills:
	// git cannot keep them, drop them so the corpus is what git stores
	for (const base of ["agent/sessions", "profiles/work/agent/sessions"]) {
		for (const d of readdirSync(join(OUT, base))) {
			const p = join(OUT, base, d);
			if (statSync(p).isDirectory() && readdirSync(p).length === 0) rmSync(p, { recursive: true });
		}
	}

	const legacy = manifest["O9-legacy-no-slot"];
	for (const file of walk(OUT)) {
		if (!file.endsWith(".jsonl")) continue;
		let buf = readFileSync(file);
		const text = buf.toString("utf8");
		if (text.includes(ompRoot)) buf = Buffer.from(text.split(ompRoot).join(FAKE_OMP), "utf8");
		const rel = relative(OUT, file);
		if (legacy && rel === relative(ompRoot, legacy)) {
			const firstLine = buf.subarray(0, buf.indexOf(0x0a) + 1);
			if (firstLine.length !== 256 || !firstLine.toString().startsWith('{"type":"title"')) throw new Error("O9: no title slot to strip");
			buf = buf.subarray(256);
		}
		writeFileSync(file, buf);
	}
	for (const file of walk(OUT)) {
		if (readFileSync(file).includes(tmp)) throw new Error(`${file} still contains the temp path`);
	}

	const rels: Record<string, string> = {};
	for (const [name, abs] of Object.entries(manifest)) rels[name] = relative(ompRoot, abs);
	writeFileSync(join(HERE, "manifest.json"), `${JSON.stringify(rels, null, 2)}\n`);
	const files = walk(OUT);
	const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
	console.log(`wrote ${files.length} files (${bytes} bytes) under ${relative(process.cwd(), OUT) || OUT}`);
} finally {
	rmSync(tmp, { recursive: true, force: true });
}
