#!/usr/bin/env node
// Computes testdata/golden-openclaw/ from testdata/sessions-openclaw/ with the REAL pi library
// (@earendil-works/pi-coding-agent 1.6.0), exactly as golden.mjs computes testdata/golden/ (same per-file
// schema, lib/golden-lib.mjs): OpenClaw stores its transcripts through pi's SessionManager, so pi's own
// listing, tree, context and usage are the reference for them.
//
//   cd testdata/gen && npm ci && node golden-openclaw.mjs
//
// Output:
//   golden-openclaw/agents/<agentId>/sessions/<file-without-.jsonl>.json   one per transcript (checkpoints included)
//   golden-openclaw/agents/<agentId>/sessions/_listAll.json               SessionManager.listAll(<that folder>), pi's order
// Paths in the goldens are relative to testdata/sessions-openclaw. Temp copies get mtime 2001-02-03T04:05:06.000Z
// (as in golden.mjs); pi's listing uses the mtime only when a file has no usable timestamps.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { installDeterminism } from "./lib/determinism.mjs";

installDeterminism();
const { SessionManager, goldenForFile, mapInfo, writeJson } = await import("./lib/golden-lib.mjs");

const HERE = dirname(fileURLToPath(import.meta.url));
const SESSIONS = join(HERE, "..", "sessions-openclaw");
const GOLDEN = join(HERE, "..", "golden-openclaw");
const FIXED_MTIME = new Date("2001-02-03T04:05:06.000Z");

rmSync(GOLDEN, { recursive: true, force: true });
mkdirSync(GOLDEN, { recursive: true });
const tmp = mkdtempSync(join(tmpdir(), "pidex-openclaw-golden-"));
try {
	const root = join(tmp, "state");
	const folders = readdirSync(join(SESSIONS, "agents"))
		.sort()
		.map((agentId) => `agents/${agentId}/sessions`)
		.filter((f) => statSync(join(SESSIONS, f)).isDirectory());
	let n = 0;
	for (const folder of folders) {
		mkdirSync(join(root, folder), { recursive: true });
		for (const f of readdirSync(join(SESSIONS, folder)).sort()) {
			copyFileSync(join(SESSIONS, folder, f), join(root, folder, f));
			utimesSync(join(root, folder, f), FIXED_MTIME, FIXED_MTIME);
		}
		const infos = (await SessionManager.listAll(join(root, folder))).map((i) => mapInfo(i, root));
		writeJson(join(GOLDEN, folder, "_listAll.json"), infos);
		for (const file of readdirSync(join(SESSIONS, folder))
			.filter((f) => f.endsWith(".jsonl"))
			.sort()) {
			writeJson(join(GOLDEN, folder, `${file.slice(0, -".jsonl".length)}.json`), goldenForFile(SESSIONS, tmp, folder, file, infos));
			n++;
		}
	}
	console.log(`wrote goldens for ${n} files in ${folders.length} agent folders to ${GOLDEN}`);
} finally {
	rmSync(tmp, { recursive: true, force: true });
}
