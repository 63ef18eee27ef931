#!/bin/sh
# run.sh: the VM suite (make test-vm).  Brings the VM testbed up for
# examples/testbed-vm.yaml on fresh disks (the image is built when it is
# missing or stale), runs each tests/vm/tNNN-*.sh in order inside the
# testbed's network namespace, on the same three VMs, and takes it all
# down at the end.  Each test prints TAP-like lines and "N passed, M
# failed"; exit 77 means it cannot run here.  Times each part.
#
#	tests/vm/run.sh [tNNN...]	only these tests (on the same VMs)
cd "$(dirname "$0")/../.." || exit 1
PLAN=examples/testbed-vm.yaml
: "${PROVISION:=$(pwd)/provision}"
export PROVISION

if [ "$(id -u)" -ne 0 ]; then
	echo "# skip: the VM suite needs root (namespaces, bridges, QEMU)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
for c in qemu-system-x86_64 qemu-img socat apt-cacher-ng debootstrap; do
	if ! command -v "$c" >/dev/null 2>&1; then
		echo "# skip: the VM suite needs $c (make deps)"
		echo "0 passed, 0 failed, 1 skipped"
		exit 0
	fi
done

down() {
	scripts/testbed-vm down --purge "$PLAN" >/dev/null 2>&1
}
trap down EXIT
trap 'exit 130' INT TERM

t0=$(date +%s)
pass=0
fail=0
skip=0
failed=""
echo "== image"
scripts/testbed-vm image || exit 1
t1=$(date +%s)
echo "== up"
down
if ! scripts/testbed-vm up "$PLAN"; then
	echo "not ok - the VMs came up"
	echo "0 passed, 1 failed"
	exit 1
fi
t2=$(date +%s)
times="image $((t1 - t0)) s, up $((t2 - t1)) s"
for t in tests/vm/t[0-9]*.sh; do
	[ -f "$t" ] || continue
	if [ $# -gt 0 ]; then
		want=0
		for a in "$@"; do
			case $(basename "$t") in "$a"*) want=1 ;; esac
		done
		[ $want = 1 ] || continue
	fi
	echo "== $t"
	s=$(date +%s)
	scripts/testbed-vm exec sh "$t"
	rc=$?
	times="$times, $(basename "$t" .sh) $(($(date +%s) - s)) s"
	case $rc in
	0) pass=$((pass + 1)) ;;
	77) skip=$((skip + 1)) ;;
	*) fail=$((fail + 1)); failed="$failed $t" ;;
	esac
done
echo "# times: $times; total $(($(date +%s) - t0)) s (load: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "vm: $pass passed, $fail failed, $skip skipped"
[ -z "$failed" ] || echo "failed:$failed"
[ "$fail" -eq 0 ]
