#!/bin/sh
# Managed reboots in apply, on real machines: a kernel argument from the
# plan (hugepages=16) goes on the command line through GRUB and takes a
# reboot.  --no-reboot stops each node after the step that asked and lists
# them; --resume then reboots the workers two at a time and the head
# after them, waits for them, and finishes the run; /proc/cmdline has the
# argument and the kernel made the huge pages; a second apply changes
# nothing and reboots nothing.  (The order and a node that never comes
# back: tests/unit/test_reboot.c.)
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"
set -u
cd "$TOP" || exit 1
in_testbed
OUT=$(mktemp -d /tmp/tvm020.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
PK=$(plan_variant kargs)

check "check passes with kernel_args and apply.reboot_parallel" "$PROVISION" check -q "$PK"

apply_to "$OUT/a1.txt" --no-reboot "$PK"
rc=$?
[ $rc -eq 1 ] && ok "--no-reboot: exit 1" || not_ok "--no-reboot: exit 1 (exit $rc)"
grep -q '^3 nodes stopped: a reboot is due' "$OUT/a1.txt" && ok "--no-reboot lists the 3 nodes" ||
	{ not_ok "--no-reboot lists the 3 nodes"; tail -12 "$OUT/a1.txt" | sed 's/^/# /'; }
grep -q 'head-01 .*lacks hugepages=16' "$OUT/a1.txt" && ok "... with the reason" || not_ok "... with the reason"
grep -Eq '^[0-9:]+ +[a-z0-9-]+ +(container-runtime|munge|slurm|reboot) ' "$OUT/a1.txt" &&
	not_ok "no step after base ran, nothing rebooted" || ok "no step after base ran, nothing rebooted"
python3 - "$STATE/state.json" <<'PY' && ok "state: a pending reboot on each node" || not_ok "state: a pending reboot on each node"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["status"] == "reboot-pending", s["status"]
for n in ("head-01", "worker-01", "worker-02"):
    assert s["nodes"][n]["reboot"]["result"] == "pending", n
PY
on $W1 "cat /proc/cmdline" | grep -qw 'hugepages=16' && not_ok "not rebooted yet" || ok "not rebooted yet"

apply_to "$OUT/a2.txt" --resume "$PK"
rc=$?
[ $rc -eq 0 ] && ok "--resume reboots and finishes" || { not_ok "--resume reboots and finishes (exit $rc)"; tail -25 "$OUT/a2.txt" | sed 's/^/# /'; }
grep -q '^3 nodes rebooted' "$OUT/a2.txt" && ok "3 nodes rebooted" || not_ok "3 nodes rebooted"
grep -E 'reboot|rebooting' "$OUT/a2.txt" | sed 's/^/# /'
# the order: both workers start before either is back, the head after both
python3 - "$OUT/a2.txt" <<'PY' && ok "workers two at a time, the head after them" || not_ok "workers two at a time, the head after them"
import sys
lines = open(sys.argv[1]).read().splitlines()
def at(pred):
    return [i for i, l in enumerate(lines) if pred(l)]
start = {n: at(lambda l, n=n: l.startswith(n + ": rebooting")) for n in ("head-01", "worker-01", "worker-02")}
done = {n: at(lambda l, n=n: (" %s " % n) in l and " reboot " in l and "changed" in l) for n in start}
assert all(len(v) == 1 for v in start.values()) and all(len(v) == 1 for v in done.values()), (start, done)
assert max(start["worker-01"][0], start["worker-02"][0]) < min(done["worker-01"][0], done["worker-02"][0])
assert start["head-01"][0] > max(done["worker-01"][0], done["worker-02"][0])
PY
for a in $HEAD $W1 $W2; do
	on $a 'grep -qw hugepages=16 /proc/cmdline && [ "$(awk "/^HugePages_Total/ { print \$2 }" /proc/meminfo)" = 16 ]' &&
		ok "$a: hugepages=16 on the command line, 16 huge pages" || not_ok "$a: hugepages=16 on the command line, 16 huge pages"
done
python3 - "$STATE/state.json" <<'PY' && ok "state: reboots done, run done" || not_ok "state: reboots done, run done"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["status"] == "done", s["status"]
for n in ("head-01", "worker-01", "worker-02"):
    assert s["nodes"][n]["reboot"]["result"] == "changed", n
PY
"$PROVISION" verify --json "$PK" >"$OUT/v.json" 2>"$OUT/v.err"
rc=$?
[ $rc -eq 0 ] && ok "verify passes" || { not_ok "verify passes (exit $rc)"; failed_checks "$OUT/v.json"; }
apply_to "$OUT/a3.txt" "$PK"
rc=$?
[ $rc -eq 0 ] && grep -q ' 0 changed, ' "$OUT/a3.txt" && ! grep -q 'rebooted' "$OUT/a3.txt" &&
	ok "another apply: 0 changed, no reboot" || { not_ok "another apply: 0 changed, no reboot (exit $rc)"; tail -5 "$OUT/a3.txt" | sed 's/^/# /'; }
done_testing
