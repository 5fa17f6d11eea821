#!/usr/bin/env bash
# The current table of BENCHMARKS.md: every goal of issue 20 against its
# peer, in one run, printed as Markdown on stdout (progress on stderr).
#   bench/table.sh PIDEX_BINARY CORPUS_DIR [WORK_DIR]
# CORPUS_DIR: a sessions root with realistic text and its manifest
# CORPUS_DIR.plants.json (go run ./bench/gencorpus -out DIR -text realistic -shape
# real ...; the table's header says how the corpus's shape compares with
# real session files, from go run ./bench/shape).
# WORK_DIR keeps the catalog (default: a temporary folder, removed at exit).
# Methods, as in BENCHMARKS.md's last rounds:
# - cold index: pi's listAll() (node bench/pi/listall.mjs, its own seconds)
#   and a cold `pidex index` (no catalog) alternated as in coldpairs.sh, N
#   index runs each between two listAll() runs, ratio to the mean of the
#   two beside it; wall seconds and peak RSS from GNU time;
# - the reads on the catalog the last cold index left, hyperfine -N
#   medians, output piped: a refresh with nothing changed (and `pidex
#   version`, process start), list, cost --by day against `ccusage pi daily`,
#   a rare planted word against `rg -l`, "the" (top 20), the largest
#   session's tree; then the catalog's size.
# - peak RSS of every command a user runs (GNU time, one run each, after
#   the reads): the memory table printed below the goals.
# GOALS=30k: the goals of issue 38 at 30,000 sessions (absolute bounds:
#   refresh ≤ 60 ms, list --limit 50 ≤ 50 ms, rare ≤ 50 ms, common top 20
#   ≤ 100 ms, cost ≤ 100 ms, phrase ≤ 500 ms, peak RSS ≤ 300 MB) instead of
#   the 3,000-session ratios; LISTALL=0 skips pi's listAll() (at 30,000
#   sessions it takes minutes and gigabytes; the cold index is then timed
#   alone).
# Environment: N (cold index runs, 1), RUNS (hyperfine runs of each pidex
# read, 20), RARE (the rare word: the manifest's first zqplant word),
# CCUSAGE (the ccusage command: ccusage on PATH; npm install ccusage@20.0.24
# @ccusage/ccusage-linux-x64@20.0.24), PI_PKG_DIR (see bench/pi/listall.mjs).
# Needs hyperfine, rg, GNU time (/usr/bin/time), node and the pi peer
# (cd bench/pi && npm install). Build pidex as it is installed:
# CGO_ENABLED=0 go build -o PIDEX ./cmd/pidex.
set -euo pipefail
if [ $# -lt 2 ]; then
	echo "usage: bench/table.sh PIDEX_BINARY CORPUS_DIR [WORK_DIR]" >&2
	exit 2
fi
bin=$(realpath "$1")
corpus=$(cd "$2" && pwd)
if [ -n "${3:-}" ]; then
	work=$3
	mkdir -p "$work"
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
work=$(cd "$work" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
n=${N:-1}
runs=${RUNS:-20}
ccusage=${CCUSAGE:-ccusage}
goals=${GOALS:-3k}
with_listall=${LISTALL:-1}
phrase='"the test"'
db=$work/table.sqlite

log() { echo "table.sh $(date -u +%H:%M:%S): $*" >&2; }
steal() { awk '/^cpu /{print $9}' /proc/stat; } # USER_HZ ticks (1/100 s)
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
calc() { awk "BEGIN {printf \"$1\", $2}"; } # calc FORMAT EXPR
met() { if awk "BEGIN {exit !($1)}"; then echo "met"; else echo "**missed**"; fi; }
# hf NAME HYPERFINE_ARGS...: runs hyperfine, prints nothing; ms NAME I is
# the median of its I-th command in ms.
hf() {
	local name=$1
	shift
	hyperfine -N --output=pipe --export-json "$work/$name.json" "$@" >>"$work/hyperfine.log" 2>&1 || {
		log "hyperfine failed ($name): see $work/hyperfine.log"
		tail -20 "$work/hyperfine.log" >&2
		exit 1
	}
}
ms() { jq -r ".results[$2].median * 1000" "$work/$1.json"; }
# fmt_ms / fmt_s: a duration for the table.
fmt_ms() { awk -v v="$1" 'BEGIN {if (v >= 1000) printf "%.2f s", v / 1000; else if (v >= 100) printf "%.0f ms", v; else printf "%.1f ms", v}'; }
fmt_s() { awk -v v="$1" 'BEGIN {if (v >= 10) printf "%.1f s", v; else printf "%.2f s", v}'; }

# What is missing, before anything runs.
missing=()
for tool in hyperfine rg node jq; do command -v "$tool" >/dev/null || missing+=("$tool"); done
[ -x /usr/bin/time ] || missing+=("GNU time (/usr/bin/time)")
[ "$with_listall" = 0 ] || [ -d "$here/bench/pi/node_modules" ] || [ -n "${PI_PKG_DIR:-}" ] || missing+=("the pi peer (cd bench/pi && npm install)")
command -v "$ccusage" >/dev/null || missing+=("ccusage (CCUSAGE=…)")
[ -f "$corpus.plants.json" ] || [ -n "${RARE:-}" ] || missing+=("$corpus.plants.json (gencorpus -text realistic) or RARE")
command -v go >/dev/null || missing+=("go (go run ./bench/shape)")
if [ ${#missing[@]} -gt 0 ]; then
	printf 'table.sh: missing: %s\n' "${missing[@]}" >&2
	exit 2
fi

rare=${RARE:-$(grep -o '"zqplant[0-9]*"' "$corpus.plants.json" | head -1 | tr -d '"')}
files=$(find "$corpus" -name '*.jsonl' | wc -l)
bytes=$(find "$corpus" -name '*.jsonl' -printf '%s\n' | awk '{s += $1} END {print s}')
read -r largest_bytes largest < <(find "$corpus" -name '*.jsonl' -printf '%s %p\n' | sort -n | tail -1)
corpus_cell="$(basename "$corpus") ($files files, $(calc '%.1f' "$bytes / 1e6") MB)"
date=$(date -u +%Y-%m-%d)
start=$(date +%s)
steal0=$(steal)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
log "corpus $corpus: $files files, $bytes bytes; rare word $rare; largest file $largest ($largest_bytes bytes); work $work"
# The corpus's shape beside real session files' (bench/shape).
shaped=yes
(cd "$here" && go run ./bench/shape -json -check "$corpus") >"$work/shape.json" 2>>"$work/shape.log" || shaped=no
shape_cell=$(jq -r '"\(.entriesPerMB | round) entries/MB, entry lines p10 \(.p10) B, p50 \(.p50) B, p90 \(.p90) B, p99 \(.p99) B, mean \(.mean | round) B"' "$work/shape.json")
if [ "$shaped" = no ]; then
	shape_cell="$shape_cell: **not shaped like real sessions** (go run ./bench/shape $corpus; gencorpus -shape real)"
fi
log "corpus shape: $shape_cell"

# 1. The cold index between listAll() runs.
listall() { # sets la_s (listAll()'s own seconds) and la_rss (MB)
	if [ "$with_listall" = 0 ]; then
		la_s=0 la_rss=0
		echo 0 >>"$work/listall-s.txt"
		echo 0 >>"$work/listall-rss.txt"
		return
	fi
	node "$here/bench/pi/listall.mjs" "$corpus" >"$work/listall.json"
	la_s=$(grep -oE '"seconds":[0-9.]+' "$work/listall.json" | cut -d: -f2)
	la_rss=$(grep -oE '"peakRSSMB":[0-9.]+' "$work/listall.json" | cut -d: -f2)
	echo "$la_s" >>"$work/listall-s.txt"
	echo "$la_rss" >>"$work/listall-rss.txt"
	log "listAll() $la_s s, peak RSS $la_rss MB"
}
rm -f "$work"/listall-s.txt "$work"/listall-rss.txt "$work"/cold.txt "$work"/hyperfine.log
listall
prev=$la_s
for i in $(seq "$n"); do
	rm -f "$db" "$db"-*
	s0=$(steal)
	/usr/bin/time -o "$work/time" -f '%e %M' "$bin" --db "$db" --sessions "$corpus" index >/dev/null 2>>"$work/index.log"
	s1=$(steal)
	read -r secs rss <"$work/time"
	log "cold index $i/$n: $secs s, peak RSS $((rss / 1024)) MB, steal $(((s1 - s0) * 10)) ms"
	listall
	ratio=0
	[ "$with_listall" = 0 ] || ratio=$(calc '%.3f' "$secs / (($prev + $la_s) / 2)")
	echo "$secs $((rss / 1024)) $ratio $(((s1 - s0) * 10))" >>"$work/cold.txt"
	log "ratio $ratio (listAll() $prev and $la_s s)"
	prev=$la_s
done
cold_s=$(cut -d' ' -f1 "$work/cold.txt" | median)
cold_rss_max=$(cut -d' ' -f2 "$work/cold.txt" | sort -n | tail -1)
cold_rss_min=$(cut -d' ' -f2 "$work/cold.txt" | sort -n | head -1)
cold_ratio=$(cut -d' ' -f3 "$work/cold.txt" | median)
cold_steal=$(cut -d' ' -f4 "$work/cold.txt" | awk '{s += $1} END {print s / 1000}')
la_med=$(median <"$work/listall-s.txt")
la_rss_min=$(sort -g "$work/listall-rss.txt" | head -1)
la_rss_max=$(sort -g "$work/listall-rss.txt" | tail -1)
range() { [ "$1" = "$2" ] && echo "$1" || echo "$1–$2"; }
if [ "$n" -gt 1 ]; then
	cold_cell="median $(fmt_s "$cold_s") of $n, $(range "$(fmt_s "$(cut -d' ' -f1 "$work/cold.txt" | sort -g | head -1)")" "$(fmt_s "$(cut -d' ' -f1 "$work/cold.txt" | sort -g | tail -1)")")"
	ratio_cell="median $(calc '%.2f' "$cold_ratio") × ($(range "$(cut -d' ' -f3 "$work/cold.txt" | sort -g | head -1 | xargs printf '%.2f')" "$(cut -d' ' -f3 "$work/cold.txt" | sort -g | tail -1 | xargs printf '%.2f')") ×)"
else
	cold_cell=$(fmt_s "$cold_s")
	ratio_cell="$(calc '%.2f' "$cold_ratio") ×"
fi
cold_cell="$cold_cell (steal $(calc '%.2f' "$cold_steal") s)"
la_cell="\`listAll()\` $(fmt_s "$la_med") (median of $((n + 1)))"
if [ "$n" -eq 1 ]; then
	la_cold_cell="\`listAll()\` $(fmt_s "$(head -1 "$work/listall-s.txt")") before, $(fmt_s "$(tail -1 "$work/listall-s.txt")") after"
else
	la_cold_cell="$la_cell"
fi

# 2. The reads, on the catalog the last cold index left.
p="$bin --db $db --sessions $corpus"
log "refresh with nothing changed, and pidex version"
hf refresh -w 5 -r $((runs * 3)) "$bin version" "$p index"
version_ms=$(ms refresh 0)
refresh_ms=$(ms refresh 1)
log "version $(fmt_ms "$version_ms"), refresh $(fmt_ms "$refresh_ms")"
log "list, list --limit 50, cost, rare and common search, a phrase, tree of the largest session"
hf reads -w 3 -r "$runs" "$p list" "$p cost --by day --tz UTC" "$p search $rare" "$p search the" "$p tree $largest" \
	"$p list --limit 50" "$p search '$phrase'"
list_ms=$(ms reads 0)
cost_ms=$(ms reads 1)
rare_ms=$(ms reads 2)
common_ms=$(ms reads 3)
tree_ms=$(ms reads 4)
list50_ms=$(ms reads 5)
phrase_ms=$(ms reads 6)
log "list $(fmt_ms "$list_ms"), cost $(fmt_ms "$cost_ms"), rare $(fmt_ms "$rare_ms"), common $(fmt_ms "$common_ms"), tree $(fmt_ms "$tree_ms"), list --limit 50 $(fmt_ms "$list50_ms"), phrase $(fmt_ms "$phrase_ms")"
# Peak RSS of each command a user runs, one run each, output to a file
# (what a pipe would carry, held by nobody). The list is the commands
# whose answer grows with the history when it is not streamed.
rss_cmds=(
	"index"
	"list" "list --json" "list --limit 50"
	"search $rare" "search the" "search --json the" "search --sessions-only the" "search --sessions-only --json error"
	"search '$phrase'"
	"cost --by day --tz UTC" "cost --by session --json" "stats" "stats --by session --json"
	"tree $largest" "show --json $largest" "show --context --json $largest" "export --format md $largest"
	"sql 'select count(*) from entries_v'"
)
rm -f "$work/rss.txt"
for c in "${rss_cmds[@]}"; do
	# c is shell words (the phrase and the SQL are quoted in it)
	eval "/usr/bin/time -o \"\$work/time\" -f %M $p $c" >"$work/out" 2>/dev/null || true
	kb=$(tail -1 "$work/time")
	echo "$((kb / 1024)) ${c/#$corpus/CORPUS}" >>"$work/rss.txt"
done
sed -i "s#$corpus#CORPUS#g" "$work/rss.txt"
read -r rss_max rss_max_cmd < <(sort -n "$work/rss.txt" | tail -1)
log "peak RSS of the reads: at most $rss_max MB ($rss_max_cmd)"
log "rg -l $rare"
hf rg -w 1 -r 10 "rg -l $rare $corpus"
rg_ms=$(ms rg 0)
log "rg -l $(fmt_ms "$rg_ms"); ccusage pi daily"
hf ccusage -w 1 -r "$([ "$goals" = 30k ] && echo 2 || echo 5)" "$ccusage pi daily --json --offline -z UTC --pi-path $corpus"
ccusage_ms=$(ms ccusage 0)
log "ccusage $(fmt_ms "$ccusage_ms")"

# 3. The catalog: its file and the files beside it (stamps, listing and
# rollup caches), after the reads made them.
cat_bytes=$(find "$work" -maxdepth 1 -name "$(basename "$db")*" -printf '%s\n' | awk '{s += $1} END {print s}')
db_bytes=$(stat -c %s "$db")
cat_pct=$(calc '%.1f' "100 * $cat_bytes / $bytes")

elapsed=$(($(date +%s) - start))
steal_s=$(calc '%.2f' "($(steal) - $steal0) / 100")
ver=$("$bin" version | paste -sd';' | sed 's/;/; /g')
if ! grep -q commit <<<"$ver"; then
	ver="$ver (no commit stamped; bench/ at $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'))"
fi
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
pi_ver=$(grep -oE '"pi":"[^"]*"' "$work/listall.json" 2>/dev/null | cut -d'"' -f4 || true)
log "done in $elapsed s"

echo "- Machine: nproc $(nproc), $cpu, $(free -g | awk '/^Mem:/ {print $2}') GiB, $(uname -sr), $(command -v go >/dev/null && go version | cut -d' ' -f3- || echo 'go: not installed'); pidex: $ver."
echo "- Host: steal $steal_s s during the run's $elapsed s ($(calc '%.1f' "100 * $steal_s / ($elapsed * $(nproc))")% of the CPUs' time); load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after."
echo "- Corpus shape (go run ./bench/shape): $shape_cell; real pi session files: 344 entries/MB, p10 223 B, p50 604 B, p90 3.5 KB, p99 35 KB, mean 2.9 KB."
pi_cell="pi $pi_ver \`SessionManager.listAll()\` on node $(node --version)"
[ "$with_listall" = 0 ] && pi_cell="pi's \`listAll()\` not run (LISTALL=0)"
echo "- Peers: $pi_cell, $(rg --version | head -1), ccusage $($ccusage --version 2>/dev/null | tail -1 | grep -oE '[0-9][0-9.]*' | head -1), $(hyperfine --version). Cold index: $n run(s), each between two \`listAll()\` runs; reads: hyperfine -N medians ($runs runs, refresh $((runs * 3))), output piped, catalog warm."
echo
echo "| goal | pidex | peer | ratio | corpus | date | command |"
echo "|---|---|---|---|---|---|---|"
row() { echo "| $1 | $2 | $3 | $4 | $corpus_cell | $date | \`$5\` |"; }
cmd="pidex --db DB --sessions CORPUS"
rss_row() {
	row "peak RSS of every command ≤ 300 MB (memory table below)" "at most $rss_max MB (\`${rss_max_cmd}\`); cold index $(range "$cold_rss_min" "$cold_rss_max") MB" \
		"$([ "$with_listall" = 0 ] && echo — || echo "\`listAll()\` $(range "$la_rss_min" "$la_rss_max") MB")" \
		"$(met "$rss_max <= 300 && $cold_rss_max <= 300")" "/usr/bin/time -f %M $cmd …"
}
catalog_row() {
	row "catalog ≤ 20% of the corpus" "$(calc '%.1f' "$cat_bytes / 1e6") MB (catalog $(calc '%.1f' "$db_bytes / 1e6") MB, files beside it $(calc '%.1f' "($cat_bytes - $db_bytes) / 1e6") MB)" \
		"corpus $(calc '%.1f' "$bytes / 1e6") MB" "$cat_pct %: $(met "$cat_pct <= 20")" "du -b DB DB-* after the above"
}
bound() { # bound GOAL MS LIMIT COMMAND: an absolute bound, no peer
	row "$1 ≤ $3 ms" "$(fmt_ms "$2")" "—" "— ($(met "$2 <= $3"))" "$4"
}
if [ "$goals" = 30k ]; then
	row "cold index with search, empty catalog" "$cold_cell" "$([ "$with_listall" = 0 ] && echo "— (\`listAll()\` not run: LISTALL=0)" || echo "$la_cold_cell")" \
		"$([ "$with_listall" = 0 ] && echo — || echo "$ratio_cell")" "$cmd index"
	rss_row
	bound "refresh, nothing changed" "$refresh_ms" 60 "$cmd index"
	bound "\`pidex list --limit 50\`" "$list50_ms" 50 "$cmd list --limit 50"
	bound "rare word ($rare)" "$rare_ms" 50 "$cmd search $rare"
	bound "common word, top 20" "$common_ms" 100 "$cmd search the"
	row "\`pidex cost --by day\` ≤ 100 ms" "$(fmt_ms "$cost_ms")" "\`ccusage pi daily\` $(fmt_ms "$ccusage_ms")" \
		"$(calc '%.0f' "$ccusage_ms / $cost_ms") × ($(met "$cost_ms <= 100"))" "$cmd cost --by day --tz UTC"
	bound "a phrase of common words" "$phrase_ms" 500 "$cmd search '$phrase'"
	row "\`pidex list\` (all sessions, refresh included)" "$(fmt_ms "$list_ms")" "—" "—" "$cmd list"
	row "rare word against \`rg -l\`" "$(fmt_ms "$rare_ms")" "\`rg -l\` $(fmt_ms "$rg_ms")" "$(calc '%.1f' "$rg_ms / $rare_ms") ×" "$cmd search $rare"
	catalog_row
else
	row "cold index with search, empty catalog: ≤ 3 × one \`listAll()\`" "$cold_cell" "$la_cold_cell" \
		"$ratio_cell: $(met "$cold_ratio <= 3")" "$cmd index"
	rss_row
	row "refresh, nothing changed ≤ 15 ms" "$(fmt_ms "$refresh_ms")" "\`pidex version\` $(fmt_ms "$version_ms") (process start)" \
		"$(calc '%.1f' "$refresh_ms / $version_ms") × \`version\`: $(met "$refresh_ms <= 15")" "$cmd index"
	row "\`pidex list\` (refresh included) ≥ 400 × one \`listAll()\`" "$(fmt_ms "$list_ms")" "$la_cell" \
		"$(calc '%.0f' "$la_med * 1000 / $list_ms") ×: $(met "$la_med * 1000 / $list_ms >= 400")" "$cmd list"
	row "\`pidex cost --by day\` ≥ 150 × \`ccusage pi daily\`" "$(fmt_ms "$cost_ms")" "\`ccusage pi daily\` $(fmt_ms "$ccusage_ms")" \
		"$(calc '%.0f' "$ccusage_ms / $cost_ms") ×: $(met "$ccusage_ms / $cost_ms >= 150")" "$cmd cost --by day --tz UTC"
	row "rare word ($rare) < 50 ms and ≥ 10 × \`rg -l\`" "$(fmt_ms "$rare_ms")" "\`rg -l\` $(fmt_ms "$rg_ms")" \
		"$(calc '%.1f' "$rg_ms / $rare_ms") ×: $(met "$rare_ms < 50 && $rg_ms / $rare_ms >= 10")" "$cmd search $rare"
	row "common word, top 20 < 150 ms" "$(fmt_ms "$common_ms")" "—" "— ($(met "$common_ms < 150"))" "$cmd search the"
	bound "\`pidex list --limit 50\`" "$list50_ms" 50 "$cmd list --limit 50"
	bound "a phrase of common words" "$phrase_ms" 500 "$cmd search '$phrase'"
	row "largest session's tree ($(calc '%.1f' "$largest_bytes / 1e6") MB) < 300 ms" "$(fmt_ms "$tree_ms")" "—" "— ($(met "$tree_ms < 300"))" \
		"$cmd tree ${largest/#$corpus/CORPUS}"
	catalog_row
fi
echo
echo "Peak RSS of each command (one run each, output to a file; \`$cmd …\`):"
echo
echo "| command | peak RSS |"
echo "|---|---|"
while read -r mb c; do echo "| \`$c\` | $mb MB |"; done <"$work/rss.txt"
echo "| \`index\` (cold, above) | $(range "$cold_rss_min" "$cold_rss_max") MB |"
