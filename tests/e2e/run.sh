#!/bin/sh
# run.sh: every end-to-end test, in order.  Each tests/e2e/tNNN-*.sh
# prints TAP-like lines and "N passed, M failed"; exit 77 means it cannot
# run here (skipped, with its reason).  Exit non-zero if any failed.
cd "$(dirname "$0")/../.." || exit 1
pass=0
fail=0
skip=0
failed=""
for t in tests/e2e/t[0-9]*.sh; do
	[ -f "$t" ] || continue
	echo "== $t"
	start=$(date +%s)
	sh "$t"
	rc=$?
	# each test's time, so CI's budget can be read from its log
	echo "== $t: exit $rc after $(($(date +%s) - start)) s"
	case $rc in
	0) pass=$((pass + 1)) ;;
	77) skip=$((skip + 1)) ;;
	*) fail=$((fail + 1)); failed="$failed $t" ;;
	esac
done
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ -z "$failed" ] || echo "failed:$failed"
[ "$fail" -eq 0 ]
