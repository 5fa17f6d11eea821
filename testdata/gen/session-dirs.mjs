#!/usr/bin/env node
// Prints, for a table of situations (HOME, working directory, environment, settings files, --session-dir), the
// session directory pi 1.6.0 resolves at startup, computed with pi's OWN code from the installed
// @earendil-works/pi-coding-agent 1.6.0, and writes the table to testdata/golden-roots/pi-session-dirs.json.
//
//   cd testdata/gen && npm ci
//   node session-dirs.mjs                                  # Node >= 22.15 (pi's undici needs zlib zstd)
//   omp/node_modules/.bin/bun --no-install session-dirs.mjs # here (Node 20): Bun from testdata/gen/omp
//
// Each case runs in its own child process (pi reads HOME through os.homedir(), which Bun caches per process) with
// HOME=<tmp>/home/ann, its cwd and its environment, after the case's settings files were written. The child does
// what pi's main.js does before it creates the session manager:
//   cwd = process.cwd(); agentDir = getAgentDir()                                 (main.js 500-510, config.js 510-516)
//   parsed = parseArgs(argv)                                                      (cli/args.js 15)
//   startupSettingsManager = SettingsManager.create(cwd, agentDir)                (main.js 577: no projectTrusted option)
//   sessionDir = <the expression of main.js 593-596, cut out of the installed main.js and evaluated>
//   SessionManager.create(cwd, sessionDir).getSessionDir()                         (main.js 390, createSessionManager)
// Paths under the temp dir are printed as if it were / (so <tmp>/home/ann/proj prints as /home/ann/proj).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const DIST = join(HERE, "node_modules", "@earendil-works", "pi-coding-agent", "dist");
const OUT = join(HERE, "..", "golden-roots", "pi-session-dirs.json");

if (process.env.PIDEX_SESSION_DIRS_CHILD) {
	const imp = (p) => import(pathToFileURL(join(DIST, p)).href);
	const { getAgentDir, getSessionsDir, expandTildePath, ENV_SESSION_DIR, ENV_AGENT_DIR, CONFIG_DIR_NAME } = await imp("config.js");
	const { normalizePath } = await imp("utils/paths.js");
	const { parseArgs } = await imp("cli/args.js");
	const { SettingsManager } = await imp("core/settings-manager.js");
	const { SessionManager } = await imp("core/session-manager.js");
	// main.js 593-596, verbatim from the installed file
	const main = readFileSync(join(DIST, "main.js"), "utf8");
	const start = main.indexOf("    const envSessionDir = process.env[ENV_SESSION_DIR];");
	const end = main.indexOf("startupSettingsManager.getSessionDir();", start);
	if (start < 0 || end < 0) throw new Error("sessionDir precedence not found in main.js");
	const body = main.slice(start, end + "startupSettingsManager.getSessionDir();".length);
	const precedence = new Function("process", "ENV_SESSION_DIR", "normalizePath", "expandTildePath", "parsed", "startupSettingsManager", `${body}\nreturn sessionDir;`);

	const argv = JSON.parse(process.env.PIDEX_SESSION_DIRS_ARGV);
	const out = { envNames: { agentDir: ENV_AGENT_DIR, sessionDir: ENV_SESSION_DIR }, configDirName: CONFIG_DIR_NAME };
	try {
		const cwd = process.cwd();
		const agentDir = getAgentDir();
		out.agentDir = agentDir;
		out.sessionsRoot = getSessionsDir();
		const parsed = parseArgs(argv);
		const startupSettingsManager = SettingsManager.create(cwd, agentDir);
		// error names only: the messages differ between JavaScript engines (V8, JavaScriptCore)
		out.settingsErrors = (startupSettingsManager.errors ?? []).map((e) => ({ scope: e.scope, error: e.error?.name ?? "Error" }));
		out.settingSessionDir = startupSettingsManager.getSessionDir() ?? null;
		const sessionDir = precedence(process, ENV_SESSION_DIR, normalizePath, expandTildePath, parsed, startupSettingsManager);
		out.sessionDir = sessionDir ?? null;
		const sm = SessionManager.create(cwd, sessionDir);
		out.sessionManagerDir = sm.getSessionDir();
		out.absoluteDir = resolve(sm.getSessionDir());
		out.layout = sessionDir ? "flat" : "per-cwd folder under the sessions root";
	} catch (err) {
		out.throws = err.name; // pi stops at startup (message left out: it differs between engines)
	}
	process.stdout.write(`${JSON.stringify(out)}\n`);
	process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// The cases. Paths are written relative to the fake root (the temp dir); "~" is kept as pi would see it.
// files: { "<path under root>": string | object }  (objects are written as JSON)
// ---------------------------------------------------------------------------------------------
const HOME = "/home/ann";
const PROJ = "/home/ann/proj";
const GLOBAL = `${HOME}/.pi/agent/settings.json`;
const PROJECT = `${PROJ}/.pi/settings.json`;
const cases = [
	{ name: "nothing set: default per-cwd folder", cwd: PROJ },
	{ name: "cwd outside HOME", cwd: "/srv/app" },
	{ name: "PI_CODING_AGENT_DIR absolute", cwd: PROJ, env: { PI_CODING_AGENT_DIR: "/opt/pi-agent" } },
	{ name: "PI_CODING_AGENT_DIR with ~", cwd: PROJ, env: { PI_CODING_AGENT_DIR: "~/agent2" } },
	{ name: "PI_CODING_AGENT_DIR relative (kept relative: from the process cwd)", cwd: PROJ, env: { PI_CODING_AGENT_DIR: "rel-agent" } },
	{ name: "global settings sessionDir absolute", cwd: PROJ, files: { [GLOBAL]: { sessionDir: "/data/pi-sessions" } } },
	{ name: "global settings sessionDir with ~", cwd: PROJ, files: { [GLOBAL]: { sessionDir: "~/pi-sessions" } } },
	{ name: "global settings sessionDir relative (kept relative: from the process cwd)", cwd: PROJ, files: { [GLOBAL]: { sessionDir: "sessions-here" } } },
	{ name: "global settings sessionDir \"~\"", cwd: PROJ, files: { [GLOBAL]: { sessionDir: "~" } } },
	{ name: "global settings sessionDir file:// URL", cwd: PROJ, files: { [GLOBAL]: { sessionDir: "file:///data/url-sessions" } } },
	{ name: "global settings sessionDir empty string", cwd: PROJ, files: { [GLOBAL]: { sessionDir: "" } } },
	{ name: "global settings sessionDir not a string", cwd: PROJ, files: { [GLOBAL]: { sessionDir: 42 } } },
	{ name: "global settings.json with a UTF-8 BOM", cwd: PROJ, files: { [GLOBAL]: { bom: true, json: { sessionDir: "/data/bom" } } } },
	{ name: "global settings.json invalid JSON", cwd: PROJ, files: { [GLOBAL]: "{ sessionDir: nope" } },
	{
		name: "settings.json follows PI_CODING_AGENT_DIR (the ~/.pi/agent one is not read)",
		cwd: PROJ,
		env: { PI_CODING_AGENT_DIR: "/opt/pi-agent" },
		files: { [GLOBAL]: { sessionDir: "/data/ignored" }, "/opt/pi-agent/settings.json": { sessionDir: "/data/from-opt" } },
	},
	{ name: "project .pi/settings.json sessionDir relative", cwd: PROJ, files: { [PROJECT]: { sessionDir: ".pi/sessions" } } },
	{ name: "project overrides global", cwd: PROJ, files: { [GLOBAL]: { sessionDir: "/data/global" }, [PROJECT]: { sessionDir: "/data/project" } } },
	{ name: "project sessionDir \"\" overrides global (back to the default)", cwd: PROJ, files: { [GLOBAL]: { sessionDir: "/data/global" }, [PROJECT]: { sessionDir: "" } } },
	{ name: "project settings without sessionDir: global applies", cwd: PROJ, files: { [GLOBAL]: { sessionDir: "/data/global" }, [PROJECT]: { theme: "dark" } } },
	{ name: "project settings.json invalid JSON: global applies", cwd: PROJ, files: { [GLOBAL]: { sessionDir: "/data/global" }, [PROJECT]: "{oops" } },
	{
		name: "project explicitly distrusted in trust.json: its sessionDir is still used",
		cwd: PROJ,
		files: { [PROJECT]: { sessionDir: "/data/untrusted-project" }, [`${HOME}/.pi/agent/trust.json`]: { [PROJ]: false } },
	},
	{ name: "project settings of a parent directory are not read", cwd: `${PROJ}/sub`, files: { [PROJECT]: { sessionDir: "/data/parent-project" } } },
	{ name: "PI_CODING_AGENT_SESSION_DIR overrides settings", cwd: PROJ, env: { PI_CODING_AGENT_SESSION_DIR: "/data/env" }, files: { [GLOBAL]: { sessionDir: "/data/global" }, [PROJECT]: { sessionDir: "/data/project" } } },
	{ name: "PI_CODING_AGENT_SESSION_DIR with ~", cwd: PROJ, env: { PI_CODING_AGENT_SESSION_DIR: "~/env-sessions" } },
	{ name: "PI_CODING_AGENT_SESSION_DIR relative", cwd: PROJ, env: { PI_CODING_AGENT_SESSION_DIR: "env-rel" } },
	{ name: "PI_CODING_AGENT_SESSION_DIR empty: ignored", cwd: PROJ, env: { PI_CODING_AGENT_SESSION_DIR: "" }, files: { [GLOBAL]: { sessionDir: "/data/global" } } },
	{ name: "--session-dir overrides env and settings", cwd: PROJ, argv: ["--session-dir", "/data/flag"], env: { PI_CODING_AGENT_SESSION_DIR: "/data/env" }, files: { [GLOBAL]: { sessionDir: "/data/global" } } },
	{ name: "--session-dir with ~", cwd: PROJ, argv: ["--session-dir", "~/flag-sessions"] },
	{ name: "--session-dir relative", cwd: PROJ, argv: ["--session-dir", "flag-rel"] },
	{ name: "--session-dir empty: ignored", cwd: PROJ, argv: ["--session-dir", ""], env: { PI_CODING_AGENT_SESSION_DIR: "/data/env" } },
];

const fixRoot = (root, v) => {
	// the root as it appears inside pi's per-cwd folder name (--<cwd with / as ->--)
	const encodedRoot = `--${root.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}-`;
	if (typeof v === "string") return v.split(root).join("").split(encodedRoot).join("--") || "/";
	if (Array.isArray(v)) return v.map((x) => fixRoot(root, x));
	if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fixRoot(root, x)]));
	return v;
};

const results = [];
for (const c of cases) {
	const root = mkdtempSync(join(tmpdir(), "pidex-sd-"));
	try {
		const at = (p) => join(root, p);
		mkdirSync(at(c.cwd), { recursive: true });
		// every absolute path the case names (file locations, settings values, trust.json keys, env, argv) lives
		// under the fake root: pi creates the directory it resolves, and must not touch the real /data or /opt
		const mapAbs = (v) => {
			if (typeof v === "string") return v.startsWith("file:///") ? `file://${at(v.slice(7))}` : v.startsWith("/") ? at(v) : v;
			if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [mapAbs(k), mapAbs(x)]));
			return v;
		};
		for (const [p, content] of Object.entries(c.files ?? {})) {
			mkdirSync(dirname(at(p)), { recursive: true });
			const text = typeof content === "string" ? content : content.bom ? `\uFEFF${JSON.stringify(mapAbs(content.json))}` : JSON.stringify(mapAbs(content), null, 2);
			writeFileSync(at(p), text);
		}
		const env = {};
		for (const [k, v] of Object.entries(process.env)) if (!/^PI_/.test(k) && k !== "HOME") env[k] = v;
		for (const [k, v] of Object.entries(c.env ?? {})) env[k] = mapAbs(v);
		env.HOME = at(HOME);
		env.PIDEX_SESSION_DIRS_CHILD = "1";
		env.PIDEX_SESSION_DIRS_ARGV = JSON.stringify((c.argv ?? []).map(mapAbs));
		const r = spawnSync(process.execPath, [...(process.versions.bun ? ["--no-install"] : []), fileURLToPath(import.meta.url)], { cwd: at(c.cwd), env, encoding: "utf8" });
		if (r.status !== 0) throw new Error(`${c.name}: child failed\n${r.stderr}`);
		const got = JSON.parse(r.stdout.trim().split("\n").at(-1));
		results.push({
			name: c.name,
			given: { home: HOME, cwd: c.cwd, env: c.env ?? {}, argv: c.argv ?? [], files: c.files ?? {} },
			pi: fixRoot(root, got),
		});
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
}

const table = {
	pi: "@earendil-works/pi-coding-agent@1.6.0",
	note: "Computed by testdata/gen/session-dirs.mjs with pi's own config.js, cli/args.js, core/settings-manager.js, core/session-manager.js and the sessionDir expression of main.js. Paths are under a fake root. sessionDir: what main.js passes to createSessionManager (undefined -> null); sessionManagerDir: SessionManager.create(cwd, sessionDir).getSessionDir(); absoluteDir: that resolved against the working directory; throws: pi fails at startup.",
	cases: results,
};
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(table, null, 2)}\n`);
console.log(`wrote ${results.length} cases to ${OUT}`);
for (const r of results) console.log(`  ${r.name}: ${r.pi.throws ?? r.pi.absoluteDir}`);
