#!/usr/bin/env bash
# Times the tools a user would otherwise run, on one corpus, for the ratios
# in BENCHMARKS.md: pi's SessionManager.listAll() (three runs), ripgrep's
# `rg -l` of a rare planted word and of "the", and `ccusage pi daily`; and
# first what the machine charges for a page fault, a system call and a stat
# (bench/machine), which move pidex's short commands more than CPU speed.
# Run it right before or after bench/compare.sh on the same corpus, so that
# pidex and its peers share the machine's state. Usage:
#   bench/peers.sh CORPUS_DIR
# Needs hyperfine; the pi peer `cd bench/pi && npm install` (or PI_PKG_DIR);
# CCUSAGE: the ccusage command (default: ccusage on PATH; npm install
# ccusage@20.0.24 @ccusage/ccusage-linux-x64). A missing peer is skipped.
set -euo pipefail
corpus=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
rare=${RARE:-$(grep -o '"zqplant[0-9]*"' "$corpus.plants.json" | head -1 | tr -d '"')}
ccusage=${CCUSAGE:-ccusage}
echo "corpus: $corpus; date: $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
if command -v go >/dev/null; then
	echo "== the machine's kernel work (bench/machine)"
	(cd "$here" && go run ./bench/machine) || true
fi
if [ -d "$here/bench/pi/node_modules" ] || [ -n "${PI_PKG_DIR:-}" ]; then
	echo "== pi SessionManager.listAll()"
	for i in 1 2 3; do node "$here/bench/pi/listall.mjs" "$corpus" | grep -oE '"(seconds|peakRSSMB)":[0-9.]+' | paste -sd' '; done
fi
if command -v rg >/dev/null; then
	echo "== rg -l ($(rg --version | head -1))"
	hyperfine -N -w 1 -m 10 "rg -l $rare $corpus" "rg -l the $corpus" 2>&1 | grep -E 'Benchmark|Time'
fi
if command -v "$ccusage" >/dev/null; then
	echo "== ccusage pi daily"
	hyperfine -N -w 1 -m 5 "$ccusage pi daily --json --offline -z UTC --pi-path $corpus" 2>&1 | grep -E 'Benchmark|Time'
fi
