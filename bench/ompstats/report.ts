// The peer of `pidex stats`: oh-my-pi's own activity report (@oh-my-pi/omp-stats,
// what `omp stats` serves). It syncs the session files into its SQLite
// database (incrementally, as pidex refreshes its catalog), then answers the
// all-time dashboard (requests, errors, durations by model and folder) and
// the tool dashboard (calls and errors by tool), printed as one JSON
// document. Run with bun from a folder where @oh-my-pi/omp-stats 18.2.3 is
// installed (OMP_STATS: its src/index.ts), with PI_CODING_AGENT_DIR set to a
// folder whose sessions/ is the corpus:
//   PI_CODING_AGENT_DIR=$W/agent HOME=$W bun bench/ompstats/report.ts
const mod = await import(process.env.OMP_STATS ?? "@oh-my-pi/omp-stats");
await mod.syncAllSessions({});
const dashboard = await mod.getDashboardStats("all");
const tools = await mod.getToolDashboardStats("all");
console.log(JSON.stringify({ overall: dashboard.overall, byModel: dashboard.byModel.length, tools: tools.byTool }));
mod.closeDb();
