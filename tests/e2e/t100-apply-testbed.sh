#!/bin/sh
# The main job on the local testbed, from the real binary: a head and two
# workers become a Slurm cluster with node exporter and Prometheus, a
# second apply changes nothing, a worker lost in the middle of a run fails
# alone and --resume finishes only what is missing, and no secret (the
# munge key) reaches a log, the -v output, the state, the run folder or a
# process list, all of them the operator's alone (t104 has a step that
# prints its secrets).
. "$(dirname "$0")/lib.sh"
set -u
[ "$(id -u)" -eq 0 ] || skip_all "needs root (namespaces, debootstrap)"
cd "$TOP" || exit 1

PLAN=examples/testbed.yaml
TB=${TESTBED_DIR:-/var/tmp/provision-testbed}
STATE=$(mktemp -d /tmp/t100-state.XXXXXX)
OUT=$(mktemp -d /tmp/t100-out.XXXXXX)
KEY=$TB/id_ed25519
KH=$TB/known_hosts
export PROVISION

cleanup() {
	[ -n "${PSPID:-}" ] && kill "$PSPID" 2>/dev/null
	scripts/testbed down "$PLAN" >/dev/null 2>&1
	rm -rf "$STATE" "$OUT"
}
testbed_lock
trap cleanup EXIT INT TERM

# A first apply is on fresh disks: overlays kept from an earlier run hold
# that run's Slurm state, whose unfinished jobs leave the workers "mix".
scripts/testbed down --purge "$PLAN" >/dev/null 2>&1
check "testbed up" scripts/testbed up "$PLAN"
check "check passes" "$PROVISION" check -q "$PLAN"

# Capture every process's arguments while apply runs: secrets must not be there.
( while :; do ps -eo args >> "$OUT/ps.txt" 2>/dev/null; sleep 0.2; done ) &
PSPID=$!
"$PROVISION" apply -v --plain --state-dir "$STATE" "$PLAN" > "$OUT/apply1.txt" 2>&1
rc=$?
kill "$PSPID" 2>/dev/null; PSPID=
if [ $rc -eq 0 ]; then ok "first apply succeeds"; else not_ok "first apply succeeds (exit $rc)"; sed 's/^/# /' "$OUT/apply1.txt" | tail -30; fi
grep -q '3 nodes: 3 ok, 0 failed' "$OUT/apply1.txt" && ok "3 nodes ok" || not_ok "3 nodes ok"

# Slurm: both workers idle, a two-node job runs on both.
on 127.0.10.1 "sinfo -h -N -o '%N %t'" > "$OUT/sinfo.txt" 2>&1
grep -q '^worker-01 idle' "$OUT/sinfo.txt" && grep -q '^worker-02 idle' "$OUT/sinfo.txt" &&
	ok "sinfo shows both workers idle" || { not_ok "sinfo shows both workers idle"; sed 's/^/# /' "$OUT/sinfo.txt"; }
on 127.0.10.1 "timeout 60 srun -N2 hostname" 2>&1 | sort > "$OUT/srun.txt"
printf 'worker-01\nworker-02\n' | cmp -s - "$OUT/srun.txt" &&
	ok "srun -N2 hostname runs on both workers" || { not_ok "srun -N2 hostname"; sed 's/^/# /' "$OUT/srun.txt"; }

# Prometheus: every node exporter target is up.
up=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	curl -s --max-time 5 http://127.0.10.1:9090/api/v1/targets > "$OUT/targets.json" 2>/dev/null
	n=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["data"]["activeTargets"]; print(sum(1 for x in t if x["health"]=="up"))' "$OUT/targets.json" 2>/dev/null || echo 0)
	[ "$n" -ge 3 ] && { up=1; break; }
	sleep 3
done
[ $up -eq 1 ] && ok "Prometheus reports all 3 targets up" || not_ok "Prometheus targets up (got ${n:-0})"

# Idempotence: a second apply changes nothing.
"$PROVISION" apply --plain --state-dir "$STATE" "$PLAN" > "$OUT/apply2.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q ' 0 changed, ' "$OUT/apply2.txt" &&
	ok "second apply: 0 changed" || { not_ok "second apply: 0 changed (exit $rc)"; grep -E 'changed|failed' "$OUT/apply2.txt" | sed 's/^/# /' | head; }

# The state and run folders are the operator's alone: folders 0700, the
# state, the logs and the facts 0600.
bad=$(cd "$STATE" && find . \( -type d ! -perm 700 \) -o \( -type f ! -perm 600 \) -printf '%m %P\n')
[ -z "$bad" ] && [ -n "$(find "$STATE" -name head-01.log)" ] &&
	ok "state and run folders 0700, their files 0600" ||
	{ not_ok "state and run folders 0700, their files 0600"; echo "$bad" | sed 's/^/# /' | head; }

# Secrets: the head's munge key appears in no file of the run, no -v
# output and no process list.
on 127.0.10.1 "base64 -w0 /etc/munge/munge.key" > "$OUT/key.b64"
python3 - "$OUT/key.b64" "$STATE" "$OUT/ps.txt" "$OUT/apply1.txt" "$OUT/apply2.txt" <<'PY' && ok "munge key in no log, state, run folder or process list" || not_ok "munge key leaked"
import base64, os, sys
key = base64.b64decode(open(sys.argv[1]).read())
assert len(key) >= 32, "no key read"
needles = [key, key[:32], key.hex().encode(), base64.b64encode(key)[:40]]
paths = []
for p in sys.argv[2:]:
    if os.path.isdir(p):
        for d, _, fs in os.walk(p):
            paths += [os.path.join(d, f) for f in fs]
    else:
        paths.append(p)
bad = [p for p in paths for n in needles if n in open(p, "rb").read()]
if bad:
    print("# found in:", sorted(set(bad)))
    sys.exit(1)
PY

# A worker lost in the middle of a run: the others finish, the state says
# so, and --resume after bringing it back does only what is missing.
# worker-02 must be lost before its munge step ends: a testbed node has no
# init to start its daemons again when it comes back, so a munge step done
# before the loss would leave munged down after it.  With munged stopped,
# that step starts it, which takes over a second, and the loss lands in it.
STATE2=$(mktemp -d /tmp/t100-state2.XXXXXX)
on 127.0.10.3 "rm -f /etc/slurm/slurm.conf; pkill -x munged" >/dev/null 2>&1
( "$PROVISION" apply --plain --state-dir "$STATE2" "$PLAN" > "$OUT/apply3.txt" 2>&1; echo $? > "$OUT/apply3.rc" ) &
APID=$!
# wait until worker-02 finished its first step, then take it away
for i in $(seq 1 200); do
	grep -q 'worker-02 *base' "$OUT/apply3.txt" 2>/dev/null && break
	sleep 0.1
done
scripts/testbed down --nodes "worker-02=127.0.10.3" >/dev/null 2>&1
wait $APID
rc=$(cat "$OUT/apply3.rc")
[ "$rc" -eq 1 ] && ok "apply with a lost worker exits 1" || not_ok "apply with a lost worker exits 1 (exit $rc)"
python3 - "$STATE2/state.json" <<'PY' && ok "state: head and worker-01 done, worker-02 failed" || { not_ok "state after the lost worker"; sed 's/^/# /' "$STATE2/state.json" | head -20; }
import json, sys
s = json.load(open(sys.argv[1]))["nodes"]
done = ("ok", "changed", "skipped")
assert all(v["result"] in done for n in ("head-01", "worker-01") for v in s[n].values()), "others not done"
w = s["worker-02"]
assert any(v["result"] in ("failed", "unreachable") for v in w.values()), "no failure recorded"
PY
check "worker-02 back up" scripts/testbed up "$PLAN"
"$PROVISION" apply --plain --resume --state-dir "$STATE2" "$PLAN" > "$OUT/apply4.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "--resume completes" || { not_ok "--resume completes (exit $rc)"; tail -20 "$OUT/apply4.txt" | sed 's/^/# /'; }
if grep -E '^[0-9:]+ (head-01|worker-01) ' "$OUT/apply4.txt" >/dev/null; then
	not_ok "--resume ran steps only on worker-02"; grep -E '(head-01|worker-01) ' "$OUT/apply4.txt" | sed 's/^/# /' | head
else
	ok "--resume ran steps only on worker-02"
fi
rm -rf "$STATE2"
done_testing
