#!/usr/bin/env bash
# The cold-index goal of BENCHMARKS.md (issue 20: a cold index with search
# at most 3 × one pi listAll() in the same run): pi's listAll() and a cold
# `pidex index` in one command (no catalog), alternated, N index runs
# each between two listAll() runs, and each index run's ratio to the mean
# of the two beside it, so that the shared host's drift falls on both.
# Prints each run's peak RSS (/usr/bin/time %M) and the host's steal, then
# the median ratio. Usage:
#   bench/coldpairs.sh PIDEX_BINARY CORPUS_DIR [N]   (N: 5)
# Needs the pi peer (`cd bench/pi && npm install`, or PI_PKG_DIR) and
# GNU time. Build pidex as it is installed: CGO_ENABLED=0 go build.
set -euo pipefail
bin=$(realpath "$1")
corpus=$(cd "$2" && pwd)
n=${3:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "corpus: $corpus; pidex: $bin; date: $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"

listall() { # prints listAll()'s own seconds (node's start excluded)
	node "$here/bench/pi/listall.mjs" "$corpus" | grep -oE '"seconds":[0-9.]+' | cut -d: -f2
}
steal() { awk '/^cpu /{print $9}' /proc/stat; }

prev=$(listall)
echo "listAll() ${prev} s"
ratios=()
for i in $(seq "$n"); do
	db=$work/cold.sqlite
	s0=$(steal)
	/usr/bin/time -o "$work/time" -f '%e %M' "$bin" --db "$db" --sessions "$corpus" -q index >/dev/null
	s1=$(steal)
	read -r secs rss <"$work/time"
	rm -f "$db" "$db"-*
	next=$(listall)
	ratio=$(awk -v a="$prev" -v b="$next" -v c="$secs" 'BEGIN {printf "%.2f", c / ((a + b) / 2)}')
	ratios+=("$ratio")
	echo "index ${secs} s, peak RSS $((rss / 1024)) MB, steal $(((s1 - s0) * 10)) ms: ${ratio} × (listAll() ${prev} and ${next} s)"
	echo "listAll() ${next} s"
	prev=$next
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{r[NR] = $1} END {m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2; printf "median %.2f × over %d runs (%s … %s)\n", m, NR, r[1], r[NR]}'
