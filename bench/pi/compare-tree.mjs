// Compares `pidex tree --json` and `pidex path --json` with pi's getTree()
// and getBranch() for every session file under a sessions root (or the
// first N): same nodes, parents, labels and child order; same path. pi's
// SessionManager runs on an in-memory copy of each file (open() would
// rewrite old files and repair missing final newlines).
//
//   pidex --db DB --sessions CORPUS index
//   node bench/pi/compare-tree.mjs CORPUS DB [N] [PIDEX_BINARY]
import fs from "node:fs";

import { args, pidexJSON, sessionFiles, sessionManager } from "./lib.mjs";

const opt = args("compare-tree.mjs");
const sm = await sessionManager();
const files = sessionFiles(opt.corpus);
// Trees are flattened depth-first into lines (children in order), without
// recursion: a long conversation is a chain thousands of nodes deep.
function flatten(roots, get) {
	const out = [];
	const stack = roots.map((n) => [n, 0]).reverse();
	while (stack.length) {
		const [n, depth] = stack.pop();
		const v = get(n);
		out.push(`${depth} ${v.id} <${v.parentId ?? ""} ${v.type} [${v.label ?? ""}]`);
		for (let i = v.children.length - 1; i >= 0; i--) stack.push([v.children[i], depth + 1]);
	}
	return out.join("\n");
}
const piNode = (n) => ({ ...n.entry, label: n.label, children: n.children });
const pidexNode = (n) => n;

let checked = 0;
const diffs = [];
for (const file of files.slice(0, opt.limit)) {
	const entries = sm.parseSessionEntries(fs.readFileSync(file, "utf8"));
	if (entries.length === 0 || entries[0].type !== "session" || typeof entries[0].id !== "string") continue;
	if ((entries[0].version ?? 1) < 2) continue; // v1 ids are random in pi: compared by the Go goldens instead
	const mgr = sm.SessionManager.inMemory(entries[0].cwd, undefined, entries);
	const wantTree = flatten(mgr.getTree(), piNode);
	const wantPath = JSON.stringify(mgr.getBranch().map((e) => e.id));
	const gotTree = flatten(pidexJSON(opt, "tree", file), pidexNode);
	const gotPath = JSON.stringify(pidexJSON(opt, "path", file).map((e) => e.id));
	checked++;
	if (gotTree !== wantTree) diffs.push(`${file}: tree differs`);
	if (gotPath !== wantPath) diffs.push(`${file}: path differs`);
}
console.log(`${checked} sessions compared, ${diffs.length} differences`);
for (const d of diffs.slice(0, 10)) console.log("  " + d);
process.exit(diffs.length ? 1 : 0);
