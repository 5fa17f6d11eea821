// Compares `pidex show --context --json` with pi's own buildSessionContext()
// for every session file under a sessions root (or the first N), message by
// message. pi's functions run on the file's content in memory: nothing is
// written (pi's loader would append a missing final newline).
//
//   pidex --db DB --sessions CORPUS index
//   node bench/pi/compare-context.mjs CORPUS DB [N] [PIDEX_BINARY]
//
// Exit status 0 when every context agrees, 1 otherwise.
import fs from "node:fs";
import { isDeepStrictEqual } from "node:util";

import { args, pidexJSON, sessionFiles, sessionManager } from "./lib.mjs";

const opt = args("compare-context.mjs");
const sm = await sessionManager();
const files = sessionFiles(opt.corpus);
let checked = 0;
const diffs = [];
for (const file of files.slice(0, opt.limit)) {
	const entries = sm.parseSessionEntries(fs.readFileSync(file, "utf8"));
	if (entries.length === 0 || entries[0].type !== "session" || typeof entries[0].id !== "string") continue;
	sm.migrateSessionEntries(entries);
	const want = JSON.parse(JSON.stringify(sm.buildSessionContext(entries.filter((e) => e.type !== "session"))));
	const got = pidexJSON(opt, "show", file, "--context");
	checked++;
	if (!isDeepStrictEqual(got, want)) {
		const i = want.messages.findIndex((m, k) => !isDeepStrictEqual(m, got.messages[k]));
		diffs.push(`${file}: ${got.messages.length} vs ${want.messages.length} messages, first difference at #${i}`);
	}
}
console.log(`${checked} sessions compared, ${diffs.length} differences`);
for (const d of diffs.slice(0, 10)) console.log("  " + d);
process.exit(diffs.length ? 1 : 0);
