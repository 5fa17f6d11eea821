#!/usr/bin/env bun
// Where oh-my-pi 18.2.3 puts its sessions, computed with omp's own code for a table of situations (HOME, cwd,
// environment, .env files, --session-dir), written to testdata/golden-roots/omp-dirs.json.
//
//   cd testdata/gen/omp && npm install && node_modules/.bin/bun --no-install roots.ts
//
// Each case runs in a child Bun process (omp resolves its directories when @oh-my-pi/pi-utils is first imported)
// with HOME=<tmp>/home/ann, the case's cwd and environment, after the case's files (.env files, folders that must
// exist for the XDG rules) were created. The child imports @oh-my-pi/pi-utils (which loads the .env files, env.ts),
// then reports getConfigRootDir(), getAgentDir(), getSessionsDir(), getBlobsDir() (pi-utils dirs.ts), the
// --session-dir value of omp's parseArgs (cli/args.ts: PI_CODING_AGENT_SESSION_DIR, overridden by the flag), and
// SessionManager.getDefaultSessionDir(cwd) (session-paths.ts computeDefaultSessionDir: the per-cwd folder).
// Paths under the temp dir are printed as if it were /.
import { spawnSync } from "bun";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const OUT = join(import.meta.dir, "..", "..", "golden-roots", "omp-dirs.json");

if (process.env.PIDEX_OMP_ROOTS_CHILD) {
	const out: Record<string, unknown> = {};
	try {
		const utils = await import("@oh-my-pi/pi-utils");
		const dirs = await import("@oh-my-pi/pi-utils/dirs");
		const { parseArgs } = await import("@oh-my-pi/pi-coding-agent/cli/args");
		const { SessionManager } = await import("@oh-my-pi/pi-coding-agent/session/session-manager");
		void utils;
		out.activeProfile = dirs.getActiveProfile() ?? null;
		out.configRoot = dirs.getConfigRootDir();
		out.agentDir = dirs.getAgentDir();
		out.sessionsDir = dirs.getSessionsDir();
		out.blobsDir = dirs.getBlobsDir();
		const argv = JSON.parse(process.env.PIDEX_OMP_ROOTS_ARGV ?? "[]") as string[];
		out.sessionDirArg = parseArgs(argv).sessionDir ?? null;
		out.defaultSessionDirForCwd = SessionManager.getDefaultSessionDir(process.cwd());
		// folders in the sessions root after that call (omp renames pi-style legacy folders on first use)
		const fs = await import("node:fs");
		out.sessionsDirAfter = fs
			.readdirSync(dirs.getSessionsDir())
			.sort()
			.map(d => ({ folder: d, files: fs.readdirSync(`${dirs.getSessionsDir()}/${d}`).sort() }));
	} catch (err) {
		out.throws = (err as Error).name;
	}
	process.stdout.write(`${JSON.stringify(out)}\n`);
	process.exit(0);
}

type Case = {
	name: string;
	cwd: string;
	env?: Record<string, string>;
	argv?: string[];
	files?: Record<string, string>;
	dirs?: string[];
	/** create pi's folder name for this cwd (`--<cwd>--`, of the real temp path) in ~/.omp/agent/sessions */
	legacyFolderFor?: string;
};
const HOME = "/home/ann";
const PROJ = "/home/ann/proj";
const cases: Case[] = [
	{ name: "nothing set", cwd: PROJ },
	{ name: "cwd = $HOME: folder `-`", cwd: HOME },
	{ name: "cwd deeper under $HOME", cwd: "/home/ann/work/a-b/c" },
	{ name: "cwd under the temp dir (os.tmpdir() = $TMPDIR): `-tmp-…`", cwd: "/scratch/tmp/job", env: { TMPDIR: "/scratch/tmp" } },
	{ name: "cwd outside $HOME and the temp dir: legacy `--…--` name", cwd: "/srv/app" },
	{ name: "PI_CODING_AGENT_DIR (default profile)", cwd: PROJ, env: { PI_CODING_AGENT_DIR: "/opt/omp-agent" } },
	{ name: "OMP_PROFILE=work", cwd: PROJ, env: { OMP_PROFILE: "work" } },
	{ name: "PI_PROFILE=work (legacy alias)", cwd: PROJ, env: { PI_PROFILE: "work" } },
	{ name: "OMP_PROFILE empty wins over PI_PROFILE: default profile", cwd: PROJ, env: { OMP_PROFILE: "", PI_PROFILE: "work" } },
	{ name: "OMP_PROFILE=default: default profile", cwd: PROJ, env: { OMP_PROFILE: "default" } },
	{ name: "named profile ignores PI_CODING_AGENT_DIR", cwd: PROJ, env: { OMP_PROFILE: "work", PI_CODING_AGENT_DIR: "/opt/omp-agent" } },
	{ name: "invalid profile name: default profile at module load", cwd: PROJ, env: { OMP_PROFILE: "Bad Name" } },
	{ name: "PI_CONFIG_DIR renames ~/.omp", cwd: PROJ, env: { PI_CONFIG_DIR: ".omp-alt" } },
	{ name: "XDG_DATA_HOME set, $XDG_DATA_HOME/omp exists: sessions and blobs move there", cwd: PROJ, env: { XDG_DATA_HOME: "/xdg/data" }, dirs: ["/xdg/data/omp"] },
	{ name: "XDG_DATA_HOME set, $XDG_DATA_HOME/omp missing: ignored", cwd: PROJ, env: { XDG_DATA_HOME: "/xdg/data" } },
	{ name: "XDG_DATA_HOME with a profile: only $XDG_DATA_HOME/omp/profiles/<name>", cwd: PROJ, env: { XDG_DATA_HOME: "/xdg/data", OMP_PROFILE: "work" }, dirs: ["/xdg/data/omp", "/xdg/data/omp/profiles/work"] },
	{ name: "XDG_DATA_HOME ignored when PI_CODING_AGENT_DIR is set", cwd: PROJ, env: { XDG_DATA_HOME: "/xdg/data", PI_CODING_AGENT_DIR: "/opt/omp-agent" }, dirs: ["/xdg/data/omp"] },
	{ name: "PI_CODING_AGENT_DIR from ~/.env", cwd: PROJ, files: { "/home/ann/.env": "PI_CODING_AGENT_DIR=/opt/from-home-env\n" } },
	{ name: "OMP_CODING_AGENT_DIR in ~/.omp/.env is mirrored to PI_CODING_AGENT_DIR", cwd: PROJ, files: { "/home/ann/.omp/.env": "OMP_CODING_AGENT_DIR=/opt/from-omp-env\n" } },
	{ name: "PI_CODING_AGENT_SESSION_DIR", cwd: PROJ, env: { PI_CODING_AGENT_SESSION_DIR: "/data/omp-sessions" } },
	{ name: "--session-dir overrides PI_CODING_AGENT_SESSION_DIR", cwd: PROJ, env: { PI_CODING_AGENT_SESSION_DIR: "/data/omp-sessions" }, argv: ["--session-dir", "/data/flag"] },
	{ name: "pi-style folder (--<cwd>--) of a $HOME cwd is renamed to the new name on first use", cwd: PROJ, legacyFolderFor: PROJ },
];

const results: unknown[] = [];
for (const c of cases) {
	const root = mkdtempSync(join(tmpdir(), "pidex-omp-roots-"));
	try {
		const at = (p: string) => join(root, p);
		const mapAbs = (v: string) => (v.startsWith("/") ? at(v) : v);
		mkdirSync(at(c.cwd), { recursive: true });
		mkdirSync(at(HOME), { recursive: true });
		for (const d of c.dirs ?? []) mkdirSync(at(d), { recursive: true });
		const encode = (p: string) => `--${p.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
		if (c.legacyFolderFor) {
			const legacy = join(at(`${HOME}/.omp/agent/sessions`), encode(at(c.legacyFolderFor)));
			mkdirSync(legacy, { recursive: true });
			writeFileSync(join(legacy, "2026-01-01T00-00-00-000Z_legacy.jsonl"), "");
		}
		for (const [p, text] of Object.entries(c.files ?? {})) {
			mkdirSync(dirname(at(p)), { recursive: true });
			writeFileSync(at(p), text.replace(/=\/(\S+)/g, (_m, rest) => `=${at(`/${rest}`)}`));
		}
		const env: Record<string, string> = {};
		for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(OMP_|PI_|XDG_)/.test(k) && k !== "HOME" && k !== "TMPDIR") env[k] = v;
		env.HOME = at(HOME);
		env.TMPDIR = at("/tmp");
		mkdirSync(at("/tmp"), { recursive: true });
		for (const [k, v] of Object.entries(c.env ?? {})) env[k] = mapAbs(v);
		if (env.TMPDIR) mkdirSync(env.TMPDIR, { recursive: true });
		env.BUN_RUNTIME_TRANSPILER_CACHE_PATH = "0";
		env.BUN_INSTALL_CACHE_DIR = at("/bun-cache");
		env.PIDEX_OMP_ROOTS_CHILD = "1";
		env.PIDEX_OMP_ROOTS_ARGV = JSON.stringify((c.argv ?? []).map(mapAbs));
		const r = spawnSync([process.execPath, "--no-install", "--no-env-file", import.meta.path], { cwd: at(c.cwd), env, stdout: "pipe", stderr: "pipe" });
		if (r.exitCode !== 0) throw new Error(`${c.name}: child failed\n${r.stderr}`);
		const got = JSON.parse(r.stdout.toString().trim().split("\n").at(-1)!) as Record<string, unknown>;
		const encodedRoot = `--${root.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}-`;
		const fix = (v: unknown): unknown =>
			typeof v === "string"
				? v.split(root).join("").split(encodedRoot).join("--") || "/"
				: Array.isArray(v)
					? v.map(fix)
					: v && typeof v === "object"
						? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fix(x)]))
						: v;
		results.push({
			name: c.name,
			given: { home: HOME, cwd: c.cwd, env: c.env ?? {}, argv: c.argv ?? [], files: c.files ?? {}, existingDirs: c.dirs ?? [], legacyFolderFor: c.legacyFolderFor ?? null },
			omp: Object.fromEntries(Object.entries(got).map(([k, v]) => [k, fix(v)])),
		});
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
}
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(
	OUT,
	`${JSON.stringify(
		{
			omp: "@oh-my-pi/pi-coding-agent@18.2.3 (@oh-my-pi/pi-utils 18.2.3)",
			note: "Computed by testdata/gen/omp/roots.ts with omp's own pi-utils dirs.ts/env.ts, cli/args.ts and SessionManager.getDefaultSessionDir. Paths are under a fake root; the temp dir is given as TMPDIR=/tmp unless a case sets it. sessionDirArg: the session dir from PI_CODING_AGENT_SESSION_DIR / --session-dir (null: omp uses defaultSessionDirForCwd). throws: omp fails.",
			cases: results,
		},
		null,
		2,
	)}\n`,
);
console.log(`wrote ${results.length} cases to ${OUT}`);
for (const r of results as Array<{ name: string; omp: Record<string, unknown> }>) console.log(`  ${r.name}: ${r.omp.throws ?? r.omp.sessionDirArg ?? r.omp.defaultSessionDirForCwd}`);
