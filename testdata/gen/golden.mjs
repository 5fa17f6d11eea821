#!/usr/bin/env node
// Computes golden expectations for every testdata/sessions/<folder>/*.jsonl with the REAL pi library
// (@earendil-works/pi-coding-agent 1.6.0) and writes them to testdata/golden/.
//
//   cd testdata/gen && npm install && node golden.mjs
//
// pi rewrites files it opens (v1/v2 migration, missing final newline, header into empty files), so every
// pi call works on a throw-away COPY in a temp dir; testdata/sessions is only read.
// Output is deterministic: pi's random ids (assigned to v1 entries on migration) come from a seeded PRNG
// (seed = FNV-1a of the file's relative path), and temp copies get a fixed mtime (see FIXED_MTIME).
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { installDeterminism } from "./lib/determinism.mjs";

installDeterminism();
const { SessionManager, goldenForFile, mapInfo, writeJson } = await import("./lib/golden-lib.mjs");

const HERE = dirname(fileURLToPath(import.meta.url));
const SESSIONS = join(HERE, "..", "sessions");
const GOLDEN = join(HERE, "..", "golden");
/** mtime given to every temp copy: a listing `modified` equal to this means "fell back to the file mtime". */
const FIXED_MTIME = new Date("2001-02-03T04:05:06.000Z");

// ---------------------------------------------------------------------------------------------
async function main() {
	rmSync(GOLDEN, { recursive: true, force: true });
	mkdirSync(GOLDEN, { recursive: true });
	const tmp = mkdtempSync(join(tmpdir(), "pidex-golden-"));
	try {
		// 1. a pi agent dir whose sessions root is a copy of testdata/sessions (read-only use: listings)
		const agentDir = join(tmp, "agent");
		const listRoot = join(agentDir, "sessions");
		const folders = readdirSync(SESSIONS)
			.filter((f) => statSync(join(SESSIONS, f)).isDirectory())
			.sort();
		// Folders too (pi-subagents' child runs lie deeper): pi's listing, which is not recursive, is given
		// the same tree and lists none of them.
		const copyTree = (rel) => {
			mkdirSync(join(listRoot, rel), { recursive: true });
			for (const f of readdirSync(join(SESSIONS, rel)).sort()) {
				if (statSync(join(SESSIONS, rel, f)).isDirectory()) {
					copyTree(join(rel, f));
					continue;
				}
				const dst = join(listRoot, rel, f);
				copyFileSync(join(SESSIONS, rel, f), dst);
				utimesSync(dst, FIXED_MTIME, FIXED_MTIME);
			}
		};
		for (const folder of folders) copyTree(folder);
		process.env.PI_CODING_AGENT_DIR = agentDir;
		// listAll() over the whole sessions root (all folders): only order + identity, the full infos are in the
		// per-folder files.
		const rootInfos = await SessionManager.listAll();
		writeJson(
			join(GOLDEN, "_listAllRoot.json"),
			rootInfos.map((i) => {
				const m = mapInfo(i, listRoot);
				return { path: m.path, id: m.id, modified: m.modified };
			}),
		);

		let nFiles = 0;
		for (const folder of folders) {
			const infos = (await SessionManager.listAll(join(listRoot, folder))).map((i) => mapInfo(i, listRoot));
			writeJson(join(GOLDEN, folder, "_listAll.json"), infos);
			const files = readdirSync(join(SESSIONS, folder))
				.filter((f) => f.endsWith(".jsonl") && statSync(join(SESSIONS, folder, f)).isFile())
				.sort();
			for (const file of files) {
				const g = goldenForFile(SESSIONS, tmp, folder, file, infos);
				writeJson(join(GOLDEN, folder, `${file.slice(0, -".jsonl".length)}.json`), g);
				nFiles++;
			}
		}
		console.log(`wrote goldens for ${nFiles} files in ${folders.length} folders to ${GOLDEN}`);
	} finally {
		rmSync(tmp, { recursive: true, force: true });
	}
}

await main();
