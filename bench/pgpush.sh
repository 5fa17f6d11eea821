#!/usr/bin/env bash
# Measures a team catalog in PostgreSQL (pidex push, and reads with
# --catalog) against a local catalog of the same sessions, and prints the
# figures recorded in docs/benchmarks-history.md ("Team catalog"). Usage:
#   bench/pgpush.sh WORK_DIR CORPUS...
# Each CORPUS is one machine's sessions root, e.g. ten of
#   go run ./bench/gencorpus -out DIR/mN -files 300 -size 170MB -seed N -text realistic -shape real
# WORK_DIR gets the local catalogs, a throwaway PostgreSQL cluster (initdb
# and postgres from /usr/lib/postgresql/*/bin, Debian's postgresql; run as
# nobody when this runs as root; a Unix socket in WORK_DIR only; default
# settings, fsync on) and the timings. Reads are alternated, local and team,
# and their medians printed; the load average is printed before and after.
# PIDEX_BENCH_READS=1 measures the reads only, on the catalogs a previous
# run left in WORK_DIR.
set -euo pipefail
work=$(mkdir -p "$1" && cd "$1" && pwd)
shift
corpora=()
for c in "$@"; do corpora+=("$(cd "$c" && pwd)"); done
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$work/pidex
(cd "$here" && CGO_ENABLED=0 go build -o "$bin" ./cmd/pidex)
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as=()
if [ "$(id -u)" = 0 ]; then as=(runuser -u nobody --); fi
now_ms() { date +%s%3N; }
echo "date: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(go version | cut -d' ' -f3), $("$pgbin/postgres" --version)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# The cluster.
pg=$work/pg
if [ ! -d "$pg/data" ]; then
  mkdir -p "$pg" && chmod 755 "$work"
  if [ ${#as[@]} -gt 0 ]; then chown nobody "$pg"; fi
  "${as[@]}" "$pgbin/initdb" -D "$pg/data" -U pidex -A trust -E UTF8 --no-locale >"$pg/initdb.log"
fi
"${as[@]}" "$pgbin/pg_ctl" -D "$pg/data" -l "$pg/server.log" -w \
  -o "-c listen_addresses= -k $pg -c max_wal_size=4GB" start >/dev/null
trap '"${as[@]}" "$pgbin/pg_ctl" -D "$pg/data" -m fast stop >/dev/null' EXIT
psql() { "$pgbin/psql" -h "$pg" -U pidex -qAt "$@"; }
url="postgres://pidex@/bench?host=$pg"
roots=()
for c in "${corpora[@]}"; do roots+=(--sessions "$c"); done
union=$work/union.sqlite
if [ -z "${PIDEX_BENCH_READS:-}" ]; then
psql -d postgres -c "DROP DATABASE IF EXISTS bench" -c "CREATE DATABASE bench"

# Each machine's local catalog (its own pidex index), then its cold push.
total=0
echo "== cold push, one machine after the other (local catalog indexed first)"
for i in "${!corpora[@]}"; do
  c=${corpora[$i]}
  m=m$((i + 1))
  db=$work/$m.sqlite
  [ -f "$db" ] || "$bin" --db "$db" --sessions "$c" -q index >/dev/null || [ $? = 3 ]
  bytes=$(find "$c" -name '*.jsonl' -printf '%s\n' | awk '{s+=$1} END {print s}')
  total=$((total + bytes))
  t0=$(now_ms)
  "$bin" --db "$db" --sessions "$c" --machine "$m" --no-refresh -q push --to "$url" >/dev/null
  t1=$(now_ms)
  awk -v b="$bytes" -v ms=$((t1 - t0)) -v m="$m" 'BEGIN {printf "%s: %.1f MB in %.1f s: %.1f MB/s\n", m, b/1e6, ms/1000, b/1e6/(ms/1000)}'
done
echo "union: $(awk -v b=$total 'BEGIN {printf "%.2f GB", b/1e9}')"

echo "== team catalog size"
psql -d bench -c "VACUUM ANALYZE" >/dev/null
psql -d bench -F' ' -c "SELECT relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 2 DESC" | awk '{printf "%-20s %8.1f MB\n", $1, $2/1e6}'
psql -d bench -c "SELECT pg_database_size('bench')" | awk -v b=$total '{printf "database: %.1f MB, %.2f MB per MB of sessions\n", $1/1e6, $1/b}'

echo "== incremental push (machine m1)"
c1=${corpora[0]}
f=$(find "$c1" -name '*.jsonl' | sort | tail -1)
cp "$f" "$work/appended.bak"
# One appended session: the last file gets a few more turns (its own
# last lines again, under new ids), as pi appends.
tail -n 40 "$f" | sed -E 's/"id":"([^"]*)"/"id":"\1-more"/; s/"parentId":"([^"]*)"/"parentId":"\1-more"/' >>"$f"
added=$(($(stat -c %s "$f") - $(stat -c %s "$work/appended.bak")))
t0=$(now_ms)
"$bin" --db "$work/m1.sqlite" --sessions "$c1" --machine m1 -q push --to "$url" --json >"$work/incremental.json"
t1=$(now_ms)
echo "one appended session ($added bytes added), refresh + push: $((t1 - t0)) ms"
t0=$(now_ms)
"$bin" --db "$work/m1.sqlite" --sessions "$c1" --machine m1 -q push --to "$url" >/dev/null
t1=$(now_ms)
echo "nothing changed, refresh + push: $((t1 - t0)) ms"
mv "$work/appended.bak" "$f"
"$bin" --db "$work/m1.sqlite" --sessions "$c1" --machine m1 -q push --to "$url" >/dev/null

echo "== local catalog of the union (one pidex over the ten roots)"
if [ ! -f "$union" ]; then
  t0=$(now_ms)
  "$bin" --db "$union" "${roots[@]}" -q index >/dev/null || [ $? = 3 ]
  t1=$(now_ms)
  echo "cold index of the union: $((t1 - t0)) ms, catalog $(du -b "$union" | cut -f1) bytes"
fi
fi

echo "== reads: local catalog of the union vs the team catalog (ms, median of 7, alternated)"
local=("$bin" --db "$union" "${roots[@]}" --no-refresh)
team=("$bin" --catalog "$url")
# Each read is shell words: a quoted phrase keeps its double quotes ('"…"'),
# which pidex reads as a phrase; "if err != nil" alone is three words.
reads=("list --json" "list --limit 20" "search zqplant0001" "search 検索" "search the" "search deadlock" "search goroutin*"
  "search \"if err != nil\"" "search '\"if err != nil\"'" "search '\"the test\"'"
  "search --sessions-only goroutine" "search --project proj-03 the" "search --role user the" "search --since 2026-08-01 the"
  "search --branch active the" "search --branch active deadlock" "cost --by day --tz UTC" "cost --by day,model --tz UTC"
  "show --json $(find "${corpora[0]}" -name '*.jsonl' -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2)")
for r in "${reads[@]}"; do
  eval "args=($r)"
  lt=() tt=()
  for _ in 1 2 3 4 5 6 7; do
    t0=$(now_ms); "${local[@]}" "${args[@]}" >/dev/null 2>&1 || true; t1=$(now_ms); lt+=($((t1 - t0)))
    t0=$(now_ms); "${team[@]}" "${args[@]}" >/dev/null 2>&1 || true; t1=$(now_ms); tt+=($((t1 - t0)))
  done
  med() { printf '%s\n' "$@" | sort -n | sed -n 4p; }
  printf '%-40s local %5s   team %5s\n' "pidex $r" "$(med "${lt[@]}")" "$(med "${tt[@]}")"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
