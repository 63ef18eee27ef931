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

# testbed_lock: hold the machine's testbed nodes (127.0.10-13.x and the
# shared TESTBED_DIR) until this test exits.  Tests that start testbed
# nodes call it first, so two runs of the suite at once (two checkouts, a
# developer and CI) take turns for those tests alone.  The descriptor is
# not passed on to the nodes (scripts/testbed closes what it inherits).
testbed_lock() {
	exec 8>>/tmp/provision-testbed.lock || return 1
	if ! flock -n 8; then
		echo "# the testbed is in use by another test run: waiting"
		flock 8
	fi
}

# show_end FILE [N]: the last N lines (25) of FILE as TAP comments
show_end() {
	tail -n "${2:-25}" "$1" | sed 's/^/# /'
}

done_testing() {
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}

# wait_port FILE: the port a test server (faulty_http.py) writes to FILE
# once it listens; waits up to 6 s.
wait_port() {
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24; do
		[ -s "$1" ] && break
		sleep 0.25
	done
	cat "$1"
}

# mkdeb NAME VERSION DEPENDS [KiB [ARCH]]: a fake package built in $W/src
# into $REPO; KiB of random data make it that big.
mkdeb() {
	_mkd=$W/src/$1
	mkdir -p "$_mkd/DEBIAN" "$_mkd/usr/share/doc/$1"
	{
		echo "Package: $1"
		echo "Version: $2"
		echo "Architecture: ${5:-amd64}"
		echo "Maintainer: provision tests <tests@example.org>"
		[ -n "$3" ] && echo "Depends: $3"
		echo "Description: fake $1 for provision's tests"
	} >"$_mkd/DEBIAN/control"
	if [ "${4:-0}" -gt 0 ]; then
		head -c $(($4 * 1024)) /dev/urandom >"$_mkd/usr/share/doc/$1/blob"
	else
		echo "$1 $2" >"$_mkd/usr/share/doc/$1/README"
	fi
	dpkg-deb -Znone --root-owner-group --build "$_mkd" \
		"$REPO/${1}_$(echo "$2" | sed 's/^[0-9]*://')_${5:-amd64}.deb" >/dev/null
}

# reg_digest JSON IMAGE KEY...: a value from oci_registry.py's images.json,
# e.g. reg_digest "$W/reg/images.json" repo:tag amd64 layers 0
reg_digest() {
	python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]
for k in sys.argv[3:]: v = v[int(k)] if k.isdigit() else v[k]
print(v)' "$@"
}

# run COMMAND...: stdout to $out, stderr to $err (the test sets both); on
# failure the end of both as TAP comments.  The command's exit status.
run() {
	"$@" >"$out" 2>"$err"
	rc=$?
	[ $rc -ne 0 ] && sed 's/^/#   /' "$out" "$err" | tail -n 15
	return $rc
}

# on ADDR COMMAND...: run on a testbed node as root, with the testbed's
# key ($KEY) and known_hosts ($KH), which the calling test sets.
on() {
	a=$1; shift
	ssh -q -i "$KEY" -o UserKnownHostsFile="$KH" -o StrictHostKeyChecking=yes \
	    -o BatchMode=yes "root@$a" "$@"
}
