#!/usr/bin/env bash
# Compares pidex's daily cost report with ccusage's on one corpus and prints
# the figures recorded in docs/benchmarks-history.md ("Cost reports (issue 8)"). Usage:
#   bench/cost.sh CORPUS_DIR [WORK_DIR]
# CORPUS_DIR: a sessions root (go run ./bench/gencorpus -out DIR -text realistic -shape real ... [-forks N]).
# CCUSAGE: the ccusage command (default: ccusage on PATH; npm install ccusage).
# The catalog WORK_DIR/cost.sqlite is indexed (or refreshed) first.
set -euo pipefail
corpus=$(cd "$1" && pwd)
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
ccusage=${CCUSAGE:-ccusage}
bin=$work/pidex
db=$work/cost.sqlite
(cd "$here" && CGO_ENABLED=0 go build -o "$bin" ./cmd/pidex && go build -o "$work/costcmp" ./bench/costcmp)
pidex() { "$bin" --db "$db" --sessions "$corpus" "$@"; }

echo "corpus: $corpus, $(find "$corpus" -name '*.jsonl' | wc -l) files"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ), ccusage $($ccusage --version 2>/dev/null | tail -1)"
pidex -q index
# ccusage reads assistant messages only, so pidex is asked for the same.
pidex cost --source assistant --tz UTC --json >"$work/pidex-dedup.json"
pidex cost --source assistant --tz UTC --json --no-dedup >"$work/pidex-raw.json"
$ccusage pi daily --json --offline -z UTC --pi-path "$corpus" >"$work/ccusage.json"
"$work/costcmp" -dedup "$work/pidex-dedup.json" -raw "$work/pidex-raw.json" -ccusage "$work/ccusage.json" >"$work/costcmp.txt" || true
grep -v '^ ' "$work/costcmp.txt" | grep -v '^[0-9]' || true
echo "days listed with their differences: $work/costcmp.txt"

echo "== fork copies of assistant calls (what pidex's dedup removes)"
pidex sql --no-refresh --format tsv "
  SELECT count(*) AS copies, count(DISTINCT path) AS files, sum(input) AS input, sum(output) AS output,
         sum(cache_read) AS cache_read, sum(cache_write) AS cache_write, round(sum(cost), 4) AS cost
  FROM usage_v WHERE source = 'assistant' AND is_fork_copy"
echo "== two examples: a copy and the record it copies"
pidex sql --no-refresh --format tsv "
  WITH c AS (SELECT * FROM usage_v WHERE source = 'assistant' AND is_fork_copy ORDER BY ts_ms LIMIT 2)
  SELECT u.entry_id, u.ts_ms, u.input, u.output, u.cache_read, u.cache_write, u.cost, u.is_fork_copy, u.path
  FROM c JOIN usage_v u ON u.entry_id = c.entry_id AND u.source = 'assistant' AND u.ts_ms = c.ts_ms
  ORDER BY u.entry_id, u.is_fork_copy"
