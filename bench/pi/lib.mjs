// Shared by the compare-*.mjs scripts: arguments, pi's session manager,
// the session files of a root, and running pidex.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

// args parses `<sessions-root> <catalog> [N] [pidex binary]`.
export function args(script) {
	const [corpus, db, limit = "1000000", pidex = "pidex"] = process.argv.slice(2);
	if (!corpus || !db) {
		console.error(`usage: node ${script} <sessions-root> <catalog> [N] [pidex binary]`);
		process.exit(2);
	}
	return { corpus, db, limit: Number(limit), pidex };
}

// sessionManager imports pi's dist/core/session-manager.js (the package
// index needs Node 22; this module loads on Node 20).
export async function sessionManager() {
	const pkgDir = process.env.PI_PKG_DIR || path.join(here, "node_modules", "@earendil-works", "pi-coding-agent");
	return import(pathToFileURL(path.join(pkgDir, "dist", "core", "session-manager.js")).href);
}

// sessionFiles lists the .jsonl files in the project folders of a root.
export function sessionFiles(corpus) {
	const files = [];
	for (const d of fs.readdirSync(corpus, { withFileTypes: true })) {
		if (!d.isDirectory()) continue;
		for (const f of fs.readdirSync(path.join(corpus, d.name)).sort()) {
			if (f.endsWith(".jsonl")) files.push(path.resolve(corpus, d.name, f));
		}
	}
	return files;
}

// pidexJSON runs a read-only pidex command with --json and parses its output.
export function pidexJSON({ pidex, db }, ...cmd) {
	return JSON.parse(execFileSync(pidex, ["--db", db, "--no-refresh", ...cmd, "--json"], { maxBuffer: 1 << 30 }));
}
