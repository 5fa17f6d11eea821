#!/usr/bin/env bash
# Measures `pidex serve` on one corpus: server time of the sessions page,
# the largest session's page, searches and the cost page (the first
# request, then the median and slowest of 21 more, over loopback: curl's
# time to first byte, as the server renders a page whole before sending
# it), and the server's idle CPU over a minute. Prints the figures recorded in
# docs/benchmarks-history.md. Usage:
#   bench/serve.sh CORPUS_DIR [WORK_DIR]
# CORPUS_DIR: e.g. go run ./bench/gencorpus -out /tmp/s3000 -files 3000 -size 1.7GB -seed 1 -text realistic -shape real
set -euo pipefail
corpus=$(cd "$1" && pwd)
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$work/pidex
db=$work/serve.sqlite
(cd "$here" && CGO_ENABLED=0 go build -o "$bin" ./cmd/pidex)
echo "corpus: $corpus, $(find "$corpus" -name '*.jsonl' | wc -l) files, $(du -sh "$corpus" | cut -f1)"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(go version | cut -d' ' -f3)"
"$bin" --db "$db" --sessions "$corpus" index -q >/dev/null || true # text included; exit 3 = some lines unreadable

"$bin" --db "$db" --sessions "$corpus" serve --addr 127.0.0.1:0 >"$work/url" 2>"$work/serve.log" &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -1 "$work/url")
url=${url%/}
largest=$(curl -s "$url/api/sessions?sort=size&limit=1")
id=$(echo "$largest" | grep -o '"id":"[^"]*"' | head -1 | cut -d'"' -f4)
file=$(basename "$(echo "$largest" | grep -o '"path":"[^"]*"' | head -1 | cut -d'"' -f4)")
size=$(echo "$largest" | grep -o '"sizeBytes":[0-9]*' | cut -d: -f2)
entries=$(echo "$largest" | grep -o '"entryCount":[0-9]*' | cut -d: -f2)
echo "largest session: $id, $size bytes, $entries entries"

measure() { # name path: the first request (cold: nothing cached), then the median and slowest of 21
	local first times bytes
	first=$(curl -s -o /dev/null -w '%{time_starttransfer}' "$url$2")
	times=$(for _ in $(seq 21); do curl -s -o /dev/null -w '%{time_starttransfer}\n' "$url$2"; done | sort -n)
	bytes=$(curl -s "$url$2" | wc -c)
	printf '%-34s first %7.1f ms   median %6.1f ms   slowest %6.1f ms   %8d bytes\n' "$1" \
		"$(echo "$first" | awk '{print $1*1000}')" "$(echo "$times" | sed -n 11p | awk '{print $1*1000}')" "$(echo "$times" | tail -1 | awk '{print $1*1000}')" "$bytes"
}
measure "sessions page (first 100)" "/"
measure "sessions page, filtered" "/?project=proj-0&since=2020-01-01"
measure "sessions page, last page" "/?start=2950"
measure "largest session page" "/s/$id?file=$file"
measure "largest session, model context" "/s/$id?file=$file&view=context"
rare=${RARE:-$(grep -o '"zqplant[0-9]*"' "$corpus.plants.json" 2>/dev/null | head -1 | tr -d '"' || echo zqplant0001)}
measure "search page, rare word" "/search?q=$rare"
measure "search page, common word" "/search?q=${COMMON:-the}"
measure "search as you type (partial)" "/search?q=${COMMON:-the}&partial=1"
measure "GET /api/search, common word" "/api/search?q=${COMMON:-the}"
measure "GET /api/sessions (all)" "/api/sessions"
measure "cost page (day × model)" "/cost?tz=UTC"

sleep 5 # let the first watch refresh settle
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
before=$(cpu)
sleep 60
after=$(cpu)
echo "idle CPU over 60 s: $((after - before)) ticks of 1/$ticks s = $(awk -v d=$((after - before)) -v t="$ticks" 'BEGIN {printf "%.2f%%", 100*d/t/60}') of one core"
