#!/usr/bin/env bash
# Measures pidex against pi on one corpus and prints the figures recorded in
# docs/benchmarks-history.md (the current ones: bench/table.sh). Usage:
#   bench/run.sh CORPUS_DIR [WORK_DIR]
# CORPUS_DIR: a sessions root (go run ./bench/gencorpus -out DIR -files 3000 -size 1.7GB -text realistic -shape real).
# Needs /usr/bin/time (Debian: time) and hyperfine; the pi peer needs
# `cd bench/pi && npm install` (or PI_PKG_DIR) and is skipped without it.
set -euo pipefail
corpus=$(cd "$1" && pwd)
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$work/pidex
db=$work/bench.sqlite
(cd "$here" && CGO_ENABLED=0 go build -o "$bin" ./cmd/pidex)

bytes=$(find "$corpus" -name '*.jsonl' -printf '%s\n' | awk '{s+=$1} END {print s}')
files=$(find "$corpus" -name '*.jsonl' | wc -l)
echo "corpus: $corpus, $files files, $bytes bytes"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(go version | cut -d' ' -f3)"

echo "== cold index (empty catalog): the metadata pass (pidex list), then the text pass (pidex index)"
rm -f "$db" "$db"-wal "$db"-shm "$db"-stamps "$db"-listing
/usr/bin/time -f 'wall %e s, peak RSS %M KB' "$bin" --db "$db" --sessions "$corpus" list 2>"$work/time.txt" >/dev/null
cat "$work/time.txt"
wall=$(sed -E 's/wall ([0-9.]+) s.*/\1/' "$work/time.txt")
entries=$("$bin" --db "$db" --sessions "$corpus" sql --no-refresh --format tsv "SELECT count(*) FROM entries" | tail -1)
/usr/bin/time -f 'text pass: wall %e s, peak RSS %M KB' "$bin" --db "$db" --sessions "$corpus" index >/dev/null
awk -v b="$bytes" -v w="$wall" -v e="$entries" 'BEGIN {printf "cold index: %.0f MB/s, %.0f entries/s (%d entries)\n", b/1e6/w, e/w, e}'
echo "catalog size: $(du -b "$db" | cut -f1) bytes"

echo "== refresh, nothing changed; list (catalog current)"
hyperfine -N -w 3 -m 20 --export-markdown "$work/hyperfine.md" \
  "$bin --db $db --sessions $corpus index" \
  "$bin --db $db --sessions $corpus list --no-refresh" \
  "$bin --db $db --sessions $corpus list" \
  "$bin --db $db --sessions $corpus list --json" >/dev/null
cat "$work/hyperfine.md"

echo "== library: query.List"
(cd "$here" && PIDEX_BENCH_DB=$db go test ./query -run '^$' -bench List -count 3 | grep Benchmark)

if [ -d "$here/bench/pi/node_modules" ] || [ -n "${PI_PKG_DIR:-}" ]; then
  echo "== pi SessionManager.listAll() (peer)"
  for i in 1 2 3; do node "$here/bench/pi/listall.mjs" "$corpus" | grep -oE '"(seconds|MBps|peakRSSMB)":[0-9.]+' | paste -sd' '; done
else
  echo "== pi peer skipped (cd bench/pi && npm install)"
fi
