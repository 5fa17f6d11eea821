#!/usr/bin/env bash
# Compares two builds of pidex on one corpus, alternating them in the same
# run so that the machine's drift falls on both: a cold index (metadata
# pass, then text pass), a refresh that changes nothing, list, list --json,
# a rare and a common search, cost --by day. Usage:
#   bench/compare.sh BASE_REV NEW_REV CORPUS_DIR [PAIRS] [WORK_DIR]
# (revisions of this repository, e.g. b6fb8f1 HEAD; CORPUS_DIR with
# realistic text and its CORPUS_DIR.plants.json, see bench/README.md).
# Needs hyperfine and /usr/bin/time.
set -euo pipefail
base=$1 new=$2
corpus=$(cd "$3" && pwd)
pairs=${4:-3}
work=${5:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
for rev in "$base" "$new"; do
	dir=$work/src-$rev
	rm -rf "$dir"
	git -C "$here" worktree add -q --detach "$dir" "$rev"
	(cd "$dir" && CGO_ENABLED=0 go build -o "$work/pidex-$rev" ./cmd/pidex)
	git -C "$here" worktree remove --force "$dir"
done
rare=${RARE:-$(grep -o '"zqplant[0-9]*"' "$corpus.plants.json" | head -1 | tr -d '"')}
echo "corpus: $corpus, $(find "$corpus" -name '*.jsonl' | wc -l) files; base $base, new $new; rare term $rare"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"

echo "== cold index, alternating (metadata pass = list; text pass = index)"
for i in $(seq "$pairs"); do
	for rev in "$base" "$new"; do
		db=$work/$rev.sqlite
		rm -f "$db" "$db"-wal "$db"-shm "$db"-stamps "$db"-listing
		/usr/bin/time -f "$rev pair $i: metadata %e s (%M KB)" "$work/pidex-$rev" --db "$db" --sessions "$corpus" -q list >/dev/null 2>>"$work/times.txt" || true
		/usr/bin/time -f "$rev pair $i: text %e s (%M KB)" "$work/pidex-$rev" --db "$db" --sessions "$corpus" -q index >/dev/null 2>>"$work/times.txt" || true
	done
done
grep -E "metadata|text" "$work/times.txt"

echo "== reads on a current catalog (each build its own catalog)"
cmds=()
for rev in "$base" "$new"; do
	p="$work/pidex-$rev --db $work/$rev.sqlite --sessions $corpus -q"
	cmds+=("$p index" "$p list" "$p list --json" "$p search $rare" "$p search the --limit 20" "$p cost --by day --tz UTC")
done
# Interleave base and new for each command.
ordered=()
for i in 0 1 2 3 4 5; do ordered+=("${cmds[$i]}" "${cmds[$((i + 6))]}"); done
hyperfine -N -w 3 -m 20 -i --export-markdown "$work/reads.md" "${ordered[@]}" >/dev/null
sed "s|$work/||g; s|$corpus|CORPUS|g" "$work/reads.md"
