#!/bin/sh
# fuzz/run.sh: run the libFuzzer targets built by `make fuzz` (build-fuzz/).
#
#	sh fuzz/run.sh NAME...		fuzz each target for $FUZZ_SECONDS (60)
#	sh fuzz/run.sh -regress NAME...	run fuzz/regress/NAME/* once each
#
# Fuzzing starts from fuzz/corpus/NAME (read-only seeds) and keeps what it
# finds in build-fuzz/corpus/NAME, so the repository is never written.
# Crashes, leaks, timeouts (-timeout, $FUZZ_TIMEOUT s per input) and
# out-of-memory are all failures: the input is saved under
# build-fuzz/crashes/NAME/ and the script exits 1.  Per target it prints
# the executions of libFuzzer's final "Done N runs" line (or, after a
# crash, its stat::number_of_executed_units) and writes the same lines to
# build-fuzz/summary.txt.  $FUZZ_JOBS targets run at once (default 1).
set -u

B=build-fuzz
: "${FUZZ_SECONDS:=60}"
: "${FUZZ_TIMEOUT:=10}"
: "${FUZZ_JOBS:=1}"
: "${PROV_SRCDIR:=$(pwd)}"
export PROV_SRCDIR FUZZ_SECONDS FUZZ_TIMEOUT

# One target, fuzzing: its summary line goes to $B/result/NAME.
fuzz_one() {
	name=$1
	bin=$B/fuzz_$name
	log=$B/log/$name.log
	mkdir -p "$B/corpus/$name" "$B/crashes/$name" "$B/log" "$B/result"
	rm -f "$B/crashes/$name"/*
	set -- -max_total_time="$FUZZ_SECONDS" -timeout="$FUZZ_TIMEOUT" \
	    -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix="$B/crashes/$name/"
	[ -f "fuzz/$name.dict" ] && set -- "$@" -dict="fuzz/$name.dict"
	# libFuzzer writes what it finds into the first directory given.
	set -- "$@" "$B/corpus/$name"
	[ -d "fuzz/corpus/$name" ] && set -- "$@" "fuzz/corpus/$name"
	"$bin" "$@" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^Done \([0-9]*\) runs in.*/\1/p' "$log" | tail -n 1)
	[ -n "$runs" ] || runs=$(sed -n \
	    's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" |
	    tail -n 1)
	[ -n "$runs" ] || runs=0
	cov=$(sed -n 's/^#[0-9]*.*DONE *cov: \([0-9]*\).*/\1/p' "$log" |
	    tail -n 1)
	crash=$(find "$B/crashes/$name" -type f 2>/dev/null | head -n 1)
	if [ "$rc" -eq 0 ] && [ -z "$crash" ]; then
		echo "$name: $runs runs in ${FUZZ_SECONDS} s, cov ${cov:-?}, ok" \
		    >"$B/result/$name"
	else
		echo "$name: $runs runs, FAILED (exit $rc)" \
		    "${crash:+$crash}, log $log" \
		    >"$B/result/$name"
	fi
	cat "$B/result/$name"
}

# One target, replaying its regression inputs.
regress_one() {
	name=$1
	dir=fuzz/regress/$name
	n=$(find "$dir" -type f 2>/dev/null | wc -l)
	if [ "$n" -eq 0 ]; then
		echo "$name: no regression inputs"
		return 0
	fi
	mkdir -p "$B/log"
	if "$B/fuzz_$name" -timeout="$FUZZ_TIMEOUT" -rss_limit_mb=2048 \
	    "$dir"/* >"$B/log/$name.regress.log" 2>&1; then
		echo "$name: $n regression inputs ok"
	else
		echo "$name: FAILED, log $B/log/$name.regress.log"
		tail -n 30 "$B/log/$name.regress.log"
		return 1
	fi
}

case ${1:-} in
-one)
	fuzz_one "$2"
	exit 0
	;;
-regress)
	shift
	fail=0
	for t in "$@"; do
		regress_one "$t" || fail=1
	done
	exit $fail
	;;
esac

rm -rf "$B/result"
mkdir -p "$B/result"
printf '%s\n' "$@" | xargs -P "$FUZZ_JOBS" -n 1 sh "$0" -one >/dev/null
fail=0
: >"$B/summary.txt"
for t in "$@"; do
	if [ ! -f "$B/result/$t" ]; then
		echo "$t: did not run" >"$B/result/$t"
	fi
	cat "$B/result/$t" >>"$B/summary.txt"
	grep -q ', ok$' "$B/result/$t" || fail=1
done
cat "$B/summary.txt"
exit $fail
