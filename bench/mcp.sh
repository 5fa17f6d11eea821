#!/usr/bin/env bash
# Measures `pidex mcp` on one corpus (bench/mcpbench): tool latency over
# stdio for a rare and a common search and for read_session of the
# largest session's latest window, against `pidex search --json` run as a
# process, the same tools in process (the server's own time), and the
# server's idle CPU. Prints the figures recorded in docs/benchmarks-history.md.
# Usage:
#   bench/mcp.sh CORPUS_DIR [WORK_DIR]
# CORPUS_DIR: e.g. go run ./bench/gencorpus -out /work/scratch/corpus/s3000 -files 3000 -size 1.7GB -seed 1 -text realistic -shape real
# (its planted rare words are in CORPUS_DIR.plants.json). ROUNDS and IDLE
# (a duration) tune the runs.
set -euo pipefail
corpus=$(cd "$1" && pwd)
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$work/pidex
db=$work/mcp.sqlite
(cd "$here" && CGO_ENABLED=0 go build -o "$bin" ./cmd/pidex && go build -o "$work/mcpbench" ./bench/mcpbench)
echo "corpus: $corpus, $(find "$corpus" -name '*.jsonl' | wc -l) files, $(du -sh "$corpus" | cut -f1)"
echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3)"
if [ ! -s "$db" ]; then
	/usr/bin/time -f 'index once (pidex index, text included): wall %e s' "$bin" --db "$db" --sessions "$corpus" index -q >/dev/null || true # exit 3: some lines unreadable
fi
"$work/mcpbench" -bin "$bin" -db "$db" -corpus "$corpus" -rounds "${ROUNDS:-15}" -idle "${IDLE:-65s}"
