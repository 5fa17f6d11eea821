// Checks gencorpus's forks (-forks N) against pi's own SessionManager: for
// every session whose entries start with copies of its parentSession's, pi's
// forkFrom() or createBranchedSession(last copy) is run on the original as
// it was at the fork's header time, and the lines it writes must equal the
// fork's first lines (a re-made label may have another random id).
//
//   node bench/pi/compare-fork.mjs CORPUS
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { sessionFiles, sessionManager } from "./lib.mjs";

const corpus = process.argv[2];
if (!corpus) {
	console.error("usage: node compare-fork.mjs <sessions-root>");
	process.exit(2);
}
const { SessionManager } = await sessionManager();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "compare-fork-"));
const lines = (f) => fs.readFileSync(f, "utf8").split("\n").filter((l) => l !== "");

// The original as gencorpus's fork saw it: entries up to the fork's time,
// and at least up to the first assistant message.
function cut(origLines, forkTime) {
	const out = [origLines[0]];
	let assistant = false;
	for (const l of origLines.slice(1)) {
		const e = JSON.parse(l);
		if (Date.parse(e.timestamp) > forkTime && assistant) break;
		assistant ||= e.message?.role === "assistant";
		out.push(l);
	}
	return out;
}

// Labels get a random id from pi: compare them without id and parent.
const norm = (l) => {
	const e = JSON.parse(l);
	if (e.type !== "label") return l;
	delete e.id;
	delete e.parentId;
	return JSON.stringify(e);
};

let forks = 0;
let bad = 0;
for (const file of sessionFiles(corpus)) {
	const fl = lines(file);
	const header = JSON.parse(fl[0]);
	if (!header.parentSession) continue;
	const origPath = path.join(corpus, path.relative("/home/user/.pi/agent/sessions", header.parentSession));
	if (!fs.existsSync(origPath)) continue;
	const ol = cut(lines(origPath), Date.parse(header.timestamp));
	const ids = new Set(ol.slice(1).map((l) => JSON.parse(l).id));
	let n = 1;
	while (n < fl.length && ids.has(JSON.parse(fl[n]).id)) n++;
	const copies = fl.slice(1, n);
	if (copies.length === 0) continue;
	forks++;
	const src = path.join(tmp, path.basename(origPath));
	fs.writeFileSync(src, ol.join("\n") + "\n");
	const want = [];
	const whole = path.join(tmp, "whole");
	fs.rmSync(whole, { recursive: true, force: true });
	const wf = SessionManager.forkFrom(src, header.cwd, whole).getSessionFile();
	want.push(lines(wf).slice(1));
	const leaf = JSON.parse(copies.filter((l) => JSON.parse(l).type !== "label").at(-1)).id;
	const bf = SessionManager.open(src, path.join(tmp, "branched")).createBranchedSession(leaf);
	want.push(lines(bf).slice(1));
	const ok = want.some((w) => w.length < fl.length && w.every((l, i) => norm(l) === norm(fl[i + 1])));
	if (!ok) {
		bad++;
		console.log(`${path.relative(corpus, file)}: differs from pi's forkFrom and createBranchedSession(${leaf})`);
	}
}
fs.rmSync(tmp, { recursive: true, force: true });
console.log(`${forks} forks, ${bad} differ from pi`);
process.exit(bad > 0 ? 1 : 0);
