#!/bin/sh
# statesave.sh: the cost of apply's state saves, before and after, in one
# run.  bench/statesave.c is linked against the libprov.a of BASE (by
# default 62c9a41, the last commit whose state_save() serialized every node
# for every save) and against this tree's, and both run in turn, ROUNDS
# times, for each size and each number of nodes changed between two saves
# (0: an idle save; NODES: every node changed, the worst case).  Prints a
# table of medians: CPU ms a save (user + sys), wall ms a save (the fsync
# is most of it), and the CPU ratio before/after.  Run by hand; never a
# timed unit test.
#
# Environment: BASE (62c9a41), NS ("200 1000"), STEPS (10 rows a node),
# SAVES (50 a run), ROUNDS (5), BENCH_DIR (/tmp/provision-bench).
set -eu
cd "$(dirname "$0")/.."
root=$PWD
BASE=${BASE:-62c9a41}
NS=${NS:-"200 1000"}
STEPS=${STEPS:-10}
SAVES=${SAVES:-50}
ROUNDS=${ROUNDS:-5}
out=${BENCH_DIR:-/tmp/provision-bench}/statesave
mkdir -p "$out"
libs="$(pkg-config --libs yaml-0.1 libssh2 libcurl libarchive libpci) -lcrypto -lm -pthread"

# The base's library, built once per commit from `git archive`.
base_src="$out/src-$BASE"
if [ ! -f "$base_src/build/libprov.a" ]; then
	rm -rf "$base_src"
	mkdir -p "$base_src"
	git archive "$BASE" | tar -x -C "$base_src"
	make -s -C "$base_src" -j2 build/libprov.a >/dev/null
fi
make -s -j2 build/libprov.a >/dev/null
cc -std=c11 -O2 -iquote lib -o "$out/ss-before" bench/statesave.c \
    "$base_src/build/libprov.a" $libs
cc -std=c11 -O2 -iquote lib -o "$out/ss-after" bench/statesave.c \
    "$root/build/libprov.a" $libs

# median of the numbers on stdin
med() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

printf 'base %s, %s rows a node, %s saves a run, medians of %s rounds\n\n' \
    "$BASE" "$STEPS" "$SAVES" "$ROUNDS"
printf '| nodes | changed a save | file KiB | CPU ms before | CPU ms after | CPU before/after | wall ms before | wall ms after |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for n in $NS; do
	for c in 0 $((n / 100)) $((n / 10)) "$n"; do
		: >"$out/before" && : >"$out/after"
		r=0
		while [ "$r" -lt "$ROUNDS" ]; do
			"$out/ss-before" "$out" "$n" "$STEPS" "$c" "$SAVES" \
			    >>"$out/before"
			"$out/ss-after" "$out" "$n" "$STEPS" "$c" "$SAVES" \
			    >>"$out/after"
			r=$((r + 1))
		done
		cb=$(cut -d' ' -f1 "$out/before" | med)
		ca=$(cut -d' ' -f1 "$out/after" | med)
		wb=$(cut -d' ' -f2 "$out/before" | med)
		wa=$(cut -d' ' -f2 "$out/after" | med)
		kb=$(cut -d' ' -f3 "$out/after" | med)
		# An idle save writes nothing after: no ratio to speak of.
		ratio=$(awk -v b="$cb" -v a="$ca" 'BEGIN { if (a < 0.005)
		    print "no write"; else printf "%.1fx", b / a }')
		printf '| %s | %s | %d | %.2f | %.3f | %s | %.1f | %.2f |\n' \
		    "$n" "$c" $((kb / 1024)) "$cb" "$ca" "$ratio" "$wb" "$wa"
	done
done
