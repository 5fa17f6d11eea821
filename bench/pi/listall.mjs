// Times pi's real SessionManager.listAll() over a sessions root and prints one
// JSON object: {files, bytes, sessions, skipped, seconds, MBps, peakRSSMB, ...}.
//
//   node listall.mjs /path/to/corpus        # corpus = sessions root (contains --<cwd>-- folders)
//
// listAll(dir) with an explicit dir lists only that one flat folder, so we use
// the no-argument form, which walks every subfolder of <agentDir>/sessions.
// agentDir comes from $PI_CODING_AGENT_DIR: we point it at a fresh temp dir
// whose `sessions` is a symlink to the corpus root (pi never writes there
// during listAll; the temp dir is removed at exit).
//
// The package is loaded from ./node_modules (cd bench/pi && npm install), or
// from $PI_PKG_DIR (a directory holding @earendil-works/pi-coding-agent's
// package.json). pi 1.6.0 declares node >=22.19, but dist/core/session-manager.js
// imports fine on Node 20; the package index (dist/index.js) does not, so we
// import the module file directly.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const corpus = process.argv[2];
if (!corpus) {
	console.error("usage: node listall.mjs <sessions-root>");
	process.exit(2);
}
const root = path.resolve(corpus);

const pkgDir =
	process.env.PI_PKG_DIR || path.join(here, "node_modules", "@earendil-works", "pi-coding-agent");
const pkgJson = path.join(pkgDir, "package.json");
if (!fs.existsSync(pkgJson)) {
	console.error(`pi package not found at ${pkgDir}: run 'npm install' in ${here} or set PI_PKG_DIR`);
	process.exit(2);
}
const piVersion = JSON.parse(fs.readFileSync(pkgJson, "utf8")).version;

// Inventory (not timed): what listAll() will see = *.jsonl in immediate subfolders.
let files = 0;
let bytes = 0;
let largest = 0;
for (const d of fs.readdirSync(root, { withFileTypes: true })) {
	if (!d.isDirectory() && !d.isSymbolicLink()) continue;
	for (const f of fs.readdirSync(path.join(root, d.name))) {
		if (!f.endsWith(".jsonl")) continue;
		const st = fs.statSync(path.join(root, d.name, f));
		files++;
		bytes += st.size;
		if (st.size > largest) largest = st.size;
	}
}

const agentDir = fs.mkdtempSync(path.join(os.tmpdir(), "pidex-pi-agent-"));
fs.symlinkSync(root, path.join(agentDir, "sessions"), "dir");
process.env.PI_CODING_AGENT_DIR = agentDir;
const cleanup = () => fs.rmSync(agentDir, { recursive: true, force: true });
process.on("exit", cleanup);

const t0 = performance.now();
const { SessionManager } = await import(pathToFileURL(path.join(pkgDir, "dist", "core", "session-manager.js")).href);
const importSeconds = (performance.now() - t0) / 1000;

const rssBefore = process.memoryUsage().rss;
const start = performance.now();
const sessions = await SessionManager.listAll();
const seconds = (performance.now() - start) / 1000;
const mem = process.memoryUsage(); // while the result is still alive

let textChars = 0;
let messages = 0;
for (const s of sessions) {
	textChars += s.allMessagesText.length;
	messages += s.messageCount;
}
const listed = new Set(sessions.map((s) => s.path));
const skippedExamples = [];
if (listed.size !== files) {
	outer: for (const d of fs.readdirSync(root)) {
		const dir = path.join(root, d);
		if (!fs.statSync(dir).isDirectory()) continue;
		for (const f of fs.readdirSync(dir)) {
			const p = path.join(agentDir, "sessions", d, f);
			if (f.endsWith(".jsonl") && !listed.has(p)) {
				skippedExamples.push(path.join(d, f));
				if (skippedExamples.length >= 5) break outer;
			}
		}
	}
}

const MB = 1e6;
console.log(
	JSON.stringify({
		files,
		bytes,
		sessions: sessions.length,
		skipped: files - sessions.length,
		skippedExamples,
		messages,
		allMessagesTextMB: +((textChars * 2) / MB).toFixed(1), // UTF-16 upper bound, held by the result
		seconds: +seconds.toFixed(3),
		MBps: +(bytes / MB / seconds).toFixed(1),
		peakRSSMB: +(process.resourceUsage().maxRSS / 1024).toFixed(1), // maxRSS is in KiB
		rssBeforeMB: +(rssBefore / 2 ** 20).toFixed(1),
		heapUsedAfterMB: +(mem.heapUsed / 2 ** 20).toFixed(1),
		importSeconds: +importSeconds.toFixed(3),
		largestFileMB: +(largest / MB).toFixed(1),
		node: process.version,
		pi: piVersion,
		corpus: root,
	}),
);
