#!/bin/sh
# check.sh: time `provision check` against a bare libyaml event scan of
# the same plan, at 1,000, 10,000 and 100,000 nodes.  Run by hand or by
# `make bench`; never a timed unit test.  Prints a table of medians of 5
# runs, the ratio check/scan, growth 100k/10k, and peak RSS per node.
set -eu
cd "$(dirname "$0")/.."
out=${BENCH_DIR:-/tmp/provision-bench}
mkdir -p "$out"
cc -O2 -o "$out/yamlscan" bench/yamlscan.c $(pkg-config --cflags --libs yaml-0.1)
[ -x ./provision ] || make -s provision

# median of 5 wall times (seconds) of a command
med() {
	for i in 1 2 3 4 5; do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || true
		e=$(date +%s.%N)
		echo "$e - $s" | bc -l
	done | sort -n | sed -n 3p
}

# peak RSS in KiB
rss() {
	/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1
}

printf '| nodes | plan MB | scan s | check s | check/scan | check peak RSS MiB | bytes/node |\n'
printf '|---|---|---|---|---|---|---|\n'
for n in 1000 10000 100000; do
	f="$out/plan-$n.yaml"
	[ -f "$f" ] || sh bench/genplan.sh "$n" > "$f"
	./provision check "$f" >/dev/null 2>&1 || { echo "check failed on $f" >&2; ./provision check "$f" | tail -n 3; exit 1; }
	mb=$(du -m "$f" | cut -f1)
	ts=$(med "$out/yamlscan" "$f")
	tc=$(med ./provision check "$f")
	base=$(rss ./provision check "$out/plan-1000.yaml")
	kb=$(rss ./provision check "$f")
	printf '| %s | %s | %.3f | %.3f | %.2f | %.1f | %d |\n' "$n" "$mb" "$ts" "$tc" \
	    "$(echo "$tc / $ts" | bc -l)" "$(echo "$kb / 1024" | bc -l)" \
	    "$(echo "($kb - $base) * 1024 / $n" | bc)"
	eval "t$n=$tc"
done
printf '\ngrowth 100k/10k: %.2fx (linear = 10x)\n' "$(echo "$t100000 / $t10000" | bc -l)"
