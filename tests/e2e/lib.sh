# lib.sh: helpers for the end-to-end tests (sourced by tests/e2e/t*.sh).
#
# TAP-like output: "ok N - what" / "not ok N - what", and at the end a
# line "N passed, M failed"; done_testing exits non-zero on any failure.
# PROVISION is the binary under test (make e2e sets it).

: "${PROVISION:=$(cd "$(dirname "$0")/../.." && pwd)/provision}"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T_PASS=0
T_FAIL=0
T_N=0

ok() {
	T_N=$((T_N + 1)); T_PASS=$((T_PASS + 1))
	echo "ok $T_N - $*"
}

not_ok() {
	T_N=$((T_N + 1)); T_FAIL=$((T_FAIL + 1))
	echo "not ok $T_N - $*"
}

# check "what" command...: ok when the command succeeds
check() {
	what=$1; shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# expect_code N "what" command...
expect_code() {
	want=$1; what=$2; shift 2
	if "$@"; then got=0; else got=$?; fi
	if [ "$got" -eq "$want" ]; then ok "$what"; else not_ok "$what (exit $got, want $want)"; fi
}

# skip_all "reason": the whole script cannot run here
skip_all() {
	echo "# skip: $*"
	echo "0 passed, 0 failed, 1 skipped"
	exit 77
}

done_testing() {
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}
