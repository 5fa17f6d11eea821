#!/usr/bin/env bash
# Measures pidex search against ripgrep, and the cold index with search
# against pi's listAll(), on one corpus. Prints the figures recorded in
# docs/benchmarks-history.md (the current ones: bench/table.sh). Usage:
#   bench/search.sh CORPUS_DIR [WORK_DIR]
# CORPUS_DIR: a sessions root with realistic text, e.g.
#   go run ./bench/gencorpus -out /work/scratch/corpus/s3000 -files 3000 -size 1.7GB -seed 1 -text realistic -shape real
# (its planted words are in CORPUS_DIR.plants.json). Needs hyperfine, rg,
# /usr/bin/time; the pi peer needs `cd bench/pi && npm install`.
set -euo pipefail
corpus=$(cd "$1" && pwd)
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$work/pidex
db=$work/search.sqlite
(cd "$here" && CGO_ENABLED=0 go build -o "$bin" ./cmd/pidex)
bytes=$(find "$corpus" -name '*.jsonl' -printf '%s\n' | awk '{s+=$1} END {print s}')
echo "corpus: $corpus, $(find "$corpus" -name '*.jsonl' | wc -l) files, $bytes bytes"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(go version | cut -d' ' -f3), $(rg --version | head -1)"

rare=${RARE:-$(grep -o '"zqplant[0-9]*"' "$corpus.plants.json" | head -1 | tr -d '"')}
common=${COMMON:-the}

echo "== cold index with search (metadata pass, then text pass)"
rm -f "$db" "$db"-wal "$db"-shm "$db"-stamps "$db"-listing
/usr/bin/time -f 'metadata pass (pidex list): wall %e s, peak RSS %M KB' "$bin" --db "$db" --sessions "$corpus" list >/dev/null
"$bin" --db "$db" --sessions "$corpus" search "$rare" --no-refresh >/dev/null 2>"$work/partial.txt" || true
echo "search during the text pass says: $(cat "$work/partial.txt")"
/usr/bin/time -f 'text pass (pidex index): wall %e s, peak RSS %M KB' "$bin" --db "$db" --sessions "$corpus" index >/dev/null
echo "catalog: $(du -b "$db" | cut -f1) bytes = $(awk -v c="$(du -b "$db" | cut -f1)" -v b="$bytes" 'BEGIN {printf "%.1f%%", 100*c/b}') of the corpus"

echo "== search: rare term '$rare', common term '$common' (--limit 20), against rg -l"
hyperfine -N -w 3 -m 20 --export-markdown "$work/search.md" \
  "$bin --db $db --sessions $corpus search $rare --no-refresh" \
  "$bin --db $db --sessions $corpus search $rare" \
  "$bin --db $db --sessions $corpus search $common --limit 20 --no-refresh" \
  "$bin --db $db --sessions $corpus search $common --limit 20" \
  "rg -l $rare $corpus" \
  "rg -l $common $corpus" >/dev/null
cat "$work/search.md"

echo "== recall: every planted word finds exactly the sessions that hold it"
node -e '
const m = require(process.argv[1]); let bad = 0;
const { execFileSync } = require("child_process");
for (const [w, files] of Object.entries(m)) {
  const out = JSON.parse(execFileSync(process.argv[2], ["--db", process.argv[3], "--sessions", process.argv[4], "search", w, "--sessions-only", "--json", "--no-refresh", "--limit", "1000"]));
  const got = out.map(h => h.path.slice(process.argv[4].length + 1)).sort();
  if (JSON.stringify(got) !== JSON.stringify([...files].sort())) { bad++; console.log("MISMATCH", w, got.length, files.length); }
}
console.log(Object.keys(m).length + " planted words, " + bad + " mismatches");
' "$corpus.plants.json" "$bin" "$db" "$corpus"

if [ -d "$here/bench/pi/node_modules" ] || [ -n "${PI_PKG_DIR:-}" ]; then
  echo "== pi SessionManager.listAll() (peer)"
  for i in 1 2 3; do node "$here/bench/pi/listall.mjs" "$corpus" | grep -oE '"(seconds|MBps|peakRSSMB)":[0-9.]+' | paste -sd' '; done
fi
