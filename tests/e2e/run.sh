#!/bin/sh
# run.sh: every end-to-end test, in order.  Each tests/e2e/tNNN-*.sh
# prints TAP-like lines and "N passed, M failed"; exit 77 means it cannot
# run here (skipped, with its reason).  Exit non-zero if any failed.
#
# Under SAN=1 (ASan + UBSan) a test whose header says "# SAN=1: not run:"
# is skipped with that reason: its time goes to other programs (dpkg in
# the testbed's roots, shellcheck), and the provision code it reaches is
# run under the sanitizers by the tests it names.  CI runs every test in
# the plain build first.
cd "$(dirname "$0")/../.." || exit 1
pass=0
fail=0
skip=0
failed=""
for t in tests/e2e/t[0-9]*.sh; do
	[ -f "$t" ] || continue
	echo "== $t"
	if [ "${SAN:-0}" = 1 ]; then
		why=$(awk 'f && /^#   / { sub(/^#   /, ""); w = w " " $0; next }
			{ f = 0 }
			/^# SAN=1: not run: / { sub(/^# SAN=1: not run: /, "");
				w = $0; f = 1 }
			END { print w }' "$t")
		if [ -n "$why" ]; then
			echo "== $t: not run under SAN=1: $why"
			skip=$((skip + 1))
			continue
		fi
	fi
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
