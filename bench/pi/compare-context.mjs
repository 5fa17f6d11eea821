// Compares `pidex show --context --json` with pi's own buildSessionContext()
// for every session file under a sessions root (or the first N), message by
// message. pi's functions run on the file's content in memory: nothing is
// written (pi's loader would append a missing final newline).
//
//   pidex --db DB --sessions CORPUS index
//   node bench/pi/compare-context.mjs CORPUS DB [N] [PIDEX_BINARY]
//
// Exit status 0 when every context agrees, 1 otherwise.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";

const here = path.dirname(fileURLToPath(import.meta.url));
const [corpus, db, limit = "1000000", pidex = "pidex"] = process.argv.slice(2);
if (!corpus || !db) {
	console.error("usage: node compare-context.mjs <sessions-root> <catalog> [N] [pidex binary]");
	process.exit(2);
}
const pkgDir = process.env.PI_PKG_DIR || path.join(here, "node_modules", "@earendil-works", "pi-coding-agent");
const sm = await import(pathToFileURL(path.join(pkgDir, "dist", "core", "session-manager.js")).href);

const files = [];
for (const d of fs.readdirSync(corpus, { withFileTypes: true })) {
	if (!d.isDirectory()) continue;
	for (const f of fs.readdirSync(path.join(corpus, d.name)).sort()) {
		if (f.endsWith(".jsonl")) files.push(path.resolve(corpus, d.name, f));
	}
}
let checked = 0;
const diffs = [];
for (const file of files.slice(0, Number(limit))) {
	const entries = sm.parseSessionEntries(fs.readFileSync(file, "utf8"));
	if (entries.length === 0 || entries[0].type !== "session" || typeof entries[0].id !== "string") continue;
	sm.migrateSessionEntries(entries);
	const want = JSON.parse(JSON.stringify(sm.buildSessionContext(entries.filter((e) => e.type !== "session"))));
	const got = JSON.parse(
		execFileSync(pidex, ["--db", db, "--no-refresh", "show", file, "--context", "--json"], { maxBuffer: 1 << 30 }),
	);
	checked++;
	if (!isDeepStrictEqual(got, want)) {
		const i = want.messages.findIndex((m, k) => !isDeepStrictEqual(m, got.messages[k]));
		diffs.push(`${file}: ${got.messages.length} vs ${want.messages.length} messages, first difference at #${i}`);
	}
}
console.log(`${checked} sessions compared, ${diffs.length} differences`);
for (const d of diffs.slice(0, 10)) console.log("  " + d);
process.exit(diffs.length ? 1 : 0);
