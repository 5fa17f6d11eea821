// Compares `pidex list --json` with pi's own SessionManager.listAll() on a
// whole sessions root, field by field (pi's SessionInfo fields) and in
// order. For corpora too large to commit (bench/gencorpus); the committed
// fixtures are compared by `go test ./query` against stored goldens.
//
//   pidex --db /tmp/c.sqlite --sessions CORPUS list --json > /tmp/pidex.json
//   node bench/pi/compare-list.mjs CORPUS /tmp/pidex.json
//
// Exit status 0 when every session agrees, 1 otherwise (first 10 differences printed).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const [corpus, pidexJSON] = process.argv.slice(2);
if (!corpus || !pidexJSON) {
	console.error("usage: node compare-list.mjs <sessions-root> <pidex list --json output>");
	process.exit(2);
}
const root = path.resolve(corpus);
const pkgDir = process.env.PI_PKG_DIR || path.join(here, "node_modules", "@earendil-works", "pi-coding-agent");

// listAll() walks <agentDir>/sessions: point it at the corpus through a symlink.
const agentDir = fs.mkdtempSync(path.join(os.tmpdir(), "pidex-pi-agent-"));
fs.symlinkSync(root, path.join(agentDir, "sessions"), "dir");
process.env.PI_CODING_AGENT_DIR = agentDir;
process.on("exit", () => fs.rmSync(agentDir, { recursive: true, force: true }));
const { SessionManager } = await import(pathToFileURL(path.join(pkgDir, "dist", "core", "session-manager.js")).href);

const viaLink = path.join(agentDir, "sessions");
const piList = (await SessionManager.listAll()).map((s) => ({
	path: path.join(root, path.relative(viaLink, s.path)),
	id: s.id,
	cwd: s.cwd,
	name: s.name ?? null,
	parentSessionPath: s.parentSessionPath ?? null,
	created: isNaN(s.created) ? null : s.created.toISOString(),
	modified: s.modified.toISOString(),
	messageCount: s.messageCount,
	firstMessage: s.firstMessage,
}));
const pidexList = JSON.parse(fs.readFileSync(pidexJSON, "utf8"));

const fields = Object.keys(piList[0] ?? {});
const byPath = new Map(pidexList.map((s) => [s.path, s]));
const diffs = [];
for (const want of piList) {
	const got = byPath.get(want.path);
	if (!got) {
		diffs.push(`${want.path}: listed by pi, not by pidex`);
		continue;
	}
	for (const f of fields) {
		if (JSON.stringify(got[f]) !== JSON.stringify(want[f])) {
			diffs.push(`${want.path}: ${f} pidex ${JSON.stringify(got[f])?.slice(0, 80)} pi ${JSON.stringify(want[f])?.slice(0, 80)}`);
		}
	}
}
if (pidexList.length !== piList.length) diffs.push(`pidex lists ${pidexList.length} sessions, pi ${piList.length}`);
// Order: modified descending in both (ties may differ: pi keeps directory order, pidex sorts by path).
const order = (l) => l.map((s) => s.modified);
if (JSON.stringify(order(pidexList)) !== JSON.stringify(order(piList))) diffs.push("order by modified differs");

console.log(`${piList.length} sessions from pi, ${pidexList.length} from pidex, ${diffs.length} differences`);
for (const d of diffs.slice(0, 10)) console.log("  " + d);
process.exit(diffs.length ? 1 : 0);
