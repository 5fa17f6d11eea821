#!/usr/bin/env bash
# Times `pidex stats` (issue 36: a whole-history report under 100 ms, as
# cost) on one corpus, beside `pidex cost` and the peer, oh-my-pi's own
# activity report (@oh-my-pi/omp-stats 18.2.3 through bench/ompstats/report.ts:
# an incremental sync of the files into its database, then its all-time
# dashboard and tool table), in one run. Markdown rows on stdout, progress
# on stderr.
#   bench/stats.sh PIDEX_BINARY CORPUS_DIR [WORK_DIR]
# Environment: RUNS (hyperfine runs of each pidex read, 20), OMP_DIR (a
# folder where `npm install @oh-my-pi/pi-coding-agent@18.2.3` put
# node_modules, with bun; without it the peer is skipped).
# Method: a cold `pidex index` (wall seconds, peak RSS from GNU time), then
# hyperfine -N medians on its catalog, output piped, each read refreshing
# first as a user's would; the peer's first sync once (wall, peak RSS), then
# its warm runs (nothing new to sync) with hyperfine; peak RSS of a stats run.
set -euo pipefail
if [ $# -lt 2 ]; then
	echo "usage: bench/stats.sh PIDEX_BINARY CORPUS_DIR [WORK_DIR]" >&2
	exit 2
fi
bin=$(realpath "$1")
corpus=$(cd "$2" && pwd)
work=${3:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-20}
db=$work/stats.sqlite
files=$(find "$corpus" -name '*.jsonl' | wc -l)
log() { echo "stats.sh $(date -u +%H:%M:%S): $*" >&2; }
pidex() { "$bin" --db "$db" --sessions "$corpus" "$@"; }
# median NAME CMD...: hyperfine's median in ms (CMD's words have no spaces)
median() {
	local name=$1
	shift
	hyperfine -N -w 2 -r "$runs" --export-json "$work/$name.json" "$*" >/dev/null 2>&1
	python3 -c "import json,sys; print('%.1f' % (json.load(open(sys.argv[1]))['results'][0]['median']*1000))" "$work/$name.json"
}
rss() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1; } # peak RSS in KiB

rm -f "$db" "$db"-*
log "cold index of $files files"
start=$(date +%s.%N)
idx_rss=$(rss "$bin" --db "$db" --sessions "$corpus" -q index)
idx_s=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $start}")
log "reads"
stats=$(median stats "$bin" --db "$db" --sessions "$corpus" stats)
stats_day=$(median stats-day "$bin" --db "$db" --sessions "$corpus" stats --by day)
stats_session=$(median stats-session "$bin" --db "$db" --sessions "$corpus" stats --by session)
stats_json=$(median stats-json "$bin" --db "$db" --sessions "$corpus" stats --json)
cost=$(median cost "$bin" --db "$db" --sessions "$corpus" cost --by day)
stats_rss=$(rss "$bin" --db "$db" --sessions "$corpus" stats --by day)
peer="-"
peer_cold="-"
peer_rss="-"
if [ -n "${OMP_DIR:-}" ]; then
	log "peer: omp-stats"
	ow=$work/omp
	rm -rf "$ow"
	mkdir -p "$ow/agent"
	ln -s "$corpus" "$ow/agent/sessions"
	omp() { HOME=$ow PI_CODING_AGENT_DIR=$ow/agent OMP_STATS=$OMP_DIR/node_modules/@oh-my-pi/omp-stats/src/index.ts \
		"$OMP_DIR/node_modules/.bin/bun" "$here/bench/ompstats/report.ts"; }
	start=$(date +%s.%N)
	peer_rss=$(rss env HOME="$ow" PI_CODING_AGENT_DIR="$ow/agent" OMP_STATS="$OMP_DIR/node_modules/@oh-my-pi/omp-stats/src/index.ts" \
		"$OMP_DIR/node_modules/.bin/bun" "$here/bench/ompstats/report.ts")
	peer_cold=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $start}")
	runs=5
	peer=$(median omp env HOME="$ow" PI_CODING_AGENT_DIR="$ow/agent" OMP_STATS="$OMP_DIR/node_modules/@oh-my-pi/omp-stats/src/index.ts" \
		"$OMP_DIR/node_modules/.bin/bun" "$here/bench/ompstats/report.ts")
	omp >"$work/omp.json"
	pidex --no-refresh stats --json >"$work/pidex.json" 2>/dev/null || pidex stats --json >"$work/pidex.json"
	log "tool calls, pidex vs omp-stats: $(python3 -c "
import json,sys
p={t['tool']:t['calls'] for t in json.load(open(sys.argv[1]))['tools']}
o={t['tool']:t['calls'] for t in json.load(open(sys.argv[2]))['tools']}
print(', '.join('%s %d/%d' % (k, p.get(k,0), o.get(k,0)) for k in sorted(set(p)|set(o), key=lambda k:-p.get(k,0))[:6]))" "$work/pidex.json" "$work/omp.json")"
fi
ratio() { awk "BEGIN {if ($2+0 > 0) printf \"%.0f×\", $1/$2; else print \"-\"}"; }
echo "| corpus | files | cold index | stats | stats --by day | --by session | --json | cost --by day | stats peak RSS | omp-stats warm | omp-stats first sync | date |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
echo "| $(basename "$corpus") | $files | ${idx_s} s, $((idx_rss / 1024)) MB | **${stats} ms** | ${stats_day} ms | ${stats_session} ms | ${stats_json} ms | ${cost} ms | $((stats_rss / 1024)) MB | ${peer} ms ($(ratio "${peer/-/0}" "$stats")) | ${peer_cold} s, $([ "$peer_rss" = - ] && echo - || echo $((peer_rss / 1024))) MB | $(date -u +%Y-%m-%d) |"
