#!/bin/sh
# t101-apply-faults: `provision apply` under faults, on private sshd servers
# (127.0.122.x) with harmless steps (tests/fixtures/apply-faults/templates:
# the real lib.sh and one fault step behind base, node-exporter and extras,
# steered per node by files in /tmp/t101.*/NODE).  Each fault: the other
# nodes are unaffected, the state file is valid JSON and says exactly what
# happened, and `--resume` finishes only what is missing.
#
#   1 sshd killed in the middle of a step      5 a full disk under the state
#   2 a node that never sends the SSH banner   6 SIGINT, SIGTERM, two SIGINTs
#   3 a step that stalls mid-output            7 stale and foreign node locks
#   4 100 MB of output from one step           8 --max-fail 0
#   9 plan values with shell metacharacters: rejected at load
#  10 a lib.sh or a step the shell cannot parse
#
#   sh tests/e2e/t101-apply-faults.sh        (as root; PROVISION=binary)

# shellcheck source-path=SCRIPTDIR disable=SC2016
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd-lib.sh"

sshd_setup
[ -x /usr/bin/time ] || skip_all "no /usr/bin/time (Debian package time)"
T=$(mktemp -d /tmp/t101.XXXXXX) || exit 1
chmod 755 "$T"
NET=127.0.122
NODES="t101-n1 t101-n2 t101-n3"
FULL=$T/full
# kill_sleep FILE: end the step's sleep whose pid FILE holds, if it still
# is that sleep (a step hung on a node outlives its session)
kill_sleep() {
	[ -f "$1" ] || return 0
	p=$(cat "$1")
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = sleep ] && kill -9 "$p" 2>/dev/null
	return 0
}
t101_cleanup() {
	for f in "$T"/t101-n*/*.pid; do
		kill_sleep "$f"
	done
	mountpoint -q "$FULL" 2>/dev/null && umount "$FULL"
	rm -rf /run/provision/lock.t101-n1 /run/provision/lock.t101-n2 \
	    /run/provision/lock.t101-n3 /run/provision/lock.t101-n4
	[ -n "${SSHT_KEEP:-}" ] || rm -rf "$T"
	sshd_cleanup
}
trap 't101_cleanup' EXIT

: "${PROVISION_PROFILES:=$TOP/profiles}"
export PROVISION_PROFILES
unset SSH_AUTH_SOCK
TPL=$TOP/tests/fixtures/apply-faults/templates
# The steps find their scratch folder through the session's environment.
# shellcheck disable=SC2034
SSHD_SETENV="T101_DIR=$T"
PORT=$(free_port)
O=$T/out E=$T/err

# One sshd per node, so that one node's server can be killed alone.
start_node() {
	sshd_start "$1" "$PORT" "$2" || return 1
	known_hosts_for "$1" "$PORT" "$2" >>"$SSHT/known_hosts"
}
start_node t101-n1 $NET.1 && start_node t101-n2 $NET.2 &&
    start_node t101-n3 $NET.3 || exit 1

# plan FILE [SSH-LINE...] [-- NODE-LINE...]
plan() {
	f=$1
	shift
	{
		cat <<EOF
version: 1
cluster: { name: t101, domain: t101.internal }
networks:
  lo: { cidr: $NET.0/24, kind: ethernet, gbps: 10, role: management }
ssh:
  user: root
  identity: $SSHT/id_ed25519
  known_hosts: $SSHT/known_hosts
  host_keys: strict
  port: $PORT
  forks: 8
EOF
		cto="connect_timeout_s: 10"
		while [ $# -gt 0 ] && [ "$1" != -- ]; do
			case $1 in
			connect_timeout_s:*) cto=$1 ;;
			*) echo "  $1" ;;
			esac
			shift
		done
		echo "  $cto"
		[ $# -gt 0 ] && shift
		cat <<EOF
nodes:
  - { name: t101-n1, role: head, address: $NET.1 }
  - { name: "t101-n[2-3]", role: worker, address: "$NET.[2-3]" }
EOF
		for l in "$@"; do echo "  $l"; done
		cat <<EOF
software:
  os: { distro: debian, release: "12" }
  container_runtime: { engine: none }
  orchestrator: { kind: none }
  monitoring: { node_exporter: true }
  extras: [ python3 ]
EOF
	} >"$f"
}
P=$T/plan.yaml
plan "$P"

# apply STATEDIR ARGS...: provision apply in the foreground; sets $rc.
apply() {
	s=$1
	shift
	"$PROVISION" apply --templates "$TPL" --state-dir "$s" "$@" >"$O" 2>"$E"
	rc=$?
}

# keep NAME: this run's output stays in $T/NAME.out, .err (SSHT_KEEP=1
# keeps $T for a look)
keep() {
	cp "$O" "$T/$1.out"
	cp "$E" "$T/$1.err"
}

# apply_bg STATEDIR ARGS...: the same in the background; sets $apid.
apply_bg() {
	s=$1
	shift
	"$PROVISION" apply --templates "$TPL" --state-dir "$s" "$@" >"$O" 2>"$E" &
	apid=$!
}

# fresh: every node's scratch folder empty, no lock left.
fresh() {
	for n in $NODES t101-n4; do
		rm -rf "${T:?}/$n"
		mkdir -p "$T/$n"
	done
	if [ -n "$(locks)" ]; then
		echo "# locks left: $(locks)"
		rm -rf /run/provision/lock.t101-n*
	fi
}

# locks: the node locks of this test there are now, on one line
locks() {
	for l in /run/provision/lock.t101-n*; do
		[ -e "$l" ] && printf '%s ' "$l"
	done
}

# no_locks WHAT: ok when no node lock is left
no_locks() {
	if [ -z "$(locks)" ]; then ok "$1"; else not_ok "$1: left $(locks)"; fi
}

# steer NODE FILE [TEXT]: a file that steers the node's step.
steer() {
	printf '%s\n' "${3:-}" >"$T/$1/$2"
}

# runs NODE: the steps run on NODE so far, in order, on one line.
runs() {
	if [ -f "$T/$1/runs" ]; then tr '\n' ' ' <"$T/$1/runs" | sed 's/ $//'; fi
}

# wait_file PATH [SECONDS]
wait_file() {
	w=0
	while [ ! -e "$1" ]; do
		[ "$w" -ge "$((${2:-10} * 10))" ] && return 1
		sleep 0.1
		w=$((w + 1))
	done
}

# delivered PID: until PID has no signal pending (its handler got it)
delivered() {
	w=0
	while grep -q '^S[a-z]*Pnd:.*[1-9a-f]' "/proc/$1/status" 2>/dev/null &&
	    [ "$w" -lt 100 ]; do
		sleep 0.05
		w=$((w + 1))
	done
}

now() { date +%s.%N; }
took() { awk "BEGIN{printf \"%.1f\", $2 - $1}"; }
lt() { awk "BEGIN{exit !($1 < $2)}"; }

# valid FILE: the file is one JSON document.
valid() {
	"$PY" -c 'import json, sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null
}

# summary FILE: "STATUS; NODE step=result,...; ..." (nodes sorted; the
# skipped rows left out: the fixture's logging and directory steps, which
# run on every node, always skip)
summary() {
	"$PY" - "$1" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("invalid: %s" % e)
    sys.exit(0)
out = [d.get("status", "?")]
for n in sorted(d.get("nodes", {})):
    out.append(n + " " + ",".join("%s=%s" % (s, r["result"])
               for s, r in d["nodes"][n].items()
               if r["result"] != "skipped"))
print("; ".join(out))
EOF
}

# msg FILE NODE STEP: the message of one row
msg() {
	"$PY" - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["nodes"].get(sys.argv[2], {}).get(sys.argv[3], {}).get("message"))
EOF
}

# same STATE WANT what: the state's summary is WANT
same() {
	got=$(summary "$1")
	if [ "$got" = "$2" ]; then
		ok "$3"
	else
		not_ok "$3"
		echo "#   want: $2"
		echo "#   got:  $got"
		show "$O" "$E"
	fi
}

ALL3="t101-n1 base=changed,node-exporter=changed,extras=changed"
ALL3_2="t101-n2 base=changed,node-exporter=changed,extras=changed"
ALL3_3="t101-n3 base=changed,node-exporter=changed,extras=changed"

# kill_sshd NAME: the node goes away at once: its sshd and every process
# under it (the sessions, the step running in them), by pid, with SIGKILL.
kill_sshd() {
	pids=
	while read -r p; do
		pids="$pids $p $(ps -e -o pid=,ppid= | awk -v root="$p" '
		    { kids[$2] = kids[$2] " " $1 }
		    END {
			n = split(kids[root], q, " ")
			for (i = 1; i <= n; i++) {
				printf "%s ", q[i]
				m = split(kids[q[i]], more, " ")
				for (j = 1; j <= m; j++) q[++n] = more[j]
			}
		    }')"
	done <"$SSHT/$1.pids"
	# shellcheck disable=SC2086
	kill -9 $pids 2>/dev/null
	rm -f "$SSHT/$1.pids"
}

# ---------------------------------------------------------------- 1: sshd killed
echo "# 1: sshd of t101-n2 killed while its base step runs"
fresh
S=$T/s1
steer t101-n2 base.sleep 30
t0=$(now)
apply_bg "$S" "$P"
if wait_file "$T/t101-n2/base.started" 10; then
	kill_sshd t101-n2
else
	echo "# the step never started"
fi
wait "$apid"
rc=$?
el=$(took "$t0" "$(now)")
keep 1-killed
if [ "$rc" = 1 ] && lt "$el" 15 && valid "$S/state.json"; then
	ok "sshd killed: apply ends in ${el}s, exit 1, state valid"
else
	not_ok "sshd killed (rc $rc, ${el}s)"; show "$O" "$E"
fi
same "$S/state.json" "failed; $ALL3; t101-n2 base=failed; $ALL3_3" \
    "sshd killed: t101-n2 base failed, the other nodes changed every step"
m=$(msg "$S/state.json" t101-n2 base)
case $m in
error:*) ok "sshd killed: the row says why ($m)" ;;
*) not_ok "sshd killed: message '$m'" ;;
esac
if grep -q "t101-n2 *base *failed: error:" "$O" &&
    grep -q "3 nodes: 2 ok, 1 failed" "$O"; then
	ok "sshd killed: the user sees the failed row and the count"
else
	not_ok "sshd killed: output"; show "$O" "$E"
fi
rm -f "$T/t101-n2/base.sleep"
start_node t101-n2 $NET.2 || exit 1
apply "$S" --resume "$P"
if [ "$rc" = 0 ] && [ "$(runs t101-n1)" = "base node-exporter extras" ] &&
    [ "$(runs t101-n3)" = "base node-exporter extras" ] &&
    [ "$(runs t101-n2)" = "base base node-exporter extras" ]; then
	ok "sshd back, --resume: only t101-n2's steps run again"
else
	not_ok "sshd back, --resume (rc $rc; n2: $(runs t101-n2))"; show "$O" "$E"
fi
same "$S/state.json" "done; $ALL3; $ALL3_2; $ALL3_3" "--resume: state done, every row changed"
if grep -q "t101-n2: stale: the apply that held it is gone; lock (run=.*): taken over" "$E"
then
	ok "--resume takes over the lock the lost session left, and says so"
else
	not_ok "no stale-lock note"; show "$E"
fi

# ---------------------------------------------------------------- 2: no banner
echo "# 2: t101-n4 accepts TCP and never sends the SSH banner"
fresh
S=$T/s2
P4=$T/plan4.yaml
plan "$P4" "connect_timeout_s: 4" -- "- { name: t101-n4, role: worker, address: $NET.4 }"
"$PY" - "$NET.4" "$PORT" <<'EOF' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(64)
held = []
while True:
    c, _ = s.accept()
    held.append(c)
EOF
mute=$!
echo "$mute" >>"$SSHT/pids"
wait_listening "$PORT" $NET.4 || echo "# the silent listener did not start"
t0=$(now)
apply "$S" "$P4"
el=$(took "$t0" "$(now)")
keep 2-banner
if [ "$rc" = 1 ] && lt "$el" 15 && valid "$S/state.json"; then
	ok "no banner: apply ends in ${el}s (connect_timeout_s 4), exit 1"
else
	not_ok "no banner (rc $rc, ${el}s)"; show "$O" "$E"
fi
same "$S/state.json" "failed; $ALL3; $ALL3_2; $ALL3_3; t101-n4 lock=unreachable" \
    "no banner: t101-n4 unreachable, the others changed every step"
m=$(msg "$S/state.json" t101-n4 lock)
case $m in
"timeout: no SSH banner from $NET.4 port $PORT within 4s")  ok "no banner: the row says so ($m)" ;;
*) not_ok "no banner: message '$m'" ;;
esac
if grep -q "4 nodes: 3 ok, 1 failed (1 unreachable)" "$O"; then
	ok "no banner: the summary counts it unreachable"
else
	not_ok "no banner: summary"; show "$O"
fi
kill "$mute"
wait "$mute" 2>/dev/null
start_node t101-n4 $NET.4 || exit 1
apply "$S" --resume "$P4"
if [ "$rc" = 0 ] && [ "$(runs t101-n1)" = "base node-exporter extras" ] &&
    [ "$(runs t101-n4)" = "base node-exporter extras" ]; then
	ok "an sshd on t101-n4, --resume: only t101-n4 runs"
else
	not_ok "no banner, --resume (rc $rc)"; show "$O" "$E"
fi
same "$S/state.json" "done; $ALL3; $ALL3_2; $ALL3_3; t101-n4 lock=ok,base=changed,node-exporter=changed,extras=changed" \
    "--resume: state done; the lock row of t101-n4 now ok"
sshd_stop t101-n4

# ---------------------------------------------------------------- 3: stall
echo "# 3: t101-n2's node-exporter prints, then hangs; command_timeout_s 5"
fresh
S=$T/s3
P3=$T/plan3.yaml
plan "$P3" "command_timeout_s: 5"
steer t101-n2 node-exporter.stall
t0=$(now)
apply "$S" "$P3"
el=$(took "$t0" "$(now)")
keep 3-stall
if [ "$rc" = 1 ] && lt "$el" 20 && valid "$S/state.json"; then
	ok "stall: apply ends in ${el}s, exit 1"
else
	not_ok "stall (rc $rc, ${el}s)"; show "$O" "$E"
fi
same "$S/state.json" "failed; $ALL3; t101-n2 base=changed,node-exporter=failed; $ALL3_3" \
    "stall: t101-n2 node-exporter failed, extras not started there; others done"
m=$(msg "$S/state.json" t101-n2 node-exporter)
if [ "$m" = "timeout: still running after 5s" ]; then
	ok "stall: the row says 'timeout: still running after 5s'"
else
	not_ok "stall: message '$m'"
fi
log=$(ls "$S"/runs/*/logs/t101-n2.log)
if grep -q "fault-step: stalling now (stdout)" "$log" &&
    grep -q "node-exporter: stalling now (stderr)" "$log"; then
	ok "stall: what it printed before it hung is in its log"
else
	not_ok "stall: log"; show "$log"
fi
owner=$(cat /run/provision/lock.t101-n2/owner 2>/dev/null)
if [ -n "$owner" ] && [ "$(locks)" = "/run/provision/lock.t101-n2 " ]; then
	ok "stall: t101-n2 keeps its lock (the step may still run there), the others' are released"
else
	not_ok "stall: locks $(locks)"
fi
# The hung process is still on the node (SSH cannot signal it): end it.
kill_sleep "$T/t101-n2/node-exporter.pid"
rm -f "$T/t101-n2/node-exporter.stall"
apply "$S" --resume "$P3"
if [ "$rc" = 0 ] && [ "$(runs t101-n1)" = "base node-exporter extras" ] &&
    [ "$(runs t101-n2)" = "base node-exporter node-exporter extras" ]; then
	ok "stall, --resume: node-exporter and extras of t101-n2 only"
else
	not_ok "stall, --resume (rc $rc; n2: $(runs t101-n2))"; show "$O" "$E"
fi
same "$S/state.json" "done; $ALL3; $ALL3_2; $ALL3_3" "stall, --resume: state done"

# ---------------------------------------------------------------- 4: 100 MB
echo "# 4: t101-n2's base prints 100 MB"
fresh
S=$T/s4
steer t101-n2 base.flood
t0=$(now)
/usr/bin/time -v -o "$T/time4" "$PROVISION" apply --templates "$TPL" \
    --state-dir "$S" "$P" >"$O" 2>"$E"
rc=$?
el=$(took "$t0" "$(now)")
rss=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$T/time4")
if [ "$rc" = 0 ] && [ -n "$rss" ] && [ "$rss" -lt "$RSS_LIMIT" ]; then
	ok "100 MB: exit 0 in ${el}s, peak RSS ${rss} KiB (< $RSS_LIMIT)"
else
	not_ok "100 MB (rc $rc, rss ${rss:-?} KiB)"; show "$O" "$E" "$T/time4"
fi
same "$S/state.json" "done; $ALL3; $ALL3_2; $ALL3_3" "100 MB: every row changed"
log=$(ls "$S"/runs/*/logs/t101-n2.log)
lines=$(grep -c "^fault-step flood: a hundred megabytes" "$log")
size=$(stat -c %s "$log")
# 100000000 bytes of 65-byte lines: 1538461 whole lines and 35 bytes more,
# then the result on a line of its own
if [ "$size" -gt 100000000 ] && [ "$lines" = 1538461 ] &&
    grep -q "^fault-step flood: a hundred megabyt\$" "$log" &&
    grep -q "^=== base: changed (" "$log"; then
	ok "100 MB: all of it in t101-n2's log ($size bytes), then the result line"
else
	not_ok "100 MB: log has $size bytes, $lines lines"
fi
rm -rf "$S"

# ---------------------------------------------------------------- 5: disk full
echo "# 5: the state folder on a 256 KiB tmpfs, filled up"
fresh
mkdir -p "$FULL"
if mount -t tmpfs -o size=256k t101 "$FULL" 2>"$T/mount.err"; then
	S=$FULL/s
	steer t101-n2 base.fail "planned failure"
	apply "$S" "$P"
	same "$S/state.json" "failed; $ALL3; t101-n2 base=failed; $ALL3_3" \
	    "full disk: a first run (t101-n2 fails) saved its state"
	# Again; t101-n2's base now fills the disk (then takes a second,
	# so that its result is saved at once and not with the next one).
	rm -f "$T/t101-n2/base.fail"
	steer t101-n2 base.fill "$FULL/filler"
	steer t101-n2 base.sleep 1
	apply "$S" --resume "$P"
	keep 5-full
	cant="cannot write state '$S/state.json': No space left on device"
	if [ "$rc" = 1 ] &&
	    [ "$(grep -c "^$cant: stopping, no new step starts (make room, then run again with --resume)$" "$E")" = 1 ] &&
	    [ "$(tail -n 1 "$E")" = "provision apply: $cant" ]; then
		ok "full disk: exit 1; the user is told once, and why it stops"
	else
		not_ok "full disk (rc $rc)"; show "$O" "$E"
	fi
	# The last save that worked: this run under way, before the step
	# that filled the disk ended.
	if [ "$(summary "$S/state.json")" = "running; $ALL3; t101-n2 base=failed; $ALL3_3" ] &&
	    [ "$(cd "$S" && echo *)" = "runs state.json" ]; then
		ok "full disk: the state file is the last good one, whole; no temporary left"
	else
		not_ok "full disk: state $(summary "$S/state.json"); files: $(cd "$S" && echo *)"
	fi
	if grep -q "t101-n2 *base *changed" "$O" &&
	    [ "$(runs t101-n2)" = "base base" ] && [ "$(runs t101-n1)" = "base node-exporter extras" ]
	then
		ok "full disk: the running step finished (the user sees it), no new one started"
	else
		not_ok "full disk: steps (n2: $(runs t101-n2))"; show "$O"
	fi
	rm -f "$FULL/filler" "$T/t101-n2/base.fill" "$T/t101-n2/base.sleep"
	apply "$S" --resume "$P"
	if [ "$rc" = 0 ] && [ "$(runs t101-n1)" = "base node-exporter extras" ] &&
	    [ "$(runs t101-n2)" = "base base base node-exporter extras" ]
	then
		ok "space freed, --resume: t101-n2's steps again, the others not"
	else
		not_ok "full disk, --resume (rc $rc; n2: $(runs t101-n2))"; show "$O" "$E"
	fi
	same "$S/state.json" "done; $ALL3; t101-n2 base=ok,node-exporter=changed,extras=changed; $ALL3_3" \
	    "--resume: state done; t101-n2 base ok (the unrecorded run had done it)"
	umount "$FULL"
else
	echo "ok $((T_N + 1)) # SKIP cannot mount a tmpfs: $(cat "$T/mount.err")"
	T_N=$((T_N + 1)); T_PASS=$((T_PASS + 1))
fi

# ---------------------------------------------------------------- 6: signals
for sig in INT TERM; do
	echo "# 6: SIG$sig while every node's base step runs"
	fresh
	S=$T/s6$sig
	for n in $NODES; do steer "$n" base.sleep 2; done
	apply_bg "$S" "$P"
	for n in $NODES; do wait_file "$T/$n/base.started" 10; done
	kill -"$sig" "$apid"
	wait "$apid"
	rc=$?
	keep "6-$sig"
	if [ "$rc" = 1 ] &&
	    grep -q "(interrupted: run again with --resume)$" "$O"; then
		ok "SIG$sig: exit 1, the summary says to run again with --resume"
	else
		not_ok "SIG$sig (rc $rc)"; show "$O" "$E"
	fi
	same "$S/state.json" "interrupted; t101-n1 base=changed; t101-n2 base=changed; t101-n3 base=changed" \
	    "SIG$sig: running steps finished, no new one started, state 'interrupted'"
	no_locks "SIG$sig: the node locks are released"
	for n in $NODES; do rm -f "$T/$n/base.sleep"; done
	apply "$S" --resume "$P"
	if [ "$rc" = 0 ] && [ "$(runs t101-n1)" = "base node-exporter extras" ] &&
	    [ "$(runs t101-n3)" = "base node-exporter extras" ]; then
		ok "SIG$sig, --resume: only the steps not yet run"
	else
		not_ok "SIG$sig, --resume (rc $rc)"; show "$O" "$E"
	fi
	same "$S/state.json" "done; $ALL3; $ALL3_2; $ALL3_3" "SIG$sig, --resume: state done"
done

echo "# 6: two SIGINTs: the second ends provision at once"
fresh
S=$T/s6twice
for n in $NODES; do steer "$n" base.sleep 3; done
apply_bg "$S" "$P"
for n in $NODES; do wait_file "$T/$n/base.started" 10; done
kill -INT "$apid"
delivered "$apid"
t0=$(now)
kill -INT "$apid"
wait "$apid"
rc=$?
el=$(took "$t0" "$(now)")
if [ "$rc" = 130 ] && lt "$el" 2 && valid "$S/state.json" &&
    [ "$(summary "$S/state.json")" = running ]; then
	ok "second SIGINT: gone in ${el}s (exit 130); state valid, still 'running'"
else
	not_ok "second SIGINT (rc $rc, ${el}s): $(summary "$S/state.json")"; show "$O" "$E"
fi
# Its steps go on on the nodes; let them end before resuming.
for n in $NODES; do wait_file "$T/$n/base.done" 10; rm -f "$T/$n/base.sleep"; done
apply "$S" --resume "$P"
if [ "$rc" = 0 ] && [ "$(grep -c 'stale: the apply that held it is gone' "$E")" = 3 ]; then
	ok "after two SIGINTs, --resume takes over the 3 stale locks and completes"
else
	not_ok "after two SIGINTs, --resume (rc $rc)"; show "$O" "$E"
fi
same "$S/state.json" "done; t101-n1 base=ok,node-exporter=changed,extras=changed; t101-n2 base=ok,node-exporter=changed,extras=changed; t101-n3 base=ok,node-exporter=changed,extras=changed" \
    "after two SIGINTs, --resume: state done (base ok: the nodes had finished it)"

# ---------------------------------------------------------------- 7: locks
echo "# 7: kill -9 provision in the middle of a run"
fresh
S=$T/s7
for n in $NODES; do steer "$n" base.sleep 2; done
apply_bg "$S" "$P"
for n in $NODES; do wait_file "$T/$n/base.started" 10; done
kill -9 "$apid"
{ wait "$apid"; } 2>/dev/null
owner=$(cat /run/provision/lock.t101-n2/owner 2>/dev/null)
case $owner in
"run="*" host=$(uname -n) pid=$apid since="*) ok "kill -9: t101-n2's lock stays ($owner)" ;;
*) not_ok "kill -9: lock owner '$owner'" ;;
esac
if [ "$(summary "$S/state.json")" = running ]; then
	ok "kill -9: the state file is valid JSON, status 'running'"
else
	not_ok "kill -9: state $(summary "$S/state.json")"
fi
for n in $NODES; do wait_file "$T/$n/base.done" 10; rm -f "$T/$n/base.sleep"; done
apply "$S" --resume "$P"
if [ "$rc" = 0 ] && [ "$(grep -c 'stale: the apply that held it is gone' "$E")" = 3 ] &&
    grep -q "^t101-n2: stale: the apply that held it is gone; lock (run=[^ ]* host=$(uname -n) pid=$apid since=[0-9]*): taken over$" "$E"
then
	ok "a new apply takes over the dead apply's lock, with a note"
else
	not_ok "stale lock (rc $rc)"; show "$O" "$E"
fi
OKCH="base=ok,node-exporter=changed,extras=changed"
same "$S/state.json" "done; t101-n1 $OKCH; t101-n2 $OKCH; t101-n3 $OKCH" \
    "after the take-over: state done (base ok: the nodes had finished it)"
no_locks "the locks are released at the end"

echo "# 7: a live apply's lock on this host, and a lock from another host"
mkdir -p -m 0700 /run/provision
mkdir /run/provision/lock.t101-n3
echo "run=20261130T000000Z-$$ host=$(uname -n) pid=$$ since=1764460800" \
    >/run/provision/lock.t101-n3/owner
foreign="run=20260101T000000Z-4242 host=elsewhere.example pid=4242 since=1767225600"
mkdir /run/provision/lock.t101-n2
echo "$foreign" >/run/provision/lock.t101-n2/owner
rm -f "$T"/t101-n*/runs
apply "$S" "$P"
keep 7-locked
if [ "$rc" = 1 ] && [ "$(runs t101-n1)" = "base node-exporter extras" ] &&
    [ -z "$(runs t101-n2)" ] && [ -z "$(runs t101-n3)" ]; then
	ok "locked nodes stop there; the free node runs"
else
	not_ok "locks held (rc $rc)"; show "$O" "$E"
fi
m=$(msg "$S/state.json" t101-n2 lock)
if [ "$m" = "locked by another apply ($foreign): wait for it, or if it died on another machine run with --break-lock" ]; then
	ok "foreign lock: the row names run, host and --break-lock"
else
	not_ok "foreign lock: message '$m'"
fi
m=$(msg "$S/state.json" t101-n3 lock)
case $m in
"locked by another apply (run=20261130T000000Z-$$ host=$(uname -n) pid=$$ "*) ok "a live apply's lock on this host is not taken over" ;;
*) not_ok "live lock: message '$m'" ;;
esac
if [ "$(cat /run/provision/lock.t101-n2/owner)" = "$foreign" ]; then
	ok "the foreign lock is left as it was"
else
	not_ok "foreign lock touched"
fi
rm -rf /run/provision/lock.t101-n3
apply "$S" --break-lock "$P"
if [ "$rc" = 0 ] &&
    grep -q "^t101-n2: breaking the lock ($foreign): taken over$" "$E" &&
    [ "$(runs t101-n2)" = "base node-exporter extras" ]; then
	ok "--break-lock takes the foreign lock, says whose it was, and runs"
else
	not_ok "--break-lock (rc $rc)"; show "$O" "$E"
fi
ALLOK="base=ok,node-exporter=ok,extras=ok"
same "$S/state.json" "done; t101-n1 $ALLOK; t101-n2 $ALLOK,lock=ok; t101-n3 $ALLOK,lock=ok" \
    "--break-lock: state done, the lock rows ok again"
no_locks "no lock left"

# ---------------------------------------------------------------- 8: max-fail
echo "# 8: --max-fail 0, t101-n2 fails its first step"
fresh
S=$T/s8
steer t101-n1 base.sleep 2
steer t101-n3 base.sleep 2
steer t101-n2 base.fail "planned failure"
# The others start their base before t101-n2 fails: each node's first
# step follows its own lock, so without this one could still be locking
# and, rightly, never start.
steer t101-n2 base.await "$(printf 't101-n1/base\nt101-n3/base')"
apply "$S" --max-fail 0 "$P"
keep 8-maxfail
if [ "$rc" = 1 ] &&
    grep -q "^1 node failed, more than --max-fail 0: stopping$" "$E" &&
    grep -q "(stopped: --max-fail reached)$" "$O"; then
	ok "--max-fail 0: exit 1, 'stopping', and the summary says why"
else
	not_ok "--max-fail 0 (rc $rc)"; show "$O" "$E"
fi
same "$S/state.json" "stopped; t101-n1 base=changed; t101-n2 base=failed; t101-n3 base=changed" \
    "--max-fail 0: running steps finished, none started after; state 'stopped'"
m=$(msg "$S/state.json" t101-n2 base)
if [ "$m" = "exit 1: base: planned failure" ]; then
	ok "the failed row gives the step's reason"
else
	not_ok "failed row: '$m'"
fi
no_locks "a node whose step failed (its session fine) releases its lock"
rm -f "$T"/t101-n*/base.sleep "$T/t101-n2/base.fail"
apply "$S" --resume "$P"
if [ "$rc" = 0 ] && [ "$(runs t101-n1)" = "base node-exporter extras" ] &&
    [ "$(runs t101-n2)" = "base base node-exporter extras" ]; then
	ok "--max-fail, --resume: the rest runs"
else
	not_ok "--max-fail, --resume (rc $rc)"; show "$O" "$E"
fi
same "$S/state.json" "done; $ALL3; $ALL3_2; $ALL3_3" "--max-fail, --resume: state done"

# ---------------------------------------------------------------- 9: plan values
echo "# 9: shell metacharacters in plan values"
PWNED=/tmp/pwned-t101-$$
rm -f "$PWNED"
# bad KEY VALUE EXPECTED-ERROR
bad() {
	P9=$T/plan9.yaml
	plan "$P9"
	case $1 in
	domain) sed -i "s|domain: t101.internal|domain: $2|" "$P9" ;;
	node) sed -i "s|name: t101-n1,|name: $2,|" "$P9" ;;
	extras) sed -i "s|extras: \[ python3 \]|extras: [ python3, $2 ]|" "$P9" ;;
	user) sed -i "s|user: root|user: $2|" "$P9" ;;
	esac
	apply "$T/s9" "$P9"
	if [ "$rc" = 2 ] && [ "$(cat "$E")" = "$P9:$3" ] && [ ! -s "$O" ] &&
	    [ ! -e "$T/s9" ] && [ ! -e "$PWNED" ]; then
		ok "$1 $2: rejected at load, nothing run"
	else
		not_ok "$1 $2 (rc $rc)"; show "$O" "$E"
	fi
}
bad domain "\"x;touch $PWNED\"" \
    "2:32: 'domain' is not a valid host name: 'x;touch $PWNED' (RFC 1123: letters, digits and '-', labels of at most 63 characters, not starting or ending with '-')"
bad node '"n1;touch '"$PWNED"'"' \
    "14:13: 'name' is not a hostlist of node names: 'n1;touch $PWNED' (write it like 'gpu[01-08],head-01')"
bad extras "\"\$(touch $PWNED)\"" \
    "21:22: 'extras' is not a package name: '\$(touch $PWNED)' (use letters, digits, '.', '_', '+' and '-' only, not starting with '-' or '.')"
if [ ! -e "$PWNED" ]; then
	ok "$PWNED never appears"
else
	not_ok "$PWNED exists"; rm -f "$PWNED"
fi

# ---------------------------------------------------------------- 10: broken shell
# Every step runs in a subshell of the one shell a node's session drives,
# which holds lib.sh: a lib.sh with a syntax error is refused before any
# node is touched, and a step with one fails alone.
echo "# 10: a template the shell cannot parse"
fresh
BAD=$T/tpl-bad
rm -rf "$BAD"
cp -rL "$TPL" "$BAD"
printf '\nif then fi\n' >>"$BAD/lib.sh"
"$PROVISION" apply --templates "$BAD" --state-dir "$T/s10a" "$P" >"$O" 2>"$E"
rc=$?
if [ "$rc" = 2 ] && grep -q "^provision apply: $BAD/lib.sh: the shell refuses it: .*Syntax error" "$E" &&
    [ -z "$(locks)" ] && [ ! -s "$T/t101-n1/runs" ]; then
	ok "lib.sh that sh -n refuses: exit 2, the shell's words, no node touched"
else
	not_ok "broken lib.sh (rc $rc)"; show "$O" "$E"
fi
cp -L "$TPL/lib.sh" "$BAD/lib.sh"
printf '\ncase x in\n' >>"$BAD/node-exporter.sh"
fresh
S=$T/s10b
"$PROVISION" apply --templates "$BAD" --state-dir "$S" "$P" >"$O" 2>"$E"
rc=$?
keep 10-badstep
m=$(msg "$S/state.json" t101-n2 node-exporter)
if [ "$rc" = 1 ]; then
	ok "a step the shell cannot parse: exit 1"
else
	not_ok "a step the shell cannot parse (rc $rc)"; show "$O" "$E"
fi
same "$S/state.json" "failed; t101-n1 base=changed,node-exporter=failed; t101-n2 base=changed,node-exporter=failed; t101-n3 base=changed,node-exporter=failed" \
    "  ... that step failed on every node, the one before it ran, none after"
case $m in
*rror*) ok "  ... the row gives the shell's error ($m)" ;;
*) not_ok "  ... the row's message: '$m'" ;;
esac
no_locks "  ... and the session went on: every lock released"

done_testing
